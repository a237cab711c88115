"""The fake network proxy's address scopes, subnet pools, QoS policies with their four rule kinds, trunks with
subports, and a router's gateway set by an update — with Neutron's refusals: a second rule of a kind and
direction on a policy (409), a port that already is a trunk's parent or subport (409), an address scope or
subnet pool still in use (409), a subnet pool's prefixes shrunk (400)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tests.providers.fakesdk.core import bad_request, conflict, not_found, oid

# kind of the fake cloud's table -> (API rule type, fields with their defaults)
RULE_KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "qos_bandwidth_limit_rule": (
        "bandwidth_limit",
        {"max_kbps": None, "max_burst_kbps": 0, "direction": "egress"},
    ),
    "qos_dscp_marking_rule": ("dscp_marking", {"dscp_mark": None}),
    "qos_minimum_bandwidth_rule": ("minimum_bandwidth", {"min_kbps": None, "direction": "egress"}),
    "qos_minimum_packet_rate_rule": ("minimum_packet_rate", {"min_kpps": None, "direction": "egress"}),
}


def _collapse(prefixes: Iterable[Any]) -> list[str]:
    nets = [ipaddress.ip_network(str(p), strict=False) for p in prefixes]
    out: list[str] = []
    for v in (4, 6):
        out.extend(str(n) for n in ipaddress.collapse_addresses([n for n in nets if n.version == v]))
    return out


class NetworkExtras:
    """Mixed into :class:`tests.providers.fakesdk.network.NetworkProxy` (``cloud``, ``_base``, ``_res``,
    ``_list``, ``_update`` come from there)."""

    cloud: Any

    def _base(
        self, kind: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:  # pragma: no cover - NetworkProxy's
        raise NotImplementedError

    def _res(self, kind: str, obj: Mapping[str, Any]) -> Any:  # pragma: no cover - NetworkProxy's
        raise NotImplementedError

    def _list(
        self, kind: str, query: Mapping[str, Any]
    ) -> Iterator[Any]:  # pragma: no cover - NetworkProxy's
        raise NotImplementedError

    def _update(self, kind: str, value: Any, body: Mapping[str, Any]) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _drop_checked(self, kind: str, value: Any, ignore_missing: bool, what: str) -> str | None:
        rid = oid(value)
        if self.cloud.find(kind, rid) is None:
            if not ignore_missing:
                raise not_found(f"{what} {rid}")
            return None
        return rid

    # -- address scopes (no tags, no description)
    def create_address_scope(self, **attrs: Any) -> Any:
        obj = self._base("address_scope", attrs)
        obj.setdefault("shared", False)
        obj.setdefault("ip_version", 4)
        return self._res("address_scope", self.cloud.put("address_scope", obj))

    def get_address_scope(self, address_scope: Any) -> Any:
        return self._res("address_scope", self.cloud.get("address_scope", oid(address_scope)))

    def address_scopes(self, **query: Any) -> Iterator[Any]:
        return self._list("address_scope", query)

    def update_address_scope(self, address_scope: Any, **attrs: Any) -> Any:
        if "ip_version" in attrs:
            raise bad_request("Cannot update read-only attribute ip_version")
        return self._update("address_scope", address_scope, attrs)

    def delete_address_scope(self, address_scope: Any, ignore_missing: bool = True) -> None:
        rid = self._drop_checked("address_scope", address_scope, ignore_missing, "address scope")
        if rid is None:
            return
        if any(p.get("address_scope_id") == rid for p in self.cloud.all("subnet_pool")):
            raise conflict(
                f"Unable to complete operation on address scope {rid}. There are one or more subnet pools in use"
            )
        self.cloud.drop("address_scope", rid)

    # -- subnet pools
    def create_subnet_pool(self, **attrs: Any) -> Any:
        obj = self._base("subnet_pool", attrs)
        obj["prefixes"] = _collapse(attrs.get("prefixes") or [])
        if not obj["prefixes"]:
            raise bad_request("prefixes is required")
        version = ipaddress.ip_network(obj["prefixes"][0]).version
        obj["ip_version"] = version
        obj.setdefault("min_prefixlen", 8 if version == 4 else 64)
        obj.setdefault("max_prefixlen", 32 if version == 4 else 128)
        obj.setdefault("default_prefixlen", obj["min_prefixlen"])
        obj.setdefault("default_quota", None)
        obj.setdefault("is_default", False)
        obj.setdefault("shared", False)
        obj.setdefault("address_scope_id", None)
        if obj["address_scope_id"]:
            self.cloud.get("address_scope", obj["address_scope_id"])
        return self._res("subnet_pool", self.cloud.put("subnet_pool", obj))

    def get_subnet_pool(self, subnet_pool: Any) -> Any:
        return self._res("subnet_pool", self.cloud.get("subnet_pool", oid(subnet_pool)))

    def subnet_pools(self, **query: Any) -> Iterator[Any]:
        return self._list("subnet_pool", query)

    def update_subnet_pool(self, subnet_pool: Any, **attrs: Any) -> Any:
        obj = self.cloud.get("subnet_pool", oid(subnet_pool))
        if "prefixes" in attrs:
            new = _collapse(attrs["prefixes"])
            old = [ipaddress.ip_network(p) for p in obj["prefixes"]]
            if not all(any(o.subnet_of(ipaddress.ip_network(n)) for n in new) for o in old):  # type: ignore[arg-type]
                raise bad_request("Existing prefixes must be a subset of the new prefixes")
            attrs = dict(attrs, prefixes=new)
        if attrs.get("address_scope_id"):
            self.cloud.get("address_scope", attrs["address_scope_id"])
        return self._update("subnet_pool", subnet_pool, attrs)

    def delete_subnet_pool(self, subnet_pool: Any, ignore_missing: bool = True) -> None:
        rid = self._drop_checked("subnet_pool", subnet_pool, ignore_missing, "subnet pool")
        if rid is None:
            return
        if any(s.get("subnetpool_id") == rid for s in self.cloud.all("subnet")):
            raise conflict(f"Subnet pool {rid} is in use")
        self.cloud.drop("subnet_pool", rid)

    # -- QoS policies and rules
    def _policy_rules(self, policy_id: str) -> list[dict[str, Any]]:
        out = []
        for kind, (rtype, _fields) in RULE_KINDS.items():
            for r in self.cloud.all(kind):
                if r["qos_policy_id"] == policy_id:
                    out.append({**r, "type": rtype})
        return out

    def create_qos_policy(self, **attrs: Any) -> Any:
        obj = self._base("qos_policy", attrs)
        obj.setdefault("description", "")
        obj.setdefault("shared", False)
        obj.setdefault("is_default", False)
        return self._res("qos_policy", self.cloud.put("qos_policy", obj))

    def update_qos_policy(self, qos_policy: Any, **attrs: Any) -> Any:
        return self._update("qos_policy", qos_policy, attrs)

    def delete_qos_policy(self, qos_policy: Any, ignore_missing: bool = True) -> None:
        rid = self._drop_checked("qos_policy", qos_policy, ignore_missing, "QoS policy")
        if rid is None:
            return
        for kind in ("network", "port"):
            if any(o.get("qos_policy_id") == rid for o in self.cloud.all(kind)):
                raise conflict(f"QoS Policy {rid} is used by {kind}")
        for kind in RULE_KINDS:
            for r in [r for r in self.cloud.all(kind) if r["qos_policy_id"] == rid]:
                self.cloud.drop(kind, r["id"])
        self.cloud.drop("qos_policy", rid)

    def _create_rule(self, kind: str, qos_policy: Any, attrs: Mapping[str, Any]) -> Any:
        pid = self.cloud.get("qos_policy", oid(qos_policy))["id"]
        _rtype, fields = RULE_KINDS[kind]
        unknown = set(attrs) - set(fields) - {"tenant_id"}
        if unknown:
            raise bad_request(f"Unrecognized attribute(s) '{', '.join(sorted(unknown))}'")
        obj = {k: attrs.get(k, d) for k, d in fields.items()}
        missing = [k for k, v in obj.items() if v is None]
        if missing:
            raise bad_request(f"Failed to parse request. Required attribute '{missing[0]}' not specified")
        for r in self.cloud.all(kind):
            if r["qos_policy_id"] == pid and r.get("direction") == obj.get("direction"):
                raise conflict(f"Rule {kind} already exists in QoS policy {pid}")
        obj.update(id=self.cloud.new_id("rule"), qos_policy_id=pid)
        return self._res(kind, self.cloud.put(kind, obj))

    def _rule(self, kind: str, qos_rule: Any, qos_policy: Any) -> dict[str, Any]:
        pid = self.cloud.get("qos_policy", oid(qos_policy))["id"]
        r = self.cloud.get(kind, oid(qos_rule))
        if r["qos_policy_id"] != pid:
            raise not_found(f"QoS rule {r['id']} of policy {pid}")
        return r

    def _update_rule(self, kind: str, qos_rule: Any, qos_policy: Any, attrs: Mapping[str, Any]) -> Any:
        r = self._rule(kind, qos_rule, qos_policy)
        r.update(attrs)
        return self._res(kind, r)

    def _delete_rule(self, kind: str, qos_rule: Any, qos_policy: Any, ignore_missing: bool) -> None:
        try:
            r = self._rule(kind, qos_rule, qos_policy)
        except Exception:
            if not ignore_missing:
                raise
            return
        self.cloud.drop(kind, r["id"])

    def _rules_of(self, kind: str, qos_policy: Any) -> Iterator[Any]:
        pid = self.cloud.get("qos_policy", oid(qos_policy))["id"]
        return iter([self._res(kind, r) for r in self.cloud.all(kind) if r["qos_policy_id"] == pid])

    def create_qos_bandwidth_limit_rule(self, qos_policy: Any, **attrs: Any) -> Any:
        return self._create_rule("qos_bandwidth_limit_rule", qos_policy, attrs)

    def get_qos_bandwidth_limit_rule(self, qos_rule: Any, qos_policy: Any) -> Any:
        return self._res(
            "qos_bandwidth_limit_rule", self._rule("qos_bandwidth_limit_rule", qos_rule, qos_policy)
        )

    def update_qos_bandwidth_limit_rule(self, qos_rule: Any, qos_policy: Any, **attrs: Any) -> Any:
        return self._update_rule("qos_bandwidth_limit_rule", qos_rule, qos_policy, attrs)

    def delete_qos_bandwidth_limit_rule(
        self, qos_rule: Any, qos_policy: Any, ignore_missing: bool = True
    ) -> None:
        self._delete_rule("qos_bandwidth_limit_rule", qos_rule, qos_policy, ignore_missing)

    def qos_bandwidth_limit_rules(self, qos_policy: Any, **query: Any) -> Iterator[Any]:
        return self._rules_of("qos_bandwidth_limit_rule", qos_policy)

    def create_qos_dscp_marking_rule(self, qos_policy: Any, **attrs: Any) -> Any:
        return self._create_rule("qos_dscp_marking_rule", qos_policy, attrs)

    def get_qos_dscp_marking_rule(self, qos_rule: Any, qos_policy: Any) -> Any:
        return self._res("qos_dscp_marking_rule", self._rule("qos_dscp_marking_rule", qos_rule, qos_policy))

    def update_qos_dscp_marking_rule(self, qos_rule: Any, qos_policy: Any, **attrs: Any) -> Any:
        return self._update_rule("qos_dscp_marking_rule", qos_rule, qos_policy, attrs)

    def delete_qos_dscp_marking_rule(
        self, qos_rule: Any, qos_policy: Any, ignore_missing: bool = True
    ) -> None:
        self._delete_rule("qos_dscp_marking_rule", qos_rule, qos_policy, ignore_missing)

    def qos_dscp_marking_rules(self, qos_policy: Any, **query: Any) -> Iterator[Any]:
        return self._rules_of("qos_dscp_marking_rule", qos_policy)

    def create_qos_minimum_bandwidth_rule(self, qos_policy: Any, **attrs: Any) -> Any:
        return self._create_rule("qos_minimum_bandwidth_rule", qos_policy, attrs)

    def get_qos_minimum_bandwidth_rule(self, qos_rule: Any, qos_policy: Any) -> Any:
        return self._res(
            "qos_minimum_bandwidth_rule", self._rule("qos_minimum_bandwidth_rule", qos_rule, qos_policy)
        )

    def update_qos_minimum_bandwidth_rule(self, qos_rule: Any, qos_policy: Any, **attrs: Any) -> Any:
        return self._update_rule("qos_minimum_bandwidth_rule", qos_rule, qos_policy, attrs)

    def delete_qos_minimum_bandwidth_rule(
        self, qos_rule: Any, qos_policy: Any, ignore_missing: bool = True
    ) -> None:
        self._delete_rule("qos_minimum_bandwidth_rule", qos_rule, qos_policy, ignore_missing)

    def qos_minimum_bandwidth_rules(self, qos_policy: Any, **query: Any) -> Iterator[Any]:
        return self._rules_of("qos_minimum_bandwidth_rule", qos_policy)

    def create_qos_minimum_packet_rate_rule(self, qos_policy: Any, **attrs: Any) -> Any:
        return self._create_rule("qos_minimum_packet_rate_rule", qos_policy, attrs)

    def get_qos_minimum_packet_rate_rule(self, qos_rule: Any, qos_policy: Any) -> Any:
        return self._res(
            "qos_minimum_packet_rate_rule", self._rule("qos_minimum_packet_rate_rule", qos_rule, qos_policy)
        )

    def update_qos_minimum_packet_rate_rule(self, qos_rule: Any, qos_policy: Any, **attrs: Any) -> Any:
        return self._update_rule("qos_minimum_packet_rate_rule", qos_rule, qos_policy, attrs)

    def delete_qos_minimum_packet_rate_rule(
        self, qos_rule: Any, qos_policy: Any, ignore_missing: bool = True
    ) -> None:
        self._delete_rule("qos_minimum_packet_rate_rule", qos_rule, qos_policy, ignore_missing)

    def qos_minimum_packet_rate_rules(self, qos_policy: Any, **query: Any) -> Iterator[Any]:
        return self._rules_of("qos_minimum_packet_rate_rule", qos_policy)

    # -- trunks
    def _port_trunked(self, port_id: str, exclude: str = "") -> bool:
        for t in self.cloud.all("trunk"):
            if t["id"] != exclude and (
                t["port_id"] == port_id or any(sp["port_id"] == port_id for sp in t["sub_ports"])
            ):
                return True
        return False

    def _check_subports(self, trunk_id: str, subports: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for sp in subports:
            self.cloud.get("port", sp["port_id"])
            if self._port_trunked(sp["port_id"]):
                raise conflict(
                    f"Port {sp['port_id']} is currently in use and is not eligible for use as a subport"
                )
            if sp.get("segmentation_type") != "vlan" or not 1 <= int(sp.get("segmentation_id", 0)) <= 4094:
                raise bad_request(f"Invalid segmentation of subport {sp['port_id']}")
            out.append(
                {
                    "port_id": sp["port_id"],
                    "segmentation_type": sp["segmentation_type"],
                    "segmentation_id": int(sp["segmentation_id"]),
                }
            )
        return out

    def create_trunk(self, **attrs: Any) -> Any:
        port = self.cloud.get("port", attrs.get("port_id"))
        if self._port_trunked(port["id"]):
            raise conflict(
                f"Port {port['id']} is currently in use and is not eligible for use as a parent port"
            )
        obj = self._base("trunk", attrs)
        obj["sub_ports"] = []
        obj["sub_ports"] = self._check_subports(obj["id"], attrs.get("sub_ports") or [])
        obj.setdefault("description", "")
        obj.setdefault("admin_state_up", True)
        obj["status"] = "DOWN"
        return self._res("trunk", self.cloud.put("trunk", obj))

    def get_trunk(self, trunk: Any) -> Any:
        return self._res("trunk", self.cloud.get("trunk", oid(trunk)))

    def trunks(self, **query: Any) -> Iterator[Any]:
        return self._list("trunk", query)

    def update_trunk(self, trunk: Any, **attrs: Any) -> Any:
        if "port_id" in attrs or "sub_ports" in attrs:
            raise bad_request("Cannot update read-only attribute port_id/sub_ports")
        return self._update("trunk", trunk, attrs)

    def add_trunk_subports(self, trunk: Any, subports: list[dict[str, Any]]) -> Any:
        t = self.cloud.get("trunk", oid(trunk))
        t["sub_ports"] = t["sub_ports"] + self._check_subports(t["id"], subports)
        return self._res("trunk", t)

    def delete_trunk_subports(self, trunk: Any, subports: Iterable[dict[str, Any]]) -> Any:
        t = self.cloud.get("trunk", oid(trunk))
        gone = {sp["port_id"] for sp in subports}
        if not gone <= {sp["port_id"] for sp in t["sub_ports"]}:
            raise not_found(f"subports {sorted(gone)} of trunk {t['id']}")
        t["sub_ports"] = [sp for sp in t["sub_ports"] if sp["port_id"] not in gone]
        return self._res("trunk", t)

    def delete_trunk(self, trunk: Any, ignore_missing: bool = True) -> None:
        rid = self._drop_checked("trunk", trunk, ignore_missing, "trunk")
        if rid is not None:
            self.cloud.drop("trunk", rid)
