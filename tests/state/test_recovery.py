"""Getting out of a corrupt state through the backend protocol (local and S3 through moto_server): the
stored versions are listed and read as bytes without parsing the current document, a version is restored
over a corrupt current one under the lock (which stays stored as the previous version), and listing the
stacks does not fail on the broken one."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.state import (
    HistoryEntry,
    LockLostError,
    StateBackend,
    StateFormatError,
    codec,
)
from hotc.state.recover import previous_version
from hotc.state.s3 import BACKUP_VERSION, S3Backend
from tests.fixtures.s3 import S3Bucket, S3Server

from .conftest import Store
from .samples import counter, counter_state

GARBAGE = b'{"format_version": 1, "lineage": "0b6c'  # a write cut short


def two_versions_then_garbage(store: Store, stack: str = "web") -> StateBackend:
    """``stack`` written twice by hotc (counter 1, then 2), then its current document replaced by garbage
    behind hotc's back; a fresh backend object."""
    b = store.make()
    with b.lock(stack, "apply") as lk:
        b.write(stack, counter_state(stack, 1), lk)
        b.write(stack, counter_state(stack, 2), lk)
    store.raw_put(stack, GARBAGE)
    fresh: StateBackend = store.make()
    return fresh


def latest(entries: list[HistoryEntry]) -> HistoryEntry:
    return next(e for e in entries if e.is_latest)


def test_both_backends_satisfy_the_protocol(store: Store) -> None:
    assert isinstance(store.make(), StateBackend)


def test_versions_are_listed_and_read_raw_when_the_current_one_is_corrupt(store: Store) -> None:
    b = two_versions_then_garbage(store)
    with pytest.raises(StateFormatError):
        b.read("web")
    entries = b.history("web")
    current = latest(entries)
    assert current.serial is None and current.error is not None and "web" in current.error
    assert b.read_version_bytes("web", current.version_id) == GARBAGE  # as stored, not parsed
    readable = [e for e in entries if e.serial is not None]
    assert readable and all(e.error is None for e in readable)
    if store.kind == "s3":
        assert [e.serial for e in entries] == [None, 2, 1]
    else:
        assert [(e.version_id, e.serial) for e in entries] == [("current", None), ("backup", 1)]
    for e in readable:
        raw = b.read_version_bytes("web", e.version_id)
        assert codec.loads(raw, "x", b.key).serial == e.serial == b.read_version("web", e.version_id).serial


def test_restore_replaces_a_corrupt_current_state_and_keeps_it(store: Store) -> None:
    b = two_versions_then_garbage(store)
    before = b.history("web")
    chosen = previous_version(before)
    assert chosen is not None and chosen.serial is not None
    wanted = counter(b.read_version("web", chosen.version_id))
    assert wanted == (2 if store.kind == "s3" else 1)  # S3: the version before; local: the backup
    with b.lock("web", "state restore") as lk:
        restored = b.restore("web", chosen.version_id, lk)
    newest = max(e.serial for e in before if e.serial is not None)
    assert restored.serial == newest + 1
    st, _ = store.make().read("web")
    assert st is not None and st.serial == restored.serial
    assert counter(st) == wanted
    # the corrupt document is still stored, as the version before the restored one
    after = b.history("web")
    assert latest(after).serial == restored.serial
    replaced = previous_version(after)
    assert replaced is not None and b.read_version_bytes("web", replaced.version_id) == GARBAGE


def test_restore_needs_the_lock(store: Store) -> None:
    b = two_versions_then_garbage(store)
    chosen = previous_version(b.history("web"))
    assert chosen is not None
    other = store.make()
    with other.lock("web", "apply") as lk:
        with pytest.raises(LockLostError):
            b.restore("web", chosen.version_id, lk)  # a lock this backend object does not hold
    assert store.raw_get("web") == GARBAGE


def test_restoring_a_corrupt_version_changes_nothing(store: Store) -> None:
    b = two_versions_then_garbage(store)
    current = latest(b.history("web"))
    with b.lock("web", "state restore") as lk:
        with pytest.raises(HotcError, match="cannot be read either.*nothing was changed"):
            b.restore("web", current.version_id, lk)
        with pytest.raises(HotcError):
            b.restore("web", "no-such-version", lk)
    assert store.raw_get("web") == GARBAGE


def test_overwrite_still_refuses_a_concurrent_writer(store: Store) -> None:
    """The overwrite compares the current bytes' version token: a document stored between that comparison's
    read and the write is not lost."""
    b = two_versions_then_garbage(store)
    other = b"other writer's bytes"
    real_get = b._get  # type: ignore[attr-defined]

    def get_then_someone_writes(stack: str) -> Any:
        got = real_get(stack)
        store.raw_put(stack, other)
        return got

    b._get = get_then_someone_writes  # type: ignore[attr-defined]
    with b.lock("web", "state push") as lk:
        with pytest.raises(HotcError, match="changed"):
            b.overwrite("web", counter_state("web", 7), lk)
    assert store.raw_get("web") == other


def test_list_states_marks_the_broken_stack_and_lists_the_others(store: Store) -> None:
    b = store.make()
    for name in ("app", "db"):
        with b.lock(name, "apply") as lk:
            b.write(name, counter_state(name, 5), lk)
    store.raw_put("web", GARBAGE)
    fresh = store.make()
    assert fresh.list_stacks() == ["app", "db", "web"]
    listed = {s.name: s for s in fresh.list_states()}
    assert sorted(listed) == ["app", "db", "web"]
    assert listed["web"].broken and listed["web"].state is None
    assert "web" in (listed["web"].error or "")
    for name in ("app", "db"):
        assert not listed[name].broken and counter(listed[name].state) == 5


def unversioned_bucket(server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Bucket:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", server.endpoint)
    return S3Bucket(server, server.make_bucket(versioning=False), "p")


def test_an_unversioned_bucket_keeps_the_replaced_document_as_its_backup(
    moto_s3: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = unversioned_bucket(moto_s3, monkeypatch)
    b = S3Backend(bucket.name, bucket.prefix, client=bucket.client())
    assert not b.versioning_enabled()
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    bucket.client().put_object(Bucket=bucket.name, Key=bucket.key("web", "state.json"), Body=GARBAGE)
    assert [(e.version_id, e.serial) for e in b.history("web")] == [("null", None)]  # nothing to go back to
    with b.lock("web", "state push") as lk:
        b.overwrite("web", counter_state("web", 3), lk)
    entries = b.history("web")
    assert [(e.version_id, e.is_latest) for e in entries] == [("null", True), (BACKUP_VERSION, False)]
    assert b.read_version_bytes("web", BACKUP_VERSION) == GARBAGE
    assert previous_version(entries) == entries[1]
    # and back: the backup (the garbage) cannot be restored, the current one can be overwritten again
    with b.lock("web", "state restore") as lk:
        with pytest.raises(HotcError, match="cannot be read either"):
            b.restore("web", BACKUP_VERSION, lk)
    assert counter(b.read("web")[0]) == 3
