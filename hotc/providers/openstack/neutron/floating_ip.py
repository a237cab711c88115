"""OS::Neutron::FloatingIP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver
from hotc.providers.openstack.common import (
    ignore_missing,
    props_get,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_network,
    find_port,
    find_subnet,
)


class FloatingIPDriver(NeutronDriver):
    kind, plural, what = "ip", "ips", "floating IP"
    # deleting a floating IP ends its association: an association deleted with it goes after it and finds
    # nothing to undo (hotc.apply.cascade), instead of a PUT to Neutron on the delete's critical path before it
    cascades = frozenset({"OS::Neutron::FloatingIPAssociation"})
    simple = {"fixed_ip_address": "fixed_ip_address", "dns_name": "dns_name", "dns_domain": "dns_domain"}
    attribute_names = (
        "router_id",
        "tenant_id",
        "floating_network_id",
        "fixed_ip_address",
        "floating_ip_address",
        "port_id",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["floating_network_id"] = find_network(
            ctx, conn, props_get(props, "floating_network", "floating_network_id")
        ).id
        if props.get("floating_subnet"):
            body["subnet_id"] = find_subnet(ctx, conn, props["floating_subnet"]).id
        if props.get("port_id"):
            body["port_id"] = find_port(ctx, conn, props["port_id"]).id
        _put(body, "floating_ip_address", props.get("floating_ip_address"))
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "port_id" in changed or "fixed_ip_address" in changed:
            body["port_id"] = find_port(ctx, conn, new["port_id"]).id if new.get("port_id") else None
            body["fixed_ip_address"] = new.get("fixed_ip_address") if body["port_id"] else None
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        for name in ("floating_network", "floating_network_id"):
            lp.ref(name, raw.get("floating_network_id"), "network", find_network)
        lp.ref("port_id", raw.get("port_id"), "port", find_port)
        for key in ("fixed_ip_address", "floating_ip_address"):
            lp.chosen(key, raw.get(key))
        for key in ("dns_name", "dns_domain"):
            lp.text(key, raw.get(key) or "")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        # synchronous, as every Neutron delete (see NeutronDriver.delete): no read after it
        ignore_missing(ctx, f"delete floating IP {physical_id}", conn.network.delete_ip, physical_id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::FloatingIP": FloatingIPDriver()})
