"""Octavia drivers against the real test cloud (noop provider): LB, listener, pool, member, health monitor."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from hotc.providers.openstack.octavia import DRIVERS
from tests.providers.test_openstack_common import make_ctx

pytestmark = pytest.mark.cloud

LB = DRIVERS["OS::Octavia::LoadBalancer"]
LISTENER = DRIVERS["OS::Octavia::Listener"]
POOL = DRIVERS["OS::Octavia::Pool"]
MEMBER = DRIVERS["OS::Octavia::PoolMember"]
HM = DRIVERS["OS::Octavia::HealthMonitor"]


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


def test_load_balancer_stack(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    lineage = uuid.uuid4().hex

    def ctx(addr: str) -> Any:
        return make_ctx(cloud, addr, lineage=lineage, timeout=180)

    lprops = {
        "name": cloud_tracker.name("lb"),
        "vip_subnet": cloud_shared.private_subnet_name,
        "description": "",
        "admin_state_up": True,
    }
    lb = LB.create(ctx("lb"), lprops)
    lb_id = lb.physical_id
    assert lb_id is not None
    cloud_tracker.defer("lb", lambda: LB.delete(ctx("lb"), lb_id, lprops))
    assert lb.attributes["vip_address"] and lb.attributes["vip_subnet_id"] == cloud_shared.private_subnet_id
    assert f"hotc-lineage={lineage}" in cloud.load_balancer.get_load_balancer(lb_id).tags
    assert LB.find_adoptable(ctx("lb"), lprops) == lb_id
    lb2 = LB.update(ctx("lb"), lb_id, lprops, {**lprops, "description": "front"}, fs("description"))
    assert lb2.attributes["show"]["description"] == "front"

    # listener on the LB by NAME; pool on the listener; members; health monitor
    liprops = {
        "loadbalancer": lprops["name"],
        "protocol": "HTTP",
        "protocol_port": 80,
        "admin_state_up": True,
        "connection_limit": -1,
        "description": "",
    }
    li = LISTENER.create(ctx("listener"), liprops)
    li_id = li.physical_id
    assert li.attributes["loadbalancers"] == [{"id": lb_id}]
    li2 = LISTENER.update(
        ctx("listener"),
        li_id,
        liprops,
        {**liprops, "connection_limit": 100},  # type: ignore[arg-type]
        fs("connection_limit"),
    )
    assert li2.attributes["show"]["connection_limit"] == 100

    pprops = {
        "listener": li_id,
        "protocol": "HTTP",
        "lb_algorithm": "ROUND_ROBIN",
        "admin_state_up": True,
        "description": "",
        "tls_enabled": False,
    }
    pool = POOL.create(ctx("pool"), pprops)
    pool_id = pool.physical_id
    assert pool.attributes["listeners"] == [{"id": li_id}]
    pool2 = POOL.update(
        ctx("pool"),
        pool_id,
        pprops,
        {**pprops, "lb_algorithm": "LEAST_CONNECTIONS"},  # type: ignore[arg-type]
        fs("lb_algorithm"),
    )
    assert pool2.attributes["show"]["lb_algorithm"] == "LEAST_CONNECTIONS"
    # the listener's default pool, in place
    li3 = LISTENER.update(
        ctx("listener"),
        li_id,
        liprops,
        {**liprops, "default_pool": pool_id},  # type: ignore[arg-type]
        fs("default_pool"),
    )
    assert li3.attributes["default_pool_id"] == pool_id

    mprops = {
        "pool": pool_id,
        "address": "10.10.0.11",
        "protocol_port": 8080,
        "weight": 1,
        "admin_state_up": True,
    }
    m1 = MEMBER.create(ctx("m1"), mprops)
    m_id = m1.physical_id
    assert m1.attributes["show"]["address"] == "10.10.0.11"
    assert MEMBER.find_adoptable(ctx("m1"), mprops) == m_id
    m2 = MEMBER.update(ctx("m1"), m_id, mprops, {**mprops, "weight": 5}, fs("weight"))  # type: ignore[arg-type]
    assert m2.attributes["show"]["weight"] == 5
    # replacement of a member (address is not updatable): new member, then the old one goes
    nprops = {**mprops, "address": "10.10.0.12"}
    m3 = MEMBER.create(ctx("m1"), nprops)
    MEMBER.delete(ctx("m1"), m_id, mprops)  # type: ignore[arg-type]
    assert MEMBER.read(ctx("m1"), m_id, mprops) is None  # type: ignore[arg-type]
    assert POOL.read(ctx("pool"), pool_id, pprops).attributes["members"] == [{"id": m3.physical_id}]  # type: ignore

    hprops = {
        "pool": pool_id,
        "type": "HTTP",
        "delay": 5,
        "timeout": 3,
        "max_retries": 3,
        "url_path": "/",
        "expected_codes": "200",
        "http_method": "GET",
        "admin_state_up": True,
    }
    hm = HM.create(ctx("hm"), hprops)
    hm_id = hm.physical_id
    assert hm.attributes["pools"] == [{"id": pool_id}]
    hm2 = HM.update(
        ctx("hm"),
        hm_id,
        hprops,
        {**hprops, "delay": 10, "url_path": "/health"},  # type: ignore[arg-type]
        fs("delay", "url_path"),
    )
    assert hm2.attributes["show"]["delay"] == 10 and hm2.attributes["show"]["url_path"] == "/health"
    assert POOL.read(ctx("pool"), pool_id, pprops).attributes["healthmonitor_id"] == hm_id  # type: ignore

    read = LB.read(ctx("lb"), lb_id, lprops)
    assert read is not None and read.attributes["pools"] == [{"id": pool_id}]
    assert read.attributes["listeners"] == [{"id": li_id}]

    # delete in reverse dependency order; each waits for the LB to be ACTIVE again; all idempotent
    HM.delete(ctx("hm"), hm_id, hprops)  # type: ignore[arg-type]
    assert HM.read(ctx("hm"), hm_id, hprops) is None  # type: ignore[arg-type]
    MEMBER.delete(ctx("m1"), m3.physical_id, nprops)  # type: ignore[arg-type]
    POOL.delete(ctx("pool"), pool_id, pprops)  # type: ignore[arg-type]
    assert POOL.read(ctx("pool"), pool_id, pprops) is None  # type: ignore[arg-type]
    MEMBER.delete(ctx("m1"), m3.physical_id, nprops)  # type: ignore[arg-type]  # pool gone: nothing to do
    LISTENER.delete(ctx("listener"), li_id, liprops)  # type: ignore[arg-type]
    LB.delete(ctx("lb"), lb_id, lprops)
    assert LB.read(ctx("lb"), lb_id, lprops) is None
    LB.delete(ctx("lb"), lb_id, lprops)


def test_load_balancer_cascade_takes_leftovers(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    """A member created with a subnet cannot be deleted on the noop provider (it goes to ERROR); deleting the
    load balancer removes it anyway (cascade)."""
    c = make_ctx(cloud, "lb", timeout=180)
    lprops = {"name": cloud_tracker.name("lb"), "vip_subnet": cloud_shared.private_subnet_id}
    lb = LB.create(c, lprops)
    lb_id = lb.physical_id
    assert lb_id is not None
    li = LISTENER.create(
        make_ctx(cloud, "li"), {"loadbalancer": lb_id, "protocol": "TCP", "protocol_port": 22}
    )
    pool = POOL.create(
        make_ctx(cloud, "p"), {"loadbalancer": lb_id, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}
    )
    MEMBER.create(
        make_ctx(cloud, "m"),
        {
            "pool": pool.physical_id,
            "address": "10.10.0.20",
            "protocol_port": 22,
            "subnet": cloud_shared.private_subnet_name,
        },
    )
    assert li.physical_id
    LB.delete(c, lb_id, lprops)
    assert LB.read(c, lb_id, lprops) is None
