"""The Barbican types against the real Barbican of the test cloud, through the hotc CLI: secrets (one from a hidden
parameter, one unnamed with a literal payload), a generic container of two, a certificate and an RSA container of
secrets, a key order and an asymmetric order (made by barbican-worker). Created (Barbican holds what the template
says); a fresh plan shows no change; the decrypted payload and the order's key material are masked in output and
absent from the state in clear, and ``--show-sensitive`` gives the real payload; drift made outside hotc (a secret
added to the container, a secret deleted) is planned as Heat would treat the change (the container replaced, the
secret made again); property changes replace a secret, an order and, through a replaced secret, every container
type (Heat allows no update in place); one object of each type made outside hotc is imported by its UUID, then
managed and deleted; destroy deletes everything the stacks own (an order's own product stays, as under Heat).
Every check asks Barbican's API."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud

HIDDEN = "hidden-payload-7f3a9c"
LITERAL = "literal-payload-51d2e8"

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  secret_payload: {type: string, hidden: true}
  secret_type: {type: string, default: passphrase}
  key_payload: {type: string, default: key-text}
  aes_bits: {type: number, default: 256}
resources:
  named:
    type: OS::Barbican::Secret
    properties:
      name: {list_join: ['-', [{get_param: prefix}, named]]}
      payload: {get_param: secret_payload}
      secret_type: {get_param: secret_type}
  unnamed:
    type: OS::Barbican::Secret
    properties: {payload: @LITERAL@}
  cert:
    type: OS::Barbican::Secret
    properties: {payload: cert-text, secret_type: certificate}
  key:
    type: OS::Barbican::Secret
    properties: {payload: {get_param: key_payload}, secret_type: private}
  pub:
    type: OS::Barbican::Secret
    properties: {payload: public-text, secret_type: public}
  box:
    type: OS::Barbican::GenericContainer
    properties:
      name: {list_join: ['-', [{get_param: prefix}, box]]}
      secrets:
        - {name: first, ref: {get_resource: named}}
        - {name: second, ref: {get_resource: unnamed}}
  certs:
    type: OS::Barbican::CertificateContainer
    properties: {certificate_ref: {get_resource: cert}, private_key_ref: {get_resource: key}}
  rsa:
    type: OS::Barbican::RSAContainer
    properties: {private_key_ref: {get_resource: key}, public_key_ref: {get_resource: pub}}
  aes:
    type: OS::Barbican::Order
    properties: {type: key, algorithm: aes, bit_length: {get_param: aes_bits}, mode: cbc}
  pair:
    type: OS::Barbican::Order
    properties: {type: asymmetric, algorithm: rsa, bit_length: 2048}
outputs:
  decrypted: {value: {get_attr: [named, decrypted_payload]}}
  refs: {value: {get_attr: [box, secret_refs]}}
  public_key: {value: {get_attr: [pair, public_key]}}
""".replace("@LITERAL@", LITERAL)


def km(cloud: Any, path: str) -> Any:
    """A GET of Barbican's API: the JSON, or None for a 404."""
    r = cloud.key_manager.get(path)
    if r.status_code == 404:
        return None
    assert r.status_code < 400, r.text
    return r.json()


def uuid(ref: str) -> str:
    return ref.rstrip("/").rsplit("/", 1)[-1]


def payload_of(cloud: Any, ref: str) -> str:
    r = cloud.key_manager.get(f"/secrets/{uuid(ref)}/payload", headers={"Accept": "text/plain"})
    assert r.status_code == 200, r.text
    return str(r.text)


def test_barbican_types_through_the_cli(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "key-manager", "80-barbican.sh")
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")

    # what the test, a failed run or an order leaves in Barbican is named by the prefix: the tracker sweeps it
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}", "--parameter", f"secret_payload={HIDDEN}"]
    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)

    cli.apply()
    got = cli.ids()
    assert all(got[a].startswith("http") and f"/{kind}/" in got[a] for a, kind in [
        ("named", "secrets"), ("box", "containers"), ("aes", "orders"), ("rsa", "containers")])  # fmt: skip
    named = km(cloud, f"/secrets/{uuid(got['named'])}")
    assert named["name"] == f"{p}-named" and named["secret_type"] == "passphrase"
    assert payload_of(cloud, got["named"]) == HIDDEN and payload_of(cloud, got["unnamed"]) == LITERAL
    assert km(cloud, f"/secrets/{uuid(got['unnamed'])}")["name"].startswith(f"{stack}-unnamed-")
    box = km(cloud, f"/containers/{uuid(got['box'])}")
    assert box["type"] == "generic" and box["name"] == f"{p}-box"
    assert {(s["name"], s["secret_ref"]) for s in box["secret_refs"]} == {
        ("first", got["named"]),
        ("second", got["unnamed"]),
    }
    certs = km(cloud, f"/containers/{uuid(got['certs'])}")
    assert certs["type"] == "certificate"
    assert {s["name"]: s["secret_ref"] for s in certs["secret_refs"]} == {
        "certificate": got["cert"],
        "private_key": got["key"],
    }
    rsa = km(cloud, f"/containers/{uuid(got['rsa'])}")
    assert rsa["type"] == "rsa" and {s["name"] for s in rsa["secret_refs"]} == {"private_key", "public_key"}
    aes, pair = km(cloud, f"/orders/{uuid(got['aes'])}"), km(cloud, f"/orders/{uuid(got['pair'])}")
    assert aes["status"] == "ACTIVE" and aes["secret_ref"] and aes["meta"]["bit_length"] == 256
    assert pair["status"] == "ACTIVE" and pair["container_ref"]
    cli.no_change()

    # secrets: masked in output and absent in clear from the state; --show-sensitive gives the payload
    r = hotc(tmp_path, hotc_cloud_env, "output", stack)
    assert r.returncode == 0, r.stderr
    assert "decrypted = (sensitive)" in r.stdout and HIDDEN not in r.stdout
    assert "public_key = (sensitive)" in r.stdout  # what an order with a private key reports is masked
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "decrypted", "--show-sensitive")
    assert r.returncode == 0 and r.stdout.strip() == HIDDEN, r.stdout + r.stderr
    pair_box = km(cloud, f"/containers/{uuid(pair['container_ref'])}")
    private = next(s for s in pair_box["secret_refs"] if s["name"] == "private_key")
    key_text = cloud.key_manager.get(
        f"/secrets/{uuid(private['secret_ref'])}/payload", headers={"Accept": "application/octet-stream"}
    ).content.decode()
    key_line = next(line for line in key_text.splitlines() if len(line) > 40)
    stored = [f for f in (tmp_path / ".hotc").rglob("*") if f.is_file() and f.name != "state.key"]
    assert any(f.suffix == ".json" for f in stored)
    state_text = "".join(f.read_text(errors="replace") for f in stored)  # state, backups, events, locks
    assert HIDDEN not in state_text and key_line not in state_text
    for addr in ("named", "unnamed"):
        r = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, addr)
        assert r.returncode == 0 and HIDDEN not in r.stdout and LITERAL not in r.stdout, r.stderr
    for verb in ("plan", "show"):
        r = hotc(
            tmp_path,
            hotc_cloud_env,
            verb,
            *(["-t", "t.yaml", *params, "--refresh"] if verb == "plan" else []),
            stack,
        )
        assert HIDDEN not in r.stdout + r.stderr and key_line not in r.stdout + r.stderr

    # drift: a secret added to the container outside hotc; Heat allows no update, so the container is replaced
    extra = cloud.key_manager.post(
        "/secrets", json={"name": f"{p}-extra", "payload": "x", "payload_content_type": "text/plain"}
    )
    added = cloud.key_manager.post(
        f"/containers/{uuid(got['box'])}/secrets",
        json={"name": "third", "secret_ref": extra.json()["secret_ref"]},
    )
    assert added.status_code < 400, added.text
    planned = cli.plan()
    assert set(planned) == {"box"} and set(planned["box"]["actions"]) == {"create", "delete"}, planned
    cli.apply("--refresh")
    new = cli.ids()
    assert new["box"] != got["box"] and km(cloud, f"/containers/{uuid(got['box'])}") is None
    assert {s["name"] for s in km(cloud, f"/containers/{uuid(new['box'])}")["secret_refs"]} == {
        "first",
        "second",
    }
    cli.no_change()

    # drift: a secret deleted outside hotc is made again (and the container naming it with it)
    assert cloud.key_manager.delete(f"/secrets/{uuid(new['unnamed'])}").status_code == 204
    planned = cli.plan()
    assert "create" in planned["unnamed"]["actions"] and "create" in planned["box"]["actions"], planned
    cli.apply("--refresh")
    again = cli.ids()
    assert again["unnamed"] != new["unnamed"] and payload_of(cloud, again["unnamed"]) == LITERAL
    assert {s["secret_ref"] for s in km(cloud, f"/containers/{uuid(again['box'])}")["secret_refs"]} == {
        again["named"],
        again["unnamed"],
    }
    cli.no_change()

    # a property change: replaced (a new secret, the old one deleted), and the container naming it too
    change = [
        "--parameter",
        "secret_type=opaque",
        "--parameter",
        "key_payload=key-text-2",
        "--parameter",
        "aes_bits=128",
    ]
    planned = cli.plan(*change)
    replaced = {"named", "box", "key", "certs", "rsa", "aes"}  # and what names a replaced secret
    assert set(planned) == replaced, planned
    assert all(set(planned[a]["actions"]) == {"create", "delete"} for a in replaced), planned
    cli.apply(*change)
    final = cli.ids()
    for addr in replaced:
        kind = final[addr].split("/v1/", 1)[1].split("/", 1)[0]
        assert final[addr] != again[addr] and km(cloud, f"/{kind}/{uuid(again[addr])}") is None, addr
    assert km(cloud, f"/secrets/{uuid(final['named'])}")["secret_type"] == "opaque"
    assert payload_of(cloud, final["named"]) == HIDDEN and payload_of(cloud, final["key"]) == "key-text-2"
    new_aes = km(cloud, f"/orders/{uuid(final['aes'])}")
    assert new_aes["status"] == "ACTIVE" and new_aes["meta"]["bit_length"] == 128
    assert {s["secret_ref"] for s in km(cloud, f"/containers/{uuid(final['rsa'])}")["secret_refs"]} == {
        final["key"],
        final["pub"],
    }
    for addr in ("unnamed", "cert", "pub", "pair"):
        assert final[addr] == again[addr], addr  # the rest is untouched
    cli.no_change(*change)

    # made outside hotc (one object of each type), imported by UUID into another stack, managed and deleted by it
    def post(kind: str, body: dict[str, Any]) -> str:
        r = cloud.key_manager.post(f"/{kind}", json=body)
        assert r.status_code < 400, r.text
        return str(r.json()[f"{kind[:-1]}_ref"])

    def secret(name: str, text: str) -> str:
        return post("secrets", {"name": f"{p}-{name}", "payload": text, "payload_content_type": "text/plain"})

    o_sec, o_priv, o_pub = secret("o-sec", "outside"), secret("o-priv", "priv"), secret("o-pub", "pub")
    o_box = post(
        "containers",
        {"type": "generic", "name": f"{p}-o-box", "secret_refs": [{"name": "s", "secret_ref": o_sec}]},
    )
    o_certs = post("containers", {"type": "certificate", "name": f"{p}-o-certs",
                                  "secret_refs": [{"name": "certificate", "secret_ref": o_pub}]})  # fmt: skip
    o_rsa = post("containers", {"type": "rsa", "name": f"{p}-o-rsa", "secret_refs": [
        {"name": "private_key", "secret_ref": o_priv}, {"name": "public_key", "secret_ref": o_pub}]})  # fmt: skip
    o_order = post(
        "orders", {"type": "key", "meta": {"name": f"{p}-o-order", "algorithm": "aes", "bit_length": 192}}
    )
    for _ in range(120):
        o_made = km(cloud, f"/orders/{uuid(o_order)}")
        if o_made["status"] != "PENDING":
            break
        time.sleep(1)
    assert o_made["status"] == "ACTIVE", o_made
    outside = {
        "sec": o_sec,
        "priv": o_priv,
        "pub": o_pub,
        "box": o_box,
        "certs": o_certs,
        "rsa": o_rsa,
        "order": o_order,
    }
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  sec: {{type: OS::Barbican::Secret, properties: {{name: {p}-o-sec, payload: outside}}}}\n"
        f"  priv: {{type: OS::Barbican::Secret, properties: {{name: {p}-o-priv, payload: priv}}}}\n"
        f"  pub: {{type: OS::Barbican::Secret, properties: {{name: {p}-o-pub, payload: pub}}}}\n"
        f"  box: {{type: OS::Barbican::GenericContainer, properties: {{name: {p}-o-box, secrets: [{{name: s, ref: {o_sec}}}]}}}}\n"
        f"  certs: {{type: OS::Barbican::CertificateContainer, properties: {{name: {p}-o-certs, certificate_ref: {o_pub}}}}}\n"
        f"  rsa: {{type: OS::Barbican::RSAContainer, properties: {{name: {p}-o-rsa, private_key_ref: {o_priv},"
        f" public_key_ref: {o_pub}}}}}\n"
        f"  order: {{type: OS::Barbican::Order, properties: {{name: {p}-o-order, type: key, algorithm: aes, bit_length: 192}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({a: uuid(ref) for a, ref in outside.items()}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "resource", "list", other, "--format", "json")
    rows = json.loads(r.stdout)
    rows = rows.get("resources", rows) if isinstance(rows, dict) else rows
    assert {
        row["address"]: row["physical_id"] for row in rows
    } == outside  # references, as Barbican names them
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for addr, ref in outside.items():
        kind = ref.split("/v1/", 1)[1].split("/", 1)[0]
        assert km(cloud, f"/{kind}/{uuid(ref)}") is None, addr

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for addr, ref in final.items():
        kind = ref.split("/v1/", 1)[1].split("/", 1)[0]
        assert km(cloud, f"/{kind}/{uuid(ref)}") is None, addr
    # as in Heat, an order's delete leaves what it made
    assert km(cloud, f"/secrets/{uuid(aes['secret_ref'])}") is not None
