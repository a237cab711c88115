"""OS::Manila::ShareNetwork: the Neutron network and subnet a share's servers are made on, and the security
services they join. As Heat: the network is found from the subnet when only the subnet is given, and a create
refuses a subnet that is not on the given network; every property is updated in place (security services are
added and removed one by one, then the rest is sent, only what has a value, as Heat's manila client sends it).
The attributes (segmentation id, cidr, IP version, network type) are what Manila shows at Heat's microversion:
empty until a share server is made on the network."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    read_back,
    show,
    wait_for,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.manila.common import (
    ManilaHTTPError,
    ManilaRead,
    find_security_service,
    list_live,
    request,
)
from hotc.providers.openstack.neutron import find_network, find_subnet

ATTRIBUTES = ("segmentation_id", "cidr", "ip_version", "network_type")


class ShareNetworkDriver(ManilaRead):
    read_what = "share network"
    collection, key = "share-networks", "share_network"
    list_path, list_key = "/share-networks/detail", "share_networks"
    list_what = "share networks"

    def _neutron_ids(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> tuple[Any, Any]:
        """The network and subnet ids (Heat's translation rules resolve names), the network found from the
        subnet when only the subnet is given; a subnet on another network is refused (Heat's validate)."""
        net, subnet = props.get("neutron_network"), props.get("neutron_subnet")
        subnet_obj = find_subnet(ctx, conn, subnet) if subnet else None
        subnet_id = None if subnet_obj is None else str(subnet_obj.id)
        net_id = str(find_network(ctx, conn, net).id) if net else None
        if subnet_obj is not None:
            if net_id is None:
                net_id = str(subnet_obj.network_id)
            elif str(subnet_obj.network_id) != net_id:
                raise ProviderError("Provided neutron_subnet does not belong to provided neutron_network.")
        return net_id, subnet_id

    def _service_id(self, ctx: ActionContext, conn: Any, value: Any) -> str:
        return find_security_service(ctx, conn, value).id

    def _action(self, ctx: ActionContext, conn: Any, network_id: str, action: str, service_id: str) -> None:
        call(
            ctx,
            f"{action.replace('_', ' ')} {service_id} of share network {network_id}",
            request,
            conn,
            "POST",
            f"/share-networks/{network_id}/action",
            {action: {"security_service_id": service_id}},
        )

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        net_id, subnet_id = self._neutron_ids(ctx, conn, props)
        services = [self._service_id(ctx, conn, s) for s in props.get("security_services") or []]
        body = {
            "name": props.get("name"),
            "neutron_net_id": net_id,
            "neutron_subnet_id": subnet_id,
            "description": props.get("description"),
        }
        made = self._create(ctx, conn, props.get("name"), body)
        for sid in services:
            self._action(ctx, conn, made.id, "add_security_service", sid)
        return read_back(
            self, ctx, made.id, props, f"share network {made.id} disappeared right after its create"
        )

    def _services(self, ctx: ActionContext, conn: Any, network_id: str) -> list[str]:
        path = "/security-services?" + urlencode({"share_network_id": network_id})
        return [s.id for s in list_live(ctx, conn, path, "security_services", "security services")]

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(obj.get("name"))
        lp.text("description", obj.get("description"))
        lp.ref("neutron_network", obj.get("neutron_net_id"), "network", find_network)
        lp.ref("neutron_subnet", obj.get("neutron_subnet_id"), "subnet", find_subnet)
        lp.put("nova_network", props.get("nova_network"))
        if lp.wants("security_services"):
            lp.refs(
                "security_services",
                self._services(ctx, conn, obj.id),
                "security service",
                find_security_service,
            )
        attrs: dict[str, Any] = {k: obj.get(k) for k in ATTRIBUTES}
        attrs["show"] = show(dict(obj.body))
        return Outcome(obj.id, attrs, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        if "security_services" in changed:
            current = {self._service_id(ctx, conn, s) for s in old.get("security_services") or []}
            wanted = [self._service_id(ctx, conn, s) for s in new.get("security_services") or []]
            for sid in sorted(current - set(wanted)):
                self._action(ctx, conn, physical_id, "remove_security_service", sid)
            for sid in dict.fromkeys(wanted):
                if sid not in current:
                    self._action(ctx, conn, physical_id, "add_security_service", sid)
        rest = changed - {"security_services"}
        if rest:
            body: dict[str, Any] = {}
            if rest & {"neutron_network", "neutron_subnet"}:
                net_id, subnet_id = self._neutron_ids(
                    ctx,
                    conn,
                    {
                        "neutron_network": new.get("neutron_network") if "neutron_network" in rest else None,
                        "neutron_subnet": new.get("neutron_subnet") if "neutron_subnet" in rest else None,
                    },
                )
                if subnet_id is not None:
                    body["neutron_subnet_id"] = subnet_id
                if net_id is not None:
                    body["neutron_net_id"] = net_id
            for key in ("name", "description"):
                if key in rest and new.get(key) is not None:
                    body[key] = new[key]
            if body:
                call(
                    ctx,
                    f"update share network {physical_id}",
                    request,
                    conn,
                    "PUT",
                    f"/share-networks/{physical_id}",
                    {"share_network": body},
                )
        return read_back(self, ctx, physical_id, new, f"share network {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        """Manila refuses (409) to delete a share network while the share servers of its deleted shares are
        still being torn down: the delete is asked again until they are gone (or the action's timeout)."""
        conn = ctx.cloud()

        def attempt() -> bool:
            try:
                request(conn, "DELETE", f"/share-networks/{physical_id}")
            except ManilaHTTPError as exc:
                if exc.status_code == 404:
                    return True
                if exc.status_code == 409:
                    return False
                raise
            return True

        wait_for(ctx, f"delete share network {physical_id}", attempt, lambda done: done is True)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """None: a share network carries nowhere to put hotc's stamp, and Heat gives an unnamed one no name."""
        return None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Manila::ShareNetwork": ShareNetworkDriver()})
