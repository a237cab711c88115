"""OS::Octavia::LoadBalancer (deleted with ``cascade``, so children left behind go with it; when a plan deletes
the load balancer with its children, the executor deletes it first: ``cascades``, see
:mod:`hotc.apply.cascade`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    call,
    create_once,
    get_or_none,
    ignore_missing,
    made_or_found_id,
    merge_tags,
    remember_made,
    stamp_tags,
    wait_for,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron import find_subnet
from hotc.providers.openstack.octavia.base import (
    OctaviaChild,
    _put,
    find_lb_flavor,
    fresh_finder_during,
    wait_lb,
)


class LoadBalancerDriver(OctaviaChild):
    kind, plural, what = "load_balancer", "load_balancers", "load balancer"
    # what Octavia's cascade delete of a load balancer removes with it
    cascades = frozenset(
        {
            "OS::Octavia::Listener",
            "OS::Octavia::Pool",
            "OS::Octavia::PoolMember",
            "OS::Octavia::HealthMonitor",
            "OS::Octavia::L7Policy",
            "OS::Octavia::L7Rule",
        }
    )
    simple = {
        "description": "description",
        "admin_state_up": "admin_state_up",
        "vip_address": "vip_address",
        "provider": "provider",
        "availability_zone": "availability_zone",
    }

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        raise AssertionError("not used")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["vip_subnet_id"] = made_or_found_id(ctx, conn, "subnet", props["vip_subnet"], find_subnet)
        if props.get("flavor"):
            body["flavor_id"] = find_lb_flavor(ctx, conn, props["flavor"]).id
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        for fixed in ("vip_address", "provider", "availability_zone"):
            body.pop(fixed, None)
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("vip_subnet", raw.get("vip_subnet_id"), "subnet", find_subnet)
        lp.ref("flavor", raw.get("flavor_id"), "load balancer flavor", find_lb_flavor)

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "vip_address": raw.get("vip_address"),
            "vip_port_id": raw.get("vip_port_id"),
            "vip_subnet_id": raw.get("vip_subnet_id"),
            "pools": raw.get("pools") or [],
            "listeners": raw.get("listeners") or [],
            "flavor_id": raw.get("flavor_id"),
        }

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {}
        find_new = fresh_finder_during(
            ctx,
            "create load balancer",
            lambda: conn.load_balancer.load_balancers(tags=stamp_tags(ctx)),
            lambda: body.update(self.create_body(ctx, conn, props)),
        )
        body["tags"] = merge_tags(ctx, props.get("tags"))
        lb = create_once(
            ctx, "create load balancer", lambda: conn.load_balancer.create_load_balancer(**body), find_new
        )
        ctx.record_physical_id(lb.id)
        remember_made(
            ctx, "load_balancer", lb.id
        )  # its listeners and pools in this run name it with no look-up
        return self._outcome(wait_lb(ctx, conn, lb.id, "create load balancer"))

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        body = self.update_body(ctx, conn, new, changed)
        if body:
            wait_lb(ctx, conn, physical_id, "update load balancer")
            call(
                ctx,
                f"update load balancer {physical_id}",
                lambda: conn.load_balancer.update_load_balancer(physical_id, **body),
            )
        return self._outcome(wait_lb(ctx, conn, physical_id, "update load balancer"))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        lb = get_or_none(
            ctx, f"read load balancer {physical_id}", conn.load_balancer.get_load_balancer, physical_id
        )
        if lb is None or str(lb.provisioning_status).upper() == "DELETED":
            return
        if str(lb.provisioning_status).upper() != "PENDING_DELETE":
            wait_for(
                ctx,
                f"delete load balancer {physical_id}: wait for it to settle",
                lambda: conn.load_balancer.get_load_balancer(physical_id),
                lambda o: o is None or not str(o.provisioning_status).upper().startswith("PENDING"),
            )
            ignore_missing(
                ctx,
                f"delete load balancer {physical_id}",
                lambda: conn.load_balancer.delete_load_balancer(
                    physical_id, ignore_missing=False, cascade=True
                ),
            )
        wait_gone(
            ctx,
            f"delete load balancer {physical_id}",
            lambda: self._live(conn, physical_id, props),
            failures=("ERROR",),
            attr="provisioning_status",
        )

    def _get(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return conn.load_balancer.get_load_balancer(pid)

    def _list(self, conn: Any, props: Mapping[str, Any], **query: Any) -> list[Any]:
        return list(conn.load_balancer.load_balancers(**query))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::LoadBalancer": LoadBalancerDriver()})
