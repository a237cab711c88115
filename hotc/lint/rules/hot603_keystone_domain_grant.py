"""HOT603: a role is granted on a whole domain."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import role_grants
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    for i, item in role_grants(res):
        if item.get("domain") in (None, ""):
            continue
        domain = item["domain"]
        where = res.pos_at("roles", i, "domain")
        if unknown(domain):
            yield cannot_tell("a grant's domain is not known before apply", where)
            continue
        role = item.get("role")
        name = f"role {role!r}" if isinstance(role, str) else "a role"
        yield finding(f"grants {name} on domain {domain!r}: it applies to every project of the domain", where)


RULE = Rule(
    id="HOT603",
    name="KeystoneDomainGrant",
    severity=Level.MEDIUM,
    title="Role granted on a whole domain",
    types=(
        "OS::Keystone::UserRoleAssignment",
        "OS::Keystone::GroupRoleAssignment",
        "OS::Keystone::User",
        "OS::Keystone::Group",
    ),
    rationale=(
        "A grant on a domain reaches every project of that domain, including the ones created later: far more "
        "than an application stack needs."
    ),
    fix="Grant the role on the project(s) the user or group works in.",
    good="""
heat_template_version: 2018-08-31
resources:
  grant:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: ops
      roles: [{role: member, project: demo}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  grant:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: ops
      roles: [{role: member, domain: default}]
""",
    check_resource=check,
)
