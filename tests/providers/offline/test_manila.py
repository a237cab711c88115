"""The Manila drivers against a fake Manila API (and a fake Neutron for the share network's look-ups) that answers
as Manila 23 does at microversion 2.13 where it matters to them: a share is ``creating`` on its first read and
``available`` after, takes no access rule until then, lists its rules with the level Manila fills in (``rw``), and
a share type's extra specs come back as text. The drivers must send Heat's bodies at Heat's microversion, read
back no drift right after a write, report exactly what was changed outside hotc, make Heat's updates (access rules
denied and granted by difference, extra specs unset then set, security services added and removed), fail a
create whose share goes to ``error`` with Heat's message, refuse a subnet of another network, and keep hotc's stamp
out of what they report."""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from hotc.providers.openstack import common
from hotc.providers.openstack.common import ProviderError
from hotc.providers.schemas.manila import share_network_validate
from tests.providers.offline.helpers import Recorder, ctx_for, drift, driver


@dataclass
class Resp:
    status_code: int
    payload: Any = None
    reason = ""

    @property
    def content(self) -> bytes:
        return b"" if self.payload is None else json.dumps(self.payload).encode()

    @property
    def text(self) -> str:
        return self.content.decode()

    def json(self) -> Any:
        return copy.deepcopy(self.payload)


def _err(code: int, message: str) -> Resp:
    kind = {404: "itemNotFound", 400: "badRequest", 409: "conflict"}.get(code, "error")
    return Resp(code, {kind: {"code": code, "message": message}})


@dataclass
class FakeManila:
    shares: dict[str, dict[str, Any]] = field(default_factory=dict)
    rules: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    types: dict[str, dict[str, Any]] = field(default_factory=dict)
    networks: dict[str, dict[str, Any]] = field(default_factory=dict)
    services: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: dict[str, list[str]] = field(default_factory=dict)  # share network -> security services
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    end_status: str = "available"
    rules_end: str = (
        "active"  # the share's access_rules_status once the manager has applied a grant or denial
    )
    busy_deletes: int = 0  # share network deletes answered 409 (its share servers still being torn down)

    def request(self, path: str, method: str, headers: Any = None, json: Any = None) -> Resp:  # noqa: A002
        assert (headers or {}).get("X-OpenStack-Manila-API-Version") == "2.13"
        self.calls.append((method, path, copy.deepcopy(json)))
        url = urlsplit(path)
        parts = [unquote(p) for p in url.path.strip("/").split("/")]
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        handler = {
            "shares": self._shares,
            "types": self._types,
            "share-networks": self._networks,
            "security-services": self._services,
        }[parts[0]]
        return handler(method, parts[1:], query, json)

    # -- shares
    def _shares(self, method: str, rest: list[str], q: dict[str, str], body: Any) -> Resp:
        if not rest and method == "POST":
            sid = str(uuid.uuid4())
            self.shares[sid] = {**body["share"], "id": sid, "status": "creating", "share_server_id": None,
                                "host": "hotc@alpha#pool", "availability_zone": "nova", "project_id": "p",
                                "created_at": "2026-12-01T00:00:00.000000", "metadata": body["share"]["metadata"]}  # fmt: skip
            self.rules[sid] = []
            return Resp(200, {"share": self.shares[sid]})
        if rest == ["detail"]:
            return Resp(200, {"shares": list(self.shares.values())})
        share = self.shares.get(rest[0])
        if share is None:
            return _err(404, "The resource could not be found.")
        sid = rest[0]
        if len(rest) == 1 and method == "GET":
            out = copy.deepcopy(share)
            if share["status"] == "creating":
                share["status"] = self.end_status
            if share.get("access_rules_status") == "syncing":  # this answer says syncing, the next one not
                share["access_rules_status"] = self.rules_end
            return Resp(200, {"share": out})
        if len(rest) == 1 and method == "PUT":
            for k, v in body["share"].items():
                share[{"display_name": "name", "display_description": "description"}.get(k, k)] = v
            return Resp(200, {"share": share})
        if len(rest) == 1 and method == "DELETE":
            del self.shares[sid]
            return Resp(202)
        if rest[1] == "metadata" and method == "PUT":
            share["metadata"] = dict(body["metadata"])
            return Resp(200, {"metadata": share["metadata"]})
        if rest[1] == "export_locations":
            return Resp(200, {"export_locations": [{"path": f"10.0.0.{i}:/fake/{sid}"} for i in (10, 20)]})
        if rest[1] == "action":
            ((action, arg),) = body.items()
            if action == "access_list":
                return Resp(200, {"access_list": self.rules[sid]})
            if action == "allow_access":
                if share["status"] != "available":
                    return _err(400, "Invalid share: share status must be available")
                rule = {"id": str(uuid.uuid4()), "access_level": "rw", "state": "active", **arg}
                self.rules[sid].append(rule)
                share["access_rules_status"] = "syncing"
                return Resp(200, {"access": rule})
            if action == "deny_access":
                self.rules[sid] = [r for r in self.rules[sid] if r["id"] != arg["access_id"]]
                share["access_rules_status"] = "syncing"
                return Resp(202)
        return _err(400, "bad request")

    # -- share types
    def _types(self, method: str, rest: list[str], q: dict[str, str], body: Any) -> Resp:
        if not rest and method == "POST":
            tid = str(uuid.uuid4())
            spec = body["share_type"]
            self.types[tid] = {"id": tid, "name": spec["name"], "share_type_access:is_public": spec[
                "share_type_access:is_public"], "extra_specs": {k: str(v) for k, v in spec["extra_specs"].items()}}  # fmt: skip
            return Resp(200, {"share_type": self.types[tid]})
        if not rest:
            return Resp(200, {"share_types": list(self.types.values())})
        stype = self.types.get(rest[0])
        if stype is None:
            return _err(404, "Share type not found.")
        if len(rest) == 1 and method == "GET":
            return Resp(200, {"share_type": stype})
        if len(rest) == 1 and method == "DELETE":
            del self.types[rest[0]]
            return Resp(202)
        if rest[1] == "extra_specs" and method == "POST":
            stype["extra_specs"].update({k: str(v) for k, v in body["extra_specs"].items()})
            return Resp(200, {"extra_specs": stype["extra_specs"]})
        if rest[1] == "extra_specs" and method == "DELETE":
            if rest[2] not in stype["extra_specs"]:
                return _err(404, "Share type extra spec not found.")
            del stype["extra_specs"][rest[2]]
            return Resp(202)
        return _err(400, "bad request")

    # -- share networks
    def _networks(self, method: str, rest: list[str], q: dict[str, str], body: Any) -> Resp:
        if not rest and method == "POST":
            nid = str(uuid.uuid4())
            self.networks[nid] = {**body["share_network"], "id": nid, "cidr": None, "ip_version": None,
                                  "segmentation_id": None, "network_type": None, "created_at": "t"}  # fmt: skip
            self.links[nid] = []
            return Resp(200, {"share_network": self.networks[nid]})
        if rest == ["detail"]:
            return Resp(200, {"share_networks": list(self.networks.values())})
        net = self.networks.get(rest[0])
        if net is None:
            return _err(404, "Share network not found.")
        if len(rest) == 1 and method == "GET":
            return Resp(200, {"share_network": net})
        if len(rest) == 1 and method == "PUT":
            net.update(body["share_network"])
            return Resp(200, {"share_network": net})
        if len(rest) == 1 and method == "DELETE":
            if self.busy_deletes:
                self.busy_deletes -= 1
                return _err(409, "Share network is in use: it has share servers.")
            del self.networks[rest[0]]
            return Resp(202)
        ((action, arg),) = body.items()
        sid = arg["security_service_id"]
        if action == "add_security_service":
            self.links[rest[0]].append(sid)
        else:
            self.links[rest[0]].remove(sid)
        return Resp(200, {"share_network": net})

    # -- security services
    def _services(self, method: str, rest: list[str], q: dict[str, str], body: Any) -> Resp:
        if not rest and method == "POST":
            sid = str(uuid.uuid4())
            self.services[sid] = {"id": sid, "name": None, "description": None, "dns_ip": None, "server": None,
                                  "domain": None, "user": None, "password": None, **body["security_service"]}  # fmt: skip
            return Resp(200, {"security_service": self.services[sid]})
        if not rest and "share_network_id" in q:
            return Resp(
                200, {"security_services": [self.services[s] for s in self.links[q["share_network_id"]]]}
            )
        if rest == ["detail"]:
            return Resp(200, {"security_services": list(self.services.values())})
        svc = self.services.get(rest[0])
        if svc is None:
            return _err(404, "Security service not found.")
        if method == "GET":
            return Resp(200, {"security_service": svc})
        if method == "PUT":
            svc.update(body["security_service"])
            return Resp(200, {"security_service": svc})
        del self.services[rest[0]]
        return Resp(202)


@dataclass
class Obj:
    id: str
    name: str
    network_id: str = ""


@dataclass
class FakeNeutron:
    nets: list[Obj] = field(default_factory=lambda: [Obj("net-1", "private"), Obj("net-2", "other")])
    subs: list[Obj] = field(
        default_factory=lambda: [
            Obj("sub-1", "private-subnet", "net-1"),
            Obj("sub-2", "other-subnet", "net-2"),
        ]
    )

    def _get(self, items: list[Obj], value: str) -> Obj:
        for o in items:
            if o.id == value:
                return o
        raise ProviderError(f"{value} not found", status_code=404)

    def get_network(self, value: str) -> Obj:
        return self._get(self.nets, value)

    def networks(self, name: str) -> list[Obj]:
        return [n for n in self.nets if n.name == name]

    def get_subnet(self, value: str) -> Obj:
        return self._get(self.subs, value)

    def subnets(self, name: str) -> list[Obj]:
        return [s for s in self.subs if s.name == name]


@dataclass
class Conn:
    shared_file_system: FakeManila = field(default_factory=FakeManila)
    network: FakeNeutron = field(default_factory=FakeNeutron)


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> Conn:
    monkeypatch.setattr(common, "pause", lambda _s: None)
    return Conn()


SHARE = "OS::Manila::Share"
STYPE = "OS::Manila::ShareType"
NET = "OS::Manila::ShareNetwork"
SEC = "OS::Manila::SecurityService"


def _posts(conn: Conn, path: str) -> list[Any]:
    return [b for m, p, b in conn.shared_file_system.calls if m == "POST" and p == path]


def _actions(conn: Conn, share_id: str) -> list[str]:
    return [next(iter(b)) for b in _posts(conn, f"/shares/{share_id}/action")]


def test_share_type_is_created_as_heat_does_and_updates_its_extra_specs(conn: Conn) -> None:
    d = driver(STYPE)
    ctx = ctx_for(conn, "t", STYPE)
    props = {"name": "gold", "driver_handles_share_servers": False, "extra_specs": {"a": "1", "b": True}}
    out = d.create(ctx, props)
    (body,) = _posts(conn, "/types")
    assert body == {"share_type": {"name": "gold", "share_type_access:is_public": True, "extra_specs": {
        "driver_handles_share_servers": False, "snapshot_support": True}}}  # fmt: skip
    specs = conn.shared_file_system.types[out.physical_id]["extra_specs"]
    assert specs["a"] == "1" and specs["b"] == "True" and specs["hotc:lineage"] == ctx.lineage
    live = d.read(ctx, out.physical_id, props)
    assert drift(STYPE, props, live) == []
    assert "hotc:lineage" not in json.dumps(live.attributes["show"])
    assert d.find_adoptable(ctx, props) == out.physical_id  # the stamp finds a killed run's create

    # Heat's update: the old keys unset, the new ones set; the required specs and the stamp stay
    new = {**props, "extra_specs": {"b": "no", "c": "3"}}
    d.update(ctx, out.physical_id, props, new, frozenset({"extra_specs"}))
    specs = conn.shared_file_system.types[out.physical_id]["extra_specs"]
    assert {k: v for k, v in specs.items() if not k.startswith("hotc:")} == {
        "driver_handles_share_servers": "False", "snapshot_support": "True", "b": "no", "c": "3"}  # fmt: skip
    assert specs["hotc:address"] == "t"
    assert drift(STYPE, new, d.read(ctx, out.physical_id, new)) == []
    specs["c"] = "changed outside"
    assert drift(STYPE, new, d.read(ctx, out.physical_id, new)) == ["extra_specs"]
    d.delete(ctx, out.physical_id, new)
    assert d.read(ctx, out.physical_id, new) is None
    d.delete(ctx, out.physical_id, new)  # gone already: done


SHARE_PROPS: dict[str, Any] = {
    "share_protocol": "NFS",
    "size": 1,
    "name": "data",
    "description": "first",
    "metadata": {"tier": "gold"},
    "share_type": "gold",
    "access_rules": [
        {"access_to": "10.0.0.0/24", "access_type": "ip"},
        {"access_to": "10.0.1.5", "access_type": "ip", "access_level": "ro"},
    ],
}


def test_share_waits_for_available_then_grants_the_rules_and_reads_back_without_drift(conn: Conn) -> None:
    tid = (
        driver(STYPE)
        .create(ctx_for(conn, "t", STYPE), {"name": "gold", "driver_handles_share_servers": False})
        .physical_id
    )
    d = driver(SHARE)
    ctx = ctx_for(conn, "share", SHARE)
    out = d.create(ctx, SHARE_PROPS)
    (body,) = _posts(conn, "/shares")
    share = body["share"]
    assert share["share_type"] == tid and share["share_proto"] == "NFS" and share["is_public"] is False
    assert share["metadata"] == {"tier": "gold", "hotc-lineage": ctx.lineage, "hotc-address": "share"}
    assert share["snapshot_id"] is None and share["share_network_id"] is None
    grants = [
        b["allow_access"] for b in _posts(conn, f"/shares/{out.physical_id}/action") if "allow_access" in b
    ]
    assert grants == [
        {"access_type": "ip", "access_to": "10.0.0.0/24"},
        {"access_type": "ip", "access_to": "10.0.1.5", "access_level": "ro"},
    ]
    attrs = out.attributes
    assert attrs["status"] == "available" and attrs["share_server_id"] == "None"  # Heat's str()
    assert attrs["export_locations"] == [
        f"10.0.0.10:/fake/{out.physical_id}",
        f"10.0.0.20:/fake/{out.physical_id}",
    ]
    assert "hotc-lineage" not in attrs["show"]["metadata"]
    # the create ended once Manila had applied the rules, not while they were still syncing
    assert attrs["show"]["access_rules_status"] == "active"
    assert drift(SHARE, SHARE_PROPS, d.read(ctx, out.physical_id, SHARE_PROPS)) == []
    assert d.find_adoptable(ctx, SHARE_PROPS) == out.physical_id


def test_a_share_whose_rules_manila_cannot_apply_fails_its_create_and_update(conn: Conn) -> None:
    d = driver(SHARE)
    ctx = ctx_for(conn, "share", SHARE)
    fake = conn.shared_file_system
    fake.rules_end = "error"
    with pytest.raises(ProviderError, match=r'applying access rules to share "[0-9a-f-]+".*in error'):
        d.create(ctx, {**SHARE_PROPS, "share_type": None})
    fake.rules_end = "active"
    sid = d.create(ctx, {**SHARE_PROPS, "share_type": None, "access_rules": []}).physical_id
    assert "access_rules_status" not in fake.shares[sid]  # no rule, no wait for one
    fake.rules_end = "error"
    new = {
        **SHARE_PROPS,
        "share_type": None,
        "access_rules": [{"access_to": "10.0.9.9", "access_type": "ip"}],
    }
    with pytest.raises(ProviderError, match="in error"):
        d.update(ctx, sid, {**new, "access_rules": []}, new, frozenset({"access_rules"}))


def test_share_updates_are_heats_and_drift_is_exact(conn: Conn) -> None:
    driver(STYPE).create(ctx_for(conn, "t", STYPE), {"name": "gold", "driver_handles_share_servers": False})
    d = driver(SHARE)
    ctx = ctx_for(conn, "share", SHARE)
    sid = d.create(ctx, SHARE_PROPS).physical_id
    fake = conn.shared_file_system
    keep = next(r["id"] for r in fake.rules[sid] if r["access_to"] == "10.0.0.0/24")
    new = {**SHARE_PROPS, "name": "data2", "metadata": {"tier": "silver"}, "access_rules": [
        {"access_to": "10.0.0.0/24", "access_type": "ip", "access_level": "rw"},
        {"access_to": "10.0.9.9", "access_type": "ip"}]}  # fmt: skip
    before = len(fake.calls)
    d.update(ctx, sid, SHARE_PROPS, new, frozenset({"name", "metadata", "access_rules"}))
    sent = fake.calls[before:]
    assert ("PUT", f"/shares/{sid}", {"share": {"display_name": "data2"}}) in sent
    assert fake.shares[sid]["metadata"] == {
        "tier": "silver",
        "hotc-lineage": ctx.lineage,
        "hotc-address": "share",
    }
    # the rule both lists hold (rw is Manila's default level) stays; the other is denied; the new one granted
    assert [r["id"] for r in fake.rules[sid] if r["access_to"] == "10.0.0.0/24"] == [keep]
    assert {(r["access_to"], r["access_level"]) for r in fake.rules[sid]} == {
        ("10.0.0.0/24", "rw"),
        ("10.0.9.9", "rw"),
    }
    assert fake.shares[sid]["access_rules_status"] == "active"
    assert drift(SHARE, new, d.read(ctx, sid, new)) == []

    fake.shares[sid]["description"] = "edited"
    fake.rules[sid] = [r for r in fake.rules[sid] if r["id"] != keep]
    assert sorted(drift(SHARE, new, d.read(ctx, sid, new))) == ["access_rules", "description"]
    d.delete(ctx, sid, new)
    assert sid not in fake.shares and d.read(ctx, sid, new) is None


def test_a_share_that_goes_to_error_fails_its_create_with_heats_message(conn: Conn) -> None:
    conn.shared_file_system.end_status = "error"
    rec = Recorder()
    ctx = ctx_for(conn, "share", SHARE, rec=rec)
    with pytest.raises(ProviderError, match=r'Error during creation of share "[0-9a-f-]+"'):
        driver(SHARE).create(ctx, {"share_protocol": "NFS", "size": 1})
    assert rec.ids == list(
        conn.shared_file_system.shares
    )  # recorded before the wait: the failed share is kept


def test_share_network_is_made_on_the_subnets_network_with_its_security_services(conn: Conn) -> None:
    sec = driver(SEC)
    sctx = ctx_for(conn, "sec", SEC)
    sprops = {"name": "ad", "type": "active_directory", "domain": "corp", "password": "pw"}
    s1 = sec.create(sctx, sprops)
    (body,) = _posts(conn, "/security-services")
    assert body == {"security_service": sprops}
    assert s1.sensitive_attributes == ("show",)  # Manila gives the password back in show
    assert drift(SEC, sprops, sec.read(sctx, s1.physical_id, sprops)) == []
    conn.shared_file_system.services[s1.physical_id]["password"] = "changed"
    assert drift(SEC, sprops, sec.read(sctx, s1.physical_id, sprops)) == ["password"]
    s2 = sec.create(sctx, {"name": "ldap", "type": "ldap"}).physical_id

    d = driver(NET)
    ctx = ctx_for(conn, "net", NET)
    props = {"name": "sn", "neutron_subnet": "private-subnet", "security_services": ["ad"]}
    out = d.create(ctx, props)
    (body,) = _posts(conn, "/share-networks")
    assert body["share_network"] == {"name": "sn", "neutron_net_id": "net-1", "neutron_subnet_id": "sub-1",
                                     "description": None}  # fmt: skip
    assert conn.shared_file_system.links[out.physical_id] == [s1.physical_id]
    assert drift(NET, props, d.read(ctx, out.physical_id, props)) == []

    new = {**props, "security_services": [s2], "description": "d"}
    d.update(ctx, out.physical_id, props, new, frozenset({"security_services", "description"}))
    assert conn.shared_file_system.links[out.physical_id] == [s2]
    assert conn.shared_file_system.networks[out.physical_id]["description"] == "d"
    assert drift(NET, new, d.read(ctx, out.physical_id, new)) == []
    conn.shared_file_system.networks[out.physical_id]["neutron_subnet_id"] = "sub-2"
    assert drift(NET, new, d.read(ctx, out.physical_id, new)) == ["neutron_subnet"]

    with pytest.raises(
        ProviderError, match="Provided neutron_subnet does not belong to provided neutron_network"
    ):
        d.create(ctx, {"neutron_network": "private", "neutron_subnet": "other-subnet"})


def test_share_network_validation_is_heats() -> None:
    assert share_network_validate({"nova_network": "x"}) == [
        ("nova_network", "Nova network is no longer supported")
    ]
    assert share_network_validate({"neutron_network": "n"}) == [
        ("neutron_network", "neutron_network cannot be specified without neutron_subnet.")
    ]
    assert share_network_validate({"neutron_network": "n", "neutron_subnet": "s"}) == []
    assert share_network_validate({"neutron_subnet": "s"}) == []


def test_the_manila_custom_constraints_find_by_id_or_unique_name_as_heat(conn: Conn) -> None:
    from hotc.providers.openstack.constraints import check_custom_constraint, needs_cloud

    tid = (
        driver(STYPE)
        .create(ctx_for(conn, "t", STYPE), {"name": "gold", "driver_handles_share_servers": False})
        .physical_id
    )
    assert needs_cloud("manila.share_type") and needs_cloud("manila.share_network")
    assert check_custom_constraint("manila.share_type", "gold", conn) is None
    assert check_custom_constraint("manila.share_type", tid, conn) is None
    assert (
        check_custom_constraint("manila.share_type", "nope", conn)
        == "The share type (nope) could not be found."
    )
    assert (
        check_custom_constraint("manila.share_network", "nope", conn)
        == "The share network (nope) could not be found."
    )
    driver(STYPE).create(ctx_for(conn, "t2", STYPE), {"name": "gold", "driver_handles_share_servers": True})
    msg = check_custom_constraint("manila.share_type", "gold", conn)
    assert msg == "Ambiguous share type name 'gold'. Found more than one share type for this name in Manila."


def test_a_share_network_delete_waits_out_its_share_servers_teardown(conn: Conn) -> None:
    d = driver(NET)
    ctx = ctx_for(conn, "net", NET)
    nid = d.create(ctx, {"neutron_subnet": "private-subnet"}).physical_id
    conn.shared_file_system.busy_deletes = 8  # more than call()'s own retries of a conflict
    d.delete(ctx, nid, {})
    assert nid not in conn.shared_file_system.networks and conn.shared_file_system.busy_deletes == 0
    d.delete(ctx, nid, {})  # gone already: done
