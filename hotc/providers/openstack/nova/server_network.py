"""The network side of OS::Nova::Server (Heat's ``server_network_mixin``): NICs, internal ports, interface
updates, floating IPs, and the ports and fixed IPs a replacement takes over from the server it replaces."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import (
    TAG_LINEAGE,
    NotFound,
    ProviderError,
    call,
    get_or_none,
    ignore_missing,
    made_or_found_id,
    merge_tags,
    props_get,
    settle,
    stamp,
    wait_for,
)
from hotc.providers.openstack.live import LiveProps, match_items, resolve_id
from hotc.providers.openstack.neutron import (
    find_network,
    find_port,
    find_qos_policy,
    find_subnet,
    security_group_ids,
)
from hotc.providers.openstack.nova.common import BUSY, live_server

INTERNAL_PORT_TAG = "hotc-internal-port"


def _clean(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None and v != ""}


class ServerNetworkMixin:
    """A server's ``networks``: the NICs Nova is given (ports hotc makes for ``subnet`` entries), interface
    attach/detach on update, floating IP association, and Heat's prepare-for-replace / restore of explicit
    ports and fixed IPs (a port attaches to one server only; an IP is allocated once per network)."""

    def _nics(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        items: list[Mapping[str, Any]] | None,
        sg_ids: list[str] | None,
    ) -> list[dict[str, Any]] | str | None:
        if items is None:
            return None
        nics: list[dict[str, Any]] = []
        for i, item in enumerate(items):
            nic = self._nic(ctx, conn, name, i, item, sg_ids)
            if isinstance(nic, str):  # allocate_network none|auto
                if len(items) > 1:
                    raise ProviderError("networks: allocate_network must be the only entry")
                return nic
            nics.append(nic)
        return nics

    def _nic(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        index: int,
        item: Mapping[str, Any],
        sg_ids: list[str] | None,
    ) -> dict[str, Any] | str:
        if item.get("allocate_network"):
            return str(item["allocate_network"])
        nic: dict[str, Any] = {}
        if item.get("tag"):
            nic["tag"] = item["tag"]
        if item.get("port"):
            nic["port"] = made_or_found_id(ctx, conn, "port", item["port"], find_port)
            return nic
        subnet = item.get("subnet")
        if subnet or item.get("port_extra_properties"):
            nic["port"] = self._internal_port(ctx, conn, name, index, item, sg_ids)
            return nic
        net = props_get(item, "network", "uuid")
        if not net:
            raise ProviderError("networks: each entry needs a network, port or subnet")
        nic["uuid"] = find_network(ctx, conn, net).id
        if item.get("fixed_ip"):
            nic["fixed_ip"] = item["fixed_ip"]
        return nic

    def _internal_port(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        index: int,
        item: Mapping[str, Any],
        sg_ids: list[str] | None,
    ) -> str:
        extra = {k: v for k, v in dict(item.get("port_extra_properties") or {}).items() if v is not None}
        body: dict[str, Any] = dict(extra.pop("value_specs", None) or {})
        if extra.get("qos_policy"):
            body["qos_policy_id"] = find_qos_policy(ctx, conn, extra.pop("qos_policy")).id
        extra.pop("qos_policy", None)
        body.update(extra)
        if item.get("subnet"):
            subnet = find_subnet(ctx, conn, item["subnet"])
            body["network_id"] = subnet.network_id
            fixed: dict[str, Any] = {"subnet_id": subnet.id}
            if item.get("fixed_ip"):
                fixed["ip_address"] = item["fixed_ip"]
            body["fixed_ips"] = [fixed]
        else:
            body["network_id"] = find_network(ctx, conn, item.get("network")).id
            if item.get("fixed_ip"):
                body["fixed_ips"] = [{"ip_address": item["fixed_ip"]}]
        if sg_ids is not None:
            body["security_groups"] = sg_ids
        body["name"] = f"{name}-port-{index}"
        port = call(ctx, f"create port for server {name}", lambda: conn.network.create_port(**body))
        call(ctx, f"tag port {port.id}", conn.network.set_tags, port, merge_tags(ctx, [INTERNAL_PORT_TAG]))
        return str(port.id)

    def _internal_ports(self, ctx: ActionContext, conn: Any) -> list[Any]:
        """Ports hotc made for servers of this stack (any address, any instance): the caller narrows down."""
        tags = [INTERNAL_PORT_TAG, f"{TAG_LINEAGE}={stamp(ctx)[TAG_LINEAGE]}"]
        return call(ctx, "list internal ports", lambda: list(conn.network.ports(tags=tags)))

    # -- create

    def _associate_floating_ips(
        self, ctx: ActionContext, conn: Any, sid: str, items: Iterable[Mapping[str, Any]]
    ) -> None:
        ifaces = None
        for item in items:
            if not item.get("floating_ip"):
                continue
            if ifaces is None:
                ifaces = call(
                    ctx, f"list interfaces of server {sid}", lambda: list(conn.compute.server_interfaces(sid))
                )
            port_id = self._match_interface(ctx, conn, item, ifaces, set())
            if port_id:
                call(
                    ctx,
                    f"associate floating IP {item['floating_ip']}",
                    conn.network.update_ip,
                    item["floating_ip"],
                    port_id=port_id,
                )

    # -- read

    def _match_interface(
        self, ctx: ActionContext, conn: Any, item: Mapping[str, Any], ifaces: list[Any], taken: set[str]
    ) -> str | None:
        """The port of the server's interface that a networks entry stands for."""
        if item.get("port"):
            pid = find_port(ctx, conn, item["port"]).id
            return pid if any(i.port_id == pid for i in ifaces) else None
        net_id = subnet_id = None
        if item.get("subnet"):
            sub = find_subnet(ctx, conn, item["subnet"])
            subnet_id, net_id = sub.id, sub.network_id
        elif props_get(item, "network", "uuid"):
            net_id = find_network(ctx, conn, props_get(item, "network", "uuid")).id
        for i in ifaces:
            if i.port_id in taken or (net_id and i.net_id != net_id):
                continue
            ips = i.fixed_ips or []
            if subnet_id and not any(ip.get("subnet_id") == subnet_id for ip in ips):
                continue
            if item.get("fixed_ip") and not any(ip.get("ip_address") == item["fixed_ip"] for ip in ips):
                continue
            return str(i.port_id)
        return None

    def _update_networks(
        self,
        ctx: ActionContext,
        conn: Any,
        sid: str,
        old: list[Mapping[str, Any]],
        new: list[Mapping[str, Any]],
        props: Mapping[str, Any],
    ) -> None:
        """Detach the interfaces of entries that left, attach those of entries that came (as Heat does)."""
        olds = [_clean(i) for i in old]
        news = [_clean(i) for i in new]
        removed = list(olds)
        added = []
        for item in news:
            if item in removed:
                removed.remove(item)
            else:
                added.append(item)
        ifaces = call(
            ctx, f"list interfaces of server {sid}", lambda: list(conn.compute.server_interfaces(sid))
        )
        kept = [i for i in olds if i not in removed]
        taken: set[str] = set()
        for item in kept:
            pid = self._match_interface(ctx, conn, item, ifaces, taken)
            if pid:
                taken.add(pid)
        internal = {p.id for p in self._internal_ports(ctx, conn)}
        for item in removed:
            pid = self._match_interface(ctx, conn, item, ifaces, taken)
            if pid is None:
                ctx.log(f"server: no interface found for removed networks entry {item}; nothing to detach")
                continue
            taken.add(pid)
            call(
                ctx,
                f"detach port {pid} from server {sid}",
                conn.compute.delete_server_interface,
                pid,
                server=sid,
            )
            self._wait_detached(ctx, conn, sid, pid)
            if pid in internal:
                ignore_missing(ctx, f"delete port {pid}", conn.network.delete_port, pid)
        server = call(ctx, f"read server {sid}", conn.compute.get_server, sid)
        groups = props.get("security_groups") or []
        sg_ids = security_group_ids(ctx, conn, groups) if groups else None
        for idx, item in enumerate(added):
            nic = self._nic(ctx, conn, server.name, len(olds) + idx, item, sg_ids)
            if isinstance(nic, str):
                continue
            attrs: dict[str, Any] = {}
            if nic.get("port"):
                attrs["port_id"] = nic["port"]
            else:
                attrs["net_id"] = nic["uuid"]
                if nic.get("fixed_ip"):
                    attrs["fixed_ips"] = [{"ip_address": nic["fixed_ip"]}]
            if nic.get("tag"):
                attrs["tag"] = nic["tag"]
            call(
                ctx,
                f"attach interface to server {sid}",
                lambda attrs=attrs: conn.compute.create_server_interface(sid, **attrs),
            )
        self._associate_floating_ips(ctx, conn, sid, [i for i in added if i.get("floating_ip")])

    @staticmethod
    def _wait_detached(ctx: ActionContext, conn: Any, sid: str, port_id: str) -> None:
        def ports_of_server() -> list[str]:
            return [str(i.port_id) for i in conn.compute.server_interfaces(sid)]

        wait_for(
            ctx,
            f"detach port {port_id} from server {sid}",
            ports_of_server,
            lambda ports: port_id not in ports,
        )

    # -- replacement (Heat's Server.prepare_for_replace / restore_prev_rsrc)

    @staticmethod
    def _shared_ports(
        ctx: ActionContext, conn: Any, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> list[str]:
        """Ids of the explicit ``port`` entries the old instance has and its replacement takes too: a port attaches
        to one server only, so the old server must let go of them before the new one is created."""

        def explicit(props: Mapping[str, Any]) -> list[str]:
            ids: list[str] = []
            for item in props.get("networks") or []:
                if isinstance(item, Mapping) and item.get("port"):
                    try:
                        pid = str(find_port(ctx, conn, item["port"]).id)
                    except NotFound:
                        continue
                    if pid not in ids:
                        ids.append(pid)
            return ids

        wanted = set(explicit(new))
        return [pid for pid in explicit(old) if pid in wanted] if wanted else []

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        """Detach from the old server the explicit ports its replacement takes over (and wait until Neutron shows
        them unbound). True when something was detached (a failed replacement then re-attaches it)."""
        conn = ctx.cloud()
        ports = self._shared_ports(ctx, conn, old, new)
        ips = _shared_fixed_ips(ctx, conn, old, new)
        if not (ports or ips) or live_server(conn, physical_id) is None:
            return False
        detached = False
        for (
            net_id,
            ip,
        ) in ips:  # a port Nova made with a requested fixed_ip: detaching deletes it, freeing the IP
            held = _port_with_ip(conn, net_id, ip)
            if held is None or held.device_id != physical_id:
                continue
            ctx.log(
                f"server: detaching the interface with {ip} from the old server {physical_id} for its "
                "replacement"
            )
            ignore_missing(
                ctx,
                f"detach port {held.id} from server {physical_id}",
                conn.compute.delete_server_interface,
                held.id,
                server=physical_id,
            )
            _wait_ip_owner(
                ctx,
                conn,
                net_id,
                ip,
                lambda dev: dev != physical_id,
                f"detach the interface with {ip} from server {physical_id}",
            )
            detached = True
        for port_id in ports:
            port = get_or_none(ctx, f"read port {port_id}", conn.network.get_port, port_id)
            if port is None or port.device_id != physical_id:
                continue
            ctx.log(f"server: detaching port {port_id} from the old server {physical_id} for its replacement")
            ignore_missing(
                ctx,
                f"detach port {port_id} from server {physical_id}",
                conn.compute.delete_server_interface,
                port_id,
                server=physical_id,
            )
            _wait_port_owner(
                ctx,
                conn,
                port_id,
                lambda dev: dev != physical_id,
                f"detach port {port_id} from server {physical_id}",
            )
            detached = True
        return detached

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        """Give the old server back the explicit ports :meth:`prepare_for_replace` took, detaching them first from
        the failed replacement when that got them."""
        conn = ctx.cloud()
        if live_server(conn, physical_id) is None:
            ctx.log(f"server: the old server {physical_id} is gone; its ports cannot be re-attached")
            return
        for port_id in self._shared_ports(ctx, conn, old, new):
            port = get_or_none(ctx, f"read port {port_id}", conn.network.get_port, port_id)
            if port is None or port.device_id == physical_id:
                continue
            holder = str(port.device_id or "")
            if holder and str(port.device_owner or "").startswith("compute:"):
                _take_port_back(ctx, conn, port_id, holder)
            elif holder:
                raise ProviderError(
                    f"port {port_id} is now used by {port.device_owner or 'another device'} "
                    f"{holder}: cannot re-attach it to server {physical_id}"
                )
            ctx.log(f"server: re-attaching port {port_id} to the old server {physical_id}")
            call(
                ctx,
                f"attach port {port_id} to server {physical_id}",
                lambda pid=port_id: conn.compute.create_server_interface(physical_id, port_id=pid),
            )
            _wait_port_owner(
                ctx,
                conn,
                port_id,
                lambda dev: dev == physical_id,
                f"attach port {port_id} to server {physical_id}",
            )
        for net_id, ip in _shared_fixed_ips(ctx, conn, old, new):
            held = _port_with_ip(conn, net_id, ip)
            if held is not None and held.device_id == physical_id:
                continue
            if held is not None and held.device_id and str(held.device_owner or "").startswith("compute:"):
                _take_port_back(ctx, conn, str(held.id), str(held.device_id))
                _wait_ip_owner(
                    ctx, conn, net_id, ip, lambda dev: dev == "", f"free {ip} from the failed replacement"
                )
            elif held is not None and held.device_id:
                raise ProviderError(
                    f"{ip} is now used by {held.device_owner or 'another device'} {held.device_id}: "
                    f"cannot give it back to server {physical_id}"
                )
            ctx.log(f"server: re-attaching an interface with {ip} to the old server {physical_id}")
            call(
                ctx,
                f"attach an interface with {ip} to server {physical_id}",
                lambda n=net_id, a=ip: conn.compute.create_server_interface(
                    physical_id, net_id=n, fixed_ips=[{"ip_address": a}]
                ),
            )
            _wait_ip_owner(
                ctx,
                conn,
                net_id,
                ip,
                lambda dev: dev == physical_id,
                f"attach an interface with {ip} to server {physical_id}",
            )

    # -- delete


def _shared_fixed_ips(
    ctx: ActionContext, conn: Any, old: Mapping[str, Any], new: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(network id, ip) of ``{network, fixed_ip}`` entries (a port Nova makes) the old instance and its
    replacement both have: the IP can be allocated once per network."""

    def entries(props: Mapping[str, Any]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for item in props.get("networks") or []:
            if (
                not isinstance(item, Mapping)
                or item.get("port")
                or item.get("subnet")
                or not item.get("fixed_ip")
            ):
                continue
            if item.get("port_extra_properties"):
                continue
            net = props_get(item, "network", "uuid")
            if not net:
                continue
            try:
                out.append((str(find_network(ctx, conn, net).id), str(item["fixed_ip"])))
            except NotFound:
                continue
        return out

    wanted = set(entries(new))
    return [e for e in entries(old) if e in wanted]


def _port_with_ip(conn: Any, net_id: str, ip: str) -> Any:
    found = [
        p
        for p in conn.network.ports(network_id=net_id, fixed_ips=[f"ip_address={ip}"])
        if any(f.get("ip_address") == ip for f in p.fixed_ips or [])
    ]
    return found[0] if found else None


def _wait_ip_owner(ctx: ActionContext, conn: Any, net_id: str, ip: str, ok: Any, what: str) -> None:
    """Wait until the device holding ``ip`` ("" when no port holds it) satisfies ``ok``."""

    def holder() -> str:
        p = _port_with_ip(conn, net_id, ip)
        return "" if p is None else str(p.device_id or "")

    wait_for(ctx, what, holder, lambda dev: dev is not None and bool(ok(dev)))


def _take_port_back(ctx: ActionContext, conn: Any, port_id: str, holder: str) -> None:
    """Detach the port from ``holder`` (a failed replacement), once that is no longer building."""
    settle(
        ctx,
        f"server {holder}",
        live_server(conn, holder),
        lambda: live_server(conn, holder),
        lambda s: str(s.status).upper() in BUSY,
    )
    ctx.log(f"server: detaching port {port_id} from the failed replacement {holder}")
    ignore_missing(
        ctx,
        f"detach port {port_id} from server {holder}",
        conn.compute.delete_server_interface,
        port_id,
        server=holder,
    )
    _wait_port_owner(
        ctx, conn, port_id, lambda dev: dev != holder, f"detach port {port_id} from server {holder}"
    )


def _wait_port_owner(ctx: ActionContext, conn: Any, port_id: str, ok: Any, what: str) -> None:
    """Wait until the port's ``device_id`` satisfies ``ok`` (Neutron's view: the port is free or bound)."""
    wait_for(
        ctx,
        what,
        lambda: conn.network.get_port(port_id),
        lambda p: p is not None and bool(ok(str(p.device_id or ""))),
    )


def _live_networks(lp: LiveProps, given: list[Any], ifaces: list[Any]) -> list[Any]:
    """The template's ``networks`` entries that still have their interface (each once), then ``{port: ID}`` for
    each interface that none stands for."""
    ctx, conn = lp.ctx, lp.conn

    def matches(item: Any, iface: Any) -> bool:
        if not isinstance(item, Mapping):
            return False
        ips = iface.fixed_ips or []
        if item.get("port"):
            return resolve_id(ctx, conn, "port", item["port"], find_port) == str(iface.port_id)
        if item.get("subnet"):
            sub = resolve_id(ctx, conn, "subnet", item["subnet"], find_subnet)
            if not any(ip.get("subnet_id") == sub for ip in ips):
                return False
        else:
            net = props_get(item, "network", "uuid")
            if net and resolve_id(ctx, conn, "network", net, find_network) != str(iface.net_id):
                return False
        return not item.get("fixed_ip") or any(ip.get("ip_address") == item["fixed_ip"] for ip in ips)

    return match_items(given, ifaces, matches, lambda i: {"port": str(i.port_id)})
