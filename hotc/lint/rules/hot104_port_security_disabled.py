"""HOT104: a port (or a server's port) turns port security off."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import port_setting
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    for value, path in port_setting(res, "port_security_enabled", None):
        where = res.pos_at(*path)
        if unknown(value):
            yield cannot_tell("port_security_enabled is not known before apply", where)
        elif value is False and len(path) == 1:
            yield finding(
                "port_security_enabled: false: no security group and no anti-spoofing filter applies to the port",
                where,
            )
        elif value is False:
            yield finding(
                "port_extra_properties.port_security_enabled: false: the server's port has no security group "
                "and no anti-spoofing filter",
                where,
            )


RULE = Rule(
    id="HOT104",
    name="PortSecurityDisabled",
    severity=Level.HIGH,
    title="Port security disabled on a port",
    types=("OS::Neutron::Port", "OS::Nova::Server"),
    rationale=(
        "With port_security_enabled false Neutron applies no security group and no MAC/IP anti-spoofing to the "
        "port: every port of the instance is reachable from wherever the network reaches, and the instance may "
        "send traffic as any address."
    ),
    fix=(
        "Keep port security on and list the addresses the instance may use in allowed_address_pairs (a VIP, a "
        "router's addresses); turn it off only for a network appliance, and suppress the finding with the reason."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: private
      allowed_address_pairs: [{ip_address: 10.0.0.100}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: private
      port_security_enabled: false
""",
    check_resource=check,
)
