"""OS::Neutron::FloatingIPAssociation: physical id ``<floating ip id>:<port id>``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    get_or_none,
    ignore_missing,
    outcome,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import _put
from hotc.providers.openstack.neutron.lookup import (
    find_port,
)


class FloatingIPAssociationDriver:
    """Physical id ``<floating ip id>:<port id>``; the association is the floating IP's port_id."""

    def _associate(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> tuple[str, str]:
        fip_id = props["floatingip_id"]
        port_id = find_port(ctx, conn, props["port_id"]).id
        body: dict[str, Any] = {"port_id": port_id}
        _put(body, "fixed_ip_address", props.get("fixed_ip_address"))
        call(
            ctx, f"associate floating IP {fip_id} with port {port_id}", conn.network.update_ip, fip_id, **body
        )
        return fip_id, port_id

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        port_id = find_port(ctx, conn, props["port_id"]).id
        pid = f"{props['floatingip_id']}:{port_id}"
        ctx.record_physical_id(pid)
        self._associate(ctx, conn, props)
        out = self.read(ctx, pid, props)
        assert out is not None
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        fip_id, _, port_id = physical_id.partition(":")
        fip = get_or_none(ctx, f"read floating IP {fip_id}", conn.network.get_ip, fip_id)
        if fip is None or fip.port_id != port_id:
            return None
        lp = LiveProps(ctx, conn, props)
        lp.put(
            "floatingip_id", props.get("floatingip_id") if props.get("floatingip_id") == fip_id else fip_id
        )
        lp.ref("port_id", port_id, "port", find_port)
        lp.chosen("fixed_ip_address", fip.fixed_ip_address)
        return replace(outcome(fip, {}, physical_id=physical_id), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        conn = ctx.cloud()
        old_fip = physical_id.partition(":")[0]
        if new["floatingip_id"] != old_fip:
            self._dissociate(ctx, conn, physical_id)
        fip_id, port_id = self._associate(ctx, conn, new)
        pid = f"{fip_id}:{port_id}"
        out = self.read(ctx, pid, new)
        if out is None:
            raise ProviderError(
                f"floating IP {fip_id} is not associated with port {port_id} after the update"
            )
        return out

    def _dissociate(self, ctx: ActionContext, conn: Any, physical_id: str) -> None:
        fip_id, _, port_id = physical_id.partition(":")
        fip = get_or_none(ctx, f"read floating IP {fip_id}", conn.network.get_ip, fip_id)
        if fip is None or fip.port_id != port_id:
            return
        ignore_missing(ctx, f"dissociate floating IP {fip_id}", conn.network.update_ip, fip_id, port_id=None)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self._dissociate(ctx, ctx.cloud(), physical_id)

    def physical_id_from_heat(self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]) -> str:
        """Heat keeps its own database row id for an association (``213``), which names no cloud object:
        hotc's id is ``<floating ip id>:<port id>``, from the floating IP and the port the resource names."""
        return f"{props['floatingip_id']}:{find_port(ctx, ctx.cloud(), props['port_id']).id}"

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # An association that is in place is the resource itself: adopt it when the FIP points at the port.
        try:
            conn = ctx.cloud()
            port_id = find_port(ctx, conn, props["port_id"]).id
        except (ProviderError, KeyError):
            return None
        pid = f"{props.get('floatingip_id')}:{port_id}"
        return pid if self.read(ctx, pid, props) is not None else None


DRIVERS: dict[str, Driver] = with_defaults(
    {"OS::Neutron::FloatingIPAssociation": FloatingIPAssociationDriver()}
)
