"""The fake load-balancer proxy (Octavia v2): a load balancer is immutable while PENDING_* (every change then
is a 409, as Octavia's "is immutable and cannot be updated"); a child's create/update/delete puts the load
balancer in PENDING_UPDATE and the child in PENDING_* until a later tick; a load balancer with children is
deleted only with ``cascade``. Gates: ``lb.create``, ``lb.update`` (children), ``lb.delete``.
Knob: ``member_delete_errors`` (how many member deletes end in ERROR, the noop driver's bug)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from openstack.load_balancer.v2.flavor import Flavor
from openstack.load_balancer.v2.flavor_profile import FlavorProfile
from openstack.load_balancer.v2.health_monitor import HealthMonitor
from openstack.load_balancer.v2.l7_policy import L7Policy
from openstack.load_balancer.v2.l7_rule import L7Rule
from openstack.load_balancer.v2.listener import Listener
from openstack.load_balancer.v2.load_balancer import LoadBalancer
from openstack.load_balancer.v2.member import Member
from openstack.load_balancer.v2.pool import Pool

from tests.providers.fakesdk.core import Cloud, Proxy, bad_request, conflict, not_found, oid

CLASSES: dict[str, Any] = {
    "load_balancer": LoadBalancer,
    "listener": Listener,
    "pool": Pool,
    "member": Member,
    "health_monitor": HealthMonitor,
    "lb_flavor": Flavor,
    "lb_flavor_profile": FlavorProfile,
    "l7_policy": L7Policy,
    "l7_rule": L7Rule,
}
READ_ONLY = {
    "listener": ("protocol", "protocol_port"),
    "pool": ("protocol",),
    "member": ("address", "protocol_port"),
    "health_monitor": ("type",),
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "listener": {
        "connection_limit": -1,
        "allowed_cidrs": None,
        "sni_container_refs": [],
        "default_pool_id": None,
        "default_tls_container_ref": None,
    },
    "pool": {"session_persistence": None, "tls_enabled": False, "healthmonitor_id": None},
    "member": {
        "weight": 1,
        "monitor_address": None,
        "monitor_port": None,
        "subnet_id": None,
        "backup": False,
    },
    "health_monitor": {},
    "l7_policy": {"redirect_pool_id": None, "redirect_url": None, "redirect_prefix": None, "rules": []},
    "l7_rule": {"invert": False, "key": None},
}


class LoadBalancerProxy(Proxy):
    service = "load_balancer"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        self.member_delete_errors = 0
        self.refusals = 0  # changes refused because the load balancer was PENDING_*

    def _res(self, kind: str, obj: Mapping[str, Any]) -> Any:
        data = {k: v for k, v in obj.items() if not k.startswith("_")}
        if kind == "load_balancer":
            data["listeners"] = [{"id": x["id"]} for x in self.cloud.all("listener") if x["_lb"] == obj["id"]]
            data["pools"] = [{"id": x["id"]} for x in self.cloud.all("pool") if x["_lb"] == obj["id"]]
        if kind == "l7_policy":
            data["rules"] = [{"id": r["id"]} for r in self.cloud.all("l7_rule") if r["_policy"] == obj["id"]]
        if kind == "pool":
            data["members"] = [{"id": m["id"]} for m in self.cloud.all("member") if m["_pool"] == obj["id"]]
        return CLASSES[kind].existing(**data)

    def _lb(self, lb_id: Any) -> dict[str, Any]:
        return self.cloud.get("load_balancer", oid(lb_id), "Load Balancer")

    def _mutable(self, lb: Mapping[str, Any]) -> None:
        if lb["provisioning_status"] != "ACTIVE":
            self.refusals += 1
            raise conflict(f"Load Balancer {lb['id']} is immutable and cannot be updated.")

    def _base(self, kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "id": self.cloud.new_id(kind),
            "name": "",
            "description": "",
            "admin_state_up": True,
            "provisioning_status": "PENDING_CREATE",
            "operating_status": "OFFLINE",
            "project_id": self.cloud.project_id,
            "tags": [],
            "created_at": f"2026-01-01T00:05:{len(self.cloud.table(kind)):02d}Z",
        }
        obj.update(DEFAULTS.get(kind, {}))
        obj.update({k: v for k, v in body.items() if v is not None})
        return obj

    def _child_change(self, lb: dict[str, Any], obj: dict[str, Any], status: str, done: Any = None) -> None:
        """The load balancer goes PENDING_UPDATE, the child ``status``; both ACTIVE (or the child gone) later."""
        self._mutable(lb)
        lb["provisioning_status"] = "PENDING_UPDATE"
        obj["provisioning_status"] = status

        def settle() -> None:
            lb["provisioning_status"] = "ACTIVE"
            if done is not None:
                done()
            else:
                obj["provisioning_status"] = "ACTIVE"
                obj["operating_status"] = "ONLINE"

        self.cloud.later("lb.update", settle)

    # -- load balancers
    def create_load_balancer(self, **body: Any) -> Any:
        sub = self.cloud.get("subnet", body.get("vip_subnet_id"), "Subnet")
        obj = self._base("load_balancer", body)
        obj.setdefault("provider", "amphora")
        obj.setdefault("availability_zone", None)
        obj.setdefault("flavor_id", None)
        obj["vip_network_id"] = sub["network_id"]
        port = self.cloud.objects.get("port", {})
        obj.setdefault("vip_address", f"{sub['cidr'].rsplit('.', 1)[0]}.{100 + len(port) % 100}")
        obj["vip_port_id"] = self.cloud.new_id("vip-port")
        self.cloud.put("load_balancer", obj)
        self.cloud.later(
            "lb.create", lambda: obj.update(provisioning_status="ACTIVE", operating_status="ONLINE")
        )
        return self._res("load_balancer", obj)

    def get_load_balancer(self, value: Any) -> Any:
        return self._res("load_balancer", self._lb(value))

    def load_balancers(self, **query: Any) -> Iterator[Any]:
        return self._list("load_balancer", query)

    def update_load_balancer(self, value: Any, **body: Any) -> Any:
        lb = self._lb(value)
        self._mutable(lb)
        lb.update(body)
        lb["provisioning_status"] = "PENDING_UPDATE"
        self.cloud.later("lb.update", lambda: lb.update(provisioning_status="ACTIVE"))
        return self._res("load_balancer", lb)

    def delete_load_balancer(self, value: Any, ignore_missing: bool = True, cascade: bool = False) -> None:
        lb = self.cloud.find("load_balancer", oid(value))
        if lb is None:
            if not ignore_missing:
                raise not_found(f"Load Balancer {oid(value)}")
            return
        self._mutable(lb)
        children = [
            (k, c)
            for k in ("listener", "pool", "member", "health_monitor")
            for c in self.cloud.all(k)
            if c.get("_lb") == lb["id"]
        ]
        if children and not cascade:
            raise bad_request(f"Cannot delete Load Balancer {lb['id']} - it has children")
        lb["provisioning_status"] = "PENDING_DELETE"

        def gone() -> None:
            for kind, child in children:
                self.cloud.drop(kind, child["id"])
            self.cloud.drop("load_balancer", lb["id"])

        self.cloud.later("lb.delete", gone)

    # -- children
    def _list(self, kind: str, query: Mapping[str, Any], **scope: Any) -> Iterator[Any]:
        tags = query.get("tags")
        wanted = [tags] if isinstance(tags, str) else list(tags or [])
        for obj in list(self.cloud.all(kind)):
            if any(obj.get(k) != v for k, v in scope.items()):
                continue
            if query.get("name") is not None and obj.get("name") != query["name"]:
                continue
            if not set(wanted) <= set(obj.get("tags") or []):
                continue
            yield self._res(kind, obj)

    def _create_child(self, kind: str, lb_id: str, body: Mapping[str, Any], **extra: Any) -> Any:
        lb = self._lb(lb_id)
        self._mutable(lb)
        obj = self._base(kind, body)
        obj.update(extra, _lb=lb["id"])
        self.cloud.put(kind, obj)
        self._child_change(lb, obj, "PENDING_CREATE")
        return self._res(kind, obj)

    def _child(self, kind: str, value: Any) -> dict[str, Any]:
        return self.cloud.get(kind, oid(value), kind.replace("_", " ").title())

    def _update_child(self, kind: str, value: Any, body: Mapping[str, Any]) -> Any:
        obj = self._child(kind, value)
        for fixed in READ_ONLY.get(kind, ()):
            if fixed in body:
                raise bad_request(f"Invalid input for field/attribute {fixed}: read-only")
        lb = self._lb(obj["_lb"])
        self._mutable(lb)
        obj.update(body)
        self._child_change(lb, obj, "PENDING_UPDATE")
        return self._res(kind, obj)

    def _delete_child(self, kind: str, value: Any, ignore_missing: bool, error: bool = False) -> None:
        obj = self.cloud.find(kind, oid(value))
        if obj is None:
            if not ignore_missing:
                raise not_found(f"{kind} {oid(value)}")
            return
        lb = self._lb(obj["_lb"])

        def gone() -> None:
            if error:
                obj["provisioning_status"] = "ERROR"
            else:
                self.cloud.drop(kind, obj["id"])
                if kind == "pool":
                    for m in [m for m in self.cloud.all("member") if m["_pool"] == obj["id"]]:
                        self.cloud.drop("member", m["id"])
                if kind == "l7_policy":
                    for r in [r for r in self.cloud.all("l7_rule") if r["_policy"] == obj["id"]]:
                        self.cloud.drop("l7_rule", r["id"])
                    self._renumber(obj["listener_id"])

        self._child_change(lb, obj, "PENDING_DELETE", gone)

    def create_listener(self, **body: Any) -> Any:
        lb_id = body.pop("loadbalancer_id")
        if any(
            x["_lb"] == lb_id and x["protocol_port"] == body.get("protocol_port")
            for x in self.cloud.all("listener")
        ):
            raise conflict(
                f"Another Listener on this Load Balancer is already using protocol_port {body.get('protocol_port')}"
            )
        return self._create_child("listener", lb_id, body, loadbalancers=[{"id": lb_id}])

    def get_listener(self, value: Any) -> Any:
        return self._res("listener", self._child("listener", value))

    def listeners(self, **query: Any) -> Iterator[Any]:
        return self._list("listener", query)

    def update_listener(self, value: Any, **body: Any) -> Any:
        return self._update_child("listener", value, body)

    def delete_listener(self, value: Any, ignore_missing: bool = True) -> None:
        self._delete_child("listener", value, ignore_missing)

    def create_pool(self, **body: Any) -> Any:
        listener_id = body.pop("listener_id", None)
        lb_id = body.pop("loadbalancer_id", None)
        if listener_id:
            listener = self._child("listener", listener_id)
            lb_id = lb_id or listener["_lb"]
        if not lb_id:
            raise bad_request("One of listener_id or loadbalancer_id must be provided")
        listeners = [{"id": listener_id}] if listener_id else []
        pool = self._create_child("pool", lb_id, body, loadbalancers=[{"id": lb_id}], listeners=listeners)
        if listener_id:
            self.cloud.get("listener", listener_id)["default_pool_id"] = pool.id
        return pool

    def get_pool(self, value: Any) -> Any:
        return self._res("pool", self._child("pool", value))

    def pools(self, **query: Any) -> Iterator[Any]:
        return self._list("pool", query)

    def update_pool(self, value: Any, **body: Any) -> Any:
        return self._update_child("pool", value, body)

    def delete_pool(self, value: Any, ignore_missing: bool = True) -> None:
        self._delete_child("pool", value, ignore_missing)

    def create_member(self, pool: Any, **body: Any) -> Any:
        p = self._child("pool", pool)
        if any(
            m["_pool"] == p["id"]
            and m["address"] == body.get("address")
            and m["protocol_port"] == body.get("protocol_port")
            for m in self.cloud.all("member")
        ):
            raise conflict(
                f"Another member on this pool is already using ip {body.get('address')} on protocol_port {body.get('protocol_port')}"
            )
        return self._create_child("member", p["_lb"], body, _pool=p["id"], pool_id=p["id"])

    def get_member(self, member: Any, pool: Any) -> Any:
        m = self._child("member", member)
        if m["_pool"] != oid(pool):
            raise not_found(f"Member {oid(member)} in pool {oid(pool)}")
        return self._res("member", m)

    def members(self, pool: Any, **query: Any) -> Iterator[Any]:
        self._child("pool", pool)
        return self._list("member", query, _pool=oid(pool))

    def update_member(self, member: Any, pool: Any, **body: Any) -> Any:
        self.get_member(member, pool)
        return self._update_child("member", member, body)

    def delete_member(self, member: Any, pool: Any, ignore_missing: bool = True) -> None:
        error = self.member_delete_errors > 0
        if error:
            self.member_delete_errors -= 1
        self._delete_child("member", member, ignore_missing, error=error)

    def create_health_monitor(self, **body: Any) -> Any:
        p = self._child("pool", body.pop("pool_id"))
        if p.get("healthmonitor_id"):
            raise conflict(f"Pool {p['id']} already has a health monitor")
        hm = self._create_child("health_monitor", p["_lb"], body, pools=[{"id": p["id"]}])
        p["healthmonitor_id"] = hm.id
        return hm

    def get_health_monitor(self, value: Any) -> Any:
        return self._res("health_monitor", self._child("health_monitor", value))

    def health_monitors(self, **query: Any) -> Iterator[Any]:
        return self._list("health_monitor", query)

    def update_health_monitor(self, value: Any, **body: Any) -> Any:
        return self._update_child("health_monitor", value, body)

    def delete_health_monitor(self, value: Any, ignore_missing: bool = True) -> None:
        self._delete_child("health_monitor", value, ignore_missing)

    # -- flavors
    def get_flavor(self, value: Any) -> Any:
        return self._res("lb_flavor", self.cloud.get("lb_flavor", oid(value), "Flavor"))

    def flavors(self, **query: Any) -> Iterator[Any]:
        return self._list("lb_flavor", query)

    def _flavor_kind(self, kind: str, value: Any) -> dict[str, Any]:
        return self.cloud.get(kind, oid(value), "Flavor" if kind == "lb_flavor" else "Flavor profile")

    def create_flavor(self, **body: Any) -> Any:
        self._flavor_kind("lb_flavor_profile", body.get("flavor_profile_id"))
        if any(f["name"] == body.get("name") for f in self.cloud.all("lb_flavor")):
            raise conflict(f"A flavor named {body.get('name')} already exists")
        obj = {"id": self.cloud.new_id("lb_flavor"), "description": "", "enabled": True, "tags": []}
        obj.update({"enabled" if k == "is_enabled" else k: v for k, v in body.items()})
        return self._res("lb_flavor", self.cloud.put("lb_flavor", obj))

    def update_flavor(self, value: Any, **body: Any) -> Any:
        obj = self._flavor_kind("lb_flavor", value)
        if "flavor_profile_id" in body:
            raise bad_request("Invalid input for field/attribute flavor_profile_id: read-only")
        obj.update({"enabled" if k == "is_enabled" else k: v for k, v in body.items()})
        return self._res("lb_flavor", obj)

    def delete_flavor(self, value: Any, ignore_missing: bool = True) -> None:
        fid = oid(value)
        if self.cloud.find("lb_flavor", fid) is None:
            if not ignore_missing:
                raise not_found(f"Flavor {fid}")
            return
        if any(lb.get("flavor_id") == fid for lb in self.cloud.all("load_balancer")):
            raise conflict(f"Flavor {fid} is in use")
        self.cloud.drop("lb_flavor", fid)

    def create_flavor_profile(self, **body: Any) -> Any:
        if body.get("provider_name") not in (None, "amphora"):
            raise bad_request(f"Provider '{body.get('provider_name')}' is not enabled.")
        try:
            json.loads(body.get("flavor_data") or "")
        except ValueError as exc:
            raise bad_request("Invalid input for field/attribute flavor_data: not JSON") from exc
        obj = {"id": self.cloud.new_id("lb_flavor_profile"), "provider_name": "amphora"}
        obj.update({k: v for k, v in body.items() if v is not None})
        return self._res("lb_flavor_profile", self.cloud.put("lb_flavor_profile", obj))

    def get_flavor_profile(self, value: Any) -> Any:
        return self._res("lb_flavor_profile", self._flavor_kind("lb_flavor_profile", value))

    def flavor_profiles(self, **query: Any) -> Iterator[Any]:
        return self._list("lb_flavor_profile", query)

    def update_flavor_profile(self, value: Any, **body: Any) -> Any:
        obj = self._flavor_kind("lb_flavor_profile", value)
        if any(f["flavor_profile_id"] == obj["id"] for f in self.cloud.all("lb_flavor")):
            raise conflict(f"Flavor profile {obj['id']} is in use and cannot be modified.")
        obj.update(body)
        return self._res("lb_flavor_profile", obj)

    def delete_flavor_profile(self, value: Any, ignore_missing: bool = True) -> None:
        pid = oid(value)
        if self.cloud.find("lb_flavor_profile", pid) is None:
            if not ignore_missing:
                raise not_found(f"Flavor profile {pid}")
            return
        if any(f["flavor_profile_id"] == pid for f in self.cloud.all("lb_flavor")):
            raise conflict(f"Flavor profile {pid} is in use by a flavor")
        self.cloud.drop("lb_flavor_profile", pid)

    # -- L7 policies and rules
    def _renumber(self, listener_id: str) -> None:
        alive = [p for p in self.cloud.all("l7_policy") if p["listener_id"] == listener_id]
        alive = [p for p in alive if p["provisioning_status"] != "PENDING_DELETE"]
        for i, p in enumerate(sorted(alive, key=lambda p: p["position"]), start=1):
            p["position"] = i

    def _place(self, obj: dict[str, Any], position: Any) -> None:
        others = [
            p
            for p in self.cloud.all("l7_policy")
            if p["listener_id"] == obj["listener_id"] and p["id"] != obj["id"]
        ]
        others.sort(key=lambda p: p["position"])
        at = len(others) if position is None else max(0, min(int(position) - 1, len(others)))
        others.insert(at, obj)
        for i, p in enumerate(others, start=1):
            p["position"] = i

    def create_l7_policy(self, **body: Any) -> Any:
        listener = self._child("listener", body.get("listener_id"))
        action = body.get("action")
        if action == "REDIRECT_TO_POOL":
            self._child("pool", body.get("redirect_pool_id"))
        position = body.pop("position", None)
        obj = self._base("l7_policy", body)
        obj["_lb"] = listener["_lb"]
        obj["position"] = 0
        self._child_change(self._lb(listener["_lb"]), obj, "PENDING_CREATE")
        self.cloud.put("l7_policy", obj)
        self._place(obj, position)
        return self._res("l7_policy", obj)

    def get_l7_policy(self, value: Any) -> Any:
        return self._res("l7_policy", self._child("l7_policy", value))

    def l7_policies(self, **query: Any) -> Iterator[Any]:
        return self._list("l7_policy", query)

    def update_l7_policy(self, value: Any, **body: Any) -> Any:
        if "listener_id" in body:
            raise bad_request("Invalid input for field/attribute listener_id: read-only")
        position = body.pop("position", None)
        if body.get("action") == "REJECT":
            body.update(redirect_pool_id=None, redirect_url=None)
        out = self._update_child("l7_policy", value, body)
        if position is not None:
            self._place(self._child("l7_policy", value), position)
        return out

    def delete_l7_policy(self, value: Any, ignore_missing: bool = True) -> None:
        self._delete_child("l7_policy", value, ignore_missing)

    def create_l7_rule(self, l7_policy: Any, **body: Any) -> Any:
        policy = self._child("l7_policy", l7_policy)
        if body.get("type") in ("HEADER", "COOKIE") and not body.get("key"):
            raise bad_request("L7 rule of type HEADER or COOKIE needs a key")
        return self._create_child(
            "l7_rule", policy["_lb"], body, _policy=policy["id"], l7policy_id=policy["id"]
        )

    def get_l7_rule(self, l7rule: Any, l7_policy: Any) -> Any:
        r = self._child("l7_rule", l7rule)
        if r["_policy"] != oid(l7_policy):
            raise not_found(f"L7 rule {oid(l7rule)} in policy {oid(l7_policy)}")
        return self._res("l7_rule", r)

    def l7_rules(self, l7_policy: Any, **query: Any) -> Iterator[Any]:
        self._child("l7_policy", l7_policy)
        return self._list("l7_rule", query, _policy=oid(l7_policy))

    def update_l7_rule(self, l7rule: Any, l7_policy: Any, **body: Any) -> Any:
        if "value" in body:  # as openstacksdk: its _update has a parameter of that name
            raise TypeError("Proxy._update() got multiple values for argument 'value'")
        self.get_l7_rule(l7rule, l7_policy)
        if "rule_value" in body:
            body["value"] = body.pop("rule_value")
        return self._update_child("l7_rule", l7rule, body)

    def delete_l7_rule(self, l7rule: Any, l7_policy: Any, ignore_missing: bool = True) -> None:
        self._delete_child("l7_rule", l7rule, ignore_missing)
