"""HOT103: a security group rule opens every port to the whole internet (no port range)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import world_ingress
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for rule in world_ingress(res):
        if isinstance(rule, Outcome):
            yield rule
        elif rule.all_ports():
            yield finding(f"ingress {rule.describe()}: every port is reachable from the internet", rule.pos)


RULE = Rule(
    id="HOT103",
    name="AllPortsOpenToWorld",
    severity=Level.HIGH,
    title="Every port open to the world",
    types=("OS::Neutron::SecurityGroup", "OS::Neutron::SecurityGroupRule"),
    rationale=(
        "An ingress rule from 0.0.0.0/0 or ::/0 with no port_range_min/port_range_max (and a protocol with "
        "ports, or none) exposes every service the server runs, including the ones nobody meant to publish."
    ),
    fix="Give each rule the port range of the service it publishes, and a narrower remote_ip_prefix.",
    good="""
heat_template_version: 2018-08-31
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 80, port_range_max: 80, remote_ip_prefix: 0.0.0.0/0}
        - {protocol: icmp, remote_ip_prefix: 0.0.0.0/0}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, remote_ip_prefix: 0.0.0.0/0}
""",
    check_resource=check,
)
