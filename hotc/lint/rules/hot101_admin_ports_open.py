"""HOT101: a security group lets the whole internet reach an administrative port (SSH, RDP, …)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import ADMIN_PORTS, port_hits, sg_rules
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for rule in sg_rules(res):
        if isinstance(rule, tuple):
            yield cannot_tell(rule[0], rule[1])
            continue
        if rule.ingress is False or rule.icmp:
            continue
        world = rule.open_to_world()
        if world is False:
            continue
        if rule.ingress is None or world is None or rule.ports_unknown():
            yield cannot_tell(
                "the rule's direction, remote address or ports are not known before apply", rule.pos
            )
            continue
        if rule.all_ports():
            continue  # every port open to the world: HOT103
        for port, what in port_hits(rule, ADMIN_PORTS):
            yield finding(f"ingress {rule.describe()} opens {what} (port {port}) to the internet", rule.pos)


RULE = Rule(
    id="HOT101",
    name="AdminPortOpenToWorld",
    severity=Level.HIGH,
    title="Administrative port open to the world",
    types=("OS::Neutron::SecurityGroup", "OS::Neutron::SecurityGroupRule"),
    rationale=(
        "An ingress rule from 0.0.0.0/0 or ::/0 (or with no remote address, which Neutron reads as any) on SSH, "
        "RDP, VNC, WinRM, Telnet or a container/cluster API puts a login prompt in front of every scanner on "
        "the internet: brute force and the next pre-auth vulnerability reach it first."
    ),
    fix=(
        "Give remote_ip_prefix the operators' network (a parameter such as admin_cidr), or remote_mode: "
        "remote_group_id with a bastion's group; reach the servers through a bastion or a VPN."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  admin_cidr: {type: string, default: 192.0.2.0/24}
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: {get_param: admin_cidr}}
        - {protocol: tcp, port_range_min: 443, port_range_max: 443, remote_ip_prefix: 0.0.0.0/0}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  ssh_port: {type: number, default: 22}
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: {get_param: ssh_port}, port_range_max: {get_param: ssh_port},
           remote_ip_prefix: 0.0.0.0/0}
""",
    check_resource=check,
)
