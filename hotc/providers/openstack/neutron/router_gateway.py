"""OS::Neutron::RouterGateway (deprecated in Heat, still in templates): sets a router's external gateway.
Physical id as Heat forms it: ``<router id>:<network id>``. Deleting it clears the gateway; nothing of it
updates in place (a change replaces it: the gateway is cleared, then set again)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    get_or_none,
    outcome,
    props_get,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.lookup import find_network, find_router


class RouterGatewayDriver:
    what = "router gateway"

    @staticmethod
    def parse(physical_id: str) -> tuple[str, str]:
        router_id, sep, network_id = physical_id.partition(":")
        if not sep or not router_id or not network_id:
            raise ProviderError(f"router gateway id {physical_id!r} is not of the form ROUTER_ID:NETWORK_ID")
        return router_id, network_id

    @staticmethod
    def _gateway_network(router: Any) -> str | None:
        info = router.external_gateway_info or {}
        net = info.get("network_id")
        return str(net) if net else None

    def _router(self, ctx: ActionContext, conn: Any, router_id: str) -> Any:
        return get_or_none(ctx, f"read router {router_id}", conn.network.get_router, router_id)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        router = find_router(ctx, conn, props.get("router_id"))
        network = props_get(props, "network", "network_id")
        if not network:
            raise ProviderError("router gateway: the network property is required to set a gateway")
        net = find_network(ctx, conn, network)
        pid = f"{router.id}:{net.id}"
        ctx.record_physical_id(pid)
        if self._gateway_network(router) != str(net.id):
            router = call(
                ctx,
                f"set the gateway of router {router.id}",
                conn.network.update_router,
                router.id,
                external_gateway_info={"network_id": net.id},
            )
        return outcome(router, {}, physical_id=pid)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        router_id, network_id = self.parse(physical_id)
        router = self._router(ctx, conn, router_id)
        if router is None or self._gateway_network(router) != network_id:
            return None  # the router or its gateway on that network is gone
        lp = LiveProps(ctx, conn, props)
        lp.ref("router_id", router_id, "router", find_router)
        for name in ("network", "network_id"):
            lp.ref(name, network_id, "network", find_network)
        return replace(outcome(router, {}, physical_id=physical_id), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("router gateway has no properties that can be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        router_id, network_id = self.parse(physical_id)
        router = self._router(ctx, conn, router_id)
        if router is None or self._gateway_network(router) != network_id:
            return
        call(
            ctx,
            f"clear the gateway of router {router_id}",
            conn.network.update_router,
            router_id,
            external_gateway_info={},
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """The gateway is there when the router's gateway is on the network (a killed run set it)."""
        conn = ctx.cloud()
        try:
            router = find_router(ctx, conn, props.get("router_id"))
            net = find_network(ctx, conn, props_get(props, "network", "network_id"))
        except ProviderError:
            return None
        return f"{router.id}:{net.id}" if self._gateway_network(router) == str(net.id) else None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::RouterGateway": RouterGatewayDriver()})
