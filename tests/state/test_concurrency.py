"""Many processes against one stack: locking and compare-and-swap never lose an update."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time

import pytest

from hotc.state import LockHeldError

from .conftest import Store
from .samples import counter, counter_state
from .workers import hold_lock_forever, increment_cas_only, increment_locked, race_for_lock

CTX = mp.get_context("spawn")
WORKERS = 8


def _join(procs: list, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    for p in procs:
        p.join(max(0.1, deadline - time.monotonic()))
    alive = [p for p in procs if p.is_alive()]
    for p in alive:
        p.kill()
    assert not alive, "workers hung"
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]


def test_racing_for_the_lock_exactly_one_wins_every_time(store: Store) -> None:
    rounds = 5
    start, tried = CTX.Barrier(WORKERS), CTX.Barrier(WORKERS)
    results = CTX.Queue()
    procs = [
        CTX.Process(target=race_for_lock, args=(store.spec, "web", rounds, start, tried, results))
        for _ in range(WORKERS)
    ]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=180) for _ in range(rounds * WORKERS)]
    _join(procs)
    for r in range(rounds):
        this = [o for o in outcomes if o[0] == r]
        winners = [o for o in this if o[1] == "won"]
        assert len(this) == WORKERS and len(winners) == 1, this
        # every loser was told who holds it
        for o in this:
            if o[1] == "lost":
                assert f"PID {winners[0][2]}" in o[2] and "hotc force-unlock web" in o[2]


def test_concurrent_read_modify_write_under_the_lock_loses_nothing(store: Store) -> None:
    n = 10
    results = CTX.Queue()
    procs = [
        CTX.Process(target=increment_locked, args=(store.spec, "web", n, results)) for _ in range(WORKERS)
    ]
    for p in procs:
        p.start()
    _join(procs)
    st, _ = store.make().read("web")
    assert counter(st) == WORKERS * n
    assert st is not None and st.serial == WORKERS * n


def test_concurrent_cas_without_locking_loses_nothing(store: Store) -> None:
    """With --unsafe-no-locking every write still goes through compare-and-swap: conflicts are detected and
    retried by the workers, never silently overwritten."""
    n = 10
    results = CTX.Queue()
    read_together = CTX.Barrier(WORKERS)
    procs = [
        CTX.Process(target=increment_cas_only, args=(store.spec, "web", n, results, read_together))
        for _ in range(WORKERS)
    ]
    for p in procs:
        p.start()
    _join(procs)
    conflicts = sum(results.get(timeout=10)[1] for _ in procs)
    st, _ = store.make().read("web")
    assert counter(st) == WORKERS * n and st is not None and st.serial == WORKERS * n
    # every worker first wrote on the same version it read: one write won, the others were refused
    assert conflicts >= WORKERS - 1, conflicts


def _start_holder(store: Store, **options) -> tuple:
    ready = CTX.Queue()
    spec = store.with_options(**options)
    p = CTX.Process(target=hold_lock_forever, args=(spec, "web", ready))
    p.start()
    lock_id = ready.get(timeout=60)
    return p, lock_id


def _move_lock_record_to_another_host(store: Store) -> None:
    """Make the stored S3 lock record name another host (its PID cannot be checked from here)."""
    client, key = store.bucket.client(), store.bucket.key("web", "state.lock")
    rec = json.loads(client.get_object(Bucket=store.bucket.name, Key=key)["Body"].read())
    rec["Host"] = "some-other-host.invalid"
    client.put_object(Bucket=store.bucket.name, Key=key, Body=json.dumps(rec).encode())


def test_killed_holder_on_this_host_is_taken_over_at_once(store: Store) -> None:
    """A lock whose holder ran on this host and whose process is gone is taken over at once (no waiting for
    the lease), with a message naming the dead holder."""
    p, lock_id = _start_holder(store, lease_seconds=600) if store.kind == "s3" else _start_holder(store)
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    notes: list[str] = []
    b = store.make(lease_seconds=600)
    b.notify = notes.append
    lk0 = b.peek_lock("web")
    assert lk0 is not None and lk0.id == lock_id and lk0.holder_gone()
    with b.lock("web", "apply", timeout=0) as lk:
        st, _ = b.read("web")
        assert counter(st) == 41
        b.write("web", st.__class__(**{**st.__dict__, "status": "X"}), lk)
    if store.kind == "s3":
        assert any("is gone" in n and f"PID {p.pid}" in n and lock_id in n for n in notes), notes


def test_a_live_holder_on_this_host_is_not_gone(store: Store) -> None:
    a = store.make(lease_seconds=600)
    with a.lock("web", "apply", timeout=0) as lk:
        seen = store.make().peek_lock("web")
        assert seen is not None and seen.id == lk.id and not seen.holder_gone()
        with pytest.raises(LockHeldError):
            with store.make().lock("web", "apply", timeout=0):
                pass
    assert store.make().peek_lock("web") is None


def test_killed_holder_then_force_unlock(store: Store) -> None:
    p, lock_id = _start_holder(store, lease_seconds=30) if store.kind == "s3" else _start_holder(store)
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    b = store.make()
    if store.kind == "s3":
        _move_lock_record_to_another_host(store)
        # the lease has not run out yet: refused, naming the dead holder and how to unlock
        with pytest.raises(LockHeldError) as exc:
            with b.lock("web", "apply", timeout=0):
                pass
        assert f"PID {p.pid}" in str(exc.value) and f"hotc force-unlock web {lock_id}" in str(exc.value)
        with pytest.raises(Exception, match="different ID"):
            b.force_unlock("web", "not-the-id")
        assert b.force_unlock("web", lock_id).pid == p.pid
    # local: the kernel dropped the flock with the process; S3: force-unlocked
    with b.lock("web", "apply", timeout=0) as lk:
        st, _ = b.read("web")
        assert counter(st) == 41  # what the killed writer stored is intact
        b.write("web", st.__class__(**{**st.__dict__, "status": "UPDATE_COMPLETE"}), lk)


def test_killed_holder_lease_expires_and_is_taken_over(store: Store) -> None:
    if store.kind == "local":
        pytest.skip("local locks are OS locks: they die with the process (covered by the force-unlock test)")
    p, lock_id = _start_holder(store, lease_seconds=1.5)
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    _move_lock_record_to_another_host(store)  # on this host the dead PID would be seen at once
    notes: list[str] = []
    b = store.make(lease_seconds=1.5)
    b.notify = notes.append
    # the lock is still there; once the lease runs out it is recognisably expired
    deadline = time.monotonic() + 15
    while not b.lock_expired("web"):
        assert time.monotonic() < deadline, "lease never expired"
        time.sleep(0.2)
    with b.lock("web", "apply", timeout=0) as lk:
        assert any("expired" in n and f"PID {p.pid}" in n and lock_id in n for n in notes), notes
        st, _ = b.read("web")
        assert counter(st) == 41
        b.write("web", st.__class__(**{**st.__dict__, "status": "X"}), lk)


def test_heartbeat_keeps_a_live_lease(store: Store) -> None:
    if store.kind == "local":
        pytest.skip("local locks have no lease")
    a = store.make(lease_seconds=2.0)
    b = store.make(lease_seconds=2.0)
    with a.lock("web", "apply") as lk:
        time.sleep(5)  # well past two leases: only the heartbeat keeps it alive
        assert not b.lock_expired("web")
        with pytest.raises(LockHeldError) as exc:
            with b.lock("web", "plan", timeout=0):
                pass
        assert not exc.value.expired and exc.value.holder.id == lk.id
        a.write("web", counter_state("web", 1), lk)
