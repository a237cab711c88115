"""OS::Octavia::Listener."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import (
    made_or_found_id,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import (
    OctaviaChild,
    _first_id,
    _put,
    find_load_balancer,
    find_pool,
)


class ListenerDriver(OctaviaChild):
    kind, plural, what = "listener", "listeners", "listener"
    simple = {
        "protocol": "protocol",
        "protocol_port": "protocol_port",
        "description": "description",
        "admin_state_up": "admin_state_up",
        "connection_limit": "connection_limit",
        "default_tls_container_ref": "default_tls_container_ref",
        "sni_container_refs": "sni_container_refs",
        "allowed_cidrs": "allowed_cidrs",
    }

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        return made_or_found_id(ctx, conn, "load_balancer", props["loadbalancer"], find_load_balancer)

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["loadbalancer_id"] = self.lb_of_props(ctx, conn, props)
        if props.get("default_pool"):
            body["default_pool_id"] = find_pool(ctx, conn, props["default_pool"]).id
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        body.pop("protocol", None)
        body.pop("protocol_port", None)
        if "default_pool" in changed:
            body["default_pool_id"] = (
                find_pool(ctx, conn, new["default_pool"]).id if new.get("default_pool") else None
            )
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("loadbalancer", _first_id(raw.get("loadbalancers")), "load balancer", find_load_balancer)
        lp.ref("default_pool", raw.get("default_pool_id"), "pool", find_pool)
        for key in ("sni_container_refs", "allowed_cidrs"):
            if lp.props.get(key) is not None:
                lp.put(key, list(raw.get(key) or []))

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "loadbalancers": raw.get("loadbalancers") or [],
            "default_pool_id": raw.get("default_pool_id"),
        }


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::Listener": ListenerDriver()})
