"""Octavia drivers: LoadBalancer, Listener, Pool, PoolMember, HealthMonitor.

A load balancer is immutable while its provisioning_status is PENDING_*: every child operation here first waits
for the load balancer to be ACTIVE, then acts, then waits for the load balancer (and the child) to be ACTIVE
again. Every object carries the hotc stamp as Octavia tags. A load balancer is deleted with ``cascade`` so that
children left behind (e.g. a member stuck in ERROR) go with it.

Known test-cloud limitation: with Octavia's noop drivers (octavia 19), deleting a member that was created with a
``subnet`` puts it into ERROR (a bug on the noop path). hotc retries that delete once, then reports the error;
the load balancer's cascade delete removes such a member.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    ProviderError,
    base_address,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    lookup,
    merge_tags,
    newest,
    outcome,
    physical_name,
    settle,
    stamp,
    stamp_tags,
    user_tags,
    wait_for,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron import find_subnet


def find_load_balancer(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "load balancer",
        value,
        conn.load_balancer.get_load_balancer,
        lambda v: conn.load_balancer.load_balancers(name=v),
    )


def find_listener(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "listener",
        value,
        conn.load_balancer.get_listener,
        lambda v: conn.load_balancer.listeners(name=v),
    )


def find_pool(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "pool", value, conn.load_balancer.get_pool, lambda v: conn.load_balancer.pools(name=v))


def find_lb_flavor(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "load balancer flavor",
        value,
        conn.load_balancer.get_flavor,
        lambda v: conn.load_balancer.flavors(name=v),
    )


def _status_failed(obj: Any) -> str | None:
    st = str(getattr(obj, "provisioning_status", "") or "").upper()
    return "provisioning_status went to ERROR" if st == "ERROR" else None


def wait_lb(ctx: ActionContext, conn: Any, lb_id: str, what: str) -> Any:
    """Wait until the load balancer is ACTIVE (not PENDING_*); ERROR stops with an error."""
    return wait_for(
        ctx,
        f"{what}: wait for load balancer {lb_id}",
        lambda: conn.load_balancer.get_load_balancer(lb_id),
        lambda o: o is not None and str(o.provisioning_status).upper() == "ACTIVE",
        _status_failed,
    )


def _first_id(items: Any) -> str | None:
    for item in items or []:
        if isinstance(item, Mapping) and item.get("id"):
            return str(item["id"])
    return None


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


class OctaviaChild:
    """Create/update/delete of a load balancer child with the LB-ACTIVE dance around each call."""

    kind = ""  # proxy's singular name: listener, pool, health_monitor
    plural = ""
    what = ""
    simple: Mapping[str, str] = {}
    named = True

    # hooks
    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        raise NotImplementedError

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            _put(body, field, props.get(prop))
        if self.named:
            body["name"] = physical_name(ctx, props.get("name"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            if prop in changed:
                body[field] = new.get(prop)
        if self.named and "name" in changed:
            body["name"] = physical_name(ctx, new.get("name"))
        return body

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    # plumbing (members override these: they live under a pool)
    def _create(self, conn: Any, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"create_{self.kind}")(**body)

    def _get(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"get_{self.kind}")(pid)

    def _update(self, conn: Any, pid: str, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"update_{self.kind}")(pid, **body)

    def _delete(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return getattr(conn.load_balancer, f"delete_{self.kind}")(pid, ignore_missing=False)

    def _list(self, conn: Any, props: Mapping[str, Any], **query: Any) -> list[Any]:
        return list(getattr(conn.load_balancer, self.plural)(**query))

    # protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        lb_id = self.lb_of_props(ctx, conn, props)
        body = self.create_body(ctx, conn, props)
        body["tags"] = merge_tags(ctx, props.get("tags"))
        wait_lb(ctx, conn, lb_id, f"create {self.what}")
        find_new = fresh_finder(
            ctx, f"create {self.what}", lambda: self._list(conn, props, tags=stamp_tags(ctx))
        )
        obj = create_once(ctx, f"create {self.what}", lambda: self._create(conn, props, body), find_new)
        ctx.record_physical_id(obj.id)
        return self._settle(ctx, conn, lb_id, obj.id, props, f"create {self.what}")

    def _settle(
        self, ctx: ActionContext, conn: Any, lb_id: str, pid: str, props: Mapping[str, Any], what: str
    ) -> Outcome:
        wait_lb(ctx, conn, lb_id, what)
        obj = wait_for(
            ctx,
            f"{what} {pid}",
            lambda: self._get(conn, pid, props),
            lambda o: o is not None and str(o.provisioning_status).upper() == "ACTIVE",
            _status_failed,
        )
        return self._outcome(obj)

    def _outcome(self, obj: Any) -> Outcome:
        return outcome(obj, self.attributes(obj.to_dict(original_names=True)))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        try:
            obj = get_or_none(ctx, f"read {self.what} {physical_id}", self._get, conn, physical_id, props)
        except ProviderError as exc:
            if exc.status_code == 404:
                return None
            raise
        obj = settle(
            ctx,
            f"read {self.what} {physical_id}",
            obj,
            lambda: self._get(conn, physical_id, props),
            lambda o: str(o.provisioning_status).upper().startswith("PENDING_"),
        )
        if obj is None or str(obj.provisioning_status).upper() == "DELETED":
            return None
        return self.read_outcome(ctx, conn, obj, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        """Attributes and live properties of ``obj`` (also one from a list call)."""
        raw = obj.to_dict(original_names=True)
        lp = LiveProps(ctx, conn, props)
        if self.named:
            lp.name(raw.get("name"))
        for prop, field in self.simple.items():
            if prop == "description":
                lp.text(prop, raw.get(field) or "")
            else:
                lp.put(prop, raw.get(field))
        lp.put("tags", user_tags(raw.get("tags")))
        self.live_properties(lp, raw)
        return replace(self._outcome(obj), properties=lp.result())

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        """Subclasses report their references from the API representation ``raw``."""
        return None

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        lb_id = self.lb_of_props(ctx, conn, new)
        body = self.update_body(ctx, conn, new, changed)
        if "tags" in changed:
            body["tags"] = merge_tags(ctx, new.get("tags"))
        if body:
            wait_lb(ctx, conn, lb_id, f"update {self.what}")
            call(ctx, f"update {self.what} {physical_id}", self._update, conn, physical_id, new, body)
        return self._settle(ctx, conn, lb_id, physical_id, new, f"update {self.what}")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        try:
            lb_id: str | None = self.lb_of_props(ctx, conn, props)
        except ProviderError:  # the parent is gone, so is this
            lb_id = None
        if (
            lb_id is None
            or get_or_none(ctx, "read load balancer", conn.load_balancer.get_load_balancer, lb_id) is None
        ):
            return
        if self.read(ctx, physical_id, props) is None:
            return
        for attempt in (1, 2):
            wait_lb(ctx, conn, lb_id, f"delete {self.what}")
            ignore_missing(ctx, f"delete {self.what} {physical_id}", self._delete, conn, physical_id, props)
            try:
                wait_gone(
                    ctx,
                    f"delete {self.what} {physical_id}",
                    lambda: self._live(conn, physical_id, props),
                    failures=("ERROR",),
                    attr="provisioning_status",
                )
                break
            except ProviderError as exc:
                if attempt == 2:
                    raise ProviderError(
                        f"{exc.message} (Octavia left the {self.what} in ERROR; deleting the load balancer "
                        "removes it with cascade)"
                    ) from exc
                ctx.log(f"{self.what} {physical_id} went to ERROR on delete; retrying once")
        wait_lb(ctx, conn, lb_id, f"delete {self.what}")

    def _live(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        obj = self._get(conn, pid, props)
        return None if obj is None or str(obj.provisioning_status).upper() == "DELETED" else obj

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud(), props)
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> Any:
        try:
            found = call(ctx, f"search {self.what}", self._list, conn, props, tags=stamp_tags(ctx))
        except ProviderError:
            return None
        return newest(found)


# --------------------------------------------------------------------------------------------- LoadBalancer


class LoadBalancerDriver(OctaviaChild):
    kind, plural, what = "load_balancer", "load_balancers", "load balancer"
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
        body["vip_subnet_id"] = find_subnet(ctx, conn, props["vip_subnet"]).id
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
        body = self.create_body(ctx, conn, props)
        body["tags"] = merge_tags(ctx, props.get("tags"))
        find_new = fresh_finder(
            ctx, "create load balancer", lambda: conn.load_balancer.load_balancers(tags=stamp_tags(ctx))
        )
        lb = create_once(
            ctx, "create load balancer", lambda: conn.load_balancer.create_load_balancer(**body), find_new
        )
        ctx.record_physical_id(lb.id)
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


# --------------------------------------------------------------------------------------------- Listener


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
        return str(find_load_balancer(ctx, conn, props["loadbalancer"]).id)

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


# --------------------------------------------------------------------------------------------- Pool


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
            return str(find_load_balancer(ctx, conn, props["loadbalancer"]).id)
        if props.get("listener"):
            listener = find_listener(ctx, conn, props["listener"])
            lb_id = _first_id(listener.load_balancers)
            if lb_id:
                return lb_id
        raise ProviderError("pool: one of listener or loadbalancer is required")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        if props.get("listener"):
            body["listener_id"] = find_listener(ctx, conn, props["listener"]).id
        if props.get("loadbalancer"):
            body["loadbalancer_id"] = find_load_balancer(ctx, conn, props["loadbalancer"]).id
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


def lb_of_pool(ctx: ActionContext, conn: Any, pool_ref: Any) -> tuple[str, str]:
    pool = find_pool(ctx, conn, pool_ref)
    lb_id = _first_id(pool.loadbalancers)
    if not lb_id:
        for lid in pool.listeners or []:
            listener = conn.load_balancer.get_listener(lid["id"])
            lb_id = _first_id(listener.load_balancers)
            if lb_id:
                break
    if not lb_id:
        raise ProviderError(f"pool {pool.id} belongs to no load balancer")
    return str(pool.id), lb_id


# --------------------------------------------------------------------------------------------- PoolMember


class PoolMemberDriver(OctaviaChild):
    kind, plural, what = "member", "members", "pool member"
    simple = {
        "address": "address",
        "protocol_port": "protocol_port",
        "monitor_address": "monitor_address",
        "monitor_port": "monitor_port",
        "weight": "weight",
        "admin_state_up": "admin_state_up",
    }
    named = False

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        return lb_of_pool(ctx, conn, props["pool"])[1]

    def _pool_id(self, conn: Any, props: Mapping[str, Any]) -> str:
        return str(find_pool(None, conn, props["pool"]).id)

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        if props.get("subnet"):
            body["subnet_id"] = find_subnet(ctx, conn, props["subnet"]).id
        body["name"] = physical_name(ctx, None)
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        for fixed in ("address", "protocol_port", "monitor_address", "monitor_port"):
            body.pop(fixed, None)
        return body

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        earlier = self._earlier_instance(ctx, conn, props)
        if earlier is None:
            return super().create(ctx, props)
        # Octavia takes one member per address:port in a pool. A member whose address was unknown at plan time
        # (a replaced server's first_address) is planned as a replacement, but when the address turns out
        # unchanged (the new server kept its port) Heat would not replace it: keep the earlier instance, updated.
        ctx.log(
            f"pool member: {earlier.id} already serves {earlier.address}:{earlier.protocol_port}; kept "
            "(updated) instead of creating a second member for the same address"
        )
        ctx.record_physical_id(str(earlier.id))
        lb_id = self.lb_of_props(ctx, conn, props)
        body = {
            k: v for k, v in self.update_body(ctx, conn, props, frozenset(props)).items() if v is not None
        }
        body["tags"] = merge_tags(ctx, props.get("tags"))
        wait_lb(ctx, conn, lb_id, f"update {self.what}")
        call(ctx, f"update {self.what} {earlier.id}", self._update, conn, str(earlier.id), props, body)
        return self._settle(ctx, conn, lb_id, str(earlier.id), props, f"update {self.what}")

    def _earlier_instance(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> Any:
        """A member of the pool stamped as an earlier instance of this address (same lineage and address) with
        the same address, port, subnet and monitor address/port as wanted, or None."""
        try:
            members = call(ctx, f"list members of pool {props['pool']}", self._list, conn, props)
        except ProviderError:
            return None
        address = base_address(stamp(ctx)[TAG_ADDRESS])
        subnet = find_subnet(ctx, conn, props["subnet"]).id if props.get("subnet") else None
        for m in members:
            tags = [str(t) for t in m.tags or []]
            if f"{TAG_LINEAGE}={ctx.lineage}" not in tags or not any(
                t.startswith(f"{TAG_ADDRESS}=") and base_address(t.split("=", 1)[1]) == address for t in tags
            ):
                continue
            if (
                str(m.address) == str(props.get("address"))
                and m.protocol_port == props.get("protocol_port")
                and (subnet is None or m.subnet_id == subnet)
                and (m.monitor_address or None) == (props.get("monitor_address") or None)
                and (m.monitor_port or None) == (props.get("monitor_port") or None)
                and str(m.provisioning_status).upper() not in ("ERROR", "PENDING_DELETE", "DELETED")
            ):
                return m
        return None

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("subnet", raw.get("subnet_id"), "subnet", find_subnet)
        lp.put("pool", lp.props.get("pool"))  # read through that pool: it holds the member

    def _create(self, conn: Any, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return conn.load_balancer.create_member(self._pool_id(conn, props), **body)

    def _get(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return conn.load_balancer.get_member(pid, self._pool_id(conn, props))

    def _update(self, conn: Any, pid: str, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return conn.load_balancer.update_member(pid, self._pool_id(conn, props), **body)

    def _delete(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return conn.load_balancer.delete_member(pid, self._pool_id(conn, props), ignore_missing=False)

    def _list(self, conn: Any, props: Mapping[str, Any], **query: Any) -> list[Any]:
        return list(conn.load_balancer.members(self._pool_id(conn, props), **query))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        try:
            find_pool(ctx, ctx.cloud(), props["pool"])
        except ProviderError as exc:
            if exc.status_code in (None, 404):
                return None  # the pool is gone, and its members with it
            raise
        return super().read(ctx, physical_id, props)


# --------------------------------------------------------------------------------------------- HealthMonitor


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
        body["pool_id"] = find_pool(ctx, conn, props["pool"]).id
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        body.pop("type", None)
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("pool", _first_id(raw.get("pools")), "pool", find_pool)

    def attributes(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {"pools": raw.get("pools") or []}


DRIVERS: dict[str, Driver] = with_defaults(
    {
        "OS::Octavia::LoadBalancer": LoadBalancerDriver(),
        "OS::Octavia::Listener": ListenerDriver(),
        "OS::Octavia::Pool": PoolDriver(),
        "OS::Octavia::PoolMember": PoolMemberDriver(),
        "OS::Octavia::HealthMonitor": HealthMonitorDriver(),
    }
)
