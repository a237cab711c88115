"""HOT204: a server has a floating IP (an address on the external network) and a security group open to the
world."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import group_rules
from hotc.lint.view import ResourceView, referenced_resources

SG_TYPES = ("OS::Neutron::SecurityGroup",)
FIP_TYPES = ("OS::Neutron::FloatingIP", "OS::Neutron::FloatingIPAssociation")


def _open_rules(sg: ResourceView) -> list[str]:
    """The ingress rules of a group (its own and its SecurityGroupRules) known to be open to the world."""
    return [
        rule.describe()
        for rule in group_rules(sg)
        if not isinstance(rule, tuple)
        and rule.ingress is True
        and not rule.icmp
        and not rule.ports_unknown()
        and rule.open_to_world() is True
    ]


def check(res: ResourceView) -> Iterator[Outcome]:
    tv = res.template
    ports = [
        p
        for n in referenced_resources(res.expr("networks"))
        if (p := tv.resource(n)) and p.type == "OS::Neutron::Port"
    ]
    port_names = {p.name for p in ports}
    fips: list[str] = []
    networks = res.get("networks", [])
    if isinstance(networks, list) and any(isinstance(n, dict) and n.get("floating_ip") for n in networks):
        fips.append("networks.floating_ip")
    for port in sorted(port_names):
        fips.extend(f.name for f in tv.referrers(port, FIP_TYPES, "port_id"))
    fips.extend(f.name for f in tv.referrers(res.name, ("OS::Nova::FloatingIPAssociation",), "server_id"))
    if not fips:
        return
    exposed: list[str] = []
    for p in ports:
        if p.get("port_security_enabled", None) is False:
            exposed.append(f"port {p.name} has port security off (every port open)")
    groups = referenced_resources(res.expr("security_groups"))
    for p in ports:
        groups.extend(referenced_resources(p.expr("security_groups")))
    for g in dict.fromkeys(groups):
        sg = tv.resource(g)
        if sg is None or sg.type not in SG_TYPES:
            continue
        for desc in _open_rules(sg):
            exposed.append(f"security group {g} allows {desc}")
    if exposed:
        yield finding(
            f"reachable from the internet through floating IP {', '.join(dict.fromkeys(fips))}: "
            + "; ".join(dict.fromkeys(exposed)),
            res.pos,
        )


RULE = Rule(
    id="HOT204",
    name="ServerExposedToInternet",
    severity=Level.HIGH,
    title="Server on the external network with a floating IP and an open security group",
    types=("OS::Nova::Server",),
    rationale=(
        "A floating IP puts the server on the external network; a security group of its ports that admits "
        "0.0.0.0/0 (or a port with port security off) then lets anyone on the internet reach those ports "
        "directly, past any load balancer or bastion the design relies on."
    ),
    fix=(
        "Publish the service through a load balancer and keep the servers on the private network, or limit "
        "the groups of a server with a floating IP to the addresses that must reach it."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules: [{protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 192.0.2.0/24}]
  port:
    type: OS::Neutron::Port
    properties: {network: private, security_groups: [{get_resource: sg}]}
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: public, port_id: {get_resource: port}}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      networks: [{port: {get_resource: port}}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules: [{protocol: tcp, port_range_min: 8080, port_range_max: 8080, remote_ip_prefix: 0.0.0.0/0}]
  port:
    type: OS::Neutron::Port
    properties: {network: private, security_groups: [{get_resource: sg}]}
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: public, port_id: {get_resource: port}}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      networks: [{port: {get_resource: port}}]
""",
    check_resource=check,
)
