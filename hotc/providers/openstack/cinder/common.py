"""What the Cinder types share: look-ups, statuses, the wait for a volume, the detach from every server."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import (
    get_or_none,
    ignore_missing,
    lookup,
    wait_for,
    wait_status,
)

# metadata keys Cinder itself adds to a volume's metadata (read-only flag, attach mode): not the template's
CINDER_METADATA = ("readonly", "attached_mode")

VOLUME_FAILURES = ("error", "error_extending", "error_restoring", "error_managing")
BUSY = frozenset(
    {
        "creating",
        "downloading",
        "uploading",
        "attaching",
        "detaching",
        "extending",
        "retyping",
        "restoring-backup",
        "backing-up",
        "maintenance",
    }
)


def find_volume(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "volume", value, conn.block_storage.get_volume, lambda v: conn.block_storage.volumes(name=v)
    )


def find_volume_type(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "volume type",
        value,
        conn.block_storage.get_type,
        lambda v: [t for t in conn.block_storage.types() if t.name == v],
    )


def _find_snapshot(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "volume snapshot",
        value,
        conn.block_storage.get_snapshot,
        lambda v: conn.block_storage.snapshots(name=v),
    )


def _wait_volume(
    ctx: ActionContext, conn: Any, vid: str, what: str, targets: tuple[str, ...] = ("available",)
) -> Any:
    return wait_status(
        ctx, f"{what} {vid}", lambda: conn.block_storage.get_volume(vid), targets, VOLUME_FAILURES
    )


def detach_everywhere(ctx: ActionContext, conn: Any, volume: Any) -> None:
    """Detach a volume from every server it is attached to and wait until it is available."""
    for att in volume.attachments or []:
        server_id = att.get("server_id")
        if server_id:
            ignore_missing(
                ctx,
                f"detach volume {volume.id} from server {server_id}",
                conn.compute.delete_volume_attachment,
                server_id,
                volume.id,
            )
    wait_for(
        ctx,
        f"detach volume {volume.id}",
        lambda: get_or_none(ctx, "read volume", conn.block_storage.get_volume, volume.id),
        lambda v: v is None or (str(v.status) in ("available", "error") and not v.attachments),
        lambda v: "detach failed: status error_detaching" if str(v.status) == "error_detaching" else None,
    )


def _attaching(conn: Any, server_id: str, volume_id: str) -> bool:
    """Nova still holds the attachment (so an ``available`` volume is about to become ``in-use``)."""
    try:
        return conn.compute.get_volume_attachment(server_id, volume_id) is not None
    except Exception:
        return False


def find_qos_specs(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "QoS specs",
        value,
        conn.block_storage.get_qos_spec,
        lambda v: [q for q in conn.block_storage.qos_specs() if q.name == v],
    )
