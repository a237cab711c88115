"""Helpers shared by the type-specific rules (replace, rebuild, update checks, validators).

Rules receive resolved property mappings (the planner passes them with defaults applied, see
:func:`hotc.providers.validation.apply_defaults`) whose values may hold :class:`hotc.values.Unknown`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.values import Unknown, contains_unknown


def changed(old: Mapping[str, Any], new: Mapping[str, Any], key: str) -> bool:
    """Heat's test ``before.get(k) != after.get(k)``; a value not known until apply counts as changed
    (the planner shows it as "known after apply": the rule must assume the worst)."""
    if contains_unknown(new.get(key)):
        return True
    return bool(old.get(key) != new.get(key))


def policy(old: Mapping[str, Any], new: Mapping[str, Any], key: str, default: str) -> str | None:
    """An ``*_update_policy`` value as Heat reads it: the new value, else the old one, else the default.
    None when the new value is not known until apply."""
    value = new.get(key)
    if isinstance(value, Unknown) or contains_unknown(value):
        return None
    if value is None:
        value = old.get(key)
    if value is None or contains_unknown(value):
        return default
    return str(value)


def known(*values: Any) -> bool:
    """True when none of ``values`` is or holds an Unknown."""
    for v in values:
        if contains_unknown(v):
            return False
    return True


def failed_replace_on_status(*statuses: str, missing_status: bool = True) -> Any:
    """A ``failed_replace`` rule: a FAILED resource is replaced when it is gone (or was not read), when its live
    ``status`` is one of ``statuses``, and, when it has no ``status`` field at all, iff ``missing_status``."""
    wanted = frozenset(statuses)

    def rule(live: Mapping[str, Any] | None) -> bool:
        if live is None:
            return True
        if "status" not in live:
            return missing_status
        return live.get("status") in wanted

    return rule
