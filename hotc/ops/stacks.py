"""What the operations on an existing stack share: finding out, before any lock is taken, that the stack
asked for has no state (a name given by mistake leaves nothing behind, not even a lock file)."""

from __future__ import annotations

from typing import Any

from hotc.errors import HotcError, did_you_mean


def stack_not_found(stack: str, backend: Any, *, hint: str = "") -> str:
    """The error for a stack with no state in ``backend``, naming the stacks it has (``hint``: what to do
    instead, appended)."""
    try:
        names = sorted(backend.list_stacks())
    except HotcError:
        names = []
    have = ", ".join(names) if names else "none"
    return (
        f"stack not found: {stack!r} has no state in {backend.describe()} (stacks there: {have}){hint}."
        + did_you_mean(stack, names)
    )


def require_stack(stack: str, backend: Any, *, hint: str = "") -> None:
    """Raise the :func:`stack_not_found` error when ``stack`` has no state in ``backend`` (read without the
    lock: the operation reads it again under its lock)."""
    state, _token = backend.read(stack)
    if state is None:
        raise HotcError(stack_not_found(stack, backend, hint=hint))
