"""OS::Neutron::Port."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.batch import shared
from hotc.providers.openstack.common import (
    beside,
    get_or_none,
    made_or_found_id,
    props_get,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_network,
    find_qos_policy,
    find_security_group,
    find_subnet,
    security_group_ids,
)


def fixed_ips(
    ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]] | None
) -> list[dict[str, Any]]:
    out = []
    for item in items or []:
        entry: dict[str, Any] = {}
        subnet = props_get(item, "subnet", "subnet_id")
        if subnet:
            entry["subnet_id"] = made_or_found_id(ctx, conn, "subnet", subnet, find_subnet)
        _put(entry, "ip_address", item.get("ip_address"))
        out.append(entry)
    return out


def address_pairs(items: Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(i).items() if v is not None} for i in items or []]


class PortDriver(NeutronDriver):
    kind, plural, what = "port", "ports", "port"
    attributes_read = True  # its subnets and network
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
        body["network_id"] = made_or_found_id(
            ctx, conn, "network", props_get(props, "network", "network_id"), find_network
        )
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
        for key in ("admin_state_up", "port_security_enabled", "propagate_uplink_status"):
            lp.put(key, raw.get(key))
        lp.chosen("mac_address", raw.get("mac_address"))
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
        # each subnet and network read once per refresh (many ports share them); the network is read while the
        # subnets are (two round trips at once, not one after the other)
        network, subnets = beside(
            lambda: shared(
                ctx, ("network-of-port", res.network_id), lambda: _read(ctx, conn, "network", res.network_id)
            ),
            lambda: [
                shared(ctx, ("subnet-of-port", sid), lambda sid=sid: _read(ctx, conn, "subnet", sid))
                for sid in subnet_ids
            ],
            "hotc-port-network",
        )
        attrs["subnets"] = [s for s in subnets if s is not None]
        attrs["network"] = (
            network[0]
            if network
            else shared(  # the read failed in its thread: made again here, where its error is raised
                ctx, ("network-of-port", res.network_id), lambda: _read(ctx, conn, "network", res.network_id)
            )
        )
        return attrs


def _read(ctx: ActionContext, conn: Any, kind: str, oid: Any) -> dict[str, Any] | None:
    """The API form of a subnet or network, None when it is gone."""
    res = get_or_none(ctx, f"read {kind} {oid}", getattr(conn.network, f"get_{kind}"), oid)
    return None if res is None else dict(res.to_dict(original_names=True))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Port": PortDriver()})
