"""A floating IP deleted with its association goes first (hotc.apply.cascade): Neutron's delete of a floating IP
ends its association, and the association's delete then finds nothing to undo and calls nothing that changes
the cloud; on its own, the association's delete still dissociates."""

from __future__ import annotations

from typing import Any

from hotc.apply.cascade import driver_cascades
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver

PORT, FIP, FIPA = "OS::Neutron::Port", "OS::Neutron::FloatingIP", "OS::Neutron::FloatingIPAssociation"


def test_the_floating_ip_driver_cascades_to_its_association() -> None:
    assert driver_cascades(driver)(FIP) == frozenset({FIPA})


def _associated(conn: FakeConnection) -> tuple[Any, Any, dict[str, Any]]:
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    fip = driver(FIP).create(ctx_for(conn, "fip", FIP), {"floating_network": "public"})
    aprops = {"floatingip_id": fip.physical_id, "port_id": port.physical_id}
    assoc = driver(FIPA).create(ctx_for(conn, "assoc", FIPA), aprops)
    return fip, assoc, aprops


def test_after_its_floating_ip_the_association_delete_changes_nothing(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    fip, assoc, aprops = _associated(conn)
    driver(FIP).delete(ctx_for(conn, "fip", FIP), fip.physical_id, {"floating_network": "public"})
    assert conn.cloud.find("ip", fip.physical_id) is None
    conn.cloud.calls.clear()
    driver(FIPA).delete(ctx_for(conn, "assoc", FIPA), assoc.physical_id, aprops)
    assert conn.cloud.methods() == ["network.get_ip"]  # it looked, found the floating IP gone, and stopped


def test_on_its_own_the_association_delete_dissociates(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    fip, assoc, aprops = _associated(conn)
    driver(FIPA).delete(ctx_for(conn, "assoc", FIPA), assoc.physical_id, aprops)
    assert conn.cloud.get("ip", fip.physical_id)["port_id"] is None
