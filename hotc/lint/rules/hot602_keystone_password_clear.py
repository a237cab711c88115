"""HOT602: a Keystone user's password is written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_property
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for _is_finding, message, pos in secret_property(res, "password", "the user's password"):
        yield finding(message, pos)


RULE = Rule(
    id="HOT602",
    name="KeystonePasswordInClear",
    severity=Level.CRITICAL,
    title="Keystone user password written in clear",
    types=("OS::Keystone::User",),
    rationale=(
        "A password written in the template is in every clone of the repository; one from a parameter that is "
        "not hidden is shown by stack show and in the plan. Either gives the user's access to whoever reads it."
    ),
    fix="Take the password from a hidden parameter with no default, or from an OS::Heat::RandomString.",
    good="""
heat_template_version: 2018-08-31
resources:
  pw:
    type: OS::Heat::RandomString
    properties: {length: 24}
  user:
    type: OS::Keystone::User
    properties: {name: svc, password: {get_attr: [pw, value]}}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  svc_password: {type: string, default: hunter22}
resources:
  user:
    type: OS::Keystone::User
    properties: {name: svc, password: {get_param: svc_password}}
""",
    check_resource=check,
)
