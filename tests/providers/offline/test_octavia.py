"""Octavia drivers offline, through the fake openstacksdk connection: every child waits for its load balancer to
be ACTIVE before it acts (Octavia refuses a change while PENDING_*), the whole tree's create/read/update/delete,
drift of load balancer settings, the kept member of an address:port, and the cascade delete."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hotc.planner.plan import Action
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

LB, LISTENER, POOL = "OS::Octavia::LoadBalancer", "OS::Octavia::Listener", "OS::Octavia::Pool"
MEMBER, MONITOR = "OS::Octavia::PoolMember", "OS::Octavia::HealthMonitor"


def tree(conn: FakeConnection) -> dict[str, Any]:
    lineage = "lin-octavia"
    out: dict[str, Any] = {}
    out["lb_props"] = {"vip_subnet": "hotc-private-subnet", "name": "lb", "description": "front"}
    out["lb"] = driver(LB).create(ctx_for(conn, "lb", LB, lineage=lineage), out["lb_props"])
    out["l_props"] = {"loadbalancer": out["lb"].physical_id, "protocol": "HTTP", "protocol_port": 80}
    out["listener"] = driver(LISTENER).create(
        ctx_for(conn, "listener", LISTENER, lineage=lineage), out["l_props"]
    )
    out["p_props"] = {
        "listener": out["listener"].physical_id,
        "protocol": "HTTP",
        "lb_algorithm": "ROUND_ROBIN",
        "session_persistence": {"type": "SOURCE_IP"},
    }
    out["pool"] = driver(POOL).create(ctx_for(conn, "pool", POOL, lineage=lineage), out["p_props"])
    out["m_props"] = {
        "pool": out["pool"].physical_id,
        "address": "10.10.0.5",
        "protocol_port": 8080,
        "subnet": "hotc-private-subnet",
    }
    out["member"] = driver(MEMBER).create(ctx_for(conn, "member", MEMBER, lineage=lineage), out["m_props"])
    out["h_props"] = {
        "pool": out["pool"].physical_id,
        "type": "HTTP",
        "delay": 5,
        "timeout": 3,
        "max_retries": 2,
        "url_path": "/health",
    }
    out["monitor"] = driver(MONITOR).create(
        ctx_for(conn, "monitor", MONITOR, lineage=lineage), out["h_props"]
    )
    out["lineage"] = lineage
    return out


def test_tree_is_made_waiting_for_the_load_balancer_each_time(conn: FakeConnection) -> None:
    gate = conn.cloud.gate("lb.create").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 3 else None)
    t = tree(conn)
    lb = conn.cloud.get("load_balancer", t["lb"].physical_id)
    assert lb["provisioning_status"] == "ACTIVE" and gate.waited >= 3
    for kind, key in (
        ("listener", "listener"),
        ("pool", "pool"),
        ("member", "member"),
        ("health_monitor", "monitor"),
    ):
        assert conn.cloud.get(kind, t[key].physical_id)["provisioning_status"] == "ACTIVE"
    # the fake refuses a change while PENDING_* (409): none was refused, so each create waited first
    assert conn.load_balancer.refusals == 0
    assert t["lb"].attributes["vip_address"] and t["pool"].attributes["listeners"] == [
        {"id": t["listener"].physical_id}
    ]
    assert conn.cloud.get("member", t["member"].physical_id)["subnet_id"]


def test_no_drift_after_create_and_settings_drift(conn: FakeConnection) -> None:
    t = tree(conn)
    for type_name, key, props in (
        (LB, "lb", "lb_props"),
        (LISTENER, "listener", "l_props"),
        (POOL, "pool", "p_props"),
        (MEMBER, "member", "m_props"),
        (MONITOR, "monitor", "h_props"),
    ):
        ctx = ctx_for(conn, key, type_name, lineage=t["lineage"])
        live = driver(type_name).read(ctx, t[key].physical_id, t[props])
        assert drift(type_name, t[props], live) == [], type_name
    lb = conn.cloud.get("load_balancer", t["lb"].physical_id)
    lb.update(admin_state_up=False, description="changed")
    ctx = ctx_for(conn, "lb", LB, lineage=t["lineage"])
    live = driver(LB).read(ctx, t["lb"].physical_id, t["lb_props"])
    assert drift(LB, t["lb_props"], live) == ["admin_state_up", "description"]
    pool = conn.cloud.get("pool", t["pool"].physical_id)
    pool["lb_algorithm"] = "LEAST_CONNECTIONS"
    pctx = ctx_for(conn, "pool", POOL, lineage=t["lineage"])
    assert drift(POOL, t["p_props"], driver(POOL).read(pctx, t["pool"].physical_id, t["p_props"])) == [
        "lb_algorithm"
    ]
    listener = conn.cloud.get("listener", t["listener"].physical_id)
    listener["connection_limit"] = 10
    lctx = ctx_for(conn, "listener", LISTENER, lineage=t["lineage"])
    live = driver(LISTENER).read(lctx, t["listener"].physical_id, t["l_props"])
    assert drift(LISTENER, t["l_props"], live) == ["connection_limit"]
    # the update brings them back, each after the load balancer is ACTIVE again
    driver(LB).update(
        ctx,
        t["lb"].physical_id,
        {},
        t["lb_props"] | {"admin_state_up": True},
        frozenset({"admin_state_up", "description"}),
    )
    assert (
        lb["admin_state_up"] is True
        and lb["description"] == "front"
        and lb["provisioning_status"] == "ACTIVE"
    )
    driver(LISTENER).update(
        lctx,
        t["listener"].physical_id,
        {},
        t["l_props"] | {"connection_limit": -1},
        frozenset({"connection_limit"}),
    )
    assert listener["connection_limit"] == -1


def test_children_updates_and_reads(conn: FakeConnection) -> None:
    t = tree(conn)
    mctx = ctx_for(conn, "member", MEMBER, lineage=t["lineage"])
    driver(MEMBER).update(
        mctx, t["member"].physical_id, t["m_props"], t["m_props"] | {"weight": 5}, frozenset({"weight"})
    )
    assert conn.cloud.get("member", t["member"].physical_id)["weight"] == 5
    hctx = ctx_for(conn, "monitor", MONITOR, lineage=t["lineage"])
    driver(MONITOR).update(
        hctx, t["monitor"].physical_id, t["h_props"], t["h_props"] | {"delay": 9}, frozenset({"delay"})
    )
    assert conn.cloud.get("health_monitor", t["monitor"].physical_id)["delay"] == 9
    pctx = ctx_for(conn, "pool", POOL, lineage=t["lineage"])
    driver(POOL).update(
        pctx, t["pool"].physical_id, t["p_props"], t["p_props"] | {"name": "p2"}, frozenset({"name"})
    )
    assert conn.cloud.get("pool", t["pool"].physical_id)["name"] == "p2"
    assert driver(POOL).find_adoptable(pctx, t["p_props"]) == t["pool"].physical_id


def test_a_member_for_the_same_address_is_kept_not_doubled(conn: FakeConnection) -> None:
    t = tree(conn)
    again = driver(MEMBER).create(
        ctx_for(conn, "member", MEMBER, lineage=t["lineage"], instance="member@2"),
        t["m_props"] | {"weight": 3},
    )
    assert again.physical_id == t["member"].physical_id and len(conn.cloud.all("member")) == 1
    assert conn.cloud.get("member", again.physical_id)["weight"] == 3


def test_delete_children_then_cascade(conn: FakeConnection) -> None:
    t = tree(conn)
    hctx = ctx_for(conn, "monitor", MONITOR, lineage=t["lineage"])
    driver(MONITOR).delete(hctx, t["monitor"].physical_id, t["h_props"])
    assert conn.cloud.find("health_monitor", t["monitor"].physical_id) is None
    # a member delete that ends in ERROR (the noop driver's bug) is retried once
    conn.load_balancer.member_delete_errors = 1
    mctx = ctx_for(conn, "member", MEMBER, lineage=t["lineage"])
    driver(MEMBER).delete(mctx, t["member"].physical_id, t["m_props"])
    assert conn.cloud.find("member", t["member"].physical_id) is None
    assert conn.cloud.count("load_balancer.delete_member") == 2
    # twice in ERROR: reported, and the load balancer's cascade delete removes it
    m2 = driver(MEMBER).create(mctx, t["m_props"])
    conn.load_balancer.member_delete_errors = 2
    with pytest.raises(ProviderError, match="cascade"):
        driver(MEMBER).delete(mctx, m2.physical_id, t["m_props"])
    lctx = ctx_for(conn, "lb", LB, lineage=t["lineage"])
    driver(LB).delete(lctx, t["lb"].physical_id, t["lb_props"])
    assert (
        not conn.cloud.all("load_balancer")
        and not conn.cloud.all("member")
        and not conn.cloud.all("listener")
    )
    # children of a gone load balancer are gone too
    assert driver(MEMBER).read(mctx, m2.physical_id, t["m_props"]) is None
    driver(LISTENER).delete(ctx_for(conn, "listener", LISTENER), t["listener"].physical_id, t["l_props"])
    driver(LB).delete(lctx, t["lb"].physical_id, t["lb_props"])


def test_pool_needs_a_listener_or_load_balancer(conn: FakeConnection) -> None:
    with pytest.raises(ProviderError, match="listener or loadbalancer"):
        driver(POOL).create(ctx_for(conn, "p", POOL), {"protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"})


def test_a_load_balancer_that_goes_to_error(conn: FakeConnection) -> None:
    def broken(c: Any) -> None:
        for lb in c.all("load_balancer"):
            lb["provisioning_status"] = "ERROR"

    conn.cloud.gate("lb.create").hold()
    conn.cloud.hooks.append(broken)
    with pytest.raises(ProviderError, match="went to ERROR"):
        driver(LB).create(ctx_for(conn, "lb", LB), {"vip_subnet": "hotc-private-subnet"})


def test_destroying_the_whole_tree_deletes_the_load_balancer_once_with_cascade(conn: FakeConnection) -> None:
    """The executor deletes a load balancer planned for deletion with its children first (one cascade call);
    each child's own delete then finds its parent gone and makes no delete call (hotc.apply.cascade)."""
    from hotc.apply.executor import ExecOptions, execute
    from hotc.providers.drivers import driver_for
    from hotc.state.document import ResourceState, StackState
    from tests.apply.fakes import MemorySink, change, plan_of

    t = tree(conn)
    rows = [
        ("lb", LB, t["lb"], t["lb_props"], ()),
        ("listener", LISTENER, t["listener"], t["l_props"], ("lb",)),
        ("pool", POOL, t["pool"], t["p_props"], ("listener",)),
        ("member", MEMBER, t["member"], t["m_props"], ("pool",)),
        ("monitor", MONITOR, t["monitor"], t["h_props"], ("pool",)),
    ]
    state = replace(StackState.new("hotc-t"), lineage=t["lineage"])
    for addr, type_, out, props, deps in rows:
        rs = ResourceState(addr, type_, out.physical_id, "CREATE_COMPLETE", props, dependencies=deps)
        state = state.with_resource(rs)
    plan = plan_of([change(a, Action.DELETE, type=ty) for a, ty, *_ in rows], mode="destroy", stack="hotc-t")
    before = len(conn.cloud.calls)
    sink = MemorySink()
    rep = execute(plan, state, None, driver_for, sink, ExecOptions(cloud=lambda: conn, delete_attempts=1))
    assert rep.ok, rep
    assert sink.last.resources == {}
    for kind in ("load_balancer", "listener", "pool", "member", "health_monitor"):
        assert not conn.cloud.all(kind), kind
    deletes = [f"{c.service}.{c.method}" for c in conn.cloud.calls[before:] if c.method.startswith("delete_")]
    assert deletes == ["load_balancer.delete_load_balancer"]
    assert next(c for c in conn.cloud.calls[before:] if c.method == "delete_load_balancer").kwargs["cascade"]
    done = {
        e.address: e.reason for e in sink.events if e.status == "DELETE_COMPLETE" and e.address != "hotc-t"
    }
    assert done == {
        "lb": "state changed",
        **{a: "deleted with lb (cascade)" for a in ("listener", "pool", "member", "monitor")},
    }


def test_a_tree_made_in_one_run_names_its_parents_without_reading_them(conn: FakeConnection) -> None:
    """In one run (a shared ``lookups``, as the executor gives) a child names the parents the run made by their
    ids and knows their load balancer: the member's and the monitor's creates read no pool (the only reads
    before their POSTs are the load balancer's status and the one list that finds a lost create), a first
    member lists its pool's members once, and the objects are the same as made with the look-ups."""
    run: dict[Any, Any] = {}

    def rctx(address: str, type_name: str) -> Any:
        return replace(ctx_for(conn, address, type_name, lineage="lin-run"), lookups=run)

    lb = driver(LB).create(rctx("lb", LB), {"vip_subnet": "hotc-private-subnet"})
    listener = driver(LISTENER).create(
        rctx("listener", LISTENER), {"loadbalancer": lb.physical_id, "protocol": "HTTP", "protocol_port": 80}
    )
    conn.cloud.calls.clear()
    pool = driver(POOL).create(
        rctx("pool", POOL),
        {"listener": listener.physical_id, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
    )
    assert "load_balancer.get_listener" not in conn.cloud.methods()
    conn.cloud.calls.clear()
    member = driver(MEMBER).create(
        rctx("member", MEMBER), {"pool": pool.physical_id, "address": "10.10.0.7", "protocol_port": 80}
    )
    methods = conn.cloud.methods()
    assert "load_balancer.get_pool" not in methods
    assert methods.count("load_balancer.members") == 1
    conn.cloud.calls.clear()
    monitor = driver(MONITOR).create(
        rctx("monitor", MONITOR),
        {"pool": pool.physical_id, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2},
    )
    assert "load_balancer.get_pool" not in conn.cloud.methods()
    assert conn.cloud.get("pool", pool.physical_id)["listeners"] == [{"id": listener.physical_id}]
    assert conn.cloud.get("member", member.physical_id)["provisioning_status"] == "ACTIVE"
    made = conn.cloud.get("health_monitor", monitor.physical_id)
    assert made["pools"] == [{"id": pool.physical_id}]
    assert conn.load_balancer.refusals == 0


def test_a_health_monitors_name_is_no_difference(conn: FakeConnection) -> None:
    """Heat's health monitor has no name property: a name given outside (by hand, by another tool) is not read
    as a change of it (it would plan a replacement)."""
    t = tree(conn)
    conn.cloud.get("health_monitor", t["monitor"].physical_id)["name"] = "named-by-hand"
    hctx = ctx_for(conn, "monitor", MONITOR, lineage=t["lineage"])
    live = driver(MONITOR).read(hctx, t["monitor"].physical_id, t["h_props"])
    assert live is not None and "name" not in (live.properties or {})
    assert drift(MONITOR, t["h_props"], live) == []
