"""The provider schemas' checks for the parser (:class:`hotc.parser.api.TypeChecks`): properties against the
type's property schema, ``get_attr`` names against its attribute schema. The CLI's composition root hands them
to ``load_stack``; the parser itself knows no provider."""

from __future__ import annotations

from collections.abc import Sequence

from hotc.errors import Diagnostic, warning
from hotc.parser.api import Resource, TypeChecks
from hotc.providers.drivers import support_problem
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_property_exprs


def _properties(type_name: str, res: Resource, strict: bool) -> Sequence[Diagnostic]:
    out: list[Diagnostic] = []
    if not strict:  # validate: say now what plan will refuse (plan checks what it would create)
        problem = support_problem(type_name)
        if problem is not None:
            out.append(
                warning(
                    f"{type_name}: hotc cannot create or update this type: {problem} (hotc plan refuses it)",
                    res.type_pos or res.pos,
                    code="unsupported-type",
                )
            )
    rtype = get_schema(type_name)
    if rtype is None or res.external_id is not None:
        return out  # no schema known (names only), or adopted: Heat does not validate it
    return out + list(validate_property_exprs(rtype, res.properties, res.pos, strict=strict))


def _attributes(type_name: str) -> frozenset[str] | None:
    rtype = get_schema(type_name)
    if rtype is None:
        return None  # not a type with a schema: the parser falls back to Heat's attribute names
    if rtype.accepts_any_properties:
        return frozenset()
    return frozenset(rtype.attributes)


def _known(type_name: str) -> bool:
    """A provider type besides Heat's own: a type an installed resource-type plugin declares."""
    return "::" in type_name and get_schema(type_name) is not None


def type_checks() -> TypeChecks:
    """Property and attribute checks of every type hotc has a schema for (built-in and from plugins)."""
    return TypeChecks(properties=_properties, attributes=_attributes, known=_known)


__all__ = ["type_checks"]
