"""OS::Neutron::Net."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import (
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_qos_policy,
)


class NetDriver(NeutronDriver):
    kind, plural, what = "network", "networks", "network"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "shared": "shared",
        "port_security_enabled": "port_security_enabled",
        "dns_domain": "dns_domain",
    }
    attribute_names = (
        "status",
        "name",
        "subnets",
        "admin_state_up",
        "tenant_id",
        "port_security_enabled",
        "mtu",
        "qos_policy_id",
        "l2_adjacency",
        "segments",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "project_id", props.get("tenant_id"))
        _put(body, "availability_zone_hints", props.get("availability_zone_hints"))
        if props.get("qos_policy"):
            body["qos_policy_id"] = find_qos_policy(ctx, conn, props["qos_policy"]).id
        if props.get("dhcp_agent_ids"):
            ctx.log("network: dhcp_agent_ids is not applied (hotc does not schedule DHCP agents)")
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "qos_policy" in changed:
            body["qos_policy_id"] = (
                find_qos_policy(ctx, conn, new["qos_policy"]).id if new.get("qos_policy") else None
            )
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        for key in ("admin_state_up", "shared", "port_security_enabled"):
            lp.put(key, raw.get(key))
        lp.text("dns_domain", raw.get("dns_domain") or "")
        lp.put("availability_zone_hints", list(raw.get("availability_zone_hints") or []))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("qos_policy", raw.get("qos_policy_id"), "QoS policy", find_qos_policy)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Net": NetDriver()})
