"""HOT105: a network turns port security off for every port made on it."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    value = res.get("port_security_enabled", None)
    where = res.pos_at("port_security_enabled")
    if unknown(value):
        yield cannot_tell("port_security_enabled is not known before apply", where)
    elif value is False:
        yield finding(
            "port_security_enabled: false: ports on this network get no security group by default", where
        )


RULE = Rule(
    id="HOT105",
    name="NetworkPortSecurityDisabled",
    severity=Level.HIGH,
    title="Port security disabled on a network",
    types=("OS::Neutron::Net", "OS::Neutron::ProviderNet"),
    rationale=(
        "A network's port_security_enabled is the default of every port made on it: with false, every server "
        "attached to it is unfiltered unless each port turns port security back on."
    ),
    fix="Remove port_security_enabled: false from the network; turn it off only on the ports that need it.",
    good="""
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: private}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: private, port_security_enabled: false}
""",
    check_resource=check,
)
