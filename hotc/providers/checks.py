"""The provider schemas' checks for the parser (:class:`hotc.parser.api.TypeChecks`): properties against the
type's property schema, ``get_attr`` names against its attribute schema. The CLI's composition root hands them
to ``load_stack``; the parser itself knows no provider."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hotc.errors import Diagnostic, warning
from hotc.parser.api import Expr, FunctionCall, ListExpr, Literal, MapExpr, Resource, TypeChecks
from hotc.providers.drivers import support_problem
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_property_exprs, validate_update_policy_exprs


def _properties(
    type_name: str,
    res: Resource,
    strict: bool,
    problems: dict[str, str | None] | None = None,
    clean: dict[tuple[Any, ...], None] | None = None,
) -> Sequence[Diagnostic]:
    """``problems``: what :func:`support_problem` said of each type already asked (one TypeChecks' memo: a
    template of many resources has few types). ``clean``: the :func:`shape` of properties (with the type and
    ``strict``) whose check found nothing (one TypeChecks' memo: properties of the same shape are not checked
    again)."""
    out: list[Diagnostic] = []
    if not strict:  # validate: say now what plan will refuse (plan checks what it would create)
        if problems is None:
            problem = support_problem(type_name)
        elif type_name in problems:
            problem = problems[type_name]
        else:
            problem = problems[type_name] = support_problem(type_name)
        if problem is not None:
            out.append(
                warning(
                    f"{type_name}: hotc cannot create or update this type: {problem} (hotc plan refuses it)",
                    res.type_pos or res.pos,
                    code="unsupported-type",
                )
            )
        out += _service_options(type_name, res)
    rtype = get_schema(type_name)
    if rtype is None or res.external_id is not None:
        return out  # no schema known (names only), or adopted: Heat does not validate it
    found_shape = None if clean is None else shape(res.properties)
    if clean is None or found_shape is None:
        out += validate_property_exprs(rtype, res.properties, res.pos, strict=strict)
    else:
        key = (type_name, strict, found_shape)
        if key not in clean:
            found = validate_property_exprs(rtype, res.properties, res.pos, strict=strict)
            if found:
                out += found
            else:
                if len(clean) >= _CLEAN_LIMIT:
                    clean.clear()
                clean[key] = None
    if rtype.update_policy and res.update_policy is not None:
        # the section's literal values (Heat checks them with values even in template validate); its key names
        # are the loader's to check
        out += [
            d
            for d in validate_update_policy_exprs(rtype, res.update_policy, res.pos)
            if d.code != "unknown-update-policy"
        ]
    return out


#: at most this many shapes are remembered (then the memo starts again)
_CLEAN_LIMIT = 4096

_SHAPE_SCALARS = frozenset({str, int, bool, type(None)})
_CALL = ("call",)


def shape(e: Expr | None) -> tuple[Any, ...] | None:
    """What :func:`validate_property_exprs` looks at in a properties expression, positions left out: the
    literal values with their exact types, the maps' keys in order, the lists, and where a function call is
    (never what it holds: the checks skip a call, known only once evaluated). Two expressions of the same shape
    get the same diagnostics but for their positions (tests/providers/test_checks_memo.py). None when some
    value is not a plain scalar (not remembered)."""
    node: Any = e
    t = type(node)  # exact types (cheaper than isinstance): nothing subclasses Literal, MapExpr or ListExpr
    if t is MapExpr:
        pairs: list[tuple[str, tuple[Any, ...]]] = []
        add = pairs.append
        for k, v in node.items:
            tv = type(v)
            if tv is Literal:  # most values are a literal or a call: no call of shape() for them
                s = _literal_shape(v.value)
            elif tv is not MapExpr and tv is not ListExpr and isinstance(v, FunctionCall):
                s = _CALL
            else:
                s = shape(v)
            if s is None:
                return None
            add((k, s))
        return ("map", tuple(pairs))
    if t is ListExpr:
        items: list[tuple[Any, ...]] = []
        add_item = items.append
        for v in node.items:
            tv = type(v)
            if tv is Literal:
                s = _literal_shape(v.value)
            elif tv is not MapExpr and tv is not ListExpr and isinstance(v, FunctionCall):
                s = _CALL
            else:
                s = shape(v)
            if s is None:
                return None
            add_item(s)
        return ("list", tuple(items))
    if t is Literal:
        return _literal_shape(node.value)
    if isinstance(node, FunctionCall):
        return _CALL
    return ("none",) if node is None else None


def _literal_shape(v: Any) -> tuple[Any, ...] | None:
    vt = type(v)
    if vt in _SHAPE_SCALARS:
        return (vt, v)
    if vt is float:
        return (vt, repr(v))  # -0.0 == 0.0 and nan != nan, but their reprs tell them apart
    return None


#: options naming a service hotc does not have, per type: (property, value) -> what it needs, what to use
_DEPLOY_HINT = (
    "use TEMP_URL_SIGNAL (the server PUTs its outputs to a presigned URL; hotc's default) or NO_SIGNAL"
)
_CONFIG_HINT = "use POLL_TEMP_URL (os-collect-config polls a presigned URL; hotc's default)"
_NEEDS = {
    "CFN_SIGNAL": "Heat's CloudFormation-compatible API (heat-api-cfn)",
    "HEAT_SIGNAL": "Heat's API",
    "ZAQAR_SIGNAL": "the Zaqar messaging service",
    "POLL_SERVER_CFN": "Heat's CloudFormation-compatible API (heat-api-cfn)",
    "POLL_SERVER_HEAT": "Heat's API",
    "ZAQAR_MESSAGE": "the Zaqar messaging service",
}
_DEPLOYMENTS = (
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::StructuredDeployment",
    "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::StructuredDeploymentGroup",
    "OS::Heat::SoftwareDeployments",
    "OS::Heat::StructuredDeployments",
)
_SERVICE_OPTIONS: dict[str, tuple[str, tuple[str, ...], str]] = {
    **{
        t: ("signal_transport", ("CFN_SIGNAL", "HEAT_SIGNAL", "ZAQAR_SIGNAL"), _DEPLOY_HINT)
        for t in _DEPLOYMENTS
    },
    "OS::Heat::DeployedServer": (
        "software_config_transport",
        ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "ZAQAR_MESSAGE"),
        _CONFIG_HINT,
    ),
}


def _service_options(type_name: str, res: Resource) -> list[Diagnostic]:
    """validate: an option the template gives explicitly that needs a service hotc does not have (the plan
    refuses it; given by a function, only the plan can tell)."""
    found = _SERVICE_OPTIONS.get(type_name)
    if found is None or not isinstance(res.properties, MapExpr):
        return []
    prop, values, hint = found
    expr = res.properties.get(prop)
    if not isinstance(expr, Literal) or expr.value not in values:
        return []
    return [
        warning(
            f"{type_name}: {prop} {expr.value} needs {_NEEDS[expr.value]}, which hotc does not have; {hint} "
            "(hotc plan refuses it)",
            expr.pos or res.pos,
            code="unsupported-option",
        )
    ]


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
    problems: dict[str, str | None] = {}
    clean: dict[tuple[Any, ...], None] = {}

    def properties(type_name: str, res: Resource, strict: bool) -> Sequence[Diagnostic]:
        return _properties(type_name, res, strict, problems, clean)

    return TypeChecks(properties=properties, attributes=_attributes, known=_known)


__all__ = ["type_checks"]
