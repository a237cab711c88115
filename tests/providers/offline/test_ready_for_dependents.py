"""When a create tells the run that what needs only the object's id may start
(``ActionContext.ready_for_dependents``): a Neutron object right after its POST (before the tag PUT and the
attribute reads), a server once ACTIVE (and only once its floating IPs are associated); never before the id is
recorded."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver

NET, PORT, SG = "OS::Neutron::Net", "OS::Neutron::Port", "OS::Neutron::SecurityGroup"
SERVER, VOLUME = "OS::Nova::Server", "OS::Cinder::Volume"


def _watched(conn: FakeConnection, address: str, type_name: str, kind: str = "") -> tuple[Any, list[Any]]:
    """A context that notes, at each ready_for_dependents, the cloud calls made so far and the recorded id
    (and, given the fake cloud's ``kind``, the object's status then)."""
    seen: list[Any] = []
    ids: list[str] = []

    def ready() -> None:
        status = conn.cloud.get(kind, ids[-1]).get("status") if kind and ids else None
        seen.append(
            (list(conn.cloud.methods()), list(ids), status)
            if kind
            else (list(conn.cloud.methods()), list(ids))
        )

    ctx = replace(
        ctx_for(conn, address, type_name), record_physical_id=ids.append, ready_for_dependents=ready
    )
    conn.cloud.calls.clear()
    return ctx, seen


def test_a_network_is_ready_after_its_post_before_its_tags(conn: FakeConnection) -> None:
    ctx, seen = _watched(conn, "net", NET)
    out = driver(NET).create(ctx, {"name": "n1"})
    assert len(seen) == 1
    methods, ids = seen[0]
    assert methods == ["network.create_network"] and ids == [out.physical_id]
    assert conn.cloud.methods()[-1] == "network.set_tags"  # the tags came after


def test_a_port_is_ready_before_its_tags_and_attribute_reads(conn: FakeConnection) -> None:
    net = driver(NET).create(ctx_for(conn, "net", NET), {"name": "n1"})
    ctx, seen = _watched(conn, "port", PORT)
    out = driver(PORT).create(ctx, {"network": net.physical_id})
    ((methods, ids),) = seen
    assert methods[-1] == "network.create_port" and ids == [out.physical_id]
    assert "network.set_tags" not in methods and "network.set_tags" in conn.cloud.methods()


def test_a_security_group_is_ready_after_its_post(conn: FakeConnection) -> None:
    # Neutron applies a group's rules to its ports as they are added: the rules are not waited for
    ctx, seen = _watched(conn, "sg", SG)
    driver(SG).create(ctx, {"rules": [{"protocol": "icmp"}]})
    ((methods, _ids),) = seen
    assert methods == ["network.create_security_group"]


def test_a_server_is_ready_once_active(conn: FakeConnection) -> None:
    ctx, seen = _watched(conn, "web", SERVER, "server")
    out = driver(SERVER).create(ctx, {"image": "hotc-tiny", "flavor": "m1.tiny"})
    ((methods, ids, status),) = seen
    assert ids == [out.physical_id] and status == "ACTIVE" and "compute.create_server" in methods


def test_a_volume_is_not_released_before_its_create_ends(conn: FakeConnection) -> None:
    # its create ends with a read of the volume, whose status and attachments a volume attachment started
    # early would change: what the state records must be the volume as made, as under Heat
    ctx, seen = _watched(conn, "data", VOLUME)
    driver(VOLUME).create(ctx, {"size": 1})
    assert seen == []


def test_a_server_with_a_floating_ip_is_not_released_before_the_association(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    # a floating IP named in ``networks`` is associated after ACTIVE: a dependent started on the id alone (a
    # port's floating IP association, a load balancer member) would meet the server half-attached
    fip = driver("OS::Neutron::FloatingIP").create(
        ctx_for(conn, "fip", "OS::Neutron::FloatingIP"), {"floating_network": "public"}
    )
    ctx, seen = _watched(conn, "web", SERVER, "server")
    out = driver(SERVER).create(
        ctx,
        {
            "image": "hotc-tiny",
            "flavor": "m1.tiny",
            "networks": [{"network": seeded["private"], "floating_ip": fip.physical_id}],
        },
    )
    assert seen == []
    (iface,) = conn.compute.server_interfaces(out.physical_id)
    assert conn.cloud.get("ip", fip.physical_id)["port_id"] == iface.port_id
