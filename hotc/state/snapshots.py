"""The snapshot store: a stack's snapshots (``hotc snapshot create``), kept beside its state in the same backend.

For a local state ``DIR/STACK.snapshots/NAME.json``, for an S3 state ``PREFIX/STACK/snapshots/NAME.json``. One
JSON document per snapshot (:class:`Snapshot`): who took it and when, the stack's state as it was (its template
record, environments and parameters included, every hidden value sealed as the state's own writer seals it:
:func:`hotc.state.codec.state_to_dict`), and per resource the physical snapshot its driver took (a Cinder volume
snapshot's id, a server image's id), which ``hotc snapshot restore`` builds from and ``hotc snapshot delete``
deletes.

Heat keeps the same facts in its ``snapshot`` table (the stack's template, environment and files, and each
resource's ``resource_data``: ``backup_id``, ``snapshot_image_id``)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from hotc.errors import HotcError
from hotc.model import model
from hotc.state.codec import state_from_dict, state_to_dict
from hotc.state.document import StackState
from hotc.state.side_documents import MemoryDocuments, SideDocuments, side_documents_for

FORMAT = 1
COMPLETE = "COMPLETE"
FAILED = "FAILED"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@model
class ResourceSnapshot:
    """What one resource's driver took: ``data`` (driver-defined: ``{"snapshot_id": ...}`` for a volume,
    ``{"image_id": ...}`` for a server); empty for a type that takes no physical snapshot."""

    type: str
    physical_id: str | None
    data: Mapping[str, Any] = field(default_factory=dict)


@model
class Snapshot:
    name: str
    stack: str
    lineage: str
    created_at: str
    by: str
    status: str  # COMPLETE, or FAILED (a resource's snapshot failed; what was taken is listed, for delete)
    state: StackState
    resources: Mapping[str, ResourceSnapshot] = field(default_factory=dict)
    status_reason: str = ""

    @property
    def physical(self) -> dict[str, ResourceSnapshot]:
        """The resources whose driver took a physical snapshot."""
        return {a: r for a, r in self.resources.items() if r.data}


def validate_name(name: str) -> None:
    if not _NAME.match(name):
        raise HotcError(
            f"snapshot name {name!r}: use letters, digits, '.', '_' and '-' (up to 100, starting with a letter "
            "or digit)"
        )


def to_bytes(snap: Snapshot, key: bytes | None) -> bytes:
    """The stored form: hidden values sealed (with ``key``: encrypted; without: digests only)."""
    doc = {
        "format": FORMAT,
        "name": snap.name,
        "stack": snap.stack,
        "lineage": snap.lineage,
        "created_at": snap.created_at,
        "by": snap.by,
        "status": snap.status,
        "status_reason": snap.status_reason,
        "state": state_to_dict(snap.state, key),
        "resources": {
            a: {"type": r.type, "physical_id": r.physical_id, "data": dict(r.data)}
            for a, r in sorted(snap.resources.items())
        },
    }
    return (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()


def from_bytes(data: bytes, source: str, key: bytes | None) -> Snapshot:
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise HotcError(f"{source}: not a snapshot document (invalid JSON: {exc})") from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("state"), dict)
        or not isinstance(doc.get("name"), str)
    ):
        raise HotcError(f"{source}: not a snapshot document (no name or state)")
    if not isinstance(doc.get("format"), int) or doc["format"] > FORMAT:
        raise HotcError(
            f"{source}: snapshot format {doc.get('format')!r} is newer than this hotc understands"
        )
    resources: dict[str, ResourceSnapshot] = {}
    for addr, r in (doc.get("resources") or {}).items():
        if isinstance(r, dict):
            data_ = r.get("data")
            resources[str(addr)] = ResourceSnapshot(
                type=str(r.get("type") or ""),
                physical_id=r.get("physical_id") if isinstance(r.get("physical_id"), str) else None,
                data=dict(data_) if isinstance(data_, dict) else {},
            )
    return Snapshot(
        name=doc["name"],
        stack=str(doc.get("stack") or ""),
        lineage=str(doc.get("lineage") or ""),
        created_at=str(doc.get("created_at") or ""),
        by=str(doc.get("by") or ""),
        status=str(doc.get("status") or COMPLETE),
        status_reason=str(doc.get("status_reason") or ""),
        state=state_from_dict(doc["state"], f"{source} (state)", key),
        resources=resources,
    )


SnapshotStore = SideDocuments


def snapshot_store_for(backend: Any, stack: str) -> SnapshotStore:
    """The snapshot store beside ``stack``'s state in ``backend`` (in memory, kept on the backend object, for a
    backend that has no place for them)."""
    store = side_documents_for(backend, stack, "snapshots", "snapshot")
    if store is not None:
        return store
    kept = getattr(backend, "snapshot_store", None)
    if kept is None:
        kept = MemoryDocuments()
        try:
            backend.snapshot_store = kept
        except AttributeError:
            pass
    return kept


def names(store: SnapshotStore) -> list[str]:
    """The names of the snapshots in ``store``, sorted."""
    return [e.name for e in store.entries()]


def read(store: SnapshotStore, name: str, key: bytes | None) -> Snapshot | None:
    data = store.get(name)
    return None if data is None else from_bytes(data, f"{store.describe()}/{name}.json", key)


def write(store: SnapshotStore, snap: Snapshot, key: bytes | None) -> None:
    store.put(snap.name, to_bytes(snap, key))


def snapshots_kept(backend: Any, stack: str) -> list[str]:
    """What a destroy says about the stack's snapshots: Heat deletes them with the stack; hotc keeps them (they
    can rebuild the stack: ``hotc snapshot restore``) until ``hotc snapshot delete``. Nothing when it has none
    (or they cannot be listed)."""
    try:
        names = [e.name for e in snapshot_store_for(backend, stack).entries()]
    except HotcError:
        return []
    if not names:
        return []
    return [
        f"note: stack {stack!r} has {len(names)} snapshot(s) ({', '.join(names)}): destroy keeps them and their "
        "volume snapshots and images (a volume that has snapshots is kept with them); 'hotc snapshot delete "
        f"{stack} NAME' deletes one, 'hotc snapshot restore {stack} NAME' brings the stack back"
    ]
