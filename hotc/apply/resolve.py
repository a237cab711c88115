"""Values at apply time: a resolver over the live state, and the check that resolved properties keep the
plan's promises (a value known at plan time must not change at apply)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.state.document import StackState
from hotc.values import Unknown

SENSITIVE_MARK = "(sensitive)"


class StateResolver:
    """``get_resource`` / ``get_attr`` answered from the state as it is now (during the apply).

    Names are addresses of the same stack level (``prefix`` is prepended for resources of a nested stack,
    e.g. ``app.``). A resource not yet created (or with no id) answers an Unknown."""

    def __init__(self, state: StackState, prefix: str = "") -> None:
        self._state = state
        self._prefix = prefix

    def _rs(self, name: str) -> Any:
        return self._state.resources.get(self._prefix + name)

    def resource_id(self, name: str) -> Any:
        rs = self._rs(name)
        if rs is None or rs.physical_id is None:
            return Unknown.of(self._prefix + name)
        return rs.physical_id

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        rs = self._rs(name)
        if rs is None or rs.physical_id is None:
            return Unknown.of(self._prefix + name, (attribute, *path) if attribute else path)
        if attribute == "":
            value: Any = dict(rs.attributes)
        elif attribute == "show" and "show" not in rs.attributes:
            value = dict(rs.attributes)
        else:
            value = rs.attributes.get(attribute)
        for step in path:
            if isinstance(value, Mapping):
                value = value.get(step) if not isinstance(step, int) else value.get(str(step))
            elif isinstance(value, list) and isinstance(step, int | str):
                try:
                    value = value[int(step)]
                except (ValueError, IndexError):
                    value = None
            else:
                value = None
        return value


def promise_mismatches(planned: Any, actual: Any, sensitive_paths: tuple[str, ...] = (), path: str = "") -> list[str]:
    """Paths where ``actual`` differs from a value the plan knew (Unknown leaves accept anything;
    sensitive paths, masked in a saved plan, are not compared)."""
    if isinstance(planned, Unknown):
        return []
    if path and (path in sensitive_paths or planned == SENSITIVE_MARK):
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


def _same_number(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )
