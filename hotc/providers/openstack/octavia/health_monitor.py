"""OS::Octavia::HealthMonitor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    made_or_found_id,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import (
    OctaviaChild,
    _first_id,
    _put,
    find_pool,
    lb_of_pool,
)


class HealthMonitorDriver(OctaviaChild):
    kind, plural, what = "health_monitor", "health_monitors", "health monitor"
    simple = {
        "type": "type",
        "delay": "delay",
        "timeout": "timeout",
        "max_retries": "max_retries",
        "http_method": "http_method",
        "url_path": "url_path",
        "expected_codes": "expected_codes",
        "admin_state_up": "admin_state_up",
    }

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        return lb_of_pool(ctx, conn, props["pool"])[1]

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["pool_id"] = made_or_found_id(ctx, conn, "pool", props["pool"], find_pool)
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        body.pop("type", None)
        return body

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        """As a child's, without the name: Heat's health monitor has no name property (hotc names the monitors
        it makes, for finding them again), so a name given outside is no difference."""
        out = super().read_outcome(ctx, conn, obj, props)
        live = dict(out.properties or {})
        if "name" in live and "name" not in props:
            live.pop("name")
            out = replace(out, properties=live)
        return out

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("pool", _first_id(raw.get("pools")), "pool", find_pool)

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {"pools": raw.get("pools") or []}


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::HealthMonitor": HealthMonitorDriver()})
