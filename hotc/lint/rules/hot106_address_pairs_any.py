"""HOT106: allowed_address_pairs lets a port send as any address."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hotc.errors import Pos
from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import is_world
from hotc.lint.view import ResourceView, unknown


def _pairs(value: Any, where: tuple[str | int, ...], res: ResourceView) -> Iterator[Outcome]:
    if unknown(value) and not isinstance(value, list):
        yield cannot_tell("allowed_address_pairs is not known before apply", res.pos_at(*where))
        return
    if not isinstance(value, list):
        return
    for i, pair in enumerate(value):
        pos: Pos | None = res.pos_at(*where, i, "ip_address")
        ip = pair.get("ip_address") if isinstance(pair, dict) else pair
        if unknown(ip):
            yield cannot_tell("an allowed address pair's ip_address is not known before apply", pos)
        elif is_world(ip):
            yield finding(
                f"allowed_address_pairs ip_address {ip}: the port may send and receive as any address", pos
            )


def check(res: ResourceView) -> Iterator[Outcome]:
    if res.type == "OS::Neutron::Port":
        yield from _pairs(res.get("allowed_address_pairs", []), ("allowed_address_pairs",), res)
        return
    networks = res.get("networks", [])
    if not isinstance(networks, list):
        return
    for i, net in enumerate(networks):
        extra = net.get("port_extra_properties") if isinstance(net, dict) else None
        if isinstance(extra, dict) and "allowed_address_pairs" in extra:
            where = ("networks", i, "port_extra_properties", "allowed_address_pairs")
            yield from _pairs(extra["allowed_address_pairs"], where, res)


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
