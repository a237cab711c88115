"""HOT107: a network is shared with every project of the cloud."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    value = res.get("shared", None)
    where = res.pos_at("shared")
    if unknown(value):
        yield cannot_tell("shared is not known before apply", where)
    elif value is True:
        yield finding("shared: true: every project of the cloud can attach ports to this network", where)


RULE = Rule(
    id="HOT107",
    name="SharedNetwork",
    severity=Level.MEDIUM,
    title="Network shared with every project",
    types=("OS::Neutron::Net", "OS::Neutron::ProviderNet"),
    rationale=(
        "shared: true lets any project of the cloud plug servers into the network: they then reach the stack's "
        "servers from inside, past any edge filtering, and can exhaust its addresses."
    ),
    fix=(
        "Leave shared false; give access to the projects that need it with an RBAC policy "
        "(OS::Neutron::RBACPolicy, action access_as_shared, target_tenant the project id)."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: backend}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  share: {type: boolean, default: true}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: backend, shared: {get_param: share}}
""",
    check_resource=check,
)
