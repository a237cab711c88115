"""HOT601: the template grants Keystone's admin role."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import role_grants
from hotc.lint.view import ResourceView, unknown

ADMIN_ROLES = ("admin", "cloud_admin", "system_admin")


def check(res: ResourceView) -> Iterator[Outcome]:
    roles = res.get("roles", [])
    if unknown(roles) and not isinstance(roles, list):
        yield cannot_tell("roles are not known before apply", res.pos_at("roles"))
        return
    for i, item in role_grants(res):
        role = item.get("role")
        where = res.pos_at("roles", i, "role")
        if unknown(role):
            yield cannot_tell("a role is not known before apply", where)
        elif isinstance(role, str) and role.lower() in ADMIN_ROLES:
            scope = item.get("project") or item.get("domain")
            on = (
                f" on {'domain' if item.get('domain') else 'project'} {scope}"
                if isinstance(scope, str)
                else ""
            )
            yield finding(
                f"grants role {role!r}{on}: Keystone's admin role is cloud-wide in most policies", where
            )


RULE = Rule(
    id="HOT601",
    name="KeystoneAdminRole",
    severity=Level.HIGH,
    title="Keystone admin role granted",
    types=(
        "OS::Keystone::UserRoleAssignment",
        "OS::Keystone::GroupRoleAssignment",
        "OS::Keystone::User",
        "OS::Keystone::Group",
    ),
    rationale=(
        "Under the default policies of most OpenStack services the admin role on any project is administrator "
        "of the whole cloud: a user or group made by a stack with it can read and change every project."
    ),
    fix=(
        "Grant the least role that works (member, reader, or a service's own role such as load-balancer_member); "
        "leave admin grants to the cloud's operators, outside application stacks."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  user:
    type: OS::Keystone::User
    properties:
      name: deployer
      roles: [{role: member, project: demo}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  grant:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: deployer
      roles: [{role: admin, project: demo}]
""",
    check_resource=check,
)
