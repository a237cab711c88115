"""Cancelling a running apply from anywhere (``hotc cancel STACK``), as Heat's ``stack cancel``.

The request travels through the stack's event log in its backend (local or S3), the one channel every runner
of a stack can write while another holds the lock: ``hotc cancel`` appends a stack event with status
:data:`CANCEL_REQUESTED` (who and when in its reason), and the running apply, which polls the log, stops
scheduling: it starts nothing new, lets the steps in flight finish and records them, then rolls the stack back
to its last good template (as Heat's ``stack cancel``; the request's ``(no rollback)`` mark, from
``hotc cancel --no-rollback``, leaves it as the cancel found it) and exits non-zero saying who cancelled and
when. The request stays in the event log as the audit trail.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from hotc.state.events import Event

CANCEL_REQUESTED = "CANCEL_REQUESTED"
STACK_TYPE = "OS::Heat::Stack"
POLL_SECONDS = 1.0
NO_ROLLBACK_MARK = " (no rollback)"


def cancel_event(stack: str, by: str, no_rollback: bool) -> Event:
    how = NO_ROLLBACK_MARK if no_rollback else ""
    return Event.now(stack, STACK_TYPE, CANCEL_REQUESTED, f"cancel requested by {by}{how}")


def wants_rollback(request: Event) -> bool:
    """Whether a cancel request asks for the stack to be rolled back (``hotc cancel`` without
    ``--no-rollback``)."""
    return not request.reason.endswith(NO_ROLLBACK_MARK)


def cancel_requests(events: list[Event]) -> list[Event]:
    return [e for e in events if e.status == CANCEL_REQUESTED and e.type == STACK_TYPE]


def cancel_reason(request: Event) -> str:
    """What the cancelled run says: who cancelled, and when."""
    who = request.reason.removeprefix("cancel requested by ").removesuffix(NO_ROLLBACK_MARK)
    return f"cancelled by {who} at {request.time}"


class CancelWatch:
    """What :func:`watch_for_cancel` saw: the cancel request that stopped the run (None: none came)."""

    def __init__(self) -> None:
        self.request: Event | None = None

    @property
    def rollback(self) -> bool:
        """A cancel request came and asks for a rollback."""
        return self.request is not None and wants_rollback(self.request)

    @property
    def reason(self) -> str:
        return cancel_reason(self.request) if self.request is not None else ""


@contextmanager
def watch_for_cancel(
    backend: Any, stack: str, executor: Any, err: IO[str], *, poll: float = POLL_SECONDS
) -> Iterator[CancelWatch]:
    """While the body runs, cancel ``executor`` when a cancel request for ``stack`` reaches the event log
    (requests older than this run are ignored); the watch yielded records the request."""
    try:
        known = backend.read_events(stack)
    except Exception:  # noqa: BLE001 - the event log only carries cancel requests: the run goes on without
        known = []
    after = known[-1].id if known else None
    done = threading.Event()
    seen = CancelWatch()

    def watch() -> None:
        nonlocal after
        while not done.wait(poll):
            try:
                new = backend.read_events(stack, after=after)
            except Exception:  # noqa: BLE001 - a failed read is tried again at the next poll
                continue
            if new:
                after = new[-1].id
            requests = cancel_requests(new)
            if requests:
                seen.request = requests[0]
                reason = cancel_reason(requests[0])
                err.write(f"\n{stack}: {reason}: no new actions are started; the ones in flight finish\n")
                err.flush()
                executor.cancel(reason)
                return

    thread = threading.Thread(target=watch, name=f"hotc-cancel-watch-{stack}", daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        done.set()
        thread.join(timeout=poll + 5)
