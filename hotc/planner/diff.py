"""Property comparison: old (state) vs new (desired) resolved properties of one resource.

Pure functions. Defaults are applied on both sides first; lists Heat treats as sets (``PropSchema.set_like``)
are compared as multisets; a masked hidden value in the state (``{"__sensitive__": "sha256:…"}``) equals a new
value with the same digest; an Unknown equals nothing (it is a change) unless every value it waits on is
*stable* (see :func:`settle_unknowns`). Detailed changed paths come from deepdiff.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from hotc.providers.base import PropSchema, ResourceType
from hotc.providers.validation import apply_defaults as schema_defaults
from hotc.values import Unknown, WaitsOn

MASK_KEY = "__sensitive__"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def masked_digest(value: Any) -> str:
    return (
        "sha256:"
        + hashlib.sha256(
            json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()
        ).hexdigest()
    )


def is_masked(value: Any) -> bool:
    return isinstance(value, dict) and MASK_KEY in value


def apply_defaults(rtype: ResourceType | None, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with schema defaults for absent properties (the schema layer's function when present)."""
    if rtype is None:
        return dict(values)

    return dict(schema_defaults(rtype, dict(values)))


def normalise(value: Any, schema: PropSchema | None) -> Any:
    """A comparable form: set-like lists sorted (recursively by the schema)."""
    if schema is None:
        return value
    if isinstance(value, list):
        items = [normalise(v, schema.item) for v in value]
        if schema.set_like:
            items = sorted(items, key=canonical)
        return items
    if isinstance(value, dict) and schema.schema:
        return {k: normalise(v, schema.schema.get(k)) for k, v in value.items()}
    return value


def values_equal(before: Any, after: Any) -> bool:
    """True when ``before`` (the state's) and ``after`` (the desired) are the same value. Compared without
    recursion: a value may nest as deep as the cloud or the state gives it."""
    work: list[tuple[Any, Any]] = [(before, after)]
    while work:
        b, a = work.pop()
        if is_masked(b) and not isinstance(a, Unknown):
            if b[MASK_KEY] != masked_digest(a):
                return False
            continue
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return False
        if isinstance(b, dict) and isinstance(a, dict):
            if b.keys() != a.keys():
                return False
            work.extend((b[k], a[k]) for k in b)
        elif isinstance(b, list) and isinstance(a, list):
            if len(b) != len(a):
                return False
            work.extend(zip(b, a, strict=True))
        elif type(b) is bool or type(a) is bool:
            if not (type(b) is type(a) and b == a):
                return False
        elif not bool(b == a):
            return False
    return True


def unmask(before: Any, after: Any) -> Any:
    """``before`` with each masked hidden value (``{"__sensitive__": digest}``) replaced by the value at the
    same place in ``after`` when their digests match (so the schema's decision sees equal values)."""
    root: list[Any] = [None]
    work: list[tuple[Any, Any, Any, Any]] = [(before, after, root, 0)]
    while work:
        b, a, holder, key = work.pop()
        if is_masked(b):
            if not isinstance(a, Unknown) and b[MASK_KEY] == masked_digest(a):
                holder[key] = a
            else:
                holder[key] = b
        elif isinstance(b, dict):
            ad = a if isinstance(a, dict) else {}
            out: dict[Any, Any] = {}
            holder[key] = out
            for k, v in b.items():
                out[k] = None  # the key's place, in order; filled below
                work.append((v, ad.get(k), out, k))
        elif isinstance(b, list) and isinstance(a, list) and len(b) == len(a):
            items: list[Any] = [None] * len(b)
            holder[key] = items
            work.extend((x, y, items, i) for i, (x, y) in enumerate(zip(b, a, strict=True)))
        else:
            holder[key] = b
    return root[0]


def settle_unknowns(after: Any, before: Any, stable: Callable[[WaitsOn], bool]) -> Any:
    """Replace each Unknown in ``after`` that waits only on stable values by the value at the same place in
    ``before`` (a value fed by something that does not change cannot change). Others stay Unknown."""
    root: list[Any] = [None]
    work: list[tuple[Any, Any, Any, Any]] = [(after, before, root, 0)]
    while work:
        a, b, holder, key = work.pop()
        if isinstance(a, Unknown):
            settled = b is not None and not isinstance(b, Unknown) and all(stable(w) for w in a.waits_on)
            holder[key] = b if settled else a
        elif isinstance(a, dict):
            bd = b if isinstance(b, dict) else {}
            out: dict[Any, Any] = {}
            holder[key] = out
            for k, v in a.items():
                out[k] = None
                work.append((v, bd.get(k), out, k))
        elif isinstance(a, list):
            b_list = b if isinstance(b, list) and len(b) == len(a) else [None] * len(a)
            items: list[Any] = [None] * len(a)
            holder[key] = items
            work.extend((v, bv, items, i) for i, (v, bv) in enumerate(zip(a, b_list, strict=True)))
        else:
            holder[key] = a
    return root[0]


def changed_keys(
    rtype: ResourceType | None, before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[str]:
    """Top-level property names whose values differ (defaults already applied by the caller)."""
    props = rtype.properties if rtype is not None else {}
    out = []
    for k in sorted(set(before) | set(after)):
        schema = props.get(k)
        b = normalise(before.get(k), schema)
        a = normalise(after.get(k), schema)
        if not values_equal(b, a):
            out.append(k)
    return out


def _plain(value: Any) -> Any:
    """``value`` with each Unknown shown as ``(known after apply)`` (built without recursion)."""
    root: list[Any] = [None]
    work: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while work:
        v, holder, key = work.pop()
        if isinstance(v, Unknown):
            holder[key] = "(known after apply)"
        elif isinstance(v, dict):
            out: dict[Any, Any] = {}
            holder[key] = out
            for k, x in v.items():
                out[k] = None
                work.append((x, out, k))
        elif isinstance(v, list):
            items: list[Any] = [None] * len(v)
            holder[key] = items
            work.extend((x, items, i) for i, x in enumerate(v))
        else:
            holder[key] = v
    return root[0]


#: Past this nesting, changed paths are found by :func:`_deep_paths` (deepdiff recurses per level).
_DEEPDIFF_DEPTH = 100


def _depth(value: Any, stop: int) -> int:
    """How deep lists and mappings nest in ``value``, counted without recursion, up to ``stop``."""
    deepest = 0
    work: list[tuple[Any, int]] = [(value, 1)]
    while work:
        v, d = work.pop()
        if not isinstance(v, dict | list):
            continue
        deepest = max(deepest, d)
        if deepest >= stop:
            break
        work.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _deep_paths(root: str, before: Any, after: Any) -> list[str]:
    """The changed paths of deepdiff's tree view (values and types changed, items added and removed), found
    without recursion, for values nested too deep for deepdiff."""
    out: set[str] = set()
    work: list[tuple[str, Any, Any]] = [(root, before, after)]
    while work:
        path, b, a = work.pop()
        if isinstance(b, dict) and isinstance(a, dict):
            for k in b.keys() | a.keys():
                sub = f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}"
                if k in b and k in a:
                    work.append((sub, b[k], a[k]))
                else:
                    out.add(sub)
        elif isinstance(b, list) and isinstance(a, list):
            for i in range(max(len(b), len(a))):
                if i < len(b) and i < len(a):
                    work.append((f"{path}[{i}]", b[i], a[i]))
                else:
                    out.add(f"{path}[{i}]")
        elif type(b) is not type(a) or b != a:
            out.add(path)
    return sorted(out)


def detail_paths(
    rtype: ResourceType | None, before: Mapping[str, Any], after: Mapping[str, Any], keys: list[str]
) -> list[str]:
    """Dotted paths (``networks[1].port``) of what changed inside the changed keys (deepdiff)."""
    from deepdiff import DeepDiff  # heavy: with pydantic ~0.1 s of start-up, only when a change has detail

    props = rtype.properties if rtype is not None else {}
    paths: list[str] = []
    for k in keys:
        b, a = before.get(k), after.get(k)
        schema = props.get(k)
        if schema is not None and schema.set_like:
            paths.extend(_set_paths(k, b, a))
        elif isinstance(b, dict | list) and isinstance(a, dict | list) and not is_masked(b):
            nb, na = _plain(normalise(b, schema)), _plain(normalise(a, schema))
            if max(_depth(nb, _DEEPDIFF_DEPTH), _depth(na, _DEEPDIFF_DEPTH)) >= _DEEPDIFF_DEPTH:
                paths.extend(_deep_paths(k, nb, na) or [k])
                continue
            dd = DeepDiff(nb, na, view="tree")
            sub = sorted({_path_of(k, item) for items in dd.values() for item in items})
            paths.extend(sub or [k])
        else:
            paths.append(k)
    return paths


def _set_paths(key: str, before: Any, after: Any) -> list[str]:
    """Paths for a list Heat treats as a set. A set has no positions, so item paths are only named when
    each changed item sits at the same index on both sides (then ``rules[1].port_range_min`` reads right);
    otherwise the whole set is named, never an index that would show one side's item on both sides."""
    if (
        not (isinstance(before, list) and isinstance(after, list))
        or len(before) != len(after)
        or is_masked(before)
    ):
        return [key]
    b_plain, a_plain = _plain(before), _plain(after)
    out: list[str] = []
    for i, (bi, ai) in enumerate(zip(b_plain, a_plain, strict=True)):
        if bi == ai:
            continue
        if bi in a_plain or ai in b_plain:  # an item moved rather than changed in place
            return [key]
        # heavy: deepdiff (with pydantic ~0.1 s of start-up) only when a list item moved
        from deepdiff import DeepDiff

        dd = DeepDiff(bi, ai, view="tree")
        out.extend(sorted({_path_of(f"{key}[{i}]", item) for items in dd.values() for item in items}))
    return out or [key]


def _path_of(root: str, item: Any) -> str:
    steps = item.path(output_format="list")
    out = root
    for s in steps:
        out += f"[{s}]" if isinstance(s, int) else f".{s}"
    return out
