"""HOT106: allowed_address_pairs lets a port send as any address."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import is_world, port_setting
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    for value, path in port_setting(res, "allowed_address_pairs", []):
        if unknown(value) and not isinstance(value, list):
            yield cannot_tell("allowed_address_pairs is not known before apply", res.pos_at(*path))
            continue
        if not isinstance(value, list):
            continue
        for i, pair in enumerate(value):
            pos = res.pos_at(*path, i, "ip_address")
            ip = pair.get("ip_address") if isinstance(pair, dict) else pair
            if unknown(ip):
                yield cannot_tell("an allowed address pair's ip_address is not known before apply", pos)
            elif is_world(ip):
                yield finding(
                    f"allowed_address_pairs ip_address {ip}: the port may send and receive as any address",
                    pos,
                )


RULE = Rule(
    id="HOT106",
    name="AddressPairsAnyAddress",
    severity=Level.HIGH,
    title="allowed_address_pairs allows every address",
    types=("OS::Neutron::Port", "OS::Nova::Server"),
    rationale=(
        "An allowed address pair of 0.0.0.0/0 or ::/0 turns off Neutron's anti-spoofing for the port while it "
        "looks like port security is on: the instance may impersonate any other instance or the gateway on the "
        "network."
    ),
    fix="List the exact virtual addresses (a keepalived VIP, a CIDR routed through the instance) the port needs.",
    good="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: private
      allowed_address_pairs: [{ip_address: 10.0.0.100/32}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: private
      allowed_address_pairs: [{ip_address: 0.0.0.0/0}]
""",
    check_resource=check,
)
