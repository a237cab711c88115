"""Heat's custom constraints checked against the fake connection: a name or id of something that exists passes,
anything else gets the look-up's message; the pure ones need no cloud."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.constraints import check_custom_constraint, is_known, needs_cloud
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver


@pytest.fixture
def things(conn: FakeConnection, seeded: dict[str, Any]) -> dict[str, str]:
    port = conn.network.create_port(network_id=seeded["private"], name="p1")
    router = conn.network.create_router(name="r1")
    vol = driver("OS::Cinder::Volume").create(
        ctx_for(conn, "v", "OS::Cinder::Volume"), {"size": 1, "name": "v1"}
    )
    conn.compute.create_keypair(name="k1", public_key="ssh-ed25519 AAAA x")
    srv = driver("OS::Nova::Server").create(
        ctx_for(conn, "s", "OS::Nova::Server"), {"image": "hotc-tiny", "flavor": "m1.tiny", "name": "s1"}
    )
    lb = driver("OS::Octavia::LoadBalancer").create(
        ctx_for(conn, "lb", "OS::Octavia::LoadBalancer"), {"vip_subnet": "hotc-private-subnet", "name": "lb1"}
    )
    return {
        "port": port.id,
        "router": router.id,
        "volume": vol.physical_id,
        "server": srv.physical_id,
        "lb": lb.physical_id,
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("nova.flavor", "m1.tiny"),
        ("nova.keypair", "k1"),
        ("nova.server", "s1"),
        ("glance.image", "hotc-tiny"),
        ("neutron.network", "hotc-private"),
        ("neutron.subnet", "hotc-private-subnet"),
        ("neutron.port", "p1"),
        ("neutron.router", "r1"),
        ("neutron.security_group", "default"),
        ("cinder.volume", "v1"),
        ("cinder.vtype", "lvmdriver-1"),
        ("octavia.loadbalancer", "lb1"),
    ],
)
def test_existing_names_pass_and_missing_ones_fail(
    conn: FakeConnection, things: dict[str, str], name: str, value: str
) -> None:
    assert is_known(name) and needs_cloud(name)
    assert check_custom_constraint(name, value, conn) is None
    assert check_custom_constraint(name, [value, value], conn) is None  # comma_delimited_list: every item
    msg = check_custom_constraint(name, "no-such-thing", conn)
    assert msg is not None and "no-such-thing" in msg and "not found" in msg


def test_ids_pass_too(conn: FakeConnection, things: dict[str, str]) -> None:
    for name, key in (
        ("neutron.port", "port"),
        ("neutron.router", "router"),
        ("cinder.volume", "volume"),
        ("nova.server", "server"),
        ("octavia.loadbalancer", "lb"),
    ):
        assert check_custom_constraint(name, things[key], conn) is None, name


def test_pure_constraints_need_no_cloud() -> None:
    assert not needs_cloud("ip_addr")
    assert check_custom_constraint("ip_addr", "10.0.0.1", None) is None
    assert check_custom_constraint("ip_addr", "10.0.0.300", None) is not None
    assert check_custom_constraint("net_cidr", "10.0.0.0/24", None) is None
    assert check_custom_constraint("net_cidr", "10.0.0.0/33", None) is not None
    assert check_custom_constraint("mac_addr", "fa:16:3e:00:00:01", None) is None
    assert check_custom_constraint("mac_addr", "fa:16", None) is not None
    assert check_custom_constraint("dns_name", "www.example.org.", None) is None
    assert check_custom_constraint("dns_name", "-bad-.example", None) is not None
    assert check_custom_constraint("rel_dns_name", "www", None) is None
    assert check_custom_constraint("iso_8601", "2026-01-01T00:00:00Z", None) is None
    assert check_custom_constraint("iso_8601", "yesterday", None) is not None
    assert check_custom_constraint("timezone", "Europe/Paris", None) is None
    assert check_custom_constraint("timezone", "Mars/Olympus", None) is not None
    assert check_custom_constraint("cron_expression", "0 * * * *", None) is None
    assert check_custom_constraint("cron_expression", "every day", None) is not None
    assert check_custom_constraint("not.a.constraint", "x", None) is None
