"""Getting out of a broken state: choosing a stored version to go back to, and storing a document over a
current one that does not parse (``hotc state restore``, ``state pull --version``, ``state push --force``).

A normal write reads the current document first (its lineage and serial are checked, and it is the base of
the compare-and-swap). When that document is corrupt the read fails, which is right for plan and apply but
leaves no way out; :func:`overwrite` compares against the current *bytes* (their version token) instead, so
a concurrent writer is still detected, and never parses them.
"""

from __future__ import annotations

from hotc.errors import HotcError
from hotc.state.backend import HistoryEntry, Lock, StateBackend
from hotc.state.document import StackState


def overwrite(backend: StateBackend, stack: str, state: StackState, lock: Lock) -> StackState:
    """Store ``state`` as given (serial and lineage included) as ``stack``'s current state, whatever the
    current document holds, under ``lock``; the replaced bytes stay in the backend's history (the local
    ``.backup``, the bucket's versions, or its backup object where the bucket keeps no versions):
    :meth:`StateBackend.overwrite`."""
    return backend.overwrite(stack, state, lock)


def previous_version(entries: list[HistoryEntry]) -> HistoryEntry | None:
    """The newest stored version before the current one (local: the ``.backup``; S3: the version the
    current one replaced), or None."""
    return next((e for e in entries if not e.is_latest and e.size > 0), None)


def find_version(entries: list[HistoryEntry], wanted: str) -> HistoryEntry | None:
    """The version ``wanted`` names: a version id as ``hotc state history`` lists it, or a serial number
    (the newest version with that serial)."""
    for e in entries:
        if e.version_id == wanted:
            return e
    if wanted.isdigit():
        for e in entries:
            if e.serial == int(wanted) and e.size > 0:
                return e
    return None


def describe_versions(entries: list[HistoryEntry]) -> str:
    """The versions a message can offer: ``id (serial N)``, newest first."""
    shown = [
        e.version_id + (f" (serial {e.serial})" if e.serial is not None else "")
        for e in entries
        if e.size > 0
    ]
    return ", ".join(shown[:10]) + (" ..." if len(shown) > 10 else "") if shown else "none"


def next_serial(entries: list[HistoryEntry], restored: StackState) -> int:
    """A serial above every stored version's that could be read (a restore is a new version, newest)."""
    return max([restored.serial, *(e.serial for e in entries if e.serial is not None)]) + 1


def read_chosen(backend: StateBackend, stack: str, entry: HistoryEntry) -> StackState:
    try:
        return backend.read_version(stack, entry.version_id)
    except HotcError as exc:
        raise HotcError(
            f"version {entry.version_id} of stack '{stack}' cannot be read either: {exc.message}"
        ) from None
