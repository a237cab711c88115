"""The fake network proxy (Neutron): networks, subnets with IP allocation, ports, routers and their interfaces,
floating IPs, security groups (with Neutron's default egress rules) and rules, tags, and Neutron's refusals
(an address in use, a duplicate rule, a network/subnet/router/group still in use, a trunk's parent port: 409);
address scopes, subnet pools, QoS policies and rules, trunks in ``network_extras``."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from typing import Any

from openstack.network.v2.address_scope import AddressScope
from openstack.network.v2.floating_ip import FloatingIP
from openstack.network.v2.network import Network
from openstack.network.v2.port import Port
from openstack.network.v2.qos_bandwidth_limit_rule import QoSBandwidthLimitRule
from openstack.network.v2.qos_dscp_marking_rule import QoSDSCPMarkingRule
from openstack.network.v2.qos_minimum_bandwidth_rule import QoSMinimumBandwidthRule
from openstack.network.v2.qos_minimum_packet_rate_rule import QoSMinimumPacketRateRule
from openstack.network.v2.qos_policy import QoSPolicy
from openstack.network.v2.router import Router
from openstack.network.v2.security_group import SecurityGroup
from openstack.network.v2.security_group_rule import SecurityGroupRule
from openstack.network.v2.segment import Segment
from openstack.network.v2.subnet import Subnet
from openstack.network.v2.subnet_pool import SubnetPool
from openstack.network.v2.trunk import Trunk

from tests.providers.fakesdk.core import Cloud, Proxy, bad_request, conflict, not_found, oid, select
from tests.providers.fakesdk.network_extras import NetworkExtras

CLASSES: dict[str, Any] = {
    "network": Network,
    "subnet": Subnet,
    "port": Port,
    "router": Router,
    "ip": FloatingIP,
    "security_group": SecurityGroup,
    "security_group_rule": SecurityGroupRule,
    "qos_policy": QoSPolicy,
    "subnet_pool": SubnetPool,
    "segment": Segment,
    "address_scope": AddressScope,
    "trunk": Trunk,
    "qos_bandwidth_limit_rule": QoSBandwidthLimitRule,
    "qos_dscp_marking_rule": QoSDSCPMarkingRule,
    "qos_minimum_bandwidth_rule": QoSMinimumBandwidthRule,
    "qos_minimum_packet_rate_rule": QoSMinimumPacketRateRule,
}
TAGGED = ("network", "subnet", "port", "router", "ip", "security_group", "qos_policy", "subnet_pool", "trunk")


def _rule_identity(r: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        r.get("security_group_id"),
        r.get("direction"),
        r.get("ethertype"),
        r.get("protocol"),
        r.get("port_range_min"),
        r.get("port_range_max"),
        r.get("remote_ip_prefix"),
        r.get("remote_group_id"),
    )


class NetworkProxy(NetworkExtras, Proxy):
    service = "network"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)

    # -- plumbing
    def _res(self, kind: str, obj: Mapping[str, Any]) -> Any:
        data = dict(obj)
        if kind == "security_group":
            data["security_group_rules"] = [
                dict(r) for r in self.cloud.all("security_group_rule") if r["security_group_id"] == obj["id"]
            ]
        if kind == "qos_policy":
            data["rules"] = self._policy_rules(obj["id"])
        if kind == "network":
            data["subnets"] = [s["id"] for s in self.cloud.all("subnet") if s["network_id"] == obj["id"]]
        return CLASSES[kind].existing(**data)

    def _base(self, kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
        obj = {k: v for k, v in body.items() if v is not None or k in ("gateway_ip",)}
        obj["id"] = obj.get("id") or self.cloud.new_id(kind)
        obj.setdefault("project_id", self.cloud.project_id)
        obj["tenant_id"] = obj["project_id"]
        obj.setdefault("name", "")
        obj["created_at"] = f"2026-01-01T00:00:{len(self.cloud.table(kind)):02d}Z"
        if kind in TAGGED:
            obj["tags"] = []  # Neutron takes no tags in a POST
        return obj

    def _list(self, kind: str, query: Mapping[str, Any]) -> Iterator[Any]:
        q = dict(query)
        fixed = q.pop("fixed_ips", None)
        for obj in list(select(self.cloud.all(kind), q)):
            if fixed:
                ips = {f"ip_address={i.get('ip_address')}" for i in obj.get("fixed_ips") or []}
                if not set(fixed) <= ips:
                    continue
            yield self._res(kind, obj)

    def _update(self, kind: str, value: Any, body: Mapping[str, Any]) -> Any:
        obj = self.cloud.get(kind, oid(value))
        obj.update(body)
        return self._res(kind, obj)

    # -- networks
    def create_network(self, **body: Any) -> Any:
        obj = self._base("network", body)
        obj.setdefault("admin_state_up", True)
        obj.setdefault("shared", False)
        obj.setdefault("port_security_enabled", True)
        obj.setdefault("status", "ACTIVE")
        obj.setdefault("mtu", 1450)
        obj.setdefault("availability_zone_hints", [])
        obj.setdefault("router:external", False)
        return self._res("network", self.cloud.put("network", obj))

    def get_network(self, value: Any) -> Any:
        return self._res("network", self.cloud.get("network", oid(value)))

    def networks(self, **query: Any) -> Iterator[Any]:
        return self._list("network", query)

    def update_network(self, value: Any, **body: Any) -> Any:
        return self._update("network", value, body)

    def delete_network(self, value: Any, ignore_missing: bool = True) -> None:
        nid = oid(value)
        if self.cloud.find("network", nid) is None:
            if not ignore_missing:
                raise not_found(f"network {nid}")
            return
        if any(
            p["network_id"] == nid and p.get("device_owner") != "network:dhcp" for p in self.cloud.all("port")
        ):
            raise conflict(
                f"Unable to complete operation on network {nid}. There are one or more ports still in use"
            )
        for s in [s for s in self.cloud.all("subnet") if s["network_id"] == nid]:
            self.cloud.drop("subnet", s["id"])
        self.cloud.drop("network", nid)

    # -- subnets
    def create_subnet(self, **body: Any) -> Any:
        net = self.cloud.get("network", body.get("network_id"))
        obj = self._base("subnet", body)
        cidr = obj.get("cidr")
        if not cidr:
            raise bad_request("cidr is required (no subnet pool in the fake)")
        netw = ipaddress.ip_network(cidr, strict=False)
        obj["cidr"] = str(netw)
        obj.setdefault("ip_version", netw.version)
        hosts = list(itertools_islice(netw.hosts(), 4096))
        if "gateway_ip" not in obj:
            obj["gateway_ip"] = str(hosts[0])
        obj.setdefault("enable_dhcp", True)
        obj.setdefault("dns_nameservers", [])
        obj.setdefault("host_routes", [])
        obj.setdefault(
            "allocation_pools",
            [{"start": str(hosts[1] if obj["gateway_ip"] else hosts[0]), "end": str(hosts[-1])}],
        )
        obj.setdefault("ipv6_ra_mode", None)
        obj.setdefault("ipv6_address_mode", None)
        obj.setdefault("subnetpool_id", None)
        obj.setdefault("segment_id", None)
        obj["network_id"] = net["id"]
        return self._res("subnet", self.cloud.put("subnet", obj))

    def get_subnet(self, value: Any) -> Any:
        return self._res("subnet", self.cloud.get("subnet", oid(value)))

    def subnets(self, **query: Any) -> Iterator[Any]:
        return self._list("subnet", query)

    def update_subnet(self, value: Any, **body: Any) -> Any:
        for fixed in ("cidr", "ip_version", "network_id"):
            if fixed in body:
                raise bad_request(f"Cannot update read-only attribute {fixed}")
        return self._update("subnet", value, body)

    def delete_subnet(self, value: Any, ignore_missing: bool = True) -> None:
        sid = oid(value)
        if self.cloud.find("subnet", sid) is None:
            if not ignore_missing:
                raise not_found(f"subnet {sid}")
            return
        if any(
            any(i.get("subnet_id") == sid for i in p.get("fixed_ips") or []) for p in self.cloud.all("port")
        ):
            raise conflict(
                f"Unable to complete operation on subnet {sid}: one or more ports have an IP allocation"
            )
        self.cloud.drop("subnet", sid)

    # -- ports and addresses
    def _allocate(
        self, network_id: str, wanted: list[Mapping[str, Any]] | None, port_id: str
    ) -> list[dict[str, Any]]:
        subnets = [s for s in self.cloud.all("subnet") if s["network_id"] == network_id]
        if wanted is None:
            wanted = [{"subnet_id": subnets[0]["id"]}] if subnets else []
        out = []
        for w in wanted:
            sub = None
            if w.get("subnet_id"):
                sub = self.cloud.get("subnet", w["subnet_id"])
            elif w.get("ip_address"):
                ip = ipaddress.ip_address(w["ip_address"])
                sub = next((s for s in subnets if ip in ipaddress.ip_network(s["cidr"])), None)
            if sub is None:
                raise bad_request(f"no subnet for fixed ip {dict(w)}")
            used = self._used(sub["id"], exclude=port_id)
            if w.get("ip_address"):
                ip_s = str(w["ip_address"])
                if ip_s in used:
                    raise conflict(f"IP address {ip_s} already allocated in subnet {sub['id']}")
            else:
                ip_s = next(
                    str(h)
                    for h in ipaddress.ip_network(sub["cidr"]).hosts()
                    if str(h) not in used and str(h) != sub.get("gateway_ip")
                )
            out.append({"subnet_id": sub["id"], "ip_address": ip_s})
        return out

    def _used(self, subnet_id: str, exclude: str = "") -> set[str]:
        return {
            i["ip_address"]
            for p in self.cloud.all("port")
            if p["id"] != exclude
            for i in p.get("fixed_ips") or []
            if i.get("subnet_id") == subnet_id
        }

    def create_port(self, **body: Any) -> Any:
        return self._res("port", self._create_port(**body))

    def _create_port(self, **body: Any) -> dict[str, Any]:
        net = self.cloud.get("network", body.get("network_id"))
        obj = self._base("port", body)
        obj["fixed_ips"] = self._allocate(net["id"], body.get("fixed_ips"), obj["id"])
        obj.setdefault("admin_state_up", True)
        obj.setdefault("device_id", "")
        obj.setdefault("device_owner", "")
        obj.setdefault(
            "mac_address",
            "fa:16:3e:" + ":".join(obj["id"][-6:][i : i + 2] for i in (0, 2, 4)),
        )
        if "security_groups" not in body:
            obj["security_groups"] = (
                [self._default_group()["id"]] if net.get("port_security_enabled", True) else []
            )
        obj.setdefault("allowed_address_pairs", [])
        obj.setdefault("binding:vnic_type", "normal")
        obj.setdefault("port_security_enabled", net.get("port_security_enabled", True))
        obj.setdefault("dns_name", "")
        obj.setdefault("qos_policy_id", None)
        obj["status"] = "ACTIVE" if obj["device_id"] else "DOWN"
        return self.cloud.put("port", obj)

    def get_port(self, value: Any) -> Any:
        return self._res("port", self.cloud.get("port", oid(value)))

    def ports(self, **query: Any) -> Iterator[Any]:
        return self._list("port", query)

    def update_port(self, value: Any, **body: Any) -> Any:
        obj = self.cloud.get("port", oid(value))
        if "fixed_ips" in body:
            body = dict(body, fixed_ips=self._allocate(obj["network_id"], body["fixed_ips"], obj["id"]))
        if "allowed_address_pairs" in body:
            body["allowed_address_pairs"] = [
                {"ip_address": p["ip_address"], "mac_address": p.get("mac_address") or obj["mac_address"]}
                for p in body["allowed_address_pairs"]
            ]
        return self._update("port", value, body)

    def delete_port(self, value: Any, ignore_missing: bool = True) -> None:
        pid = oid(value)
        if self.cloud.find("port", pid) is None:
            if not ignore_missing:
                raise not_found(f"port {pid}")
            return
        if any(t["port_id"] == pid for t in self.cloud.all("trunk")):
            raise conflict(f"Port {pid} is currently a parent port for trunk")
        for fip in self.cloud.all("ip"):
            if fip.get("port_id") == pid:
                fip.update(port_id=None, fixed_ip_address=None, status="DOWN")
        self.cloud.drop("port", pid)

    # -- routers
    def create_router(self, **body: Any) -> Any:
        obj = self._base("router", body)
        obj.setdefault("admin_state_up", True)
        obj.setdefault("status", "ACTIVE")
        obj.setdefault("availability_zone_hints", [])
        obj["external_gateway_info"] = self._gateway(body.get("external_gateway_info"))
        return self._res("router", self.cloud.put("router", obj))

    def _gateway(self, info: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if not info:
            return None
        net = self.cloud.get("network", info["network_id"])
        subnets = [s for s in self.cloud.all("subnet") if s["network_id"] == net["id"]]
        ips = info.get("external_fixed_ips") or (
            [
                {
                    "subnet_id": subnets[0]["id"],
                    "ip_address": str(ipaddress.ip_network(subnets[0]["cidr"]).network_address + 200),
                }
            ]
            if subnets
            else []
        )
        return {
            "network_id": net["id"],
            "enable_snat": info.get("enable_snat", True),
            "external_fixed_ips": [dict(i) for i in ips],
        }

    def get_router(self, value: Any) -> Any:
        return self._res("router", self.cloud.get("router", oid(value)))

    def routers(self, **query: Any) -> Iterator[Any]:
        return self._list("router", query)

    def update_router(self, value: Any, **body: Any) -> Any:
        if "external_gateway_info" in body:
            body = dict(body, external_gateway_info=self._gateway(body["external_gateway_info"]))
        return self._update("router", value, body)

    def delete_router(self, value: Any, ignore_missing: bool = True) -> None:
        rid = oid(value)
        if self.cloud.find("router", rid) is None:
            if not ignore_missing:
                raise not_found(f"router {rid}")
            return
        if any(p.get("device_id") == rid for p in self.cloud.all("port")):
            raise conflict(f"Router {rid} still has ports")
        self.cloud.drop("router", rid)

    def add_interface_to_router(self, router: Any, subnet: Any = None, port: Any = None) -> dict[str, Any]:
        subnet_id, port_id = subnet, port
        rid = oid(router)
        self.cloud.get("router", rid)
        if subnet_id:
            sub = self.cloud.get("subnet", subnet_id)
            if any(
                p.get("device_id") == rid
                and any(i.get("subnet_id") == sub["id"] for i in p.get("fixed_ips") or [])
                for p in self.cloud.all("port")
            ):
                raise bad_request(f"Router already has a port on subnet {sub['id']}")
            port = self._create_port(
                network_id=sub["network_id"],
                fixed_ips=[{"subnet_id": sub["id"], "ip_address": sub["gateway_ip"]}],
                device_id=rid,
                device_owner="network:router_interface",
            )
            pid = port["id"]
        else:
            p = self.cloud.get("port", port_id)
            if p.get("device_id"):
                raise conflict(f"Port {p['id']} is in use")
            p.update(device_id=rid, device_owner="network:router_interface", status="ACTIVE")
            pid = p["id"]
        return {"id": rid, "port_id": pid, "subnet_id": subnet_id}

    def remove_interface_from_router(self, router: Any, subnet: Any = None, port: Any = None) -> None:
        subnet_id, port_id = subnet, port
        rid = oid(router)
        for p in self.cloud.all("port"):
            if p.get("device_id") != rid or not str(p.get("device_owner")).startswith(
                "network:router_interface"
            ):
                continue
            if (port_id and p["id"] == port_id) or (
                subnet_id and any(i.get("subnet_id") == subnet_id for i in p.get("fixed_ips") or [])
            ):
                self.cloud.drop("port", p["id"])
                return
        raise not_found(f"Router {rid} has no interface on {subnet_id or port_id}")

    # -- floating IPs
    def create_ip(self, **body: Any) -> Any:
        net = self.cloud.get("network", body.get("floating_network_id"))
        obj = self._base("ip", body)
        subnets = [s for s in self.cloud.all("subnet") if s["network_id"] == net["id"]]
        if not obj.get("floating_ip_address"):
            used = {f.get("floating_ip_address") for f in self.cloud.all("ip")}
            obj["floating_ip_address"] = next(
                str(h)
                for h in ipaddress.ip_network(subnets[0]["cidr"]).hosts()
                if str(h) not in used and not str(h).endswith(".1")
            )
        obj.setdefault("port_id", None)
        obj.setdefault("fixed_ip_address", None)
        obj.setdefault("router_id", None)
        obj.setdefault("dns_name", "")
        obj.setdefault("dns_domain", "")
        self._bind_fip(obj)
        return self._res("ip", self.cloud.put("ip", obj))

    def _bind_fip(self, obj: dict[str, Any]) -> None:
        if obj.get("port_id"):
            port = self.cloud.get("port", obj["port_id"])
            obj["fixed_ip_address"] = obj.get("fixed_ip_address") or (port["fixed_ips"] or [{}])[0].get(
                "ip_address"
            )
            obj["status"] = "ACTIVE"
        else:
            obj["fixed_ip_address"] = None
            obj["status"] = "DOWN"

    def get_ip(self, value: Any) -> Any:
        return self._res("ip", self.cloud.get("ip", oid(value)))

    def ips(self, **query: Any) -> Iterator[Any]:
        return self._list("ip", query)

    def update_ip(self, value: Any, **body: Any) -> Any:
        obj = self.cloud.get("ip", oid(value))
        if body.get("port_id") and any(
            f["port_id"] == body["port_id"] and f["id"] != obj["id"] for f in self.cloud.all("ip")
        ):
            raise conflict(f"port {body['port_id']} already has a floating IP")
        obj.update(body)
        if "port_id" in body:
            self._bind_fip(obj)
        return self._res("ip", obj)

    def delete_ip(self, value: Any, ignore_missing: bool = True) -> None:
        fid = oid(value)
        if self.cloud.find("ip", fid) is None and not ignore_missing:
            raise not_found(f"floating ip {fid}")
        self.cloud.drop("ip", fid)

    # -- security groups
    def _default_group(self) -> dict[str, Any]:
        for g in self.cloud.all("security_group"):
            if g["name"] == "default" and g["project_id"] == self.cloud.project_id:
                return g
        return self._make_group({"name": "default", "description": "Default security group"})

    def _make_group(self, body: Mapping[str, Any]) -> dict[str, Any]:
        obj = self._base("security_group", body)
        obj.setdefault("description", "")
        obj.setdefault("stateful", True)
        self.cloud.put("security_group", obj)
        for eth in ("IPv4", "IPv6"):
            self._make_rule({"security_group_id": obj["id"], "direction": "egress", "ethertype": eth})
        return obj

    def create_security_group(self, **body: Any) -> Any:
        return self._res("security_group", self._make_group(body))

    def get_security_group(self, value: Any) -> Any:
        return self._res("security_group", self.cloud.get("security_group", oid(value)))

    def security_groups(self, **query: Any) -> Iterator[Any]:
        self._default_group()
        return self._list("security_group", query)

    def update_security_group(self, value: Any, **body: Any) -> Any:
        return self._update("security_group", value, body)

    def delete_security_group(self, value: Any, ignore_missing: bool = True) -> None:
        gid = oid(value)
        if self.cloud.find("security_group", gid) is None:
            if not ignore_missing:
                raise not_found(f"security group {gid}")
            return
        if any(gid in (p.get("security_groups") or []) for p in self.cloud.all("port")):
            raise conflict(f"Security group {gid} in use")
        for r in [r for r in self.cloud.all("security_group_rule") if r["security_group_id"] == gid]:
            self.cloud.drop("security_group_rule", r["id"])
        self.cloud.drop("security_group", gid)

    def _make_rule(self, body: Mapping[str, Any]) -> dict[str, Any]:
        self.cloud.get("security_group", body.get("security_group_id"))
        obj = {
            "id": self.cloud.new_id("rule"),
            "security_group_id": body["security_group_id"],
            "direction": body.get("direction", "ingress"),
            "ethertype": body.get("ethertype", "IPv4"),
            "protocol": body.get("protocol"),
            "port_range_min": body.get("port_range_min"),
            "port_range_max": body.get("port_range_max"),
            "remote_ip_prefix": body.get("remote_ip_prefix"),
            "remote_group_id": body.get("remote_group_id"),
            "description": body.get("description") or "",
            "project_id": self.cloud.project_id,
            "tenant_id": self.cloud.project_id,
        }
        if obj["remote_ip_prefix"] in ("0.0.0.0/0", "::/0"):
            pass  # Neutron keeps what it was given
        if any(_rule_identity(r) == _rule_identity(obj) for r in self.cloud.all("security_group_rule")):
            raise conflict("Security group rule already exists")
        return self.cloud.put("security_group_rule", obj)

    def create_security_group_rule(self, **body: Any) -> Any:
        return self._res("security_group_rule", self._make_rule(body))

    def get_security_group_rule(self, value: Any) -> Any:
        return self._res("security_group_rule", self.cloud.get("security_group_rule", oid(value)))

    def security_group_rules(self, **query: Any) -> Iterator[Any]:
        return self._list("security_group_rule", query)

    def delete_security_group_rule(self, value: Any, ignore_missing: bool = True) -> None:
        rid = oid(value)
        if self.cloud.find("security_group_rule", rid) is None and not ignore_missing:
            raise not_found(f"security group rule {rid}")
        self.cloud.drop("security_group_rule", rid)

    # -- tags and the rest
    def set_tags(self, res: Any, tags: list[str]) -> Any:
        rid = oid(res)
        for kind in TAGGED:
            obj = self.cloud.find(kind, rid)
            if obj is not None:
                obj["tags"] = list(tags)
                return self._res(kind, obj)
        raise not_found(f"resource {rid}")

    def get_qos_policy(self, value: Any) -> Any:
        return self._res("qos_policy", self.cloud.get("qos_policy", oid(value)))

    def qos_policies(self, **query: Any) -> Iterator[Any]:
        return self._list("qos_policy", query)

    def get_segment(self, value: Any) -> Any:
        return self._res("segment", self.cloud.get("segment", oid(value)))

    def segments(self, **query: Any) -> Iterator[Any]:
        return self._list("segment", query)

    # -- used by the fake compute service
    def _bind(self, port_id: str, server_id: str) -> None:
        p = self.cloud.get("port", port_id)
        if p.get("device_id") and p["device_id"] != server_id:
            raise conflict(f"Port {port_id} is still in use")
        p.update(device_id=server_id, device_owner="compute:nova", status="ACTIVE")

    def _unbind(self, port_id: str) -> None:
        p = self.cloud.find("port", port_id)
        if p is not None:
            p.update(device_id="", device_owner="", status="DOWN")


def itertools_islice(it: Any, n: int) -> Iterator[Any]:
    for i, x in enumerate(it):
        if i >= n:
            return
        yield x
