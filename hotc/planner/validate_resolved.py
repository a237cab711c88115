"""Property validation on resolved values: what Heat's ``Properties.validate`` finds when it creates or updates
a resource (``with_value=True``: the values the template's functions give, checked against the type's schema),
and the type's cross-property rules (Heat's ``validate`` overrides, e.g. ``min_adjustment_step`` only with a
``percent_change_in_capacity`` adjustment).

The front end checks what the template writes as literals (:func:`hotc.providers.validation.
validate_property_exprs`); a value a function gives (``get_param``, ``if``, ``str_replace``, ``get_attr`` of a
resource that already exists, ...) is known only once the planner resolves it. :func:`check_resolved` checks
those values for every resource the plan creates, replaces or updates, where the template writes them
(FILE:LINE:COL of the function, the property path in the message), so that ``hotc plan`` refuses what Heat's
create would refuse. Parts known only after apply (Unknown) are skipped here; :func:`apply_problems` checks
the fully resolved properties just before the driver call, so apply never sends a request Heat would not.

Heat's create pre-flight skips a property whose value depends on a resource not created yet and checks it
when that resource's create starts; the plan's Unknowns are that same split. Resources the plan leaves alone
are not checked (apply does not touch them), nor those adopted (``external_id``, ``--import``: Heat does not
validate an adopted resource). Values derived from hidden parameters are never shown in the messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotc.errors import Diagnostic, Pos, error
from hotc.parser.api import (
    Expr,
    ListExpr,
    Literal,
    MapExpr,
    Resource,
    YaqlFailure,
    evaluate_yaql,
    subexpressions,
)
from hotc.parser.api import functions as F
from hotc.planner.alarm_actions import named_actions
from hotc.planner.desired import DesiredStack
from hotc.planner.plan import Action, ResourceChange
from hotc.planner.unavailable_attributes import unavailable_reads
from hotc.providers.base import ResourceType
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_resolved_values

SchemaLookup = Callable[[str], ResourceType | None]

_CHECKED = (Action.CREATE, Action.REPLACE, Action.UPDATE)
_UNSEEN: Any = object()


def properties_expr(desired: DesiredStack, address: str) -> Expr | None:
    """The IR of the properties of the resource at ADDRESS as its template writes them (a group member's:
    the group's ``resource_def``/``resource`` properties), or None when the template writes none."""
    res = desired.resources.get(address)
    if res is None:
        return None
    scope = desired.scopes.get(res.scope)
    member = scope.members.get(res.name) if scope is not None else None
    resource = member.resource if member is not None else None
    if resource is None:
        return None
    props: Expr | None = resource.properties
    if res.group is not None:  # a group member: resource_def / resource -> properties
        inner = None
        if isinstance(props, MapExpr):
            inner = props.get("resource_def") or props.get("resource")
        props = inner.get("properties") if isinstance(inner, MapExpr) else None
    return props


def resource_pos(desired: DesiredStack, address: str) -> Pos | None:
    """Where the template declares the resource at ADDRESS."""
    res = desired.resources.get(address)
    if res is None:
        return None
    scope = desired.scopes.get(res.scope)
    member = scope.members.get(res.name) if scope is not None else None
    resource = member.resource if member is not None else None
    return (resource.pos if resource is not None else None) or res.pos


def path_pos(props: Expr | None, path: str) -> Pos | None:
    """Where PROPS writes the part at PATH ("networks.0.port"): the deepest expression the template writes
    on the way (a function's position when a function gives the part), None when PROPS has no such key."""
    expr: Expr | None = props
    found: Pos | None = None
    for i, step in enumerate(path.split(".")):
        if isinstance(expr, MapExpr):
            expr = expr.get(step)
        elif isinstance(expr, ListExpr) and i > 0 and step.isdigit() and int(step) < len(expr.items):
            expr = expr.items[int(step)]
        else:
            break
        if expr is None:
            break
        found = getattr(expr, "pos", None) or found
    return found


def _has_call(expr: Expr) -> bool:
    """Whether a function call is anywhere in EXPR."""
    if type(expr) is Literal:
        return False
    stack: list[Any] = [expr]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is Literal:
            continue
        if t is ListExpr:
            stack.extend(e.items)
        elif t is MapExpr:
            stack.extend(v for _, v in e.items)
        elif isinstance(e, Literal):
            continue
        elif isinstance(e, ListExpr):
            stack.extend(e.items)
        elif isinstance(e, MapExpr):
            stack.extend(v for _, v in e.items)
        else:
            return True
    return False


def resolved_keys(props: Expr | None, values: Mapping[str, Any], member: bool) -> list[str]:
    """The top-level properties whose values only resolution tells: those a function gives (anywhere inside),
    every one when the properties as a whole come from a function, and every one of a group member (its
    definition is the group's, with the index substituted)."""
    if member or not isinstance(props, MapExpr):
        return list(values)
    out = []
    for k, e in props.items:
        t = type(e)
        if t is Literal or k not in values:
            continue
        if (t is not ListExpr and t is not MapExpr and not isinstance(e, Literal | ListExpr | MapExpr)) or (
            _has_call(e)
        ):
            out.append(k)  # a function (the common case: found without a walk), or one inside
    return out


def _hidden(address: str, key: str, pos: Pos | None) -> Diagnostic:
    return error(
        f"{address}: property {key}: the value (hidden: it comes from a hidden parameter) is not valid for "
        "this property: Heat refuses it when it creates the resource; check the parameter's value",
        pos,
        code="property",
    )


def _report(
    diags: list[Diagnostic], address: str, type_name: str, hidden: Iterable[str], all_hidden: bool = False
) -> list[Diagnostic]:
    """The diagnostics of a resolved check as the plan shows them: the address first, what to do last, and
    values from hidden parameters never quoted."""
    secret = {p.split(".", 1)[0].split("[", 1)[0] for p in hidden}  # the property holding each hidden path
    out = []
    for d in diags:
        key = _property_of(d.message, type_name)
        if all_hidden or (key is not None and key in secret) or (key is None and secret):
            out.append(_hidden(address, key or "(several)", d.pos))
            continue
        message = d.message.removeprefix(f"{type_name}: ")
        out.append(
            error(
                f"{address}: {type_name}: {message} (a value the template's functions give: Heat's create "
                "refuses it; fix the value or the parameter that feeds it)",
                d.pos,
                code="property",  # the SARIF rule template/property
            )
        )
    return out


def check_resource(
    desired: DesiredStack,
    change: ResourceChange,
    rtype: ResourceType,
    memo: dict[Any, Any] | None = None,
) -> list[Diagnostic]:
    """The errors in one planned change's resolved properties (see the module docstring). ``memo``: shared
    by the checks of one plan."""
    values = change.after or {}
    address = change.address
    props = properties_expr(desired, address)
    if not values and (props is None or isinstance(props, MapExpr)):
        return []  # nothing given: the front end checked the (empty) literal properties
    member = desired.resources[address].group is not None
    keys = resolved_keys(props, values, member)
    if not keys:
        return []  # every value is a literal: the front end checked them, cross-property rules included

    def pos_at(path: str) -> Pos | None:  # asked only for an error
        return path_pos(props, path) or resource_pos(desired, address)

    diags = validate_resolved_values(rtype, values, keys, pos_at, memo=memo)
    if not diags:
        return []
    return _report(diags, address, rtype.name, change.sensitive_paths, change.after_sensitive)


def check_group(
    resource: Resource,
    type_name: str,
    props: Mapping[str, Any],
    address: str,
    sensitive: Iterable[str] = (),
    schemas: SchemaLookup | None = None,
) -> list[Diagnostic]:
    """The errors in a group's own resolved properties (a ResourceGroup's ``count``, an AutoScalingGroup's
    sizes and their ``min_size <= max_size`` rule, ...), which the planner resolves to expand the group: Heat's
    create pre-flight validates the group as it does any resource (its members are checked as resources)."""
    rtype = (schemas or _registry)(type_name)
    if rtype is None:
        return []
    expr = resource.properties
    keys = resolved_keys(expr, props, False)
    if not keys and (props or isinstance(expr, MapExpr | None)):
        return []

    def pos_at(path: str) -> Pos | None:
        return path_pos(expr, path) or resource.pos

    diags = validate_resolved_values(rtype, props, keys, pos_at)
    return _report(diags, address, type_name, sensitive) if diags else []


def check_update_policy(
    resource: Resource,
    type_name: str,
    policy: Mapping[str, Any],
    address: str,
    schemas: SchemaLookup | None = None,
) -> list[Diagnostic]:
    """The errors in a resolved ``update_policy`` section (``rolling_update.max_batch_size`` from a parameter
    ...): Heat validates it with values, in its template validate as at the create pre-flight. Every key is
    checked (the front end checks the literal ones too; a group has one such section)."""
    rtype = (schemas or _registry)(type_name)
    expr = resource.update_policy
    if rtype is None or not rtype.update_policy or not isinstance(policy, Mapping):
        return []
    keys = list(policy)

    def pos_at(path: str) -> Pos | None:
        return path_pos(expr, path.removeprefix("update_policy.")) or resource.pos

    diags = validate_resolved_values(rtype, policy, keys, pos_at, section="update_policy")
    return _report(diags, address, type_name, ()) if diags else []


def _registry(type_name: str) -> ResourceType | None:
    return get_schema(type_name)


def _property_of(message: str, type_name: str) -> str | None:
    """The top-level property a validation message is about ("property networks.0.port: ..."), if it says."""
    rest = message.removeprefix(f"{type_name}: ")
    for lead in ("property ", "required property ", "unknown key "):
        if rest.startswith(lead):
            return rest[len(lead) :].split(":", 1)[0].split(" ", 1)[0].split(".", 1)[0].rstrip(";")
    return None


def _pos_finder(desired: DesiredStack, address: str) -> Callable[[str], Pos | None]:
    """Where the template writes a property path of the resource at ADDRESS (asked only for an error)."""

    def pos_at(path: str) -> Pos | None:
        return path_pos(properties_expr(desired, address), path) or resource_pos(desired, address)

    return pos_at


def check_resolved(
    desired: DesiredStack, changes: Iterable[ResourceChange], schemas: SchemaLookup
) -> list[Diagnostic]:
    """The errors in the resolved properties of every resource the plan creates, replaces or updates."""
    out: list[Diagnostic] = []
    types: dict[str, ResourceType | None] = {}
    memo: dict[Any, Any] = {}
    # a get_attr can read an attribute hotc cannot give only if some type of the stack declares one: asked once
    # per type instead of walking every resource's properties for get_attr calls
    unavailable = _declares_unavailable(desired, schemas)
    changes = list(changes)
    created = _created_names(desired, changes)
    for change in changes:
        if change.action is Action.CREATE and created:
            out.extend(_yaql_preflight(desired, change, created))
        if change.action not in _CHECKED or change.import_id is not None or change.after is None:
            continue
        if change.address not in desired.resources:
            continue
        rtype = types.get(change.type, _UNSEEN)
        if rtype is _UNSEEN:
            rtype = types[change.type] = schemas(change.type)
        if rtype is None or (rtype.accepts_any_properties and not rtype.properties):
            continue
        out.extend(check_resource(desired, change, rtype, memo))
        if unavailable:
            out.extend(unavailable_reads(desired, change, properties_expr(desired, change.address), schemas))
        if change.type.startswith("OS::Aodh::"):
            out.extend(named_actions(desired, change, _pos_finder(desired, change.address)))
    return out


def _created_names(desired: DesiredStack, changes: list[ResourceChange]) -> set[tuple[str, str]]:
    """(scope, name) of the plain resources the plan creates: Heat's INIT resources at its create pre-flight."""
    out: set[tuple[str, str]] = set()
    for c in changes:
        res = desired.resources.get(c.address)
        if c.action is Action.CREATE and res is not None and res.group is None:
            out.add((res.scope, res.name))
    return out


def _yaql_preflight(
    desired: DesiredStack, change: ResourceChange, created: set[tuple[str, str]]
) -> list[Diagnostic]:
    """Heat's create pre-flight (``Resource.validate``: ``Properties.validate`` resolves every property, and
    skips only the schema check of one that depends on a resource not created yet) evaluates a yaql whose
    data reads ``get_attr`` of such a resource with that attribute as null: an expression that fails on null
    fails the stack's create ("Property error"). Checked where the data is literals and such get_attr calls
    only (another function over them gives Heat a value hotc does not know here)."""
    res = desired.resources.get(change.address)
    if res is None or res.group is not None:
        return []
    out: list[Diagnostic] = []
    for expr in subexpressions(properties_expr(desired, change.address)):
        if not isinstance(expr, F.Yaql) or not isinstance(expr.expression, Literal):
            continue
        text = expr.expression.value
        if not isinstance(text, str):
            continue
        data = _null_data(expr.data, res.scope, created)
        if data is _UNSEEN:
            continue
        try:
            evaluate_yaql(text, data)
        except YaqlFailure as exc:
            out.append(
                error(
                    f"{change.address}: Property error: the yaql expression fails when the stack is created, "
                    f"where get_attr of a resource not created yet is null (as Heat's create checks it): {exc}",
                    expr.pos,
                )
            )
    return out


def _null_data(expr: Expr, scope: str, created: set[tuple[str, str]]) -> Any:
    """The yaql data as Heat's pre-flight has it, or _UNSEEN when it holds anything but literals and get_attr
    of resources the plan creates (and at least one such get_attr)."""
    found = False

    def conv(e: Expr) -> Any:
        nonlocal found
        if isinstance(e, Literal):
            return e.value
        if isinstance(e, MapExpr):
            return {k: conv(v) for k, v in e.items}
        if isinstance(e, ListExpr):
            return [conv(v) for v in e.items]
        if (
            isinstance(e, F.GetAttr)
            and isinstance(e.resource, Literal)
            and (scope, e.resource.value) in created
        ):
            found = True
            return None
        raise LookupError

    try:
        data = conv(expr)
    except LookupError:
        return _UNSEEN
    return data if found else _UNSEEN


def _declares_unavailable(desired: DesiredStack, schemas: SchemaLookup) -> bool:
    """Whether a resource type of the stack (what a get_attr names: any scope's members) has an attribute
    hotc cannot give (``AttrSchema.unavailable``)."""
    names = {m.type for scope in desired.scopes.values() for m in scope.members.values()}
    for name in names:
        rtype = schemas(name)
        if rtype is not None and any(a.unavailable for a in rtype.attributes.values()):
            return True
    return False


def apply_problems(type_name: str, props: Mapping[str, Any], sensitive: Iterable[str] = ()) -> str | None:
    """Apply, just before the driver call: why Heat would refuse these fully resolved properties (the checks
    of :func:`check_resolved`, on every property, which the plan could not finish while parts were Unknown),
    or None. Values from hidden parameters are not quoted."""
    rtype = _registry(type_name)
    if rtype is None or (rtype.accepts_any_properties and not rtype.properties):
        return None
    diags = validate_resolved_values(rtype, props, list(props), lambda _p: None)
    if not diags:
        return None
    hidden = set(sensitive)
    lines = []
    for d in diags:
        key = _property_of(d.message, type_name)
        if hidden and (key is None or key in hidden):
            lines.append(f"property {key or '(several)'}: the value (hidden) is not valid for this property")
        else:
            lines.append(d.message.removeprefix(f"{type_name}: "))
    return "Heat refuses these properties: " + "; ".join(lines) + " (nothing was sent to the cloud)"


__all__ = [
    "apply_problems",
    "check_group",
    "check_resolved",
    "check_resource",
    "check_update_policy",
    "path_pos",
    "properties_expr",
]
