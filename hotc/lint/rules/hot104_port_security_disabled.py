"""HOT104: a port (or a server's port) turns port security off."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    if res.type == "OS::Neutron::Port":
        value = res.get("port_security_enabled", None)
        if unknown(value):
            yield cannot_tell(
                "port_security_enabled is not known before apply", res.pos_at("port_security_enabled")
            )
        elif value is False:
            yield finding(
                "port_security_enabled: false: no security group and no anti-spoofing filter applies to the port",
                res.pos_at("port_security_enabled"),
            )
        return
    networks = res.get("networks", [])
    if not isinstance(networks, list):
        return
    for i, net in enumerate(networks):
        extra = net.get("port_extra_properties") if isinstance(net, dict) else None
        if not isinstance(extra, dict):
            continue
        value = extra.get("port_security_enabled")
        where = res.pos_at("networks", i, "port_extra_properties", "port_security_enabled")
        if unknown(value):
            yield cannot_tell("port_security_enabled is not known before apply", where)
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
