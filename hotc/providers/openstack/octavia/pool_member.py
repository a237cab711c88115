"""OS::Octavia::PoolMember (lives under its pool).

Known test-cloud limitation: with Octavia's noop drivers (octavia 19), deleting a member that was created with a
``subnet`` puts it into ERROR (a bug on the noop path). hotc retries that delete once, then reports the error;
the load balancer's cascade delete removes such a member."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import Item
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    ProviderError,
    base_address,
    call,
    merge_tags,
    physical_name,
    stamp,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron import find_subnet
from hotc.providers.openstack.octavia.base import (
    OctaviaChild,
    find_pool,
    is_uuid,
    lb_of_pool,
    wait_lb,
)


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
        """The pool's id: the reference itself when it is one (every member call names its pool: a look-up
        each time was one more round trip per call), else looked up by name."""
        ref = props["pool"]
        return str(ref) if is_uuid(ref) else str(find_pool(None, conn, ref).id)

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
        the same address, port, subnet and monitor address/port as wanted, or None. A first instance (stamped
        with the plain address: the state holds no older one) has none, and its create lists nothing for it."""
        if "@" not in str(stamp(ctx)[TAG_ADDRESS]):
            return None
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

    def read_many(self, items: Sequence[Item]) -> dict[str, Outcome]:
        """Members live under their pools: read one by one (through their pool)."""
        return {}

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        try:
            find_pool(ctx, ctx.cloud(), props["pool"])
        except ProviderError as exc:
            if exc.status_code in (None, 404):
                return None  # the pool is gone, and its members with it
            raise
        return super().read(ctx, physical_id, props)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::PoolMember": PoolMemberDriver()})
