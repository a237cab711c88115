"""OS::Octavia::L7Policy: a load balancer child under its listener (the LB-ACTIVE dance of
:class:`~hotc.providers.openstack.octavia.base.OctaviaChild`), stamped with Octavia tags and adopted by them.
Its ``listener`` replaces it (as in Heat); action, redirects and position are updated in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import OctaviaChild, find_listener, find_pool, lb_of_listener


class L7PolicyDriver(OctaviaChild):
    kind, plural, what = "l7_policy", "l7_policies", "L7 policy"
    simple = {
        "description": "description",
        "admin_state_up": "admin_state_up",
        "action": "action",
        "redirect_url": "redirect_url",
        "position": "position",
    }

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        return lb_of_listener(ctx, conn, props["listener"])

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["listener_id"] = str(find_listener(ctx, conn, props["listener"]).id)
        if props.get("redirect_pool"):
            body["redirect_pool_id"] = str(find_pool(ctx, conn, props["redirect_pool"]).id)
        if isinstance(body.get("position"), float) and body["position"].is_integer():
            body["position"] = int(body["position"])
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        if "redirect_pool" in changed:
            pool = new.get("redirect_pool")
            body["redirect_pool_id"] = str(find_pool(ctx, conn, pool).id) if pool else None
        if isinstance(body.get("position"), float) and body["position"].is_integer():
            body["position"] = int(body["position"])
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("listener", raw.get("listener_id"), "listener", find_listener)
        lp.ref("redirect_pool", raw.get("redirect_pool_id"), "pool", find_pool)
        if lp.wants("position") and lp.props.get("position") is not None:
            given, live = lp.props["position"], raw.get("position")
            lp.put("position", given if live is not None and float(given) == float(live) else live)

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {"rules": list(raw.get("rules") or [])}


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::L7Policy": L7PolicyDriver()})
