"""Heat's per-resource update decision for one property change, as a pure function of the type's schema.

:func:`decide_update` answers "what does Heat do with this resource when its properties go from ``old`` to
``new``": nothing, an in-place update (possibly a destructive rebuild), a replacement, or a failure. It mirrors
``Resource._needs_update`` and ``update_template_diff_properties`` (heat/engine/resource.py) in their order:

1. a type that never updates (``OS::Heat::None``) → no-op;
2. ``always_replace`` (``needs_replace``, e.g. Port ``replacement_policy: REPLACE_ALWAYS``) → replace;
3. no top-level property differs → no-op (set-like lists compare as multisets, defaults applied);
4. a changed ``immutable`` property → error (Heat raises NotSupported; nothing is replaced);
5. a type replace rule (``needs_replace_with_prop_diff``) → replace;
6. a changed property that is not ``update_allowed`` → replace;
7. an update check (``handle_update`` refusals such as a volume shrink) → error — only reached when the
   resource would be updated in place, as in Heat (a shrink together with a replacing change just replaces);
8. a rebuild rule → in-place update that rebuilds (root disk wiped);
9. otherwise → in-place update of the changed properties.

Type changes, FAILED resources and ``--replace`` requests are the planner's (they need no schema).
A new value holding an :class:`~hotc.values.Unknown` counts as changed and is listed in ``unknown``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hotc.model import model
from hotc.providers.base import PropSchema, ResourceType
from hotc.providers.validation import apply_defaults
from hotc.values import Unknown, contains_unknown

NOOP = "no-op"
UPDATE = "update"
REPLACE = "replace"
ERROR = "error"


@model
class UpdateDecision:
    kind: str  # no-op | update | replace | error
    changed: tuple[str, ...] = ()  # top-level properties that differ or may differ, sorted
    unknown: tuple[str, ...] = ()  # the changed ones whose new value is known only after apply
    replace_paths: tuple[str, ...] = ()  # property paths forcing the replacement
    rebuild: bool = False  # an in-place update that rebuilds the server (root disk wiped)
    rebuild_paths: tuple[str, ...] = ()
    errors: tuple[tuple[str, str], ...] = ()  # (path, message) when kind is "error"
    reasons: tuple[str, ...] = ()  # human sentences for replace / rebuild / error


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def values_equal(prop: PropSchema | None, a: Any, b: Any) -> bool:
    """Equality as Heat's diff sees it, except that lists marked ``set_like`` ignore order (also nested)."""
    if prop is None:
        return bool(a == b)
    if prop.type == "list" and isinstance(a, list) and isinstance(b, list):
        item = prop.item
        if prop.set_like:
            if len(a) != len(b):
                return False
            left = sorted(_canonical(_normal(item, x)) for x in a)
            right = sorted(_canonical(_normal(item, x)) for x in b)
            return left == right
        return len(a) == len(b) and all(values_equal(item, x, y) for x, y in zip(a, b, strict=True))
    if prop.type == "map" and prop.schema is not None and isinstance(a, Mapping) and isinstance(b, Mapping):
        keys = set(a) | set(b)
        return all(values_equal(prop.schema.get(k), a.get(k), b.get(k)) for k in keys)
    return bool(a == b)


def _normal(prop: PropSchema | None, value: Any) -> Any:
    """A canonical form where nested set-like lists are sorted, for multiset comparison."""
    if prop is None:
        return value
    if prop.type == "list" and isinstance(value, list):
        items = [_normal(prop.item, v) for v in value]
        return sorted(items, key=_canonical) if prop.set_like else items
    if prop.type == "map" and prop.schema is not None and isinstance(value, Mapping):
        return {k: _normal(prop.schema.get(k), v) for k, v in value.items()}
    return value


def changed_properties(
    rtype: ResourceType, old: Mapping[str, Any], new: Mapping[str, Any]
) -> tuple[set[str], set[str]]:
    """(changed, unknown): top-level names whose values differ, and the subset whose new value holds an Unknown.
    ``old``/``new`` should have defaults applied (:func:`~hotc.providers.validation.apply_defaults`)."""
    changed: set[str] = set()
    unknown: set[str] = set()
    for key in set(old) | set(new):
        after = new.get(key)
        if isinstance(after, Unknown) or contains_unknown(after):
            changed.add(key)
            unknown.add(key)
        elif not values_equal(rtype.properties.get(key), old.get(key), after):
            changed.add(key)
    return changed, unknown


def decide_update(
    rtype: ResourceType,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    defaults_applied: bool = False,
) -> UpdateDecision:
    """What Heat does when this resource's resolved properties go from ``old`` (state) to ``new`` (desired)."""
    if not defaults_applied:
        old, new = apply_defaults(rtype, old), apply_defaults(rtype, new)
    if rtype.never_updates:
        return UpdateDecision(NOOP)
    if rtype.always_replace is not None:
        reason = rtype.always_replace(new)
        if reason:
            diff, maybe = changed_properties(rtype, old, new)
            return UpdateDecision(REPLACE, tuple(sorted(diff)), tuple(sorted(maybe)), (), reasons=(reason,))
    if old == new:
        return UpdateDecision(NOOP)  # fast path (an Unknown never equals a value from state)
    changed_set, unknown_set = changed_properties(rtype, old, new)
    if not changed_set:
        return UpdateDecision(NOOP)
    changed = tuple(sorted(changed_set))
    unknown = tuple(sorted(unknown_set))

    immutable = [k for k in changed if k in rtype.immutable]
    if immutable:
        errs = tuple(
            (k, f"property {k} is immutable: it cannot be changed once the resource exists")
            for k in immutable
        )
        return UpdateDecision(ERROR, changed, unknown, errors=errs, reasons=tuple(m for _, m in errs))

    hits = [hit for rule in rtype.replace_rules for hit in rule(old, new)]
    not_updatable = [k for k in changed if k not in rtype.update_allowed]
    if hits or not_updatable:
        paths = tuple(dict.fromkeys([p for p, _ in hits] + not_updatable))
        reasons = tuple(m for _, m in hits) + tuple(
            f"{k} cannot be updated in place"
            + (" (its new value is known only after apply)" if k in unknown_set else "")
            for k in not_updatable
        )
        return UpdateDecision(REPLACE, changed, unknown, replace_paths=paths, reasons=reasons)

    errs = tuple(hit for check in rtype.update_checks for hit in check(old, new))
    if errs:
        return UpdateDecision(ERROR, changed, unknown, errors=errs, reasons=tuple(m for _, m in errs))

    rebuilds = [hit for rule in rtype.rebuild_rules for hit in rule(old, new)]
    if rebuilds:
        return UpdateDecision(
            UPDATE,
            changed,
            unknown,
            rebuild=True,
            rebuild_paths=tuple(dict.fromkeys(p for p, _ in rebuilds)),
            reasons=tuple(m for _, m in rebuilds),
        )
    return UpdateDecision(UPDATE, changed, unknown)
