"""OS::Neutron::Subnet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import (
    made_or_found_id,
    props_get,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_network,
    find_segment,
    find_subnetpool,
)


def _gateway(value: Any) -> Any:
    return None if value == "" else value


class SubnetDriver(NeutronDriver):
    kind, plural, what = "subnet", "subnets", "subnet"
    simple = {
        "name": "name",
        "cidr": "cidr",
        "ip_version": "ip_version",
        "enable_dhcp": "enable_dhcp",
        "dns_nameservers": "dns_nameservers",
        "allocation_pools": "allocation_pools",
        "host_routes": "host_routes",
        "ipv6_ra_mode": "ipv6_ra_mode",
        "ipv6_address_mode": "ipv6_address_mode",
        "prefixlen": "prefixlen",
    }
    attribute_names = (
        "name",
        "network_id",
        "tenant_id",
        "allocation_pools",
        "gateway_ip",
        "host_routes",
        "ip_version",
        "cidr",
        "dns_nameservers",
        "enable_dhcp",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["network_id"] = made_or_found_id(
            ctx, conn, "network", props_get(props, "network", "network_id"), find_network
        )
        if "gateway_ip" in props and props["gateway_ip"] is not None:
            body["gateway_ip"] = _gateway(props["gateway_ip"])
        _put(body, "project_id", props.get("tenant_id"))
        if props.get("subnetpool"):
            body["subnetpool_id"] = find_subnetpool(ctx, conn, props["subnetpool"]).id
        if props.get("segment"):
            body["segment_id"] = find_segment(ctx, conn, props["segment"]).id
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        for fixed in ("cidr", "ip_version", "ipv6_ra_mode", "ipv6_address_mode", "prefixlen"):
            body.pop(fixed, None)
        if "gateway_ip" in changed:
            body["gateway_ip"] = _gateway(new.get("gateway_ip"))
        if "segment" in changed:
            body["segment_id"] = find_segment(ctx, conn, new["segment"]).id if new.get("segment") else None
        if "allocation_pools" in changed and new.get("allocation_pools") is None:
            body.pop("allocation_pools")
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("network", raw.get("network_id"), "network", find_network)
        lp.ref("network_id", raw.get("network_id"), "network", find_network)
        for key in ("cidr", "ip_version", "enable_dhcp", "ipv6_ra_mode", "ipv6_address_mode"):
            lp.put(key, raw.get(key))
        lp.put("dns_nameservers", list(raw.get("dns_nameservers") or []))
        if lp.wants("gateway_ip"):  # "" in the template: no gateway (None in the API)
            gw = raw.get("gateway_ip")
            lp.put("gateway_ip", "" if gw is None and lp.props["gateway_ip"] in ("", None) else gw)
        lp.put(
            "allocation_pools",
            [{"start": p.get("start"), "end": p.get("end")} for p in raw.get("allocation_pools") or []],
        )
        lp.put(
            "host_routes",
            [
                {"destination": r.get("destination"), "nexthop": r.get("nexthop")}
                for r in raw.get("host_routes") or []
            ],
        )
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("subnetpool", raw.get("subnetpool_id"), "subnet pool", find_subnetpool)
        lp.ref("segment", raw.get("segment_id"), "segment", find_segment)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Subnet": SubnetDriver()})
