"""Keeps the stack's state during an apply and writes it after every change (group commit).

Workers change the in-memory state with :meth:`StateKeeper.commit`, which returns only once a write holding
that change (and the events that go with it) has reached the backend. One writer thread does the writes; when
several workers commit while a write is under way, the next write carries all their changes at once, so the
backend sees at most one state write in flight and no worker waits for more than two writes. A write's events
are appended while its state is written (a remote backend serves both round trips at once); a worker goes on
only when both are stored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Protocol

from hotc.errors import HotcError
from hotc.state.document import StackState
from hotc.state.events import Event


class StateSink(Protocol):
    """Where the state and events go (a backend under the stack's lock, or a fake in tests)."""

    def write(self, state: StackState) -> StackState: ...

    def append_events(self, events: list[Event]) -> None: ...


class StateWriteError(HotcError):
    """The state could not be saved; the apply must stop."""


class StateKeeper:
    def __init__(
        self, state: StackState, sink: StateSink, on_event: Callable[[Event], None] | None = None
    ) -> None:
        self._state = state
        self._sink = sink
        self._on_event = on_event
        self._mutex = threading.Lock()
        self._cond = threading.Condition(self._mutex)  # workers wait here for their version to be stored
        self._work = threading.Condition(self._mutex)  # the writer waits here for something to store
        self._version = 0  # bumped by every commit
        self._persisted = 0  # the version the backend holds
        self._pending_events: list[Event] = []
        self._error: BaseException | None = None
        self._closed = False
        self._events_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hotc-events-writer")
        self._writer = threading.Thread(target=self._write_loop, name="hotc-state-writer", daemon=True)
        self._writer.start()

    @property
    def state(self) -> StackState:
        with self._cond:
            return self._state

    def commit(
        self,
        change: Callable[[StackState], StackState],
        events: tuple[Event, ...] = (),
        *,
        wait: bool = True,
    ) -> StackState:
        """Apply ``change`` to the state, queue ``events``, and wait until both are stored. With ``wait=False``
        (an action's completion) the write is started but not waited for: the next commit that waits (the
        dependent's CREATE_IN_PROGRESS, which must be stored before its cloud call) carries both in one write,
        so a chain of resources costs two writes per link instead of three. A killed run then finds the completed
        resource still IN_PROGRESS with its physical id, which the next apply reads and keeps."""
        with self._cond:
            if self._error is not None:
                raise StateWriteError(f"the state could not be saved: {self._error}")
            self._state = change(self._state)
            self._pending_events.extend(events)
            self._version += 1
            mine = self._version
            snapshot = self._state
            self._work.notify()
        for e in events:
            if self._on_event is not None:
                self._on_event(e)
        if not wait:
            return snapshot
        with self._cond:
            while self._persisted < mine and self._error is None:
                self._cond.wait()
            if self._persisted < mine and self._error is not None:
                raise StateWriteError(f"the state could not be saved: {self._error}")
        return snapshot

    def close(self) -> StackState:
        """Write what is pending, stop the writer and return the final state."""
        with self._cond:
            self._closed = True
            self._work.notify()
        self._writer.join()
        self._events_pool.shutdown(wait=True)
        if self._error is not None:
            raise StateWriteError(f"the state could not be saved: {self._error}")
        return self._state

    def _write_loop(self) -> None:
        while True:
            with self._cond:
                while self._persisted == self._version and not self._closed:
                    self._work.wait()
                if self._persisted == self._version and self._closed:
                    return
                target = self._version
                snapshot = self._state
                events = self._pending_events
                self._pending_events = []
            try:
                # the events go out while the state is written (two round trips at once on a remote backend);
                # both must have succeeded before the waiting workers go on
                pending = self._events_pool.submit(self._sink.append_events, events) if events else None
                try:
                    written = self._sink.write(snapshot)
                finally:
                    if pending is not None:
                        pending.result()
            except BaseException as exc:  # noqa: BLE001 -- reported to every waiting worker
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()
                return
            with self._cond:
                if written.serial != self._state.serial:
                    self._state = replace(self._state, serial=written.serial)
                self._persisted = target
                self._cond.notify_all()
