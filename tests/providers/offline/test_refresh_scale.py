"""Refresh at scale through the fake connection: one list call per type (filtered by hotc's lineage tag where
the API allows), parallel GETs only for what the lists do not answer, and exactly the result one GET per
resource gives, with no drift right after the creates."""

from __future__ import annotations

from typing import Any

from hotc.planner.refresh import driver_reader, refresh_resources
from hotc.providers.drivers import driver_for
from hotc.state.document import ResourceState, StackState
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

NET, PORT, SG, SERVER = (
    "OS::Neutron::Net",
    "OS::Neutron::Port",
    "OS::Neutron::SecurityGroup",
    "OS::Nova::Server",
)
VOLUME, KEYPAIR, FLAVOR = "OS::Cinder::Volume", "OS::Nova::KeyPair", "OS::Nova::Flavor"
LB, IMAGE = "OS::Octavia::LoadBalancer", "OS::Glance::WebImage"


def build(conn: FakeConnection, n: int) -> StackState:
    st = StackState.new("scale")
    specs: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(n):
        specs.append((f"net{i}", NET, {"name": f"n{i}"}))
        specs.append((f"port{i}", PORT, {"network": "hotc-private", "security_groups": ["default"]}))
        specs.append(
            (f"sg{i}", SG, {"rules": [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}]})
        )
    specs += [
        (
            "web",
            SERVER,
            {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]},
        ),
        ("data", VOLUME, {"size": 1}),
        ("key", KEYPAIR, {"name": "k1"}),
        ("fl", FLAVOR, {"ram": 128, "vcpus": 1}),
        ("lb", LB, {"vip_subnet": "hotc-private-subnet"}),
        ("img", IMAGE, {"location": "http://x/y", "disk_format": "raw", "container_format": "bare"}),
    ]
    for addr, type_name, props in specs:
        out = driver(type_name).create(
            ctx_for(conn, addr, type_name, lineage=st.lineage, stack="scale"), props
        )
        st = st.with_resource(ResourceState(addr, type_name, out.physical_id, "CREATE_COMPLETE", props))
    return st


def calls_of_a_refresh(n: int, monkeypatch: Any) -> tuple[list[str], StackState, Any, FakeConnection]:
    conn = FakeConnection()
    conn.clock.install(monkeypatch)
    conn.seed()
    st = build(conn, n)
    conn.cloud.calls.clear()
    refreshed = refresh_resources(st, driver_reader(st, lambda: conn, driver_for))
    return conn.cloud.methods(), st, refreshed, conn


def test_refresh_lists_once_per_type_and_matches_one_get_per_resource(monkeypatch: Any) -> None:
    small, _, _, _ = calls_of_a_refresh(2, monkeypatch)
    lists, st, refreshed, conn = calls_of_a_refresh(12, monkeypatch)
    assert len(lists) == len(small)  # 36 more resources, not one call more
    types = {rs.type for rs in st.resources.values()}
    listing = [m for m in lists if not m.split(".")[1].startswith("get_")]
    # one list per type (filtered by the lineage tag where the API allows), the ports the servers' interfaces
    # come from, and the look-ups of the names the templates use (hotc-private, default, hotc-tiny, ...)
    assert sum(1 for m in listing if "name" not in str(m)) >= len(types)
    tagged = [c for c in conn.cloud.calls if (c.kwargs.get("tags") or c.kwargs.get("tag"))]
    assert {f"{c.service}.{c.method}" for c in tagged} == {
        "network.networks",
        "network.ports",
        "network.security_groups",
        "load_balancer.load_balancers",
        "image.images",
    }
    assert all(c.kwargs.get("tags", c.kwargs.get("tag")) == [f"hotc-lineage={st.lineage}"] for c in tagged)
    # no GET of a resource being refreshed: only the look-ups of names (once each) and the port attributes
    gets = [c for c in conn.cloud.calls if c.method.startswith("get_")]
    assert len(gets) == len({(c.method, c.args) for c in gets}) <= 8
    # the same as reading each one on its own, and no drift
    one_by_one = {rs.address: driver_reader(st, lambda: conn, driver_for)(rs) for rs in st.resources.values()}
    for addr, live in refreshed.items():
        assert live == one_by_one[addr], addr
        rs = st.resources[addr]
        assert live is not None
        assert drift(rs.type, rs.properties, _as_outcome(live, rs)) == [], addr


def _as_outcome(live: ResourceState, rs: ResourceState) -> Any:
    from hotc.providers.base import Outcome

    return Outcome(live.physical_id, live.attributes, properties=live.properties)


def test_unlisted_objects_are_read_one_by_one_and_gone_ones_are_none(conn: FakeConnection) -> None:
    st = build(conn, 2)
    # an object adopted from outside (no hotc stamp) and one deleted out of band
    foreign = conn.network.create_network(name="foreign")
    st = st.with_resource(ResourceState("adopted", NET, foreign.id, "CREATE_COMPLETE", {"name": "foreign"}))
    conn.network.delete_network(st.resources["net1"].physical_id)
    conn.cloud.calls.clear()
    refreshed = refresh_resources(st, driver_reader(st, lambda: conn, driver_for))
    assert refreshed["adopted"] is not None and refreshed["adopted"].properties["name"] == "foreign"
    assert refreshed["net1"] is None
    gets = {c.args[0] for c in conn.cloud.calls if c.method == "get_network"}
    assert {foreign.id, st.resources["net1"].physical_id} <= gets  # read one by one
    assert st.resources["net0"].physical_id not in gets  # listed


def test_a_refused_list_falls_back_to_gets(conn: FakeConnection) -> None:
    from openstack import exceptions

    st = build(conn, 3)
    conn.cloud.calls.clear()
    conn.cloud.fail_next("network.networks", *[exceptions.ForbiddenException(message="no", http_status=403)])
    refreshed = refresh_resources(st, driver_reader(st, lambda: conn, driver_for))
    assert all(refreshed[f"net{i}"] is not None for i in range(3))
    assert conn.cloud.count("network.get_network") >= 3


def test_a_busy_object_is_waited_for_through_its_get(conn: FakeConnection) -> None:
    st = build(conn, 1)
    srv = conn.cloud.get("server", st.resources["web"].physical_id)
    srv["status"] = "REBUILD"
    conn.cloud.later("server.rebuild", lambda: srv.update(status="ACTIVE"), after=2)
    refreshed = refresh_resources(st, driver_reader(st, lambda: conn, driver_for))
    assert refreshed["web"] is not None and refreshed["web"].attributes["show"]["status"] == "ACTIVE"
