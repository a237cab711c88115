"""A Neutron create is its POST and the PUT of hotc's tags: the POST's answer (with the tags set) is what the
create records, with no GET after it, unless the driver changes the object after the POST (a security group's
rules), when it reads the object back. What the same run created is named by its id with no look-up."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver

NET, PORT, SG = "OS::Neutron::Net", "OS::Neutron::Port", "OS::Neutron::SecurityGroup"
SUBNET, SERVER = "OS::Neutron::Subnet", "OS::Nova::Server"


def test_a_net_create_is_a_post_and_a_tag_put_and_records_the_tags(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "net", NET)
    conn.cloud.calls.clear()
    out = driver(NET).create(ctx, {"name": "n1", "tags": ["blue"]})
    assert conn.cloud.methods() == ["network.create_network", "network.set_tags"]
    assert out.attributes["status"] == "ACTIVE"
    assert "blue" in out.attributes["show"]["tags"]
    assert f"hotc-lineage={ctx.lineage}" in out.attributes["show"]["tags"]


def test_a_port_create_reads_no_port_back(conn: FakeConnection) -> None:
    net = driver(NET).create(ctx_for(conn, "net", NET), {"name": "n1"})
    conn.cloud.calls.clear()
    out = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": net.physical_id})
    assert "network.get_port" not in conn.cloud.methods()
    assert out.attributes["network_id"] == net.physical_id


def test_a_security_group_is_read_back_after_its_rules_are_made(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "sg", SG)
    conn.cloud.calls.clear()
    rules = [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}]
    driver(SG).create(ctx, {"name": "web", "rules": rules})
    methods = conn.cloud.methods()
    assert methods.index("network.create_security_group_rule") < methods.index("network.get_security_group")


def _run_ctx(conn: FakeConnection, run: dict[Any, Any], address: str, type_name: str) -> Any:
    return replace(ctx_for(conn, address, type_name), lookups=run)


def test_what_a_run_made_is_referred_to_by_id_without_a_look_up(conn: FakeConnection) -> None:
    """In one run (a shared ``lookups``, as the executor gives), a port on the network, subnet and security group
    the run created names them by their ids with no GET of them, and a server on that port names it with no
    GET of the port; the bodies are the same as with the look-ups."""
    run: dict[Any, Any] = {}
    net = driver(NET).create(_run_ctx(conn, run, "net", NET), {})
    subnet = driver(SUBNET).create(
        _run_ctx(conn, run, "subnet", SUBNET), {"network": net.physical_id, "cidr": "10.40.0.0/24"}
    )
    sg = driver(SG).create(_run_ctx(conn, run, "sg", SG), {})
    conn.cloud.calls.clear()
    props = {
        "network": net.physical_id,
        "fixed_ips": [{"subnet": subnet.physical_id}],
        "security_groups": [sg.physical_id],
    }
    port = driver(PORT).create(_run_ctx(conn, run, "port", PORT), props)
    methods = conn.cloud.methods()
    assert methods[0] == "network.create_port"
    for lookup in ("network.get_network", "network.get_subnet", "network.get_security_group"):
        assert lookup not in methods[: methods.index("network.create_port")]
    made = conn.cloud.get("port", port.physical_id)
    assert made["network_id"] == net.physical_id
    assert made["fixed_ips"][0]["subnet_id"] == subnet.physical_id
    assert made["security_groups"] == [sg.physical_id]
    assert port.attributes["network"]["id"] == net.physical_id  # the attributes' reads are still made
    assert port.attributes["subnets"][0]["id"] == subnet.physical_id
    conn.cloud.calls.clear()
    server = driver(SERVER).create(
        _run_ctx(conn, run, "web", SERVER),
        {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]},
    )
    assert "network.get_port" not in conn.cloud.methods()
    assert conn.cloud.get("server", server.physical_id)["status"] == "ACTIVE"


def test_what_the_run_did_not_make_is_looked_up(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    """A network the run did not make (the seeded one, or one made by another run) is looked up, by id or
    name, as before; a name that finds nothing is refused before the POST."""
    run: dict[Any, Any] = {}
    other = driver(NET).create(ctx_for(conn, "net", NET), {})  # made outside this run
    conn.cloud.calls.clear()
    driver(PORT).create(_run_ctx(conn, run, "p1", PORT), {"network": other.physical_id})
    driver(PORT).create(_run_ctx(conn, run, "p2", PORT), {"network": "hotc-private"})
    assert conn.cloud.methods().count("network.get_network") >= 2
    with pytest.raises(ProviderError, match="not found"):
        driver(PORT).create(_run_ctx(conn, run, "p3", PORT), {"network": "no-such-net"})


def test_a_security_groups_rules_are_created_at_once(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group's rules are independent: their creates are in flight together (each waits here until all three
    have been sent; one after the other, the first would wait in vain), and the group ends with each rule once
    plus Neutron's default egress rules."""
    import threading

    together = threading.Barrier(3, timeout=10)
    made = conn.network.create_security_group_rule

    def create_rule(**body: Any) -> Any:
        together.wait()
        return made(**body)

    monkeypatch.setattr(conn.network, "create_security_group_rule", create_rule)
    rules = [
        {"protocol": "tcp", "port_range_min": 80, "port_range_max": 80},
        {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
        {"protocol": "icmp"},
    ]
    out = driver(SG).create(ctx_for(conn, "sg", SG), {"rules": rules})
    have = [r for r in conn.cloud.all("security_group_rule") if r["security_group_id"] == out.physical_id]
    ingress = sorted(
        str(r.get("port_range_min")) + str(r["protocol"]) for r in have if r["direction"] == "ingress"
    )
    assert ingress == ["22tcp", "80tcp", "Noneicmp"]
    assert len([r for r in have if r["direction"] == "egress"]) == 2


def test_a_router_interface_on_what_the_run_made_reads_neither(conn: FakeConnection) -> None:
    """A router interface between a router and a subnet the same run made names both by id: no GET of the
    router or the subnet; the interface is made and tagged as with the look-ups."""
    run: dict[Any, Any] = {}
    net = driver(NET).create(_run_ctx(conn, run, "net", NET), {})
    subnet = driver(SUBNET).create(
        _run_ctx(conn, run, "subnet", SUBNET), {"network": net.physical_id, "cidr": "10.41.0.0/24"}
    )
    router = driver("OS::Neutron::Router").create(_run_ctx(conn, run, "router", "OS::Neutron::Router"), {})
    conn.cloud.calls.clear()
    iface_type = "OS::Neutron::RouterInterface"
    out = driver(iface_type).create(
        _run_ctx(conn, run, "iface", iface_type), {"router": router.physical_id, "subnet": subnet.physical_id}
    )
    methods = conn.cloud.methods()
    assert "network.get_router" not in methods and "network.get_subnet" not in methods
    assert out.physical_id == f"{router.physical_id}:subnet_id={subnet.physical_id}"
    ports = [p for p in conn.cloud.all("port") if p.get("device_id") == router.physical_id]
    assert len(ports) == 1 and any(t.startswith("hotc-lineage=") for t in ports[0]["tags"])
    # the router is this run's: no interface of an earlier run to take over, so no look before the add
    assert methods[0] == "network.add_interface_to_router"


def test_a_router_interface_on_a_router_the_run_did_not_make_looks_first(conn: FakeConnection) -> None:
    """On a router made outside the run, an interface an interrupted run added is looked for before the add,
    and taken over instead of added again."""
    run: dict[Any, Any] = {}
    net = driver(NET).create(ctx_for(conn, "net", NET), {})
    subnet = driver(SUBNET).create(
        ctx_for(conn, "subnet", SUBNET), {"network": net.physical_id, "cidr": "10.42.0.0/24"}
    )
    router = driver("OS::Neutron::Router").create(ctx_for(conn, "router", "OS::Neutron::Router"), {})
    conn.network.add_interface_to_router(router.physical_id, subnet.physical_id)  # a killed run's
    conn.cloud.calls.clear()
    iface_type = "OS::Neutron::RouterInterface"
    driver(iface_type).create(
        _run_ctx(conn, run, "iface", iface_type), {"router": router.physical_id, "subnet": subnet.physical_id}
    )
    methods = conn.cloud.methods()
    assert "network.ports" in methods and "network.add_interface_to_router" not in methods
    assert len([p for p in conn.cloud.all("port") if p.get("device_id") == router.physical_id]) == 1
