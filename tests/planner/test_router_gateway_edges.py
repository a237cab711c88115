"""Heat's implicit edges of the legacy OS::Neutron::RouterGateway (RouterGateway.add_dependencies and
FloatingIP.add_dependencies): the gateway comes after the interfaces of its router and the subnets of its
network, and a floating IP on that network comes after the gateway."""

from __future__ import annotations

from hotc.planner.api import build_desired
from tests.planner.helpers import stack

DOC = {
    "resources": {
        "ext": {"type": "OS::Neutron::Net"},
        "ext_sub": {"type": "OS::Neutron::Subnet", "properties": {"network": {"get_resource": "ext"}}},
        "other_sub": {"type": "OS::Neutron::Subnet", "properties": {"network": "elsewhere"}},
        "priv": {"type": "OS::Neutron::Net"},
        "priv_sub": {"type": "OS::Neutron::Subnet", "properties": {"network": {"get_resource": "priv"}}},
        "router": {"type": "OS::Neutron::Router"},
        "router2": {"type": "OS::Neutron::Router"},
        "ri": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": {"get_resource": "router"}, "subnet": {"get_resource": "priv_sub"}},
        },
        "ri2": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": {"get_resource": "router2"}, "subnet": {"get_resource": "priv_sub"}},
        },
        "gw": {
            "type": "OS::Neutron::RouterGateway",
            "properties": {"router_id": {"get_resource": "router"}, "network": {"get_resource": "ext"}},
        },
        "gw_legacy": {
            "type": "OS::Neutron::RouterGateway",
            "properties": {"router_id": "r-by-id", "network_id": "public"},
        },
        "fip": {
            "type": "OS::Neutron::FloatingIP",
            "properties": {"floating_network": {"get_resource": "ext"}},
        },
        "fip_public": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "public"}},
        "fip_other": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "elsewhere"}},
    }
}


def test_gateway_after_its_routers_interfaces_and_its_networks_subnets() -> None:
    d = build_desired(stack(DOC), "s", None)
    deps = set(d.resources["gw"].depends_on)
    assert {"ri", "ext_sub", "router", "ext"} <= deps
    assert not deps & {"ri2", "priv_sub", "other_sub"}  # another router's interface, other networks' subnets


def test_floating_ip_after_the_gateway_on_its_network() -> None:
    d = build_desired(stack(DOC), "s", None)
    assert "gw" in d.resources["fip"].depends_on
    assert "gw_legacy" in d.resources["fip_public"].depends_on  # the hidden network_id names it too
    assert not {"gw", "gw_legacy"} & set(d.resources["fip_other"].depends_on)
    # and the order creates the gateway before the floating IP, deletes it after
    assert d.order.index("gw") < d.order.index("fip")
