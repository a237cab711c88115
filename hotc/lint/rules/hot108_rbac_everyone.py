"""HOT108: a Neutron RBAC policy grants an object to every project ('*')."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    target = res.get("target_tenant", None)
    where = res.pos_at("target_tenant")
    if unknown(target):
        yield cannot_tell("target_tenant is not known before apply", where)
    elif target == "*":
        action = res.get("action", "")
        kind = res.get("object_type", "object")
        what = action if isinstance(action, str) and action else "access"
        yield finding(
            f"target_tenant '*': {what} on the {kind} is granted to every project of the cloud", where
        )


RULE = Rule(
    id="HOT108",
    name="RbacToEveryProject",
    severity=Level.HIGH,
    title="RBAC policy granted to every project",
    types=("OS::Neutron::RBACPolicy",),
    rationale=(
        "An RBAC policy with target_tenant '*' shares the network, QoS policy, security group or address scope "
        "with every project, present and future; access_as_external makes a network every project's way out."
    ),
    fix="Name the project that needs the object in target_tenant (a parameter); add one policy per project.",
    good="""
heat_template_version: 2018-08-31
parameters:
  partner_project: {type: string, default: 8f2b2c1e5a6d4e0f9b7c3d2a1e0f9b8c}
resources:
  rbac:
    type: OS::Neutron::RBACPolicy
    properties:
      object_type: network
      object_id: backend
      action: access_as_shared
      target_tenant: {get_param: partner_project}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  rbac:
    type: OS::Neutron::RBACPolicy
    properties:
      object_type: network
      object_id: backend
      action: access_as_shared
      target_tenant: "*"
""",
    check_resource=check,
)
