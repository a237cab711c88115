"""Sensitive attributes (a RandomString's value): masked in the document, read back with the key; the local
backend's own key file when no HOTC_STATE_KEY is set."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from hotc.state import backend_from_config, codec, secrets
from hotc.state.document import DeposedInstance, ResourceState, StackState

SCHEMA = json.loads((Path(codec.__file__).parent / codec.SCHEMA_FILE).read_text())
SECRET = "Zq8sVb2LmN4pXr7T"


def _state() -> StackState:
    rs = ResourceState(
        "pw",
        "OS::Heat::RandomString",
        "st-pw-abcdefabcdef",
        "CREATE_COMPLETE",
        properties={"length": 16},
        attributes={"value": SECRET},
        sensitive_attributes=("value",),
        reference_attribute="value",
        deposed=(DeposedInstance("st-pw-old", {"length": 8}, {"value": "old-" + SECRET}),),
    )
    return StackState.new("st").with_resource(rs)


def test_masked_without_key_and_get_resource_is_then_unknown() -> None:
    data = codec.dumps(_state())
    assert SECRET.encode() not in data
    jsonschema.validate(json.loads(data), SCHEMA)
    back = codec.loads(data)
    assert secrets.is_masked(back.resources["pw"].attributes["value"])
    assert back.resources["pw"].reference_id is None  # cannot be known: never the marker itself
    assert back.resources["pw"].physical_id == "st-pw-abcdefabcdef"


def test_encrypted_with_a_key_and_read_back() -> None:
    key = secrets.normalise_key("k")
    orig = _state()
    data = codec.dumps(orig, key)
    assert SECRET.encode() not in data and b"encrypted" in data
    back = codec.loads(data, key=key)
    rs = back.resources["pw"]
    assert rs.attributes["value"] == SECRET and rs.reference_id == SECRET
    assert rs.deposed[0].attributes["value"] == "old-" + SECRET
    assert rs.sensitive_attributes == ("value",) and rs.reference_attribute == "value"
    assert not codec.content_changed(orig, back)
    assert codec.content_changed(back, back.with_resource(replace(rs, attributes={"value": "other"})))


def test_reference_id_is_the_physical_id_for_ordinary_resources() -> None:
    rs = ResourceState("net", "OS::Neutron::Net", "uuid-1", "CREATE_COMPLETE", attributes={"value": "x"})
    assert rs.reference_id == "uuid-1"
    assert (
        ResourceState("pw", "T", None, "CREATE_IN_PROGRESS", reference_attribute="value").reference_id is None
    )


def test_local_backend_keeps_its_own_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)
    b = backend_from_config(None, tmp_path)
    assert b.key is None and not (tmp_path / ".hotc").exists()  # reading makes nothing
    with b.lock("st", "apply") as lk:
        b.write("st", _state(), lk)
    key_file = tmp_path / ".hotc" / "state.key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    for f in (tmp_path / ".hotc").glob("*.json*"):
        assert SECRET.encode() not in f.read_bytes()
    fresh = backend_from_config(None, tmp_path)  # another process: reads the key file
    st, _ = fresh.read("st")
    assert st is not None and st.resources["pw"].reference_id == SECRET
    # HOTC_STATE_KEY, when set, is the key (no key file is used)
    monkeypatch.setenv("HOTC_STATE_KEY", "team key")
    assert backend_from_config(None, tmp_path).key == secrets.key_from_env()


def test_a_state_made_with_the_key_file_read_with_another_key_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotc.errors import HotcError

    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)
    b = backend_from_config(None, tmp_path)
    with b.lock("st", "apply") as lk:
        b.write("st", _state(), lk)
    monkeypatch.setenv("HOTC_STATE_KEY", "some other key")
    with pytest.raises(HotcError, match=r"state\.key .*unset HOTC_STATE_KEY to use it"):
        backend_from_config(None, tmp_path).read("st")
