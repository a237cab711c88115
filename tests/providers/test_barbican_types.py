"""The Barbican types offline: Heat 27's cross-property checks of Secret, Order and the containers (Heat's
``validate``: creating the stack fails), the payload being a secret in every plan whatever it is derived from,
and the references the drivers compare (a reference or a bare UUID names the same object)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotc.providers.openstack.barbican.common import same_ref, same_time, uuid_of
from hotc.providers.openstack.barbican.order import order_body
from hotc.providers.openstack.barbican.secret import secret_body
from hotc.providers.openstack.common import ProviderError
from hotc.providers.registry import get_schema
from tests.clirun import run_hotc

HEAD = "heat_template_version: 2018-08-31\nresources:\n"
WILL_FAIL = "(creating or updating the stack will fail)"


def _validate(tmp_path: Path, body: str) -> str:
    (tmp_path / "t.yaml").write_text(HEAD + body)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            "{payload: eA==, payload_content_type: application/octet-stream}",
            "For 'application/octet-stream' value of 'payload_content_type' property, 'payload_content_encoding' "
            "property must be specified.",
        ),
        (
            "{payload: x, payload_content_encoding: base64}",
            "payload_content_encoding property should only be specified for payload_content_type with value "
            "application/octet-stream.",
        ),
        ("{payload_content_type: text/plain}", "payload_content_type cannot be specified without payload."),
        (
            "{payload: 'a', payload_content_type: application/octet-stream, payload_content_encoding: base64}",
            "Invalid payload for specified 'base64' value of 'payload_content_encoding' property.",
        ),
    ],
)
def test_secret_checks_as_heat(tmp_path: Path, props: str, message: str) -> None:
    out = _validate(tmp_path, f"  s:\n    type: OS::Barbican::Secret\n    properties: {props}\n")
    assert message in out and WILL_FAIL in out


def test_a_valid_secret_has_no_warning(tmp_path: Path) -> None:
    out = _validate(
        tmp_path,
        "  s:\n    type: OS::Barbican::Secret\n    properties: {payload: eA==, payload_content_type: "
        "application/octet-stream, payload_content_encoding: base64, secret_type: symmetric}\n",
    )
    assert "warning" not in out and "error" not in out


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            "{type: key, algorithm: aes}",
            "Properties algorithm and bit_length are required for key type of order.",
        ),
        (
            "{type: asymmetric, algorithm: rsa, bit_length: 2048, subject_dn: cn=x}",
            "Unexpected properties: subject_dn. Only these properties are allowed for asymmetric type of order: "
            "algorithm, bit_length, expiration, mode, name, pass_phrase, payload_content_type.",
        ),
        ("{type: certificate, profile: p}", "profile cannot be specified without ca_id."),
    ],
)
def test_order_checks_as_heat(tmp_path: Path, props: str, message: str) -> None:
    out = _validate(tmp_path, f"  o:\n    type: OS::Barbican::Order\n    properties: {props}\n")
    assert message in out and WILL_FAIL in out


def test_an_order_type_is_checked(tmp_path: Path) -> None:
    out = _validate(tmp_path, "  o:\n    type: OS::Barbican::Order\n    properties: {type: nope}\n")
    assert (
        "property type: 'nope' is not an allowed value [key, asymmetric, certificate]" in out
        and WILL_FAIL in out
    )


@pytest.mark.parametrize(
    "body",
    [
        "  c:\n    type: OS::Barbican::GenericContainer\n    properties:\n      secrets: [{name: a, ref: r1}, "
        "{name: b, ref: r1}]\n",
        "  c:\n    type: OS::Barbican::RSAContainer\n    properties: {private_key_ref: r1, public_key_ref: r1}\n",
        "  c:\n    type: OS::Barbican::CertificateContainer\n    properties: {certificate_ref: r1, "
        "intermediates_ref: r1}\n",
    ],
)
def test_a_container_refuses_a_secret_twice(tmp_path: Path, body: str) -> None:
    out = _validate(tmp_path, body)
    assert "Duplicate refs are not allowed." in out and WILL_FAIL in out


def test_no_barbican_property_is_updated_in_place() -> None:
    for name in (
        "OS::Barbican::Secret",
        "OS::Barbican::Order",
        "OS::Barbican::GenericContainer",
        "OS::Barbican::CertificateContainer",
        "OS::Barbican::RSAContainer",
    ):
        rtype = get_schema(name)
        assert rtype is not None and rtype.update_allowed == frozenset(), name


def test_a_literal_payload_and_a_pass_phrase_are_secret_in_the_plan(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        HEAD + "  s:\n    type: OS::Barbican::Secret\n    properties: {payload: literal-payload-1234}\n"
        "  o:\n    type: OS::Barbican::Order\n    properties: {type: asymmetric, algorithm: rsa, bit_length: 2048,"
        " pass_phrase: literal-phrase-5678}\n"
        "  v:\n    type: OS::Heat::Value\n    properties: {value: {get_attr: [s, decrypted_payload]}}\n"
        "outputs:\n  dec: {value: {get_attr: [s, decrypted_payload]}}\n"
        "  ref: {value: {get_resource: s}}\n"
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "-o", "p.json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "payload: (sensitive)" in r.stdout and "pass_phrase: (sensitive)" in r.stdout
    r2 = run_hotc(tmp_path, "show", "p.json", "--format", "json")
    assert r2.returncode == 0, r2.stdout + r2.stderr
    plan = json.loads(r2.stdout)
    changes = {c["address"]: c for c in plan["resource_changes"]}
    shown = json.dumps([plan["resource_changes"], plan["output_changes"]])
    for text in (r.stdout, r.stderr, shown):  # (the plan file carries the template itself, as the state does)
        assert "literal-payload-1234" not in text and "literal-phrase-5678" not in text
    assert changes["s"]["after"] == {"payload": None} and changes["s"]["after_sensitive"] == {"payload": True}
    assert changes["o"]["after_sensitive"] == {"pass_phrase": True}
    assert changes["v"]["after_sensitive"] == {"value": True}  # what reads the decrypted payload is secret
    assert plan["output_changes"]["dec"]["sensitive"] is True
    assert plan["output_changes"]["ref"]["sensitive"] is False  # the secret's reference is not


def test_the_request_bodies_are_those_heats_client_sends() -> None:
    assert secret_body("n", {"payload": "p", "secret_type": "opaque"}) == {
        "name": "n",
        "secret_type": "opaque",
        "payload": "p",
        "payload_content_type": "text/plain",
    }
    assert secret_body(
        "n",
        {
            "payload": "eA==",
            "payload_content_type": "application/octet-stream",
            "payload_content_encoding": "base64",
        },
    ) == {
        "name": "n",
        "payload": "eA==",
        "payload_content_type": "application/octet-stream",
        "payload_content_encoding": "base64",
    }
    assert secret_body("n", {}) == {"name": "n"}
    with pytest.raises(ProviderError, match="Cannot Be Empty String"):
        secret_body("n", {"payload": ""})
    assert order_body("n", {"type": "key", "algorithm": "aes", "bit_length": 256, "mode": None}) == {
        "type": "key",
        "meta": {"algorithm": "aes", "bit_length": 256, "name": "n"},
    }


def test_references_and_uuids_name_the_same_object() -> None:
    u = "0b6f3c2e-6a0e-4a47-9d8e-2f0b0f6d1c11"
    assert uuid_of(f"http://127.0.0.1:9311/v1/secrets/{u}") == u
    assert uuid_of(u) == u
    assert same_ref(f"http://x/v1/secrets/{u}", u)
    assert not same_ref(f"http://x/v1/secrets/{u}", "other")
    assert not same_ref(None, u)
    assert same_time("2030-01-01T00:00:00Z", "2030-01-01T00:00:00+00:00")
    assert not same_time("2030-01-01T00:00:00Z", "2030-01-02T00:00:00+00:00")


def test_types_show_says_what_is_secret(tmp_path: Path) -> None:
    r = run_hotc(tmp_path, "types", "show", "OS::Barbican::Secret")
    assert r.returncode == 0, r.stderr
    assert "payload: string, replace on change, sensitive" in r.stdout
    assert "decrypted_payload: the decrypted secret payload (sensitive)" in r.stdout
    assert "name: string, replace on change\n" in r.stdout  # the rest is not
    r = run_hotc(tmp_path, "types", "show", "OS::Barbican::Order", "--format", "json")
    doc = json.loads(r.stdout)
    assert (
        doc["properties"]["pass_phrase"]["sensitive"] is True and "sensitive" not in doc["properties"]["type"]
    )
    assert (
        doc["attributes"]["private_key"]["sensitive"] is True
        and "sensitive" not in doc["attributes"]["public_key"]
    )
