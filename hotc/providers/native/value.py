"""OS::Heat::Value: holds ``value`` (checked against ``type`` when given); attribute ``value``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.naming import physical_name

TYPES = ("string", "number", "comma_delimited_list", "json", "boolean")


def convert(value: Any, type_: str | None) -> Any:
    """The ``value`` attribute: ``value`` as written, once it has passed the check of ``type_``
    (:func:`check`). Heat's Value reads its attribute through the class's property schema, where ``value`` is
    of any type, so ``type`` only validates: ``value: '5', type: number`` gives the string ``'5'`` (Heat 27,
    the differential oracle's answers)."""
    check(value, type_)
    return value


def check(value: Any, type_: str | None) -> None:
    """Raise when ``value`` does not pass the property schema ``type_`` gives it (None: anything passes):
    Heat's Value maps the parameter type to a property type and validates ``value`` through it
    (``properties.Property`` ``_get_string`` and so on), so no parameter-style conversion happens: a
    comma-delimited string is not a list, a JSON string is not a map, a boolean is ``true``/``false`` only.
    A null value passes (Heat 27: ``value: null, type: number`` gives null)."""
    if type_ is None or value is None:
        return
    if type_ not in TYPES:
        raise HotcError(f"type {type_!r} is not one of {', '.join(TYPES)}")
    if type_ == "string":
        if isinstance(value, str | bool | int):
            return
        raise HotcError(f"Value must be a string; got {value!r}")
    if type_ == "number":
        if isinstance(value, int | float):
            return
        if isinstance(value, str):
            try:
                int(value)
            except ValueError:
                try:
                    float(value)
                except ValueError:
                    raise HotcError(f"value {value!r} is not a number") from None
            return
        raise HotcError(f"value {value!r} is not a number")
    if type_ == "comma_delimited_list":
        if isinstance(value, list):
            return
        raise HotcError(f'"{value!r}" is not a list')
    if type_ == "json":
        if isinstance(value, dict):
            return
        raise HotcError(f'"{value}" is not a map')
    # boolean
    if isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false")):
        return
    raise HotcError(f'"{value}" is not a valid boolean')


class ValueDriver:
    def _attrs(self, props: Mapping[str, Any]) -> dict[str, Any]:
        # an explicit null reaches here as no value (the planner drops null properties): Heat creates the
        # resource; a template that leaves the property out is refused by validate already
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
