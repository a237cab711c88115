"""``deletion_policy: Snapshot`` for OS::Nova::Server (Heat's ``Server.handle_snapshot_delete``)."""

from __future__ import annotations

from collections.abc import Mapping
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
    """A server's physical snapshot: an image of it, active in Glance (Heat's Server.handle_snapshot), taken for
    a stack snapshot and for ``deletion_policy: Snapshot`` before the server is deleted."""

    def snapshot(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], name: str, lasting: bool = False
    ) -> Mapping[str, Any]:
        """An image of the server named ``name`` (an image outlives its server: ``lasting`` changes nothing),
        active in Glance: ``{"image_id"}``."""
        conn = ctx.cloud()
        server = call(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
        return {"image_id": self._image_of(ctx, conn, server, name)}

    def restore_properties(self, props: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
        """The server built from its image (Heat's Server.handle_restore): ``image`` is the snapshot's."""
        out = {k: v for k, v in props.items() if v is not None and k != "image_id"}
        if data.get("image_id"):
            out["image"] = str(data["image_id"])
        return out

    def delete_snapshot(self, ctx: ActionContext, data: Mapping[str, Any]) -> None:
        """Delete the snapshot's image (Heat's Server.handle_delete_snapshot)."""
        image_id = str(data.get("image_id") or "")
        if image_id:
            conn = ctx.cloud()
            ignore_missing(ctx, f"delete image {image_id}", conn.image.delete_image, image_id)

    def _snapshot_before_delete(self, ctx: ActionContext, conn: Any, server: Any) -> None:
        """``deletion_policy: Snapshot`` (Heat's Server.handle_snapshot_delete): an image of the server, active in
        Glance, before the server is deleted; if the snapshot fails the delete fails and the server stays."""
        self.snapshot(ctx, str(server.id), {}, f"{server.name}-snapshot", lasting=True)

    @staticmethod
    def _image_of(ctx: ActionContext, conn: Any, server: Any, name: str) -> str:
        """The id of an active image of ``server`` named ``name``: one an earlier run made, else a new one."""
        sid = str(server.id)

        def of_server(img: Any) -> bool:
            props = dict(getattr(img, "properties", None) or {})
            return (
                img.name == name
                and (getattr(img, "instance_uuid", None) or props.get("instance_uuid")) == sid
            )

        images = [
            i for i in call(ctx, "list images", lambda: list(conn.image.images(name=name))) if of_server(i)
        ]
        done = next((i for i in images if str(i.status) == "active"), None)
        if done is not None:
            ctx.log(f"server {sid}: snapshot image {name} already made")
            return str(done.id)
        for img in images:  # failed attempts of an earlier run
            if str(img.status) in ("killed", "deleted", "deactivated"):
                ignore_missing(ctx, f"delete failed snapshot {img.id}", conn.image.delete_image, img.id)
        pending = [i for i in images if str(i.status) in ("queued", "saving", "uploading", "importing")]
        if pending:
            image_id = str(pending[0].id)
        else:
            _wait_no_task(ctx, conn, sid)
            ctx.log(f"server {sid}: taking snapshot image {name}")
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
                f"server {sid}: {exc.message}; the server is kept as it is (with deletion_policy Snapshot: "
                "change it to Retain or Delete, or fix the snapshot, then run again)"
            ) from exc
        return image_id


def _wait_no_task(ctx: ActionContext, conn: Any, sid: str) -> None:
    """Nova refuses an image snapshot while another task runs on the server."""
    wait_for(
        ctx,
        f"wait for server {sid} to be idle",
        lambda: conn.compute.get_server(sid),
        lambda s: s is not None and not getattr(s, "task_state", None) and str(s.status).upper() not in BUSY,
    )
