"""The state encoder's per-resource cache: writes re-encode only what changed, and give the same bytes."""

from __future__ import annotations

import json
from dataclasses import replace

from hotc.state import codec, secrets
from hotc.state.document import ResourceState

from .samples import full_state


def _reference_bytes(st, key=None) -> bytes:  # type: ignore[no-untyped-def]
    """What a straight, uncached encoding of the whole document gives."""
    doc = codec.state_to_dict(st, key)
    return (json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def test_dumps_is_compact_and_equals_an_uncached_encoding() -> None:
    st = full_state()
    data = codec.dumps(st)
    assert b"\n" not in data[:-1] and data.endswith(b"\n")  # compact: one line
    assert data == _reference_bytes(st)
    assert codec.dumps(st) == data  # second time from the cache: same bytes


def test_a_changed_resource_is_reencoded_and_unchanged_ones_are_reused(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    st = full_state()
    codec.dumps(st)
    calls: list[str] = []
    real = codec.resource_to_dict

    def counting(rs: ResourceState, key: bytes | None) -> dict:  # type: ignore[type-arg]
        calls.append(rs.address)
        return real(rs, key)

    monkeypatch.setattr(codec, "resource_to_dict", counting)
    net = st.resources["net"]
    changed = st.with_resource(replace(net, status="UPDATE_COMPLETE", attributes={"mtu": 9000}))
    data = codec.dumps(changed)
    assert calls == ["net"]
    back = codec.loads(data)
    assert back.resources["net"].status == "UPDATE_COMPLETE"
    assert back.resources["net"].attributes == {"mtu": 9000}
    monkeypatch.setattr(codec, "resource_to_dict", real)
    assert data == _reference_bytes(changed)


def test_content_changed_sees_a_change_in_any_resource_and_ignores_equal_copies() -> None:
    st = full_state()
    codec.dumps(st)
    srv = st.resources["servers[0]"]
    assert not codec.content_changed(st, st.with_resource(replace(srv)))  # equal copy, new instance
    assert codec.content_changed(st, st.with_resource(replace(srv, status="CREATE_COMPLETE")))
    assert codec.content_changed(st, st.with_resource(replace(srv, properties={**srv.properties, "x": 1})))
    assert codec.content_changed(st, replace(st, status="DELETE_COMPLETE"))
    assert codec.content_changed(st, st.without_resource("net"))


def test_the_cache_follows_the_key_and_never_stores_a_secret_in_clear() -> None:
    st = full_state()
    plain_bytes = codec.dumps(st)
    key = secrets.normalise_key("k")
    keyed = codec.dumps(st, key)
    assert b"s3cret" not in plain_bytes and b"s3cret" not in keyed
    assert b"encrypted" in keyed
    assert codec.loads(keyed, key=key).resources["servers[0]"].properties["user_data"] == "password=s3cret"
    assert codec.dumps(st) == plain_bytes  # back to no key: no ciphertext from the keyed cache
    assert not codec.content_changed(codec.loads(keyed, key=key), codec.loads(plain_bytes))
