"""``deletion_policy: Snapshot`` for OS::Nova::Server (Heat's ``Server.handle_snapshot_delete``)."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    ignore_missing,
    now,
    wait_for,
)
from hotc.providers.openstack.nova.common import BUSY, live_server

SNAPSHOT_GRACE = 20.0  # seconds an image may stay unfinished after Nova's snapshot task ended


class ServerSnapshotMixin:
    """``deletion_policy: Snapshot`` of a server: an image of it, active in Glance, before it is deleted."""

    @staticmethod
    def _snapshot_before_delete(ctx: ActionContext, conn: Any, server: Any) -> None:
        """``deletion_policy: Snapshot`` (Heat's Server.handle_snapshot_delete): an image of the server, active in
        Glance, before the server is deleted; if the snapshot fails the delete fails and the server stays."""
        sid = str(server.id)
        name = f"{server.name}-snapshot"

        def of_server(img: Any) -> bool:
            props = dict(getattr(img, "properties", None) or {})
            return (
                img.name == name
                and (getattr(img, "instance_uuid", None) or props.get("instance_uuid")) == sid
            )

        images = [
            i for i in call(ctx, "list images", lambda: list(conn.image.images(name=name))) if of_server(i)
        ]
        if any(str(i.status) == "active" for i in images):
            ctx.log(f"server {sid}: snapshot image {name} already made (deletion_policy Snapshot)")
            return
        for img in images:  # failed attempts of an earlier run
            if str(img.status) in ("killed", "deleted", "deactivated"):
                ignore_missing(ctx, f"delete failed snapshot {img.id}", conn.image.delete_image, img.id)
        pending = [i for i in images if str(i.status) in ("queued", "saving", "uploading", "importing")]
        if pending:
            image_id = str(pending[0].id)
        else:
            _wait_no_task(ctx, conn, sid)
            ctx.log(f"server {sid}: taking snapshot image {name} before deletion (deletion_policy Snapshot)")
            image = call(
                ctx,
                f"snapshot server {sid}",
                lambda: conn.compute.create_server_image(sid, name, metadata={"hotc-snapshot-of": sid}),
            )
            image_id = str(image.id)
        idle_since: list[float] = []

        def failed(img: Any) -> str | None:
            if str(img.status) in ("killed", "deleted"):
                return f"the image went to {img.status}"
            # Nova uploads the image while the server's task is image_uploading; once the task is over and the
            # image is still not active, the upload is not coming (a virt driver that cannot snapshot)
            srv = live_server(conn, sid)
            if srv is not None and not getattr(srv, "task_state", None):
                idle_since.append(now())
                if idle_since[-1] - idle_since[0] > SNAPSHOT_GRACE:
                    return f"Nova finished the snapshot but the image stayed {img.status}"
            return None

        try:
            wait_for(
                ctx,
                f"snapshot server {sid} as image {image_id}",
                lambda: conn.image.get_image(image_id),
                lambda i: i is not None and str(i.status) == "active",
                failed,
            )
        except ProviderError as exc:
            ignore_missing(ctx, f"delete failed snapshot {image_id}", conn.image.delete_image, image_id)
            raise ProviderError(
                f"server {sid}: {exc.message}; deletion_policy Snapshot: the server is kept (change "
                "the deletion_policy to Retain or Delete, or fix the snapshot, then run again)"
            ) from exc


def _wait_no_task(ctx: ActionContext, conn: Any, sid: str) -> None:
    """Nova refuses an image snapshot while another task runs on the server."""
    wait_for(
        ctx,
        f"wait for server {sid} to be idle",
        lambda: conn.compute.get_server(sid),
        lambda s: s is not None and not getattr(s, "task_state", None) and str(s.status).upper() not in BUSY,
    )
