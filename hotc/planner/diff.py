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
    from hotc.providers.validation import apply_defaults as schema_defaults

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
    if is_masked(before) and not isinstance(after, Unknown):
        return bool(before[MASK_KEY] == masked_digest(after))
    if isinstance(after, Unknown) or isinstance(before, Unknown):
        return False
    if isinstance(before, dict) and isinstance(after, dict):
        return before.keys() == after.keys() and all(values_equal(before[k], after[k]) for k in before)
    if isinstance(before, list) and isinstance(after, list):
        return len(before) == len(after) and all(
            values_equal(b, a) for b, a in zip(before, after, strict=True)
        )
    if type(before) is bool or type(after) is bool:
        return type(before) is type(after) and before == after
    return bool(before == after)


def unmask(before: Any, after: Any) -> Any:
    """``before`` with each masked hidden value (``{"__sensitive__": digest}``) replaced by the value at the
    same place in ``after`` when their digests match (so the schema's decision sees equal values)."""
    if is_masked(before):
        if not isinstance(after, Unknown) and before[MASK_KEY] == masked_digest(after):
            return after
        return before
    if isinstance(before, dict):
        a = after if isinstance(after, dict) else {}
        return {k: unmask(v, a.get(k)) for k, v in before.items()}
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [unmask(b, x) for b, x in zip(before, after, strict=True)]
    return before


def settle_unknowns(after: Any, before: Any, stable: Callable[[WaitsOn], bool]) -> Any:
    """Replace each Unknown in ``after`` that waits only on stable values by the value at the same place in
    ``before`` (a value fed by something that does not change cannot change). Others stay Unknown."""
    if isinstance(after, Unknown):
        if before is not None and not isinstance(before, Unknown) and all(stable(w) for w in after.waits_on):
            return before
        return after
    if isinstance(after, dict):
        b = before if isinstance(before, dict) else {}
        return {k: settle_unknowns(v, b.get(k), stable) for k, v in after.items()}
    if isinstance(after, list):
        b_list = before if isinstance(before, list) and len(before) == len(after) else [None] * len(after)
        return [settle_unknowns(v, bv, stable) for v, bv in zip(after, b_list, strict=True)]
    return after


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
    if isinstance(value, Unknown):
        return "(known after apply)"
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def detail_paths(
    rtype: ResourceType | None, before: Mapping[str, Any], after: Mapping[str, Any], keys: list[str]
) -> list[str]:
    """Dotted paths (``networks[1].port``) of what changed inside the changed keys (deepdiff)."""
    from deepdiff import DeepDiff  # with pydantic ~0.1 s of start-up: imported when a change has detail

    props = rtype.properties if rtype is not None else {}
    paths: list[str] = []
    for k in keys:
        b, a = before.get(k), after.get(k)
        schema = props.get(k)
        if schema is not None and schema.set_like:
            paths.extend(_set_paths(k, b, a))
        elif isinstance(b, dict | list) and isinstance(a, dict | list) and not is_masked(b):
            dd = DeepDiff(_plain(normalise(b, schema)), _plain(normalise(a, schema)), view="tree")
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
