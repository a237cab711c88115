"""A ``get_attr`` of an attribute hotc cannot give (its schema's ``AttrSchema.unavailable`` says why, e.g. a Mistral
workflow's ``alarm_url``) in the properties of a resource the plan creates or updates: an error at the function's
FILE:LINE:COL with that reason, instead of a null sent to the cloud (an alarm whose action would silently be
nothing)."""

from __future__ import annotations

from collections.abc import Callable

from hotc.errors import Diagnostic, error
from hotc.parser.api import Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.parser.api import functions as F
from hotc.planner.desired import DesiredStack
from hotc.planner.plan import ResourceChange
from hotc.providers.base import ResourceType


def _get_attrs(expr: Expr | None) -> list[F.GetAttr]:
    found: list[F.GetAttr] = []
    stack: list[Expr] = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ListExpr):
            stack.extend(node.items)
        elif isinstance(node, MapExpr):
            stack.extend(v for _k, v in node.items)
        elif isinstance(node, FunctionCall):
            if isinstance(node, F.GetAttr):
                found.append(node)
            stack.extend(node.children())
    return found


def unavailable_reads(
    desired: DesiredStack,
    change: ResourceChange,
    props: Expr | None,
    schemas: Callable[[str], ResourceType | None],
) -> list[Diagnostic]:
    """The errors of CHANGE's properties (their IR: ``props``) that read an attribute hotc cannot give."""
    res = desired.resources.get(change.address)
    scope = desired.scopes.get(res.scope) if res is not None else None
    if scope is None:
        return []
    out: list[Diagnostic] = []
    for node in _get_attrs(props):
        rname, attr = node.resource, node.attribute
        if not (isinstance(rname, Literal) and isinstance(attr, Literal)):
            continue
        member = scope.members.get(str(rname.value))
        rtype = schemas(member.type) if member is not None else None
        schema = rtype.attributes.get(str(attr.value)) if rtype is not None else None
        if schema is None or not schema.unavailable:
            continue
        out.append(
            error(
                f"{change.address}: get_attr [{rname.value}, {attr.value}]: {member.type if member else ''} "
                f"attribute {attr.value}: {schema.unavailable}",
                node.pos,
                code="attribute",
            )
        )
    return out
