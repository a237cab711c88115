"""``hotc cancel STACK``: ask the operation that holds a stack's lock (an apply, a destroy) to stop, from any
terminal or CI job that reaches the backend, and wait until it has (see :mod:`hotc.apply.cancel`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from hotc.apply.cancel import cancel_event
from hotc.errors import HotcError
from hotc.model import model
from hotc.ops.protect import not_found
from hotc.state import backend_from_config

# statuses of a stack whose running operation cannot be cancelled, and why
NOT_CANCELLABLE = {
    "ROLLBACK_IN_PROGRESS": "a rollback cannot be cancelled: stopping it would leave the stack half-way back",
}


@model
class CancelRequest:
    stack: str
    by: str  # who asks (user@host)
    no_rollback: bool = False
    wait: bool = True
    timeout: float = 600.0
    backend: str | None = None


@model
class CancelResult:
    stack: str
    operation: str  # what was cancelled (the lock's operation)
    holder: str  # who ran it (user@host pid)
    requested_at: str
    stopped: bool  # the operation released the lock within the timeout (always False without wait)
    status: str = ""  # the stack's status afterwards
    status_reason: str = ""


def run(
    request: CancelRequest, *, sleep: Callable[[float], None] = time.sleep, poll: float = 1.0
) -> CancelResult:
    backend = backend_from_config(request.backend)
    state, _token = backend.read(request.stack)
    lock = backend.peek_lock(request.stack)
    if state is None and lock is None:
        raise not_found(request.stack, backend.list_stacks())
    if lock is None:
        raise HotcError(
            f"stack {request.stack!r} has no operation in progress (its lock is free): nothing to cancel"
        )
    holder = f"{lock.who}@{lock.host} pid {lock.pid}"
    if lock.holder_gone():
        raise HotcError(
            f"the {lock.operation} that holds stack {request.stack!r}'s lock ({holder}) is no longer running: "
            f"nothing to cancel. Remove its lock with 'hotc force-unlock {request.stack} {lock.id}'"
        )
    if state is not None and state.status in NOT_CANCELLABLE:
        raise HotcError(
            f"stack {request.stack!r} is {state.status} ({holder}): {NOT_CANCELLABLE[state.status]}, as in Heat, "
            f"whose 'stack cancel' works only on an update or a create in progress. It ends by itself: follow it "
            f"with 'hotc events {request.stack}'"
        )
    [event] = backend.append_events(
        request.stack, [cancel_event(request.stack, request.by, request.no_rollback)]
    )
    stopped = False
    if request.wait:
        deadline = time.monotonic() + request.timeout
        while time.monotonic() < deadline:
            now = backend.peek_lock(request.stack)
            if now is None or now.id != lock.id:
                stopped = True
                break
            sleep(poll)
    after, _token = backend.read(request.stack) if stopped else (state, None)
    return CancelResult(
        request.stack,
        lock.operation,
        holder,
        event.time,
        stopped,
        after.status if after is not None else "",
        after.status_reason if after is not None else "",
    )
