"""Values at apply time: a resolver over the live state, and the check that resolved properties keep the
plan's promises (a value known at plan time must not change at apply)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.planner.api import index_path
from hotc.state.document import StackState
from hotc.state.secrets import is_masked
from hotc.values import Unknown

SENSITIVE_MARK = "(sensitive)"


class StateResolver:
    """An address-keyed resolver (``hotc.planner.resolve.AddressResolver``) over the state as it is now,
    during the apply: ``resource_id(address)`` is the physical id, ``resource_attr(address, attr, path)`` an
    attribute the driver reported. A resource not created yet (no id) answers an Unknown; an attribute a
    created resource does not have is null, as in Heat."""

    def __init__(self, state: StackState) -> None:
        self._state = state

    def resource_id(self, address: str) -> Any:
        rs = self._state.resources.get(address)
        ref = rs.reference_id if rs is not None else None  # the physical id, or a RandomString's value
        if ref is None:
            return Unknown.of(address)
        return ref

    def resource_attr(self, address: str, attribute: str, path: tuple[Any, ...]) -> Any:
        rs = self._state.resources.get(address)
        if rs is None or rs.physical_id is None or rs.in_progress:
            return Unknown.of(address, (attribute, *path) if attribute else tuple(path))
        if attribute == "" or (attribute == "show" and "show" not in rs.attributes):
            value: Any = dict(rs.attributes)
        else:
            value = rs.attributes.get(attribute)
            if is_masked(value):
                return Unknown.of(address, (attribute, *path))  # a secret stored masked: not known here
        return index_path(value, tuple(path), lambda: Unknown.of(address, (attribute, *path)))


def promise_mismatches(
    planned: Any, actual: Any, sensitive_paths: tuple[str, ...] = (), path: str = ""
) -> list[str]:
    """Paths where ``actual`` differs from a value the plan knew (Unknown leaves accept anything;
    sensitive paths, masked in a saved plan, are not compared)."""
    if isinstance(planned, Unknown) or (isinstance(planned, str) and planned == SENSITIVE_MARK):
        return []
    if path and _is_sensitive(path, sensitive_paths):
        return []
    if isinstance(planned, Mapping):
        if not isinstance(actual, Mapping):
            return [path or "(properties)"]
        out: list[str] = []
        for k in sorted(set(planned) | set(actual), key=str):
            sub = f"{path}.{k}" if path else str(k)
            if k not in planned:
                out.append(sub)
            elif k not in actual:
                if planned[k] is not None and not isinstance(planned[k], Unknown):
                    out.append(sub)
            else:
                out.extend(promise_mismatches(planned[k], actual[k], sensitive_paths, sub))
        return out
    if isinstance(planned, list | tuple):
        if not isinstance(actual, list | tuple) or len(actual) != len(planned):
            return [path or "(properties)"]
        out = []
        for i, (p, a) in enumerate(zip(planned, actual, strict=True)):
            out.extend(promise_mismatches(p, a, sensitive_paths, f"{path}[{i}]"))
        return out
    if planned != actual or type(planned) is not type(actual) and not _same_number(planned, actual):
        return [path or "(value)"]
    return []


def _is_sensitive(path: str, sensitive_paths: tuple[str, ...]) -> bool:
    """``path`` is a sensitive path or lies under one (``user_data`` covers ``user_data[0]``, ``a.b``)."""
    return any(path == p or path.startswith(p + ".") or path.startswith(p + "[") for p in sensitive_paths)


def _same_number(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )
