"""The state document's JSON form: golden documents, schema, hidden values, version and corruption checks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from hotc.state import codec, secrets
from hotc.state.codec import StateFormatError
from hotc.state.document import FORMAT_VERSION, OutputState, ParameterRecord, StackState

from .samples import full_state

GOLDEN = Path(__file__).parent / "golden"
SCHEMA = json.loads((Path(codec.__file__).parent / codec.SCHEMA_FILE).read_text())


CURRENT = ["full-v3.json", "minimal-v3.json", "deposed-v3.json", "groups-v3.json"]


@pytest.mark.parametrize("name", CURRENT)
def test_golden_documents_match_the_published_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(json.loads((GOLDEN / name).read_text()), SCHEMA)


@pytest.mark.parametrize("name", CURRENT)
def test_golden_round_trip_is_byte_exact(name: str) -> None:
    data = (GOLDEN / name).read_bytes()
    assert codec.dumps(codec.loads(data, name)) == data


@pytest.mark.parametrize("name", ["full", "minimal", "deposed"])
@pytest.mark.parametrize("old_version", [1, 2])
def test_older_documents_upgrade_to_the_current_format(name: str, old_version: int) -> None:
    """A state written by format 1 or 2 reads, and is written back as exactly the format-3 golden document
    (format 3 adds ``groups``, which an older document does not have)."""
    old = (GOLDEN / f"{name}-v{old_version}.json").read_bytes()
    assert json.loads(old)["format_version"] == old_version
    assert FORMAT_VERSION == 3
    st = codec.loads(old, name)
    assert st.groups == {}
    assert codec.dumps(st) == (GOLDEN / f"{name}-v3.json").read_bytes()


def test_group_state_reads_into_the_model() -> None:
    st = codec.loads((GOLDEN / "groups-v3.json").read_bytes(), "groups")
    g = st.groups["asg"]
    assert g.size == 3 and g.cooldown_end == "2026-12-01T12:05:00.000000Z"
    assert [(d.policy, d.accepted, d.before, d.after) for d in g.decisions] == [
        ("scale_up", True, 2, 3),
        ("scale_up", False, 3, 3),
    ]
    assert g.decisions[1].reason == "due to cooldown, cooldown 300"


def test_a_group_with_a_negative_size_is_refused() -> None:
    d = json.loads((GOLDEN / "groups-v3.json").read_text())
    d["groups"]["asg"]["size"] = -1
    with pytest.raises(StateFormatError, match=r"groups\.asg\.size is negative"):
        codec.state_from_dict(d, "s")


def test_format_1_deposed_attribute_keys_become_fields() -> None:
    """Format 1 kept a deposed instance's type and policy as ``hotc:*`` keys in its attributes: the upgrade
    moves them to the ``type`` / ``deletion_policy`` fields and out of the attributes."""
    st = codec.loads((GOLDEN / "deposed-v1.json").read_bytes(), "deposed")
    srv = st.resources["servers[0]"]
    snap, retained, plain_old = srv.deposed
    assert (snap.type, snap.deletion_policy) == ("OS::Nova::Server", "Snapshot")
    assert dict(snap.attributes) == {"first_address": "10.0.0.4"}
    assert (retained.type, retained.deletion_policy, retained.status) == (
        "OS::Cinder::Volume",
        "Retain",
        "DELETE_FAILED",
    )
    assert dict(retained.attributes) == {}
    assert (plain_old.type, plain_old.deletion_policy) == ("OS::Nova::Server", "Delete")
    assert not any(k.startswith("hotc:") for d in srv.deposed for k in d.attributes)


def test_a_deposed_instance_with_an_unknown_policy_is_refused() -> None:
    d = json.loads((GOLDEN / "deposed-v3.json").read_text())
    d["resources"]["servers[0]"]["deposed"][0]["deletion_policy"] = "Shred"
    with pytest.raises(StateFormatError, match=r"deposed\[0\]\.deletion_policy"):
        codec.state_from_dict(d, "s")


def test_golden_full_document_reads_into_the_model() -> None:
    st = codec.loads((GOLDEN / "full-v3.json").read_bytes(), "full")
    want = full_state()
    assert st.lineage == want.lineage and st.serial == 7 and st.stack_name == "web"
    assert set(st.resources) == {"net", "servers[0]", "app.db"}
    srv = st.resources["servers[0]"]
    assert srv.dependencies == ("net",) and srv.deletion_policy == "Retain" and srv.failed
    assert srv.deposed[0].physical_id == "srv-0-old"
    assert srv.properties["flavor"] == "m1.small"
    # the sensitive property comes back masked (no key): digest of the clear value
    assert secrets.is_masked(srv.properties["user_data"])
    assert secrets.matches_masked(srv.properties["user_data"], "password=s3cret")
    assert st.resources["app.db"].in_progress and st.resources["app.db"].physical_id is None
    assert st.parameters["db_password"] == ParameterRecord(hidden=True, digest="sha256:" + "cd" * 32)
    assert st.outputs["broken"].error and st.outputs["url"].value == "http://10.0.0.5/"
    # everything but the masked values equals what was written
    unmasked = replace(want, resources={**want.resources, "servers[0]": srv}, outputs=st.outputs)
    assert st == unmasked


def test_generated_documents_validate_against_schema() -> None:
    st = full_state().with_resource(full_state().resources["net"])
    d = codec.state_to_dict(
        replace(st, parameters={"pw": codec.hide_parameter("x", True, secrets.normalise_key("k"))})
    )
    jsonschema.validate(d, SCHEMA)


def test_hidden_values_never_in_clear() -> None:
    st = replace(
        full_state(),
        parameters={
            "pw": ParameterRecord(value="hunter2-secret", hidden=True),
            "shown": ParameterRecord(value="ok"),
        },
    )
    for key in (None, secrets.normalise_key("passphrase")):
        data = codec.dumps(st, key)
        assert b"hunter2-secret" not in data
        assert b"s3cret" not in data  # sensitive property and sensitive output
        d = json.loads(data)
        assert d["parameters"]["pw"]["digest"] == secrets.digest("hunter2-secret")
        assert ("encrypted" in d["parameters"]["pw"]) == (key is not None)
        assert d["parameters"]["shown"]["value"] == "ok"


def test_encrypted_values_come_back_with_the_key_only() -> None:
    key = secrets.normalise_key("correct horse")
    st = replace(full_state(), parameters={"pw": codec.hide_parameter("hunter2", True, key)})
    data = codec.dumps(st, key)
    with_key = codec.loads(data, "s", key)
    assert codec.reveal_parameter(with_key.parameters["pw"], key) == "hunter2"
    assert with_key.resources["servers[0]"].properties["user_data"] == "password=s3cret"
    assert with_key.outputs["secret"].value == "s3cret"
    without = codec.loads(data, "s", None)
    assert codec.reveal_parameter(without.parameters["pw"], None) is None
    assert secrets.is_masked(without.outputs["secret"].value)
    with pytest.raises(Exception, match="not the key"):
        codec.reveal_parameter(with_key.parameters["pw"], secrets.normalise_key("wrong"))


def test_fernet_key_or_passphrase() -> None:
    from cryptography.fernet import Fernet

    k = Fernet.generate_key().decode()
    assert secrets.key_from_env({"HOTC_STATE_KEY": k}) == k.encode()
    assert secrets.key_from_env({"HOTC_STATE_KEY": "pass"}) != b"pass"
    assert secrets.key_from_env({}) is None


def test_newer_format_version_is_refused_clearly() -> None:
    d = codec.state_to_dict(full_state())
    newer = codec.SHARED_FORMAT_VERSION + 1  # 4 is a format-3 document with a shared table
    d["format_version"] = newer
    with pytest.raises(
        StateFormatError,
        match=rf"format version {newer} is newer than this hotc understands.*Upgrade",
    ):
        codec.loads(json.dumps(d), "s3://b/p/web/state.json")


@pytest.mark.parametrize(
    "data, msg",
    [
        (b"", "empty"),
        (b'{"format_version": 1, "lineage": "x", "ser', "truncated"),
        (b"\xff\xfe garbage", "not UTF-8"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"lineage": "x"}', "format_version"),
        (
            b'{"format_version": 1, "lineage": "x", "serial": "3", "stack_name": "a"}',
            r"serial: expected an integer",
        ),
        (
            b'{"format_version": 1, "lineage": "x", "serial": 3, "stack_name": "a", "resources": {"r": {"type": "T"}}}',
            r"resources.r: missing field 'status'",
        ),
    ],
)
def test_corrupt_documents_give_clear_errors(data: bytes, msg: str) -> None:
    with pytest.raises(StateFormatError, match=msg) as exc:
        codec.loads(data, "where/web.json")
    assert str(exc.value).startswith("where/web.json: error: ")
    assert "left untouched" in str(exc.value)


def test_content_changed_ignores_serial_and_timestamp() -> None:
    a = full_state()
    assert not codec.content_changed(a, replace(a, serial=99, updated_at="2030-01-01T00:00:00Z"))
    assert codec.content_changed(a, replace(a, status="DELETE_COMPLETE"))
    assert codec.content_changed(a, a.without_resource("net"))
    assert codec.content_changed(None, a)
    # the same hidden value recorded twice (fresh ciphertext each time) is no change
    k = secrets.normalise_key("k")
    p1 = replace(a, parameters={"pw": codec.hide_parameter("v", True, k)})
    p2 = replace(a, parameters={"pw": codec.hide_parameter("v", True, k)})
    assert p1.parameters["pw"].encrypted != p2.parameters["pw"].encrypted
    assert not codec.content_changed(p1, p2)
    assert codec.content_changed(p1, replace(a, parameters={"pw": codec.hide_parameter("w", True, k)}))


def test_next_version_bumps_serial_from_the_stored_one() -> None:
    old = replace(full_state(), serial=4)
    new = codec.next_version(old, replace(old, serial=1, status="X"), "T")
    assert new.serial == 5 and new.updated_at == "T" and new.created_at == old.created_at
    first = codec.next_version(None, StackState.new("s"), "T0")
    assert first.serial == 1 and first.created_at == "T0"


def test_non_json_values_are_refused() -> None:
    from hotc.values import Unknown

    st = StackState.new("s").with_resource(
        full_state()
        .resources["net"]
        .__class__(
            address="a",
            type="T",
            physical_id=None,
            status="CREATE_COMPLETE",
            properties={"x": Unknown.of("b")},
        )
    )
    with pytest.raises(Exception, match=r"resources.a.properties.x"):
        codec.dumps(st)


def test_output_values_plain() -> None:
    st = replace(StackState.new("s"), outputs={"o": OutputState(value=(1, {"a": (2,)}))})
    assert json.loads(codec.dumps(st))["outputs"]["o"]["value"] == [1, {"a": [2]}]


def test_parse_path_forms() -> None:
    assert codec.parse_path("a.b[0].c") == ("a", "b", 0, "c")
    assert codec.parse_path("a.b.0.c") == ("a", "b", 0, "c")


def test_event_log_tolerates_a_torn_last_line_only() -> None:
    from hotc.errors import HotcError
    from hotc.state.events import Event, decode_lines, encode_lines

    evs = [
        Event.now("a", "T", "CREATE_COMPLETE").with_id(),
        Event.now("b", "T", "CREATE_FAILED", "x").with_id(),
    ]
    data = encode_lines(evs)
    assert decode_lines(data, "e") == evs
    assert decode_lines(data + b'{"time": "20', "e") == evs  # a writer is appending right now
    with pytest.raises(HotcError, match="line 1 is not valid JSON"):
        decode_lines(b"{bad\n" + data, "e")
    assert evs[0].id < evs[1].id


def test_a_generated_name_round_trips_and_is_written_only_when_set() -> None:
    st = full_state()
    kept = replace(st.resources["net"], generated_name="webapp-net-soaapsiltltc")
    assert "generated_name" not in codec.resource_to_dict(st.resources["net"], None)
    doc = codec.state_to_dict(st.with_resource(kept))
    assert doc["resources"]["net"]["generated_name"] == "webapp-net-soaapsiltltc"
    jsonschema.validate(doc, SCHEMA)
    back = codec.loads(codec.dumps(st.with_resource(kept)))
    assert back.resources["net"].generated_name == "webapp-net-soaapsiltltc"


def test_values_keep_their_map_order_and_hotc_fields_are_key_sorted() -> None:
    """A template's value keeps the order its maps were built in (templates observe it, e.g. through a map's
    JSON text); hotc's own fields, and the names of properties and attributes, are written in key order."""
    base = full_state()
    value = {"z": 1, "a": {"y": 2, "b": [{"q": 1, "p": 2}]}}
    rs = next(iter(base.resources.values()))
    state = replace(
        base,
        outputs={"o": OutputState(value=value, description="", sensitive=False)},
        resources={
            **base.resources,
            rs.address: replace(rs, properties={"value": value, "a": 1}, attributes={"value": value}),
        },
    )
    text = codec.dumps(state).decode()
    back = codec.loads(text)
    assert json.dumps(back.outputs["o"].value) == json.dumps(value)
    res = back.resources[rs.address]
    assert json.dumps(res.properties["value"]) == json.dumps(value)
    assert list(res.properties) == ["a", "value"]
    assert json.dumps(res.attributes["value"]) == json.dumps(value)
    doc = json.loads(text)
    assert list(doc) == sorted(doc)
    assert list(doc["resources"][rs.address]) == sorted(doc["resources"][rs.address])
