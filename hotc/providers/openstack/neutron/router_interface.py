"""OS::Neutron::RouterInterface: physical id as Heat forms it (``<router id>:subnet_id=<id>`` or
``:port_id=<id>``); found again by the stamp hotc puts on the interface's port."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    NotFound,
    ProviderError,
    call,
    get_or_none,
    made_in_run,
    made_or_found_id,
    merge_tags,
    outcome,
    props_get,
    stamp_tags,
    user_tags,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.lookup import (
    find_port,
    find_router,
    find_subnet,
)


def _iface_args(key: str, value: str) -> tuple[str | None, ...]:
    """Positional (subnet, port): openstacksdk renamed the keywords (subnet_id -> subnet) across releases."""
    return (value,) if key == "subnet_id" else (None, value)


class RouterInterfaceDriver:
    """Physical id as Heat forms it: ``<router id>:subnet_id=<id>`` or ``<router id>:port_id=<id>``."""

    what = "router interface"

    @staticmethod
    def parse(physical_id: str) -> tuple[str, str, str]:
        router_id, _, rest = physical_id.partition(":")
        key, _, value = rest.partition("=")
        if key not in ("subnet_id", "port_id") or not value:
            raise ProviderError(f"router interface id {physical_id!r} is not of the form ROUTER:subnet_id=ID")
        return router_id, key, value

    def _interface_port(self, ctx: ActionContext, conn: Any, router_id: str, key: str, value: str) -> Any:
        ports = call(
            ctx, f"list ports of router {router_id}", lambda: list(conn.network.ports(device_id=router_id))
        )
        for p in ports:
            if not str(p.device_owner or "").startswith("network:router_interface"):
                continue
            if key == "port_id" and p.id == value:
                return p
            if key == "subnet_id" and any(ip.get("subnet_id") == value for ip in p.fixed_ips or []):
                return p
        return None

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        subnet = props_get(props, "subnet", "subnet_id")
        port = props_get(props, "port", "port_id")
        if subnet and port:
            raise ProviderError("router interface: give either subnet or port, not both")
        if not subnet and not port:
            raise ProviderError("router interface: one of subnet or port is required")
        # a router, subnet or port this run made is named by its id, with no look-up
        router_id = made_or_found_id(
            ctx, conn, "router", props_get(props, "router", "router_id"), find_router
        )
        if subnet:
            key, value = "subnet_id", made_or_found_id(ctx, conn, "subnet", subnet, find_subnet)
        else:
            key, value = "port_id", made_or_found_id(ctx, conn, "port", port, find_port)
        pid = f"{router_id}:{key}={value}"
        # a router this run made has no interface from an earlier run to take over: no look before adding (a
        # refusal is looked into below, as for any router)
        existing = (
            None
            if made_in_run(ctx, "router", router_id)
            else self._interface_port(ctx, conn, router_id, key, value)
        )
        if existing is None:
            ctx.record_physical_id(pid)
            try:
                call(
                    ctx,
                    f"add interface to router {router_id}",
                    lambda: conn.network.add_interface_to_router(router_id, *_iface_args(key, value)),
                )
            except ProviderError:
                if self._interface_port(ctx, conn, router_id, key, value) is None:
                    raise
        else:
            ctx.record_physical_id(pid)
        iface = self._interface_port(ctx, conn, router_id, key, value)
        if iface is not None and key == "subnet_id":
            call(
                ctx,
                f"tag router interface port {iface.id}",
                conn.network.set_tags,
                iface,
                merge_tags(ctx, user_tags(iface.tags)),
            )
        return self._outcome(pid, iface)

    @staticmethod
    def _outcome(pid: str, port: Any) -> Outcome:
        return outcome(port, {}, physical_id=pid) if port is not None else Outcome(pid, {"show": {}})

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        router_id, key, value = self.parse(physical_id)
        if get_or_none(ctx, f"read router {router_id}", conn.network.get_router, router_id) is None:
            return None
        port = self._interface_port(ctx, conn, router_id, key, value)
        if port is None:
            return None
        lp = LiveProps(ctx, conn, props)
        for name in ("router", "router_id"):
            lp.ref(name, router_id, "router", find_router)
        if key == "subnet_id":
            for name in ("subnet", "subnet_id"):
                lp.ref(name, value, "subnet", find_subnet)
        else:
            for name in ("port", "port_id"):
                lp.ref(name, value, "port", find_port)
        return replace(self._outcome(physical_id, port), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("router interface has no properties that can be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        router_id, key, value = self.parse(physical_id)
        # the router's ports answer both questions: a router that is gone has none (no read of the router first,
        # a round trip more on the delete chain)
        if self._interface_port(ctx, conn, router_id, key, value) is None:
            return
        try:
            call(
                ctx,
                f"remove interface from router {router_id}",
                lambda: conn.network.remove_interface_from_router(router_id, *_iface_args(key, value)),
            )
        except NotFound:
            return
        except ProviderError as exc:
            # "Router has no interface" comes back as 404 or 400 depending on the release
            if exc.status_code not in (400, 404):
                raise
        wait_gone(
            ctx,
            f"remove interface from router {router_id}",
            lambda: self._interface_port(ctx, conn, router_id, key, value),
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        ports = call(ctx, "search router interface", lambda: list(conn.network.ports(tags=stamp_tags(ctx))))
        for p in ports:
            if str(p.device_owner or "").startswith("network:router_interface") and p.fixed_ips:
                return f"{p.device_id}:subnet_id={p.fixed_ips[0]['subnet_id']}"
        return None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::RouterInterface": RouterInterfaceDriver()})
