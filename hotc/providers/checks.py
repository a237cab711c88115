"""The provider schemas' checks for the parser (:class:`hotc.parser.api.TypeChecks`): properties against the
type's property schema, ``get_attr`` names against its attribute schema. The CLI's composition root hands them
to ``load_stack``; the parser itself knows no provider."""

from __future__ import annotations

from collections.abc import Sequence

from hotc.errors import Diagnostic, warning
from hotc.parser.api import Literal, MapExpr, Resource, TypeChecks
from hotc.providers.drivers import support_problem
from hotc.providers.registry import get_schema
from hotc.providers.validation import validate_property_exprs, validate_update_policy_exprs


def _properties(
    type_name: str, res: Resource, strict: bool, problems: dict[str, str | None] | None = None
) -> Sequence[Diagnostic]:
    """``problems``: what :func:`support_problem` said of each type already asked (one TypeChecks' memo: a
    template of many resources has few types)."""
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
    out += validate_property_exprs(rtype, res.properties, res.pos, strict=strict)
    if rtype.update_policy and res.update_policy is not None:
        # the section's literal values (Heat checks them with values even in template validate); its key names
        # are the loader's to check
        out += [
            d
            for d in validate_update_policy_exprs(rtype, res.update_policy, res.pos)
            if d.code != "unknown-update-policy"
        ]
    return out


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

    def properties(type_name: str, res: Resource, strict: bool) -> Sequence[Diagnostic]:
        return _properties(type_name, res, strict, problems)

    return TypeChecks(properties=properties, attributes=_attributes, known=_known)


__all__ = ["type_checks"]
