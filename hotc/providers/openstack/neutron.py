"""Neutron drivers: Net, Subnet, Router, RouterInterface, Port, FloatingIP, FloatingIPAssociation,
SecurityGroup, SecurityGroupRule.

Every Neutron resource that supports tags is created with the hotc stamp as tags (``hotc-lineage=…``,
``hotc-address=…``) beside the template's own ``tags``; :meth:`find_adoptable` searches by them. Security group
rules carry no tags, so a rule is found by its exact content (Neutron refuses duplicate rules anyway); a router
interface is found by the stamp hotc puts on the interface's port.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    NotFound,
    ProviderError,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    is_generated_name,
    lookup,
    merge_tags,
    newest,
    outcome,
    physical_name,
    props_get,
    stamp_tags,
    user_tags,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items, resolve_id

# --------------------------------------------------------------------------------------------- look-ups


def find_network(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "network", value, conn.network.get_network, lambda v: conn.network.networks(name=v))


def find_subnet(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "subnet", value, conn.network.get_subnet, lambda v: conn.network.subnets(name=v))


def find_port(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "port", value, conn.network.get_port, lambda v: conn.network.ports(name=v))


def find_router(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "router", value, conn.network.get_router, lambda v: conn.network.routers(name=v))


def find_security_group(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    """Security group names are looked up in the current project (every project has a ``default``)."""
    return lookup(
        ctx,
        "security group",
        value,
        conn.network.get_security_group,
        lambda v: conn.network.security_groups(name=v, project_id=conn.current_project_id),
    )


def find_subnetpool(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "subnet pool", value, conn.network.get_subnet_pool, lambda v: conn.network.subnet_pools(name=v)
    )


def find_qos_policy(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "QoS policy", value, conn.network.get_qos_policy, lambda v: conn.network.qos_policies(name=v)
    )


def find_segment(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "segment", value, conn.network.get_segment, lambda v: conn.network.segments(name=v))


def security_group_ids(ctx: ActionContext, conn: Any, values: Iterable[Any]) -> list[str]:
    return [find_security_group(ctx, conn, v).id for v in values]


# --------------------------------------------------------------------------------------------- base


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


class NeutronDriver:
    """Create/read/update/delete of one tagged Neutron resource kind through the network proxy.

    Subclasses give ``kind`` (the proxy's singular name: ``network``, ``ip``, …), ``plural`` (its list
    method), ``what`` (for messages), and build request bodies from Heat's properties.
    """

    kind = ""
    plural = ""
    what = ""
    attribute_names: tuple[str, ...] = ()
    # property -> API field copied as-is on create and update
    simple: Mapping[str, str] = {}
    tagged = True

    # -- subclass hooks
    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            _put(body, field, props.get(prop))
        body.update(props.get("value_specs") or {})
        if "name" in self.simple:
            body["name"] = physical_name(ctx, props.get("name"))
        return body

    def update_body(
        self,
        ctx: ActionContext,
        conn: Any,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for prop, field in self.simple.items():
            if prop in changed and new.get(prop) is not None:
                body[field] = new.get(prop)
        if "name" in changed and "name" in self.simple:
            body["name"] = physical_name(ctx, new.get("name"))
        if "value_specs" in changed:
            body.update(new.get("value_specs") or {})
        return body

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        raw = res.to_dict(original_names=True)
        return {k: raw.get(k) for k in self.attribute_names}

    def after_create(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> None:
        return None

    # -- proxy plumbing
    def _proxy(self, conn: Any, verb: str) -> Callable[..., Any]:
        name = self.plural if verb == "list" else f"{verb}_{self.kind}"
        proxy: Callable[..., Any] = getattr(conn.network, name)
        return proxy

    def _get(self, ctx: ActionContext, conn: Any, pid: str) -> Any:
        return get_or_none(ctx, f"read {self.what} {pid}", self._proxy(conn, "get"), pid)

    # -- Driver protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self.create_body(ctx, conn, props)
        res = create_once(
            ctx,
            f"create {self.what}",
            lambda: self._proxy(conn, "create")(**body),
            lambda: self._find_just_made(ctx, conn, body.get("name")),
        )
        ctx.record_physical_id(res.id)
        if self.tagged:  # Neutron takes no tags in a POST: stamp right after, once the id is recorded
            call(
                ctx,
                f"tag {self.what} {res.id}",
                conn.network.set_tags,
                res,
                merge_tags(ctx, props.get("tags")),
            )
        self.after_create(ctx, conn, res, props)
        return self._outcome(ctx, conn, self._get(ctx, conn, res.id) or res)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        res = self._get(ctx, conn, physical_id)
        return None if res is None else self.read_outcome(ctx, conn, res, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> Outcome:
        """The outcome of a read of ``res`` (also from a list call): attributes and live properties."""
        lp = LiveProps(ctx, conn, props)
        raw = res.to_dict(original_names=True)
        if "name" in self.simple:
            lp.name(raw.get("name"))
        if self.tagged:
            lp.put("tags", user_tags(raw.get("tags")))
        self.live_properties(lp, raw)
        return replace(self._outcome(ctx, conn, res), properties=lp.result())

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        """Subclasses report their properties from the API representation ``raw``."""
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
        body = self.update_body(ctx, conn, old, new, changed)
        if body:
            call(ctx, f"update {self.what} {physical_id}", self._proxy(conn, "update"), physical_id, **body)
        if self.tagged and "tags" in changed:
            res = self._proxy(conn, "get")(physical_id)
            call(
                ctx,
                f"tag {self.what} {physical_id}",
                conn.network.set_tags,
                res,
                merge_tags(ctx, new.get("tags")),
            )
        self.update_extra(ctx, conn, physical_id, old, new, changed)
        res = self._get(ctx, conn, physical_id)
        if res is None:
            raise NotFound(f"{self.what} {physical_id} disappeared during its update")
        return self._outcome(ctx, conn, res)

    def update_extra(
        self,
        ctx: ActionContext,
        conn: Any,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> None:
        return None

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(ctx, f"delete {self.what} {physical_id}", self._proxy(conn, "delete"), physical_id)
        wait_gone(ctx, f"delete {self.what} {physical_id}", lambda: self._proxy(conn, "get")(physical_id))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        res = self._find(ctx, conn)
        if res is None and self.tagged and "name" in self.simple and not props.get("name"):
            res = self._find_untagged(ctx, conn)
        return None if res is None else str(res.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        """Ours by the stamp (the newest, when a replacement left two)."""
        if not self.tagged:
            return None
        found = call(
            ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")(tags=stamp_tags(ctx)))
        )
        return newest(found)

    def _find_just_made(self, ctx: ActionContext, conn: Any, name: str | None) -> Any:
        """What a create whose answer was lost made: not yet tagged (tags come after the create), with the name
        sent. Never a tagged resource: that would be an older instance of this address (a replacement)."""
        if not name:
            return None
        found = call(ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")(name=name)))
        return newest(r for r in found if not r.tags)

    def _find_untagged(self, ctx: ActionContext, conn: Any) -> Any:
        """A resource created but never stamped (the run died between the create and the tagging): untagged and
        named as hotc names this stack's resource at this address. (A name the template gives is not enough
        evidence: something else may carry it.)"""
        items = call(ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")()))
        for r in items:
            if not r.tags and is_generated_name(ctx, r.name):
                return r
        return None

    def _outcome(self, ctx: ActionContext, conn: Any, res: Any) -> Outcome:
        return outcome(res, self.attributes(ctx, conn, res))


# --------------------------------------------------------------------------------------------- Net


class NetDriver(NeutronDriver):
    kind, plural, what = "network", "networks", "network"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "shared": "shared",
        "port_security_enabled": "port_security_enabled",
        "dns_domain": "dns_domain",
    }
    attribute_names = (
        "status",
        "name",
        "subnets",
        "admin_state_up",
        "tenant_id",
        "port_security_enabled",
        "mtu",
        "qos_policy_id",
        "l2_adjacency",
        "segments",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "project_id", props.get("tenant_id"))
        _put(body, "availability_zone_hints", props.get("availability_zone_hints"))
        if props.get("qos_policy"):
            body["qos_policy_id"] = find_qos_policy(ctx, conn, props["qos_policy"]).id
        if props.get("dhcp_agent_ids"):
            ctx.log("network: dhcp_agent_ids is not applied (hotc does not schedule DHCP agents)")
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "qos_policy" in changed:
            body["qos_policy_id"] = (
                find_qos_policy(ctx, conn, new["qos_policy"]).id if new.get("qos_policy") else None
            )
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        for key in ("admin_state_up", "shared", "port_security_enabled"):
            lp.put(key, raw.get(key))
        lp.text("dns_domain", raw.get("dns_domain") or "")
        lp.put("availability_zone_hints", list(raw.get("availability_zone_hints") or []))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("qos_policy", raw.get("qos_policy_id"), "QoS policy", find_qos_policy)


# --------------------------------------------------------------------------------------------- Subnet


def _gateway(value: Any) -> Any:
    return None if value == "" else value


class SubnetDriver(NeutronDriver):
    kind, plural, what = "subnet", "subnets", "subnet"
    simple = {
        "name": "name",
        "cidr": "cidr",
        "ip_version": "ip_version",
        "enable_dhcp": "enable_dhcp",
        "dns_nameservers": "dns_nameservers",
        "allocation_pools": "allocation_pools",
        "host_routes": "host_routes",
        "ipv6_ra_mode": "ipv6_ra_mode",
        "ipv6_address_mode": "ipv6_address_mode",
        "prefixlen": "prefixlen",
    }
    attribute_names = (
        "name",
        "network_id",
        "tenant_id",
        "allocation_pools",
        "gateway_ip",
        "host_routes",
        "ip_version",
        "cidr",
        "dns_nameservers",
        "enable_dhcp",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["network_id"] = find_network(ctx, conn, props_get(props, "network", "network_id")).id
        if "gateway_ip" in props and props["gateway_ip"] is not None:
            body["gateway_ip"] = _gateway(props["gateway_ip"])
        _put(body, "project_id", props.get("tenant_id"))
        if props.get("subnetpool"):
            body["subnetpool_id"] = find_subnetpool(ctx, conn, props["subnetpool"]).id
        if props.get("segment"):
            body["segment_id"] = find_segment(ctx, conn, props["segment"]).id
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        for fixed in ("cidr", "ip_version", "ipv6_ra_mode", "ipv6_address_mode", "prefixlen"):
            body.pop(fixed, None)
        if "gateway_ip" in changed:
            body["gateway_ip"] = _gateway(new.get("gateway_ip"))
        if "segment" in changed:
            body["segment_id"] = find_segment(ctx, conn, new["segment"]).id if new.get("segment") else None
        if "allocation_pools" in changed and new.get("allocation_pools") is None:
            body.pop("allocation_pools")
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("network", raw.get("network_id"), "network", find_network)
        lp.ref("network_id", raw.get("network_id"), "network", find_network)
        for key in ("cidr", "ip_version", "enable_dhcp", "ipv6_ra_mode", "ipv6_address_mode"):
            lp.put(key, raw.get(key))
        lp.put("dns_nameservers", list(raw.get("dns_nameservers") or []))
        if lp.wants("gateway_ip"):  # "" in the template: no gateway (None in the API)
            gw = raw.get("gateway_ip")
            lp.put("gateway_ip", "" if gw is None and lp.props["gateway_ip"] in ("", None) else gw)
        lp.put(
            "allocation_pools",
            [{"start": p.get("start"), "end": p.get("end")} for p in raw.get("allocation_pools") or []],
        )
        lp.put(
            "host_routes",
            [
                {"destination": r.get("destination"), "nexthop": r.get("nexthop")}
                for r in raw.get("host_routes") or []
            ],
        )
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("subnetpool", raw.get("subnetpool_id"), "subnet pool", find_subnetpool)
        lp.ref("segment", raw.get("segment_id"), "segment", find_segment)


# --------------------------------------------------------------------------------------------- Router


def gateway_info(ctx: ActionContext, conn: Any, info: Mapping[str, Any] | None) -> dict[str, Any]:
    """Heat's external_gateway_info (network name or id, subnet names in fixed ips) as the API wants it."""
    if not info:
        return {}
    out: dict[str, Any] = {"network_id": find_network(ctx, conn, info.get("network")).id}
    if info.get("enable_snat") is not None:
        out["enable_snat"] = info["enable_snat"]
    fixed = info.get("external_fixed_ips")
    if fixed:
        items = []
        for f in fixed:
            item: dict[str, Any] = {}
            if f.get("subnet"):
                item["subnet_id"] = find_subnet(ctx, conn, f["subnet"]).id
            _put(item, "ip_address", f.get("ip_address"))
            items.append(item)
        out["external_fixed_ips"] = items
    return out


class RouterDriver(NeutronDriver):
    kind, plural, what = "router", "routers", "router"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "availability_zone_hints": "availability_zone_hints",
    }
    attribute_names = ("status", "external_gateway_info", "name", "admin_state_up", "tenant_id")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        gw = gateway_info(ctx, conn, props.get("external_gateway_info"))
        if gw:
            body["external_gateway_info"] = gw
        _put(body, "distributed", props.get("distributed"))
        _put(body, "ha", props.get("ha"))
        _put(body, "project_id", props.get("tenant_id"))
        if props.get("l3_agent_ids") or props.get("l3_agent_id"):
            ctx.log("router: l3_agent_ids is not applied (hotc does not schedule L3 agents)")
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "external_gateway_info" in changed:
            body["external_gateway_info"] = gateway_info(ctx, conn, new.get("external_gateway_info"))
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.put("admin_state_up", raw.get("admin_state_up"))
        lp.put("availability_zone_hints", list(raw.get("availability_zone_hints") or []))
        for key in ("distributed", "ha"):  # admin-only fields: reported when the cloud shows them
            if raw.get(key) is not None:
                lp.put(key, raw.get(key))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        if lp.wants("external_gateway_info"):
            lp.put("external_gateway_info", self._live_gateway(lp, raw.get("external_gateway_info")))

    @staticmethod
    def _live_gateway(lp: LiveProps, live: Mapping[str, Any] | None) -> dict[str, Any] | None:
        given = dict(lp.props.get("external_gateway_info") or {})
        if not live or not live.get("network_id"):
            return {} if not given else None
        out: dict[str, Any] = {
            "network": lp.ref_value(given.get("network"), live.get("network_id"), "network", find_network)
        }
        if "enable_snat" in given:
            out["enable_snat"] = live.get("enable_snat")
        if "external_fixed_ips" in given:

            def same(g: Mapping[str, Any], ip: Mapping[str, Any]) -> bool:
                sub = g.get("subnet")
                return (
                    sub is None or lp.ref_value(sub, ip.get("subnet_id"), "subnet", find_subnet) == sub
                ) and (g.get("ip_address") is None or g.get("ip_address") == ip.get("ip_address"))

            out["external_fixed_ips"] = match_items(
                given.get("external_fixed_ips") or [],
                live.get("external_fixed_ips") or [],
                same,
                lambda ip: {"subnet": ip.get("subnet_id"), "ip_address": ip.get("ip_address")},
            )
        return out

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        router = self._get(ctx, conn, physical_id)
        if router is None:
            return
        super().delete(ctx, physical_id, props, policy=policy)


# --------------------------------------------------------------------------------------------- RouterInterface


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
        router = find_router(ctx, conn, props_get(props, "router", "router_id"))
        subnet = props_get(props, "subnet", "subnet_id")
        port = props_get(props, "port", "port_id")
        if subnet and port:
            raise ProviderError("router interface: give either subnet or port, not both")
        if subnet:
            key, value = "subnet_id", find_subnet(ctx, conn, subnet).id
        elif port:
            key, value = "port_id", find_port(ctx, conn, port).id
        else:
            raise ProviderError("router interface: one of subnet or port is required")
        pid = f"{router.id}:{key}={value}"
        existing = self._interface_port(ctx, conn, router.id, key, value)
        if existing is None:
            ctx.record_physical_id(pid)
            try:
                call(
                    ctx,
                    f"add interface to router {router.id}",
                    lambda: conn.network.add_interface_to_router(router, *_iface_args(key, value)),
                )
            except ProviderError:
                if self._interface_port(ctx, conn, router.id, key, value) is None:
                    raise
        else:
            ctx.record_physical_id(pid)
        iface = self._interface_port(ctx, conn, router.id, key, value)
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
        if get_or_none(ctx, f"read router {router_id}", conn.network.get_router, router_id) is None:
            return
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


# --------------------------------------------------------------------------------------------- Port


def fixed_ips(
    ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    out = []
    for item in items or []:
        entry: dict[str, Any] = {}
        subnet = props_get(item, "subnet", "subnet_id")
        if subnet:
            entry["subnet_id"] = find_subnet(ctx, conn, subnet).id
        _put(entry, "ip_address", item.get("ip_address"))
        out.append(entry)
    return out


def address_pairs(items: Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(i).items() if v is not None} for i in items or []]


class PortDriver(NeutronDriver):
    kind, plural, what = "port", "ports", "port"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "device_id": "device_id",
        "device_owner": "device_owner",
        "dns_name": "dns_name",
        "binding:vnic_type": "binding:vnic_type",
        "port_security_enabled": "port_security_enabled",
        "propagate_uplink_status": "propagate_uplink_status",
    }
    attribute_names = (
        "admin_state_up",
        "device_id",
        "device_owner",
        "fixed_ips",
        "mac_address",
        "name",
        "network_id",
        "security_groups",
        "status",
        "tenant_id",
        "allowed_address_pairs",
        "port_security_enabled",
        "qos_policy_id",
        "dns_assignment",
        "propagate_uplink_status",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["network_id"] = find_network(ctx, conn, props_get(props, "network", "network_id")).id
        if props.get("no_fixed_ips"):
            body["fixed_ips"] = []
        elif props.get("fixed_ips"):
            body["fixed_ips"] = fixed_ips(ctx, conn, props["fixed_ips"])
        if props.get("security_groups") is not None:
            body["security_groups"] = security_group_ids(ctx, conn, props["security_groups"])
        _put(body, "mac_address", props.get("mac_address"))
        if props.get("allowed_address_pairs") is not None:
            body["allowed_address_pairs"] = address_pairs(props["allowed_address_pairs"])
        if props.get("qos_policy"):
            body["qos_policy_id"] = find_qos_policy(ctx, conn, props["qos_policy"]).id
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "device_id" in body and body["device_id"] is None:
            body["device_id"] = ""
        if "device_owner" in body and body["device_owner"] is None:
            body["device_owner"] = ""
        if "fixed_ips" in changed or "no_fixed_ips" in changed:
            if new.get("no_fixed_ips"):
                body["fixed_ips"] = []
            elif new.get("fixed_ips") is not None:
                body["fixed_ips"] = fixed_ips(ctx, conn, new["fixed_ips"])
            else:  # back to one address picked by Neutron on the network's subnets
                body["fixed_ips"] = [{"subnet_id": s} for s in self._network_subnets(ctx, conn, new)[:1]]
        if "security_groups" in changed:
            groups = new.get("security_groups")
            # Heat: no security_groups means the project's default group
            body["security_groups"] = security_group_ids(
                ctx, conn, groups if groups is not None else ["default"]
            )
        if "allowed_address_pairs" in changed:
            body["allowed_address_pairs"] = address_pairs(new.get("allowed_address_pairs"))
        if "qos_policy" in changed:
            body["qos_policy_id"] = (
                find_qos_policy(ctx, conn, new["qos_policy"]).id if new.get("qos_policy") else None
            )
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.ref("network", raw.get("network_id"), "network", find_network)
        lp.ref("network_id", raw.get("network_id"), "network", find_network)
        for key in ("admin_state_up", "port_security_enabled", "propagate_uplink_status", "mac_address"):
            lp.put(key, raw.get(key))
        lp.text("dns_name", raw.get("dns_name") or "")
        lp.put("binding:vnic_type", raw.get("binding:vnic_type"))
        for key in ("device_id", "device_owner"):
            # Nova sets them when a server takes the port: only a value the template gave is compared
            if lp.props.get(key):
                lp.put(key, raw.get(key) or "")
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))
        lp.ref("qos_policy", raw.get("qos_policy_id"), "QoS policy", find_qos_policy)
        if lp.props.get("security_groups") is not None:
            lp.refs(
                "security_groups", raw.get("security_groups") or [], "security group", find_security_group
            )
        live_ips = list(raw.get("fixed_ips") or [])
        if lp.props.get("no_fixed_ips"):
            lp.put("no_fixed_ips", not live_ips)
        if lp.props.get("fixed_ips") is not None:

            def same(g: Mapping[str, Any], ip: Mapping[str, Any]) -> bool:
                sub = props_get(g, "subnet", "subnet_id")
                return (
                    sub is None or lp.ref_value(sub, ip.get("subnet_id"), "subnet", find_subnet) == sub
                ) and (g.get("ip_address") in (None, "") or g.get("ip_address") == ip.get("ip_address"))

            lp.put(
                "fixed_ips",
                match_items(
                    lp.props["fixed_ips"],
                    live_ips,
                    same,
                    lambda ip: {"subnet": ip.get("subnet_id"), "ip_address": ip.get("ip_address")},
                ),
            )
        if lp.props.get("allowed_address_pairs") is not None:

            def pair(g: Mapping[str, Any], p: Mapping[str, Any]) -> bool:
                return g.get("ip_address") == p.get("ip_address") and (
                    g.get("mac_address") in (None, "") or g.get("mac_address") == p.get("mac_address")
                )

            lp.put(
                "allowed_address_pairs",
                match_items(
                    lp.props["allowed_address_pairs"],
                    raw.get("allowed_address_pairs") or [],
                    pair,
                    lambda p: {"ip_address": p.get("ip_address"), "mac_address": p.get("mac_address")},
                ),
            )

    def _network_subnets(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> list[str]:
        net = find_network(ctx, conn, props_get(props, "network", "network_id"))
        return list(net.subnet_ids or [])

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        attrs = super().attributes(ctx, conn, res)
        subnet_ids = [ip.get("subnet_id") for ip in res.fixed_ips or []]
        attrs["subnets"] = [
            s.to_dict(original_names=True)
            for s in (
                get_or_none(ctx, f"read subnet {sid}", conn.network.get_subnet, sid) for sid in subnet_ids
            )
            if s is not None
        ]
        net = get_or_none(ctx, f"read network {res.network_id}", conn.network.get_network, res.network_id)
        attrs["network"] = net.to_dict(original_names=True) if net is not None else None
        return attrs


# --------------------------------------------------------------------------------------------- FloatingIP


class FloatingIPDriver(NeutronDriver):
    kind, plural, what = "ip", "ips", "floating IP"
    simple = {"fixed_ip_address": "fixed_ip_address", "dns_name": "dns_name", "dns_domain": "dns_domain"}
    attribute_names = (
        "router_id",
        "tenant_id",
        "floating_network_id",
        "fixed_ip_address",
        "floating_ip_address",
        "port_id",
    )

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body["floating_network_id"] = find_network(
            ctx, conn, props_get(props, "floating_network", "floating_network_id")
        ).id
        if props.get("floating_subnet"):
            body["subnet_id"] = find_subnet(ctx, conn, props["floating_subnet"]).id
        if props.get("port_id"):
            body["port_id"] = find_port(ctx, conn, props["port_id"]).id
        _put(body, "floating_ip_address", props.get("floating_ip_address"))
        return body

    def update_body(self, ctx, conn, old, new, changed):  # type: ignore[no-untyped-def]
        body = super().update_body(ctx, conn, old, new, changed)
        if "port_id" in changed or "fixed_ip_address" in changed:
            body["port_id"] = find_port(ctx, conn, new["port_id"]).id if new.get("port_id") else None
            body["fixed_ip_address"] = new.get("fixed_ip_address") if body["port_id"] else None
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        for name in ("floating_network", "floating_network_id"):
            lp.ref(name, raw.get("floating_network_id"), "network", find_network)
        lp.ref("port_id", raw.get("port_id"), "port", find_port)
        for key in ("fixed_ip_address", "floating_ip_address"):
            lp.put(key, raw.get(key))
        for key in ("dns_name", "dns_domain"):
            lp.text(key, raw.get(key) or "")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(ctx, f"delete floating IP {physical_id}", conn.network.delete_ip, physical_id)
        wait_gone(ctx, f"delete floating IP {physical_id}", lambda: conn.network.get_ip(physical_id))


# --------------------------------------------------------------------------------------------- FloatingIPAssociation


class FloatingIPAssociationDriver:
    """Physical id ``<floating ip id>:<port id>``; the association is the floating IP's port_id."""

    def _associate(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> tuple[str, str]:
        fip_id = props["floatingip_id"]
        port_id = find_port(ctx, conn, props["port_id"]).id
        body: dict[str, Any] = {"port_id": port_id}
        _put(body, "fixed_ip_address", props.get("fixed_ip_address"))
        call(
            ctx, f"associate floating IP {fip_id} with port {port_id}", conn.network.update_ip, fip_id, **body
        )
        return fip_id, port_id

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        port_id = find_port(ctx, conn, props["port_id"]).id
        pid = f"{props['floatingip_id']}:{port_id}"
        ctx.record_physical_id(pid)
        self._associate(ctx, conn, props)
        out = self.read(ctx, pid, props)
        assert out is not None
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        fip_id, _, port_id = physical_id.partition(":")
        fip = get_or_none(ctx, f"read floating IP {fip_id}", conn.network.get_ip, fip_id)
        if fip is None or fip.port_id != port_id:
            return None
        lp = LiveProps(ctx, conn, props)
        lp.put(
            "floatingip_id", props.get("floatingip_id") if props.get("floatingip_id") == fip_id else fip_id
        )
        lp.ref("port_id", port_id, "port", find_port)
        lp.put("fixed_ip_address", fip.fixed_ip_address)
        return replace(outcome(fip, {}, physical_id=physical_id), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        conn = ctx.cloud()
        old_fip = physical_id.partition(":")[0]
        if new["floatingip_id"] != old_fip:
            self._dissociate(ctx, conn, physical_id)
        fip_id, port_id = self._associate(ctx, conn, new)
        pid = f"{fip_id}:{port_id}"
        out = self.read(ctx, pid, new)
        if out is None:
            raise ProviderError(
                f"floating IP {fip_id} is not associated with port {port_id} after the update"
            )
        return out

    def _dissociate(self, ctx: ActionContext, conn: Any, physical_id: str) -> None:
        fip_id, _, port_id = physical_id.partition(":")
        fip = get_or_none(ctx, f"read floating IP {fip_id}", conn.network.get_ip, fip_id)
        if fip is None or fip.port_id != port_id:
            return
        ignore_missing(ctx, f"dissociate floating IP {fip_id}", conn.network.update_ip, fip_id, port_id=None)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self._dissociate(ctx, ctx.cloud(), physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # An association that is in place is the resource itself: adopt it when the FIP points at the port.
        try:
            conn = ctx.cloud()
            port_id = find_port(ctx, conn, props["port_id"]).id
        except (ProviderError, KeyError):
            return None
        pid = f"{props.get('floatingip_id')}:{port_id}"
        return pid if self.read(ctx, pid, props) is not None else None


# --------------------------------------------------------------------------------------------- SecurityGroup


def _prefix(value: Any) -> Any:
    return None if value in (None, "", "0.0.0.0/0", "::/0") else value


def _proto(value: Any) -> Any:
    if value in (None, "", "any"):
        return None
    return str(value).lower()


RuleKey = tuple[Any, ...]


def rule_key(rule: Mapping[str, Any]) -> RuleKey:
    """What makes two rules the same for Neutron (it refuses duplicates)."""
    return (
        rule.get("direction") or "ingress",
        rule.get("ethertype") or "IPv4",
        _proto(rule.get("protocol")),
        rule.get("port_range_min"),
        rule.get("port_range_max"),
        _prefix(rule.get("remote_ip_prefix")),
        rule.get("remote_group_id"),
    )


def heat_rule(ctx: ActionContext, conn: Any, sg_id: str, rule: Mapping[str, Any]) -> dict[str, Any]:
    """A rule of SecurityGroup.rules as the API wants it (Heat's defaults: ingress, IPv4, remote_ip_prefix)."""
    body: dict[str, Any] = {
        "direction": rule.get("direction") or "ingress",
        "ethertype": rule.get("ethertype") or "IPv4",
    }
    for key in ("port_range_min", "port_range_max", "protocol", "description"):
        _put(body, key, rule.get(key))
    if body.get("protocol") is not None:
        body["protocol"] = str(body["protocol"])
    mode = rule.get("remote_mode") or "remote_ip_prefix"
    if mode == "remote_group_id":
        group = rule.get("remote_group_id")
        body["remote_group_id"] = find_security_group(ctx, conn, group).id if group else sg_id
    else:
        _put(body, "remote_ip_prefix", rule.get("remote_ip_prefix"))
    return body


DEFAULT_EGRESS = (
    {"direction": "egress", "ethertype": "IPv4"},
    {"direction": "egress", "ethertype": "IPv6"},
)


class SecurityGroupDriver(NeutronDriver):
    kind, plural, what = "security_group", "security_groups", "security group"
    simple = {"name": "name", "description": "description", "stateful": "stateful"}
    attribute_names = ()

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body.pop("value_specs", None)
        return body

    def after_create(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> None:
        self._sync_rules(ctx, conn, res.id, props.get("rules") or [])

    def update_extra(self, ctx, conn, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        if "rules" in changed:
            self._sync_rules(ctx, conn, physical_id, new.get("rules") or [])

    def _sync_rules(self, ctx: ActionContext, conn: Any, sg_id: str, rules: list[Mapping[str, Any]]) -> None:
        """Make the group's rules exactly the template's, plus Neutron's default egress rules unless the
        template has egress rules of its own (as Heat does)."""
        wanted = [heat_rule(ctx, conn, sg_id, r) for r in rules]
        if not any(r["direction"] == "egress" for r in wanted):
            wanted.extend(dict(r) for r in DEFAULT_EGRESS)
        want_keys = {rule_key(r): r for r in wanted}
        have = call(
            ctx,
            f"list rules of security group {sg_id}",
            lambda: list(conn.network.security_group_rules(security_group_id=sg_id)),
        )
        have_keys = set()
        for rule in have:
            key = rule_key(rule.to_dict(original_names=True))
            if key in want_keys and key not in have_keys:
                have_keys.add(key)
                continue
            ignore_missing(
                ctx, f"delete security group rule {rule.id}", conn.network.delete_security_group_rule, rule.id
            )
        for key, body in want_keys.items():
            if key in have_keys:
                continue
            try:
                call(
                    ctx,
                    f"create rule in security group {sg_id}",
                    lambda body=body: conn.network.create_security_group_rule(
                        security_group_id=sg_id, **body
                    ),
                    retry_if=_retry_not_duplicate,
                )
            except ProviderError as exc:
                if exc.status_code != 409:  # already there
                    raise

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        return {}

    def read_outcome(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> Outcome:
        out = super().read_outcome(ctx, conn, res, props)
        if "rules" not in props:
            return out
        rules = getattr(res, "security_group_rules", None)
        if rules is None:
            rules = [
                r.to_dict(original_names=True)
                for r in call(
                    ctx,
                    f"list rules of security group {res.id}",
                    lambda: list(conn.network.security_group_rules(security_group_id=res.id)),
                )
            ]
        live = self.live_rules(ctx, conn, str(res.id), props.get("rules") or [], rules)
        return replace(out, properties={**dict(out.properties or {}), "rules": live})

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.text("description", raw.get("description") or "")
        lp.put("stateful", raw.get("stateful"))

    @staticmethod
    def live_rules(
        ctx: ActionContext,
        conn: Any,
        sg_id: str,
        given: list[Mapping[str, Any]],
        live: Iterable[Mapping[str, Any]],
    ) -> list[Any]:
        """The group's rules as the template gives them: each template rule Neutron still has, then each other
        rule in Heat's form (Neutron's default egress rules left out when the template has no egress rule of
        its own, as :meth:`_sync_rules` adds them)."""

        def key_of_given(rule: Mapping[str, Any]) -> RuleKey:
            body = dict(rule)
            body.setdefault("direction", "ingress")
            body.setdefault("ethertype", "IPv4")
            if (rule.get("remote_mode") or "remote_ip_prefix") == "remote_group_id":
                group = rule.get("remote_group_id")
                body["remote_group_id"] = (
                    resolve_id(ctx, conn, "security group", group, find_security_group) if group else sg_id
                )
                body["remote_ip_prefix"] = None
            else:
                body["remote_group_id"] = None
            return rule_key(body)

        have = [dict(r) for r in live]
        if not any((r.get("direction") or "ingress") == "egress" for r in given):
            defaults = {rule_key(r) for r in DEFAULT_EGRESS}
            have = [r for r in have if rule_key(r) not in defaults]
        keys = {id(g): key_of_given(g) for g in given}
        return match_items(given, have, lambda g, r: keys[id(g)] == rule_key(r), _heat_rule_of)


def _heat_rule_of(rule: Mapping[str, Any]) -> dict[str, Any]:
    """A Neutron rule in the form of an item of SecurityGroup.rules."""
    out: dict[str, Any] = {
        "direction": rule.get("direction"),
        "ethertype": rule.get("ethertype"),
        "protocol": rule.get("protocol"),
        "port_range_min": rule.get("port_range_min"),
        "port_range_max": rule.get("port_range_max"),
    }
    if rule.get("remote_group_id"):
        out["remote_mode"] = "remote_group_id"
        out["remote_group_id"] = rule["remote_group_id"]
    else:
        out["remote_mode"] = "remote_ip_prefix"
        out["remote_ip_prefix"] = rule.get("remote_ip_prefix")
    return {k: v for k, v in out.items() if v is not None}


def _retry_not_duplicate(exc: BaseException) -> bool:
    from hotc.providers.openstack.common import is_transient, status_of

    return is_transient(exc) and status_of(exc) != 409


# --------------------------------------------------------------------------------------------- SecurityGroupRule


class SecurityGroupRuleDriver:
    def _body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        sg = find_security_group(ctx, conn, props["security_group"])
        body: dict[str, Any] = {
            "security_group_id": sg.id,
            "direction": props.get("direction") or "ingress",
            "ethertype": props.get("ethertype") or "IPv4",
        }
        for key in ("port_range_min", "port_range_max", "description", "remote_ip_prefix"):
            _put(body, key, props.get(key))
        if props.get("protocol") is not None:
            body["protocol"] = str(props["protocol"])
        if props.get("remote_group"):
            body["remote_group_id"] = find_security_group(ctx, conn, props["remote_group"]).id
        return body

    def _find(self, ctx: ActionContext, conn: Any, body: Mapping[str, Any]) -> Any:
        want = rule_key(body)
        rules = call(
            ctx,
            "list security group rules",
            lambda: list(conn.network.security_group_rules(security_group_id=body["security_group_id"])),
        )
        for r in rules:
            if rule_key(r.to_dict(original_names=True)) == want:
                return r
        return None

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self._body(ctx, conn, props)
        rule = create_once(
            ctx,
            "create security group rule",
            lambda: conn.network.create_security_group_rule(**body),
            lambda: self._find(ctx, conn, body),
        )
        ctx.record_physical_id(rule.id)
        return outcome(rule, {})

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        rule = get_or_none(
            ctx, f"read security group rule {physical_id}", conn.network.get_security_group_rule, physical_id
        )
        return None if rule is None else self.read_outcome(ctx, conn, rule, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, rule: Any, props: Mapping[str, Any]) -> Outcome:
        raw = rule.to_dict(original_names=True)
        lp = LiveProps(ctx, conn, props)
        lp.ref("security_group", raw.get("security_group_id"), "security group", find_security_group)
        lp.ref("remote_group", raw.get("remote_group_id"), "security group", find_security_group)
        for key in ("direction", "ethertype", "port_range_min", "port_range_max"):
            lp.put(key, raw.get(key))
        lp.text("protocol", raw.get("protocol"))
        lp.text("description", raw.get("description") or "")
        if lp.wants("remote_ip_prefix"):
            live_prefix = raw.get("remote_ip_prefix")
            given = props.get("remote_ip_prefix")
            lp.put("remote_ip_prefix", given if _prefix(given) == _prefix(live_prefix) else live_prefix)
        return replace(outcome(rule, {}), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("a security group rule cannot be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(
            ctx,
            f"delete security group rule {physical_id}",
            conn.network.delete_security_group_rule,
            physical_id,
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        try:
            body = self._body(ctx, conn, props)
        except ProviderError:
            return None
        found = self._find(ctx, conn, body)
        return None if found is None else str(found.id)


DRIVERS: dict[str, Driver] = with_defaults(
    {
        "OS::Neutron::Net": NetDriver(),
        "OS::Neutron::Subnet": SubnetDriver(),
        "OS::Neutron::Router": RouterDriver(),
        "OS::Neutron::RouterInterface": RouterInterfaceDriver(),
        "OS::Neutron::Port": PortDriver(),
        "OS::Neutron::FloatingIP": FloatingIPDriver(),
        "OS::Neutron::FloatingIPAssociation": FloatingIPAssociationDriver(),
        "OS::Neutron::SecurityGroup": SecurityGroupDriver(),
        "OS::Neutron::SecurityGroupRule": SecurityGroupRuleDriver(),
    }
)
