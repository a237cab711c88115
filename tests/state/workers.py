"""Worker processes for the concurrency tests (importable, so they work with the spawn start method)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import Any

from hotc.state import LockHeldError, StateConflictError, backend_from_config
from hotc.state.document import OutputState

from .samples import LINEAGE, counter, counter_state


@dataclass(frozen=True)
class Spec:
    """How a worker builds its own backend object (its own S3 client / file descriptors)."""

    url: str | None
    cwd: str
    options: dict[str, Any] = field(default_factory=dict)

    def make(self, unsafe: bool = False) -> Any:
        return backend_from_config(self.url, self.cwd, unsafe_no_locking=unsafe, options=self.options)


def race_for_lock(spec: Spec, stack: str, rounds: int, start: Any, tried: Any, results: Any) -> None:
    """Each round: all workers try the lock at once (timeout 0); the winner holds it until all have tried."""
    b = spec.make()
    for r in range(rounds):
        start.wait()
        try:
            with b.lock(stack, "race", timeout=0):
                results.put((r, "won", os.getpid()))
                tried.wait()
        except LockHeldError as exc:
            results.put((r, "lost", str(exc)))
            tried.wait()


def increment_locked(spec: Spec, stack: str, n: int, results: Any) -> None:
    b = spec.make()
    for _ in range(n):
        with b.lock(stack, "increment", timeout=120) as lk:
            st, _ = b.read(stack)
            cur = counter(st)
            base = st if st is not None else counter_state(stack, 0)
            b.write(stack, replace(base, outputs={"counter": OutputState(value=cur + 1)}), lk)
    results.put(("done", os.getpid()))


def increment_cas_only(spec: Spec, stack: str, n: int, results: Any, read_together: Any) -> None:
    """No lock at all (--unsafe-no-locking): only the compare-and-swap write protects the counter. The first
    increment of every worker writes after all of them have read the same version (``read_together``, a
    barrier): all but one of those writes must be refused as conflicts."""
    b = spec.make(unsafe=True)
    conflicts = 0
    first = True
    with b.lock(stack, "increment") as lk:  # a stand-in lock in unsafe mode
        for _ in range(n):
            while True:
                st, _ = b.read(stack)
                base = st if st is not None else counter_state(stack, 0, LINEAGE)
                if first:
                    read_together.wait()
                    first = False
                try:
                    b.write(stack, replace(base, outputs={"counter": OutputState(value=counter(st) + 1)}), lk)
                    break
                except StateConflictError:
                    conflicts += 1
    results.put(("done", conflicts))


def hold_lock_forever(spec: Spec, stack: str, ready: Any) -> None:
    """Take the lock, write a state, report the lock id, then hang until killed."""
    b = spec.make()
    with b.lock(stack, "apply", timeout=10) as lk:
        b.write(stack, counter_state(stack, 41), lk)
        ready.put(lk.id)
        while True:
            time.sleep(1)


def crash_while_writing(spec: Spec, stack: str, ready: Any) -> None:
    """Start writing a new state version and hang after the temp file is written (before the rename)."""
    import hotc.state.local as local

    b = spec.make()
    real_fsync = os.fsync

    def fsync_then_hang(fd: int) -> None:
        real_fsync(fd)
        ready.put("writing")
        while True:
            time.sleep(1)

    with b.lock(stack, "apply", timeout=10) as lk:
        st, _ = b.read(stack)
        local.os.fsync = fsync_then_hang  # type: ignore[assignment]
        b.write(stack, replace(st, outputs={"counter": OutputState(value=999)}), lk)
