"""OS::Neutron::Router (with its external gateway)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import (
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_network,
    find_subnet,
)


def gateway_info(ctx: ActionContext, conn: Any, info: Mapping[str, Any] | None) -> dict[str, Any]:
    """Heat's external_gateway_info (network name or id, subnet names in fixed ips) as the API wants it."""
    if not info:
        return {}
    out: dict[str, Any] = {"network_id": find_network(ctx, conn, info.get("network")).id}
    if info.get("enable_snat") is not None:
        out["enable_snat"] = info["enable_snat"]
    fixed = info.get("external_fixed_ips")
    if fixed:
        items = []
        for f in fixed:
            item: dict[str, Any] = {}
            if f.get("subnet"):
                item["subnet_id"] = find_subnet(ctx, conn, f["subnet"]).id
            _put(item, "ip_address", f.get("ip_address"))
            items.append(item)
        out["external_fixed_ips"] = items
    return out


class RouterDriver(NeutronDriver):
    kind, plural, what = "router", "routers", "router"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "availability_zone_hints": "availability_zone_hints",
    }
    attribute_names = ("status", "external_gateway_info", "name", "admin_state_up", "tenant_id")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        gw = gateway_info(ctx, conn, props.get("external_gateway_info"))
        if gw:
            body["external_gateway_info"] = gw
        _put(body, "distributed", props.get("distributed"))
        _put(body, "ha", props.get("ha"))
        _put(body, "project_id", props.get("tenant_id"))
        if props.get("l3_agent_ids") or props.get("l3_agent_id"):
            ctx.log("router: l3_agent_ids is not applied (hotc does not schedule L3 agents)")
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "external_gateway_info" in changed:
            body["external_gateway_info"] = gateway_info(ctx, conn, new.get("external_gateway_info"))
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.put("admin_state_up", raw.get("admin_state_up"))
        lp.put("availability_zone_hints", list(raw.get("availability_zone_hints") or []))
        for key in ("distributed", "ha"):  # admin-only fields: reported when the cloud shows them
            if raw.get(key) is not None:
                lp.put(key, raw.get(key))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        if lp.wants("external_gateway_info"):
            lp.put("external_gateway_info", self._live_gateway(lp, raw.get("external_gateway_info")))

    @staticmethod
    def _live_gateway(lp: LiveProps, live: Mapping[str, Any] | None) -> dict[str, Any] | None:
        given = dict(lp.props.get("external_gateway_info") or {})
        if not live or not live.get("network_id"):
            return {} if not given else None
        out: dict[str, Any] = {
            "network": lp.ref_value(given.get("network"), live.get("network_id"), "network", find_network)
        }
        if "enable_snat" in given:
            out["enable_snat"] = live.get("enable_snat")
        if "external_fixed_ips" in given:

            def same(g: Mapping[str, Any], ip: Mapping[str, Any]) -> bool:
                sub = g.get("subnet")
                return (
                    sub is None or lp.ref_value(sub, ip.get("subnet_id"), "subnet", find_subnet) == sub
                ) and (g.get("ip_address") is None or g.get("ip_address") == ip.get("ip_address"))

            out["external_fixed_ips"] = match_items(
                given.get("external_fixed_ips") or [],
                live.get("external_fixed_ips") or [],
                same,
                lambda ip: {"subnet": ip.get("subnet_id"), "ip_address": ip.get("ip_address")},
            )
        return out


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Router": RouterDriver()})
