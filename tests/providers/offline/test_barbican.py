"""The Barbican drivers against a fake Barbican API that answers as Barbican 23 does where it matters to them:
objects named by reference (``http://…/v1/KIND/UUID``), ``offset``/``limit`` pages with a ``total``, a payload
read with the content type as ``Accept``, orders PENDING until the worker takes them (then ACTIVE with what they
made, or ERROR with a reason), RSA containers refused without both keys, secrets added to a generic container.
The drivers must send Heat's body, find no drift right after a write, report exactly what changed outside hotc,
mark the key material sensitive, adopt a killed run's object by its generated name, and never make two objects
for one create whose answer was lost."""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.offline.helpers import ctx_for, drift, driver

BASE = "http://127.0.0.1:9311/v1"


@dataclass
class Resp:
    status_code: int
    payload: Any = None
    raw: bytes | None = None

    @property
    def content(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return b"" if self.payload is None else json.dumps(self.payload).encode()

    @property
    def text(self) -> str:
        return self.content.decode(errors="replace")

    def json(self) -> Any:
        return copy.deepcopy(self.payload)


def _error(code: int, text: str) -> Resp:
    return Resp(code, {"code": code, "title": "error", "description": text})


@dataclass
class FakeBarbican:
    objects: dict[str, dict[str, dict[str, Any]]] = field(
        default_factory=lambda: {"secrets": {}, "containers": {}, "orders": {}}
    )
    payloads: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    fail_next_post: int = 0  # answer 503 after storing (a create whose answer was lost)
    pending_reads: int = 2  # GETs of a new order that still say PENDING
    order_error: str | None = None  # the next order goes to ERROR with this reason

    # ---------------------------------------------------------------------------------------- the HTTP verbs
    def get(
        self, path: str, params: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> Resp:
        self.calls.append(("GET", path, params))
        parts = path.strip("/").split("/")
        kind = parts[0]
        if kind not in self.objects:
            return _error(404, "not found")
        if len(parts) == 1:
            items = [o for o in self.objects[kind].values() if self._matches(o, params or {})]
            offset, limit = int((params or {}).get("offset", 0)), int((params or {}).get("limit", 10))
            return Resp(200, {kind: items[offset : offset + limit], "total": len(items)})
        obj = self.objects[kind].get(parts[1])
        if obj is None:
            return _error(404, f"Not Found. Sorry but your {kind[:-1]} is in another castle.")
        if len(parts) == 3 and parts[2] == "payload":
            ctype, raw = self.payloads[parts[1]]
            assert (headers or {}).get("Accept") == ctype
            return Resp(200, raw=raw)
        if kind == "orders" and obj["status"] == "PENDING":
            self._work(parts[1], obj)
        return Resp(200, obj)

    def post(self, path: str, json: Any = None) -> Resp:  # noqa: A002
        self.calls.append(("POST", path, copy.deepcopy(json)))
        parts = path.strip("/").split("/")
        if parts == ["secrets"]:
            resp = self._secret(json)
        elif parts == ["containers"]:
            resp = self._container(json)
        elif parts == ["orders"]:
            oid = str(uuid.uuid4())
            self.objects["orders"][oid] = {
                "type": json["type"],
                "meta": dict(json["meta"]),
                "status": "PENDING",
                "order_ref": f"{BASE}/orders/{oid}",
                "created": f"2026-12-01T00:00:{len(self.calls):02d}",
                "_reads": self.pending_reads,
            }
            resp = Resp(202, {"order_ref": f"{BASE}/orders/{oid}"})
        elif len(parts) == 3 and parts[0] == "containers" and parts[2] == "secrets":
            self.objects["containers"][parts[1]]["secret_refs"].append(dict(json))
            return Resp(201, {"container_ref": f"{BASE}/containers/{parts[1]}"})
        else:
            return _error(404, "not found")
        if self.fail_next_post and resp.status_code < 400:
            self.fail_next_post -= 1
            return _error(503, "the gateway lost the answer")
        return resp

    def delete(self, path: str) -> Resp:
        self.calls.append(("DELETE", path, None))
        kind, oid = path.strip("/").split("/")
        if self.objects[kind].pop(oid, None) is None:
            return _error(404, "Not Found")
        return Resp(204)

    # ------------------------------------------------------------------------------------------ behaviours
    @staticmethod
    def _matches(obj: dict[str, Any], params: dict[str, Any]) -> bool:
        name = obj.get("name") or obj.get("meta", {}).get("name")
        if "name" in params and name != params["name"]:
            return False
        return "type" not in params or obj.get("type") == params["type"]

    def _store_secret(self, body: dict[str, Any], ctype: str | None = None, raw: bytes | None = None) -> str:
        sid = str(uuid.uuid4())
        self.objects["secrets"][sid] = {
            "name": body.get("name"),
            "algorithm": body.get("algorithm"),
            "bit_length": body.get("bit_length"),
            "mode": body.get("mode"),
            "secret_type": body.get("secret_type", "opaque"),
            "expiration": body.get("expiration"),
            "status": "ACTIVE",
            "secret_ref": f"{BASE}/secrets/{sid}",
            "created": f"2026-12-01T00:00:{len(self.calls):02d}",
            **({"content_types": {"default": ctype}} if ctype else {}),
        }
        if ctype and raw is not None:
            self.payloads[sid] = (ctype, raw)
        return sid

    def _secret(self, body: dict[str, Any]) -> Resp:
        ctype = body.get("payload_content_type")
        raw = None
        if "payload" in body:
            text = body["payload"]
            import base64

            raw = (
                base64.b64decode(text) if body.get("payload_content_encoding") == "base64" else text.encode()
            )
        sid = self._store_secret(body, ctype, raw)
        return Resp(201, {"secret_ref": f"{BASE}/secrets/{sid}"})

    def _container(self, body: dict[str, Any]) -> Resp:
        names = {r["name"] for r in body.get("secret_refs") or []}
        if any(not str(r.get("secret_ref", "")).startswith("http") for r in body.get("secret_refs") or []):
            return _error(400, "Provided field value is not supported")  # a bare UUID is no reference
        if body["type"] == "rsa" and not {"public_key", "private_key"} <= names:
            return _error(
                400,
                "Provided object does not match schema 'Container': The minimum required reference names are "
                "'public_key' and'private_key' for RSA type. Invalid property: 'secret_refs'",
            )
        cid = str(uuid.uuid4())
        self.objects["containers"][cid] = {
            "type": body["type"],
            "name": body.get("name"),
            "status": "ACTIVE",
            "secret_refs": [dict(r) for r in body.get("secret_refs") or []],
            "consumers": [],
            "container_ref": f"{BASE}/containers/{cid}",
            "created": f"2026-12-01T00:00:{len(self.calls):02d}",
        }
        return Resp(201, {"container_ref": f"{BASE}/containers/{cid}"})

    def _work(self, oid: str, order: dict[str, Any]) -> None:
        """barbican-worker: the order stays PENDING for a few reads, then is done."""
        if order["_reads"] > 0:
            order["_reads"] -= 1
            return
        if self.order_error:
            order.update(status="ERROR", error_status_code=400, error_reason=self.order_error)
            return
        meta = order["meta"]
        if order["type"] == "key":
            sid = self._store_secret(meta, "application/octet-stream", b"\x00\xff" * 16)
            order["secret_ref"] = f"{BASE}/secrets/{sid}"
        else:
            refs = [
                {
                    "name": n,
                    "secret_ref": f"{BASE}/secrets/{self._store_secret(meta, 'application/octet-stream', t)}",
                }
                for n, t in (("private_key", b"PRIVATE KEY PEM"), ("public_key", b"PUBLIC KEY PEM"))
            ]
            made = self._container({"type": "rsa", "name": meta.get("name"), "secret_refs": refs})
            order["container_ref"] = made.payload["container_ref"]
        order["status"] = "ACTIVE"


@dataclass
class Conn:
    key_manager: FakeBarbican = field(default_factory=FakeBarbican)


@pytest.fixture
def bb(monkeypatch: pytest.MonkeyPatch) -> Conn:
    monkeypatch.setattr("hotc.providers.openstack.common.pause", lambda _s: None)
    return Conn()


SECRET = "OS::Barbican::Secret"
ORDER = "OS::Barbican::Order"
GENERIC = "OS::Barbican::GenericContainer"
RSA = "OS::Barbican::RSAContainer"


def _posts(bb: Conn, kind: str) -> list[Any]:
    return [body for (m, p, body) in bb.key_manager.calls if m == "POST" and p == f"/{kind}"]


def test_a_secret_is_stored_as_heats_client_stores_it_and_reads_back_without_drift(bb: Conn) -> None:
    d = driver(SECRET)
    ctx = ctx_for(bb, "s", SECRET, stack="stk")
    props = {"payload": "the-payload", "secret_type": "passphrase", "expiration": "2099-01-01T00:00:00Z"}
    out = d.create(ctx, props)
    (body,) = _posts(bb, "secrets")
    assert body["name"].startswith("stk-s-") and body["payload_content_type"] == "text/plain"
    assert body["payload"] == "the-payload" and body["secret_type"] == "passphrase"
    assert out.physical_id.startswith(f"{BASE}/secrets/")  # the reference, as in Heat
    assert out.attributes["decrypted_payload"] == "the-payload" and out.attributes["status"] == "ACTIVE"
    assert out.sensitive_attributes == ("decrypted_payload",)
    bb.key_manager.objects["secrets"][out.physical_id.rsplit("/", 1)[1]]["expiration"] = (
        "2099-01-01T00:00:00+00:00"
    )
    live = d.read(ctx, out.physical_id, props)
    assert live is not None and drift(SECRET, props, live) == []


def test_a_binary_secret_reads_back_as_base64(bb: Conn) -> None:
    d = driver(SECRET)
    props = {
        "payload": "AP8=",
        "payload_content_type": "application/octet-stream",
        "payload_content_encoding": "base64",
    }
    out = d.create(ctx_for(bb, "b", SECRET), props)
    assert out.attributes["decrypted_payload"] == "AP8="
    assert drift(SECRET, props, d.read(ctx_for(bb, "b", SECRET), out.physical_id, props)) == []


def test_a_secret_gone_outside_hotc_reads_as_gone_and_its_delete_is_done(bb: Conn) -> None:
    d = driver(SECRET)
    ctx = ctx_for(bb, "s", SECRET)
    ref = d.create(ctx, {"payload": "x"}).physical_id
    bb.key_manager.objects["secrets"].clear()
    assert d.read(ctx, ref, {"payload": "x"}) is None
    d.delete(ctx, ref, {"payload": "x"})  # 404: deleted already


def test_a_uuid_names_the_secret_too(bb: Conn) -> None:
    d = driver(SECRET)
    ctx = ctx_for(bb, "s", SECRET)
    ref = d.create(ctx, {"payload": "x"}).physical_id
    live = d.read(ctx, ref.rsplit("/", 1)[1], {"payload": "x"})
    assert live is not None and live.physical_id == ref  # import by UUID records the reference


def test_a_lost_create_answer_adopts_the_secret_it_made(bb: Conn) -> None:
    bb.key_manager.fail_next_post = 1
    out = driver(SECRET).create(ctx_for(bb, "s", SECRET), {"payload": "x"})
    assert list(bb.key_manager.objects["secrets"]) == [out.physical_id.rsplit("/", 1)[1]]  # one, not two


@pytest.mark.parametrize(("type_name", "props"), [
    (SECRET, {"payload": "x"}),
    (ORDER, {"type": "key", "algorithm": "aes", "bit_length": 256}),
    (GENERIC, {"secrets": []}),
])  # fmt: skip
def test_a_killed_runs_object_is_adopted_by_its_generated_name(bb: Conn, type_name: str, props: Any) -> None:
    d = driver(type_name)
    lineage = uuid.uuid4().hex
    made = d.create(ctx_for(bb, "a", type_name, lineage=lineage), props).physical_id
    other = d.create(ctx_for(bb, "b", type_name, lineage=lineage), props).physical_id
    assert d.find_adoptable(ctx_for(bb, "a", type_name, lineage=lineage), props) == made
    assert d.find_adoptable(ctx_for(bb, "b", type_name, lineage=lineage), props) == other
    assert d.find_adoptable(ctx_for(bb, "c", type_name, lineage=lineage), props) is None
    assert d.find_adoptable(ctx_for(bb, "a", type_name, lineage=lineage), {**props, "name": "given"}) is None


def test_an_order_waits_for_the_worker_and_reports_what_it_made(bb: Conn) -> None:
    d = driver(ORDER)
    ctx = ctx_for(bb, "pair", ORDER)
    props = {"type": "asymmetric", "algorithm": "rsa", "bit_length": 2048, "pass_phrase": "phrase"}
    out = d.create(ctx, props)
    (body,) = _posts(bb, "orders")
    assert (
        body["type"] == "asymmetric"
        and body["meta"]["bit_length"] == 2048
        and body["meta"]["pass_phrase"] == "phrase"
    )
    assert out.attributes["status"] == "ACTIVE" and out.attributes["container_ref"]
    assert (
        out.attributes["private_key"] == "PRIVATE KEY PEM"
        and out.attributes["public_key"] == "PUBLIC KEY PEM"
    )
    assert out.attributes["certificate"] is None and out.sensitive_attributes == ("private_key",)
    live = d.read(ctx, out.physical_id, props)
    assert live is not None and drift(ORDER, props, live) == []
    key = d.create(ctx_for(bb, "aes", ORDER), {"type": "key", "algorithm": "aes", "bit_length": 256})
    assert (
        key.attributes["secret_ref"] and key.attributes["private_key"] is None
    )  # a key order has no container


def test_an_order_in_error_fails_with_barbicans_reason(bb: Conn) -> None:
    bb.key_manager.order_error = "Invalid algorithm passed in"
    with pytest.raises(ProviderError, match="Order 'o' failed: 400 - Invalid algorithm passed in"):
        driver(ORDER).create(ctx_for(bb, "o", ORDER), {"type": "key", "algorithm": "nope", "bit_length": 1})


def test_a_secret_added_to_a_container_outside_hotc_is_drift(bb: Conn) -> None:
    s = driver(SECRET)
    one = s.create(ctx_for(bb, "one", SECRET), {"payload": "1"}).physical_id
    two = s.create(ctx_for(bb, "two", SECRET), {"payload": "2"}).physical_id
    d = driver(GENERIC)
    ctx = ctx_for(bb, "box", GENERIC)
    with pytest.raises(ProviderError, match="Provided field value is not supported"):  # as under Heat
        d.create(ctx, {"secrets": [{"name": "a", "ref": one.rsplit("/", 1)[1]}]})
    props = {"name": "box", "secrets": [{"name": "b", "ref": two}, {"name": "a", "ref": one}]}
    out = d.create(ctx, props)
    assert out.attributes["secret_refs"] == {"b": two, "a": one}
    live = d.read(ctx, out.physical_id, props)
    assert live is not None and drift(GENERIC, props, live) == []
    bb.key_manager.post(
        f"/containers/{out.physical_id.rsplit('/', 1)[1]}/secrets", json={"name": "c", "secret_ref": two}
    )
    live = d.read(ctx, out.physical_id, props)
    assert live is not None and drift(GENERIC, props, live) == ["secrets"]
    assert live.properties is not None and live.properties["secrets"][-1] == {"name": "c", "ref": two}


def test_an_rsa_container_names_its_secrets_and_barbican_wants_both_keys(bb: Conn) -> None:
    s = driver(SECRET)
    priv = s.create(ctx_for(bb, "priv", SECRET), {"payload": "k"}).physical_id
    pub = s.create(ctx_for(bb, "pub", SECRET), {"payload": "p"}).physical_id
    d = driver(RSA)
    with pytest.raises(ProviderError, match="minimum required reference names"):
        d.create(ctx_for(bb, "half", RSA), {"private_key_ref": priv})
    props = {"private_key_ref": priv, "public_key_ref": pub}
    out = d.create(ctx_for(bb, "rsa", RSA), props)
    (body,) = [b for b in _posts(bb, "containers") if b["type"] == "rsa" and len(b["secret_refs"]) == 2]
    assert sorted((r["name"], r["secret_ref"]) for r in body["secret_refs"]) == [
        ("private_key", priv),
        ("public_key", pub),
    ]
    live = d.read(ctx_for(bb, "rsa", RSA), out.physical_id, props)
    assert live is not None and drift(RSA, props, live) == []


def test_a_refresh_lists_every_page(bb: Conn) -> None:
    d = driver(SECRET)
    refs = [d.create(ctx_for(bb, f"s{i}", SECRET), {"payload": str(i)}).physical_id for i in range(130)]
    items = [(ctx_for(bb, f"s{i}", SECRET), ref, {"payload": str(i)}) for i, ref in enumerate(refs)]
    found = d.read_many(items)
    assert set(found) == set(refs)  # two pages of 100
    assert found[refs[129]].attributes["decrypted_payload"] == "129"
