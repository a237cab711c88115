"""OS::Octavia::Pool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import (
    ProviderError,
    made_or_found_id,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import (
    OctaviaChild,
    _first_id,
    find_listener,
    find_load_balancer,
    made_lb,
)


class PoolDriver(OctaviaChild):
    kind, plural, what = "pool", "pools", "pool"
    simple = {
        "protocol": "protocol",
        "lb_algorithm": "lb_algorithm",
        "description": "description",
        "admin_state_up": "admin_state_up",
        "session_persistence": "session_persistence",
        "tls_enabled": "tls_enabled",
    }

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        if props.get("loadbalancer"):
            return made_or_found_id(ctx, conn, "load_balancer", props["loadbalancer"], find_load_balancer)
        if props.get("listener"):
            known = made_lb(ctx, props["listener"])
            if known is not None:
                return known
            listener = find_listener(ctx, conn, props["listener"])
            lb_id = _first_id(listener.load_balancers)
            if lb_id:
                return lb_id
        raise ProviderError("pool: one of listener or loadbalancer is required")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        if props.get("listener"):
            body["listener_id"] = made_or_found_id(ctx, conn, "listener", props["listener"], find_listener)
        if props.get("loadbalancer"):
            body["loadbalancer_id"] = made_or_found_id(
                ctx, conn, "load_balancer", props["loadbalancer"], find_load_balancer
            )
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        body.pop("protocol", None)
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("loadbalancer", _first_id(raw.get("loadbalancers")), "load balancer", find_load_balancer)
        lp.ref("listener", _first_id(raw.get("listeners")), "listener", find_listener)
        if lp.wants("session_persistence"):
            given = dict(lp.props.get("session_persistence") or {})
            live = dict(raw.get("session_persistence") or {})
            if not live:  # none in the cloud
                value: Any = lp.props.get("session_persistence") if not given else None
            elif not given:
                value = live
            else:  # the keys the template gives (Octavia fills in the others)
                value = {k: live.get(k) for k in given}
            lp.put("session_persistence", value)

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "healthmonitor_id": raw.get("healthmonitor_id"),
            "listeners": raw.get("listeners") or [],
            "members": raw.get("members") or [],
        }


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::Pool": PoolDriver()})
