"""What the Nova types share: look-ups by name or id (flavor, image, key pair) and server statuses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import (
    lookup,
)

INTERNAL_PORT_TAG = "hotc-internal-port"
SNAPSHOT_GRACE = 20.0  # seconds an image may stay unfinished after Nova's snapshot task ended
RESTING = frozenset({"ACTIVE", "SHUTOFF", "SUSPENDED", "PAUSED"})
BUSY = frozenset({"BUILD", "REBUILD", "RESIZE", "REBOOT", "HARD_REBOOT", "MIGRATING", "PASSWORD"})


def find_flavor(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "flavor",
        value,
        lambda v: conn.compute.get_flavor(v),
        lambda v: [f for f in conn.compute.flavors(is_public=None) if f.name == v],
        conn=conn,
    )


def find_image(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx, "image", value, lambda v: conn.image.get_image(v), lambda v: conn.image.images(name=v), conn=conn
    )


def find_keypair(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "key pair", value, conn.compute.get_keypair, lambda v: [])


def fault(server: Any) -> str:
    fault = getattr(server, "fault", None) or {}
    return str(fault.get("message") or "") if isinstance(fault, Mapping) else str(fault)


def live_server(conn: Any, sid: str) -> Any:
    s = conn.compute.get_server(sid)
    return None if s is None or str(s.status).upper() in ("DELETED", "SOFT_DELETED") else s
