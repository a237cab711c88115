"""OS::Heat::Value: holds ``value`` (converted to ``type`` when given); attribute ``value``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.naming import physical_name

TYPES = ("string", "number", "comma_delimited_list", "json", "boolean")


def convert(value: Any, type_: str | None) -> Any:
    """``value`` as the parameter type ``type_`` (None: as is), as Heat's property types convert."""
    if type_ is None:
        return value
    if type_ not in TYPES:
        raise HotcError(f"type {type_!r} is not one of {', '.join(TYPES)}")
    if type_ == "string":
        if isinstance(value, dict | list):
            raise HotcError(f"value {value!r} is not a string")
        if isinstance(value, bool):
            return "true" if value else "false"
        return value if isinstance(value, str) else str(value)
    if type_ == "number":
        if isinstance(value, bool):
            raise HotcError(f"value {value!r} is not a number")
        if isinstance(value, int | float):
            return value
        try:
            return int(str(value))
        except ValueError:
            try:
                return float(str(value))
            except ValueError:
                raise HotcError(f"value {value!r} is not a number") from None
    if type_ == "comma_delimited_list":
        if isinstance(value, list):
            return value
        if isinstance(value, str):
            return [] if value == "" else [v.strip() for v in value.split(",")]
        raise HotcError(f"value {value!r} is not a list")
    if type_ == "json":
        if isinstance(value, dict | list):
            return value
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise HotcError(f"value is not valid JSON: {exc}") from None
        raise HotcError(f"value {value!r} is not a map")
    # boolean
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("true", "t", "on", "y", "yes", "1"):
        return True
    if s in ("false", "f", "off", "n", "no", "0"):
        return False
    raise HotcError(f"value {value!r} is not a boolean")


class ValueDriver:
    def _attrs(self, props: Mapping[str, Any]) -> dict[str, Any]:
        if props.get("value") is None:
            # an explicit null (the planner drops null properties): Heat creates the resource and its value
            # attribute is null; a template that leaves the property out is refused by validate already
            return {"value": None}
        return {"value": convert(props.get("value"), props.get("type"))}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        attrs = self._attrs(props)
        return Outcome(physical_name(ctx.stack_name, ctx.address), attrs)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        return Outcome(physical_id, self._attrs(props))

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        return Outcome(physical_id, self._attrs(new))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        return None

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
