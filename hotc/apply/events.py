"""Events of an apply: one per resource transition (IN_PROGRESS, COMPLETE, FAILED), stored with the state.

The :class:`Event` record and its storage belong to ``hotc.state``; this module builds the events the
applier emits and formats them for ``hotc events`` and the plain progress display.
"""

from __future__ import annotations

from hotc.state.events import Event
from hotc.state.secrets import SECRET_ID_TYPES

STACK_TYPE = "OS::Heat::Stack"


# Types whose physical id is a secret (see hotc.state.secrets.SECRET_ID_TYPES): their events carry none.
__all__ = ["SECRET_ID_TYPES", "STACK_TYPE", "format_event", "nesting_depth", "resource_event", "stack_event"]


def resource_event(
    address: str, type_: str, status: str, reason: str = "", physical_id: str | None = None
) -> Event:
    return Event.now(address, type_, status, reason, None if type_ in SECRET_ID_TYPES else physical_id)


def stack_event(stack: str, status: str, reason: str = "") -> Event:
    return Event.now(stack, STACK_TYPE, status, reason)


def format_event(e: Event) -> str:
    """One line per event, like ``openstack stack event list``: time, address, status, reason."""
    reason = f": {e.reason}" if e.reason else ""
    return f"{e.time} [{e.address}]: {e.status}{reason}"


def nesting_depth(address: str) -> int:
    """How deep in nested stacks an address is (``web`` 0, ``app.db`` 1, ``app[2].db.port`` 2)."""
    depth = 0
    bracket = 0
    for ch in address:
        if ch == "[":
            bracket += 1
        elif ch == "]":
            bracket -= 1
        elif ch == "." and bracket == 0:
            depth += 1
    return depth
