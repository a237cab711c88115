"""Stack events: one record per resource transition, stored next to the state in the same backend.

Each event gets an ``id`` when it is appended: ``<UTC time in ns, 20 digits>-<uuid4 hex>``, so ids sort in
the order they were appended and ``read_events(stack, after=last_id)`` gives only newer ones.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import Any

from hotc.errors import HotcError
from hotc.model import model


def utc_now() -> str:
    """Now as an ISO 8601 UTC timestamp with microseconds (``2026-01-02T03:04:05.123456Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_event_id() -> str:
    return f"{time.time_ns():020d}-{uuid.uuid4().hex}"


@model
class Event:
    time: str  # ISO 8601 UTC
    address: str  # resource address, or the stack name for stack-level events
    type: str  # resource type (e.g. OS::Nova::Server), or "OS::Heat::Stack" for the stack itself
    status: str  # ACTION_STATUS, e.g. CREATE_IN_PROGRESS, CREATE_COMPLETE, DELETE_FAILED
    reason: str = ""
    physical_id: str | None = None
    id: str = ""  # assigned by the backend on append (sortable)

    @staticmethod
    def now(address: str, type: str, status: str, reason: str = "", physical_id: str | None = None) -> Event:
        return Event(
            time=utc_now(), address=address, type=type, status=status, reason=reason, physical_id=physical_id
        )

    def with_id(self) -> Event:
        return self if self.id else replace(self, id=new_event_id())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: Any, source: str = "events") -> Event:
        if not isinstance(d, dict):
            raise HotcError(f"{source}: error: an event record is not a JSON object")
        try:
            return Event(
                time=str(d["time"]),
                address=str(d["address"]),
                type=str(d["type"]),
                status=str(d["status"]),
                reason=str(d.get("reason") or ""),
                physical_id=d.get("physical_id"),
                id=str(d.get("id") or ""),
            )
        except KeyError as exc:
            raise HotcError(f"{source}: error: an event record lacks field {exc.args[0]!r}") from None


def encode_lines(events: list[Event]) -> bytes:
    """Events as JSON lines (one object per line)."""
    return b"".join(json.dumps(e.to_dict(), sort_keys=True).encode() + b"\n" for e in events)


def decode_lines(data: bytes, source: str) -> list[Event]:
    """Events from JSON lines; a torn last line (a writer still appending) is skipped."""
    out = []
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break  # the last line is being written right now
            raise HotcError(
                f"{source}: error: line {i + 1} is not valid JSON; the event log is damaged"
            ) from None
        out.append(Event.from_dict(obj, f"{source}:{i + 1}"))
    return out
