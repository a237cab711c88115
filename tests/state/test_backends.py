"""Behaviour every backend must have (local and S3 through moto_server)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from hotc.errors import HotcError
from hotc.state import (
    Backend,
    Event,
    LockHeldError,
    LockLostError,
    StackState,
    StateConflictError,
    StateFormatError,
    codec,
)
from hotc.state.document import OutputState

from .conftest import Store
from .samples import counter, counter_state, full_state


def bump(st: StackState, n: int) -> StackState:
    return replace(st, outputs={"counter": OutputState(value=n)})


def test_backend_satisfies_protocol(store: Store) -> None:
    assert isinstance(store.make(), Backend)


def test_missing_state_reads_as_none(store: Store) -> None:
    b = store.make()
    assert b.read("web") == (None, None)
    assert b.list_stacks() == []


def test_write_read_round_trip_and_serials(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        st, _ = b.read("web")
        assert st is None
        s1 = b.write("web", full_state(), lk)
        assert s1.serial == 1 and s1.updated_at
        # repeated writes under one lock (as the applier does after every resource action)
        s2 = b.write("web", s1.without_resource("net"), lk)
        s3 = b.write("web", s2.without_resource("app.db"), lk)
        assert (s2.serial, s3.serial) == (2, 3)
    st, token = store.make().read("web")
    assert token and st is not None and st.serial == 3
    assert codec.comparable(st) == codec.comparable(s3)  # equal up to masking of the sensitive values
    assert set(st.resources) == {"servers[0]"}
    assert store.make().list_stacks() == ["web"]


def test_no_write_when_nothing_changed(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        s1 = b.write("web", full_state(), lk)
    raw = store.raw_get("web")
    versions = len(b.history("web"))
    with b.lock("web", "plan") as lk:
        st, _ = b.read("web")
        assert st is not None
        same = b.write("web", replace(st, serial=123, updated_at="later"), lk)
        assert same.serial == s1.serial
    assert store.raw_get("web") == raw  # not even rewritten with a new timestamp
    assert len(b.history("web")) == versions


def test_other_lineage_is_refused(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
        with pytest.raises(StateConflictError, match="lineage"):
            b.write("web", StackState.new("web"), lk)


def test_second_locker_gets_a_clear_error_naming_the_holder(store: Store) -> None:
    a, b = store.make(), store.make()
    with a.lock("web", "apply") as lk:
        with pytest.raises(LockHeldError) as exc:
            with b.lock("web", "plan", timeout=0.3):
                pass
        msg = str(exc.value)
        assert lk.id in msg and "'apply'" in msg and f"PID {lk.pid}" in msg
        assert f"hotc force-unlock web {lk.id}" in msg
        assert exc.value.holder is not None and exc.value.holder.id == lk.id
        assert b.current_lock("web").id == lk.id
    # released on normal exit
    assert b.current_lock("web") is None
    with b.lock("web", "plan"):
        pass


def test_lock_released_on_error(store: Store) -> None:
    a = store.make()
    with pytest.raises(RuntimeError):
        with a.lock("web", "apply"):
            raise RuntimeError("boom")
    with pytest.raises(KeyboardInterrupt):
        with a.lock("web", "apply"):
            raise KeyboardInterrupt
    with store.make().lock("web", "apply", timeout=0):
        pass


def test_lock_timeout_waits_for_the_holder(store: Store) -> None:
    import threading

    a, b = store.make(), store.make()
    got = threading.Event()
    with a.lock("web", "apply"):

        def wait() -> None:
            with b.lock("web", "plan", timeout=20):
                got.set()

        t = threading.Thread(target=wait)
        t.start()
        assert not got.wait(0.5)  # still waiting while a holds it
    t.join(20)
    assert got.is_set()


def test_write_needs_the_lock(store: Store) -> None:
    a, b = store.make(), store.make()
    with a.lock("web", "apply") as lk:
        with pytest.raises(LockLostError):
            b.write("web", counter_state("web", 1), lk)


def test_cas_refuses_a_write_based_on_an_old_version(store: Store) -> None:
    """Even with the lock broken, a writer cannot overwrite an update it has not seen."""
    a = store.make()
    intruder = store.make(unsafe=True)
    with a.lock("web", "apply") as lk:
        s1 = a.write("web", counter_state("web", 1), lk)
        with intruder.lock("web", "rogue") as ilk:
            st, _ = intruder.read("web")
            intruder.write("web", bump(st, 100), ilk)
        with pytest.raises(StateConflictError, match="changed underneath"):
            a.write("web", bump(s1, 2), lk)
    st, _ = store.make().read("web")
    assert counter(st) == 100 and st.serial == 2


def test_explicit_expected_token(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
        st, tok = b.read("web")
        b.write("web", bump(st, 2), lk, expected=tok)
        with pytest.raises(StateConflictError):
            b.write("web", bump(st, 3), lk, expected=tok)


@pytest.mark.parametrize("garbage", [b'{"format_version": 1, "lineage": "0b6c', b"\x00\x01 not json", b"{}"])
def test_corrupt_state_is_reported_and_never_overwritten(store: Store, garbage: bytes) -> None:
    store.raw_put("web", garbage)
    b = store.make()
    with pytest.raises(StateFormatError) as exc:
        b.read("web")
    assert "web" in str(exc.value) and "left untouched" in str(exc.value)
    with b.lock("web", "apply") as lk:
        with pytest.raises(StateFormatError):
            b.write("web", counter_state("web", 1), lk)  # must read the base first: refuses
    assert store.raw_get("web") == garbage


def test_newer_format_version_is_refused_and_kept(store: Store) -> None:
    d = codec.state_to_dict(counter_state("web", 1))
    d["format_version"] = 99
    data = json.dumps(d).encode()
    store.raw_put("web", data)
    b = store.make()
    with pytest.raises(StateFormatError, match="newer"):
        b.read("web")
    assert store.raw_get("web") == data


def test_events_are_appended_and_read_incrementally(store: Store) -> None:
    writer, reader = store.make(), store.make()
    assert reader.read_events("web") == []
    first = writer.append_events(
        "web",
        [
            Event.now("net", "OS::Neutron::Net", "CREATE_IN_PROGRESS"),
            Event.now("net", "OS::Neutron::Net", "CREATE_COMPLETE", physical_id="n1"),
        ],
    )
    assert all(e.id for e in first)
    seen = reader.read_events("web")
    assert [(e.address, e.status, e.physical_id) for e in seen] == [
        ("net", "CREATE_IN_PROGRESS", None),
        ("net", "CREATE_COMPLETE", "n1"),
    ]
    more = writer.append_events("web", [Event.now("srv", "OS::Nova::Server", "CREATE_FAILED", "quota")])
    new = reader.read_events("web", after=seen[-1].id)
    assert new == more and new[0].reason == "quota"
    assert reader.read_events("web", after=new[-1].id) == []


def test_events_readable_while_another_holds_the_lock(store: Store) -> None:
    a, b = store.make(), store.make()
    with a.lock("web", "apply"):
        a.append_events("web", [Event.now("x", "T", "CREATE_COMPLETE")])
        assert [e.address for e in b.read_events("web")] == ["x"]


def test_delete_state(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    with b.lock("web", "destroy") as lk:
        b.read("web")
        b.delete("web", lk)
    assert b.read("web") == (None, None)
    assert b.list_stacks() == []


def test_history_lists_versions_with_serials(store: Store) -> None:
    b = store.make()
    with b.lock("web", "apply") as lk:
        for i in range(1, 4):
            b.write("web", counter_state("web", i), lk)
    h = b.history("web")
    assert h[0].is_latest and h[0].serial == 3
    if store.kind == "s3":
        assert [e.serial for e in h] == [3, 2, 1]
        assert counter(b.read_version("web", h[-1].version_id)) == 1
    else:
        assert [e.serial for e in h] == [3, 2]  # current + backup
        assert counter(b.read_version("web", "backup")) == 2


def test_invalid_stack_name(store: Store) -> None:
    from hotc.errors import HotcError

    with pytest.raises(HotcError, match="invalid stack name"):
        store.make().read("../etc")


def test_encryption_key_from_env_end_to_end(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from hotc.state import hide_parameter, reveal_parameter
    from hotc.state.secrets import key_from_env

    monkeypatch.setenv("HOTC_STATE_KEY", "team passphrase")
    b = store.make()
    assert b.key == key_from_env()
    st = replace(full_state(), parameters={"pw": hide_parameter("hunter2-secret", True, b.key)})
    with b.lock("web", "apply") as lk:
        b.write("web", st, lk)
    raw = store.raw_get("web")
    assert raw is not None and b"hunter2-secret" not in raw and b"s3cret" not in raw
    back, _ = store.make().read("web")
    assert back is not None and reveal_parameter(back.parameters["pw"], b.key) == "hunter2-secret"
    assert back.outputs["secret"].value == "s3cret"
    monkeypatch.delenv("HOTC_STATE_KEY")
    # without the key the ciphertext cannot be read: a clear error naming the lost key, never a silent
    # masked read that a later write would build on with another key
    with pytest.raises(HotcError, match="holds encrypted secrets.*HOTC_STATE_KEY"):
        store.make().read("web")
