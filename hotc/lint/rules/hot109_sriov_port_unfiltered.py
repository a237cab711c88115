"""HOT109: an SR-IOV port (vnic_type direct, direct-physical or macvtap) bypasses security groups."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hotc.errors import Pos
from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown

UNFILTERED = ("direct", "direct-physical", "macvtap")


def _check(vnic: Any, groups: Any, pos: Pos | None) -> Iterator[Outcome]:
    if unknown(vnic):
        yield cannot_tell("binding:vnic_type is not known before apply", pos)
    elif vnic in UNFILTERED:
        said = " although security groups are listed" if groups not in (None, [], "") else ""
        yield finding(
            f"binding:vnic_type {vnic}: traffic goes through the NIC's virtual function, past Open vSwitch or "
            f"Linux bridge, so no security group filters it{said}",
            pos,
        )


def check(res: ResourceView) -> Iterator[Outcome]:
    if res.type == "OS::Neutron::Port":
        yield from _check(
            res.get("binding:vnic_type", None),
            res.get("security_groups", None),
            res.pos_at("binding:vnic_type"),
        )
        return
    networks = res.get("networks", [])
    if not isinstance(networks, list):
        return
    for i, net in enumerate(networks):
        extra = net.get("port_extra_properties") if isinstance(net, dict) else None
        if isinstance(extra, dict) and "binding:vnic_type" in extra:
            where = res.pos_at("networks", i, "port_extra_properties", "binding:vnic_type")
            yield from _check(extra["binding:vnic_type"], res.get("security_groups", None), where)


RULE = Rule(
    id="HOT109",
    name="SriovPortUnfiltered",
    severity=Level.MEDIUM,
    title="SR-IOV port not filtered by security groups",
    types=("OS::Neutron::Port", "OS::Nova::Server"),
    rationale=(
        "Neutron's SR-IOV mechanism driver does not implement security groups: a port bound as direct, "
        "direct-physical or macvtap receives whatever the physical network delivers, whatever groups the "
        "template gives it."
    ),
    fix=(
        "Filter upstream (a physical firewall, the provider network's ACLs) and suppress the finding with that "
        "reason, or use vnic_type normal (or virtio-forwarder with a filtering vswitch) where the traffic allows."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: data, binding:vnic_type: normal}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: data, binding:vnic_type: direct, security_groups: [web]}
""",
    check_resource=check,
)
