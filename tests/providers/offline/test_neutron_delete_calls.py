"""A Neutron delete is its DELETE: Neutron deletes synchronously (the answer means the object is gone, an object
in use is refused), so no read comes before or after it; a router interface's delete reads the router's ports
(which also say whether the router is still there) and no router. Each call left out was a round trip on the
critical path of a stack's delete (floating IP, router interface, router, subnet, network)."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver

NET, SUBNET, ROUTER, IFACE, FIP = (
    "OS::Neutron::Net",
    "OS::Neutron::Subnet",
    "OS::Neutron::Router",
    "OS::Neutron::RouterInterface",
    "OS::Neutron::FloatingIP",
)


def test_a_net_delete_is_its_delete_and_a_gone_net_is_done(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "net", NET)
    out = driver(NET).create(ctx, {"name": "n1"})
    conn.cloud.calls.clear()
    driver(NET).delete(ctx, out.physical_id, {"name": "n1"})
    assert conn.cloud.methods() == ["network.delete_network"]
    assert conn.cloud.find("network", out.physical_id) is None
    driver(NET).delete(ctx, out.physical_id, {"name": "n1"})  # already gone: its 404 is done


def test_a_net_in_use_is_refused_not_reported_gone(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "net", NET)
    net = driver(NET).create(ctx, {"name": "n1"})
    conn.network.create_port(network_id=net.physical_id)
    with pytest.raises(ProviderError):
        driver(NET).delete(ctx, net.physical_id, {"name": "n1"})
    assert conn.cloud.find("network", net.physical_id) is not None


def test_router_and_floating_ip_deletes_read_nothing(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    rctx = ctx_for(conn, "router", ROUTER)
    router = driver(ROUTER).create(rctx, {"name": "r1"})
    fctx = ctx_for(conn, "fip", FIP)
    fip = driver(FIP).create(fctx, {"floating_network": "public"})
    assert conn.cloud.find("ip", fip.physical_id) is not None
    conn.cloud.calls.clear()
    driver(FIP).delete(fctx, fip.physical_id, {"floating_network": "public"})
    driver(ROUTER).delete(rctx, router.physical_id, {"name": "r1"})
    assert conn.cloud.methods() == ["network.delete_ip", "network.delete_router"]
    assert conn.cloud.find("router", router.physical_id) is None
    assert conn.cloud.find("ip", fip.physical_id) is None


def test_a_router_interface_delete_reads_the_ports_not_the_router(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    router = driver(ROUTER).create(ctx_for(conn, "router", ROUTER), {"name": "r1"})
    ictx = ctx_for(conn, "iface", IFACE)
    props = {"router": router.physical_id, "subnet": "hotc-private-subnet"}
    iface = driver(IFACE).create(ictx, props)
    conn.cloud.calls.clear()
    driver(IFACE).delete(ictx, iface.physical_id, props)
    methods = conn.cloud.methods()
    assert "network.get_router" not in methods
    assert "network.remove_interface_from_router" in methods
    assert driver(IFACE).read(ictx, iface.physical_id, props) is None
    conn.network.delete_router(router.physical_id)
    conn.cloud.calls.clear()
    driver(IFACE).delete(ictx, iface.physical_id, props)  # the router is gone: its ports say so
    assert conn.cloud.methods() == ["network.ports"]
