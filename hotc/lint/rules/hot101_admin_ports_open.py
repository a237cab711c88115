"""HOT101: a security group lets the whole internet reach an administrative port (SSH, RDP, …)."""

from __future__ import annotations

from hotc.lint.rule import Level, Rule
from hotc.lint.rules._common import ADMIN_PORTS, named_ports_open

check = named_ports_open(ADMIN_PORTS)

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
