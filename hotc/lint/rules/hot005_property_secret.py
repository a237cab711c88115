"""HOT005: a resource property named like a secret (a password, a token, a key) is written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import ANY_TYPE, Level, Outcome, Rule, finding
from hotc.lint.rules._common import literal_secrets, secret_name, secret_origin
from hotc.lint.view import ResourceView
from hotc.parser.api import MapExpr

#: properties a rule of their own reads (they are not reported twice)
OWN_RULES = {
    "OS::Nova::Server": ("admin_pass", "user_data", "personality", "metadata"),
    "OS::Keystone::User": ("password",),
    "OS::Barbican::Secret": ("payload",),
    "OS::Barbican::Order": ("pass_phrase",),
    "OS::Heat::SoftwareConfig": ("config",),
    "OS::Heat::StructuredConfig": ("config",),
    "OS::Heat::CloudConfig": ("cloud_config",),
    "OS::Heat::SoftwareComponent": ("configs",),
    "OS::Heat::SoftwareDeployment": ("input_values",),
    "OS::Heat::StructuredDeployment": ("input_values",),
    "OS::Heat::SoftwareDeploymentGroup": ("input_values",),
    "OS::Heat::StructuredDeploymentGroup": ("input_values",),
}


def check(res: ResourceView) -> Iterator[Outcome]:
    expr = res.properties_expr
    if not isinstance(expr, MapExpr):
        return
    skip = OWN_RULES.get(res.type, ())
    for key, value in expr.items:
        if key in skip:
            continue
        if secret_name(key):
            kind, name = secret_origin(res, value)
            if kind == "literal":
                yield finding(f"{key} is written in clear in the template", res.pos_at(key))
            elif kind == "parameter":
                yield finding(f"{key} comes from parameter {name!r}, which is not hidden", res.pos_at(key))
            if kind in ("literal", "parameter"):
                continue
        for what, pos in literal_secrets(value, res.template.files):
            yield finding(f"{key}: {what}", pos or res.pos_at(key))


RULE = Rule(
    id="HOT005",
    name="PropertySecretInClear",
    severity=Level.HIGH,
    title="Secret written in clear in a resource property",
    types=(ANY_TYPE,),
    rationale=(
        "A property named like a secret (password, token, api_key, …) or a map entry inside one (a container's "
        "environment, a database user list), written literally or from a parameter that is not hidden, is in "
        "the repository and shown by resource show, events and the plan. The rules for server admin_pass, "
        "user_data and metadata, Keystone passwords, Barbican payloads and software configs cover their own "
        "properties; this one covers every other type (Manila security services, Zun containers, Trove users …)."
    ),
    fix="Take the value from a hidden parameter with no default, or from a generated one (OS::Heat::RandomString).",
    good="""
heat_template_version: 2018-08-31
parameters:
  ldap_password: {type: string, hidden: true}
resources:
  ldap:
    type: OS::Manila::SecurityService
    properties: {type: ldap, user: manila, password: {get_param: ldap_password}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  ldap:
    type: OS::Manila::SecurityService
    properties: {type: ldap, user: manila, password: Sup3rS3cret}
""",
    check_resource=check,
)
