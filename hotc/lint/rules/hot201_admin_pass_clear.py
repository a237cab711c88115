"""HOT201: a server's admin_pass is written in clear (a literal, or a parameter that is not hidden)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_property
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for _is_finding, message, pos in secret_property(res, "admin_pass", "the root/Administrator password"):
        yield finding(message, pos)


RULE = Rule(
    id="HOT201",
    name="ServerAdminPassInClear",
    severity=Level.CRITICAL,
    title="Server admin_pass written in clear",
    types=("OS::Nova::Server",),
    rationale=(
        "admin_pass sets the root (or Administrator) password of the instance. Written in the template it is in "
        "every copy of the repository; from a parameter that is not hidden it is shown by stack show, in events "
        "and in hotc's plan."
    ),
    fix=(
        "Use key pairs (key_name) and no password; if a password is needed, take it from a parameter with "
        "hidden: true and no default, or from an OS::Heat::RandomString's value."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  root_password: {type: string, hidden: true}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      admin_pass: {get_param: root_password}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      admin_pass: Passw0rd!
""",
    check_resource=check,
)
