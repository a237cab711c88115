"""OS::Cinder::VolumeAttachment: physical id ``<server id>:<volume id>``; deleting it detaches the volume through
Nova and waits until Cinder says the volume is ``available`` again, so a server or volume deleted next never races
the detach."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.cinder.common import (
    _attaching,
    _wait_volume,
    find_volume,
)
from hotc.providers.openstack.common import (
    NotFound,
    ProviderError,
    call,
    get_or_none,
    outcome,
    wait_for,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps


class VolumeAttachmentDriver:
    """Physical id ``<server id>:<volume id>``."""

    @staticmethod
    def _ids(physical_id: str) -> tuple[str, str]:
        server_id, _, volume_id = physical_id.partition(":")
        if not volume_id:
            raise ProviderError(f"volume attachment id {physical_id!r} is not of the form SERVER:VOLUME")
        return server_id, volume_id

    def _attach(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        server_id = str(props["instance_uuid"])
        volume_id = find_volume(ctx, conn, props["volume_id"]).id
        pid = f"{server_id}:{volume_id}"
        ctx.record_physical_id(pid)
        _wait_volume(ctx, conn, volume_id, "wait for volume", ("available", "in-use"))
        if (
            get_or_none(ctx, "read attachment", conn.compute.get_volume_attachment, server_id, volume_id)
            is None
        ):
            kwargs: dict[str, Any] = {"volume_id": volume_id}
            if props.get("mountpoint"):
                kwargs["device"] = props["mountpoint"]
            call(
                ctx,
                f"attach volume {volume_id} to server {server_id}",
                lambda: conn.compute.create_volume_attachment(server_id, **kwargs),
            )
        wait_for(
            ctx,
            f"attach volume {volume_id} to server {server_id}",
            lambda: conn.block_storage.get_volume(volume_id),
            lambda v: (
                v is not None
                and str(v.status) == "in-use"
                and any(a.get("server_id") == server_id for a in v.attachments or [])
            ),
            lambda v: (
                f"went to {v.status}"
                if str(v.status).startswith("error")
                or str(v.status) == "available"
                and not _attaching(conn, server_id, volume_id)
                else None
            ),
        )
        return pid

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        pid = self._attach(ctx, conn, props)
        out = self.read(ctx, pid, props)
        if out is None:
            raise ProviderError(f"volume attachment {pid} vanished right after it was made")
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        server_id, volume_id = self._ids(physical_id)
        att = get_or_none(
            ctx,
            f"read volume attachment {physical_id}",
            conn.compute.get_volume_attachment,
            server_id,
            volume_id,
        )
        if att is None:
            return None
        lp = LiveProps(ctx, conn, props)
        lp.put("instance_uuid", server_id)
        lp.ref("volume_id", volume_id, "volume", find_volume)
        # mountpoint: Nova may pick another device than the one asked for; the recorded value is kept
        return replace(outcome(att, {}, physical_id=physical_id), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        """As Heat: detach from the old server/volume, then attach as the new properties say."""
        conn = ctx.cloud()
        self._detach(ctx, conn, physical_id)
        pid = self._attach(ctx, conn, new)
        out = self.read(ctx, pid, new)
        if out is None:
            raise ProviderError(f"volume attachment {pid} vanished right after it was made")
        return out

    def _detach(self, ctx: ActionContext, conn: Any, physical_id: str) -> None:
        server_id, volume_id = self._ids(physical_id)
        try:
            call(
                ctx,
                f"detach volume {volume_id} from server {server_id}",
                conn.compute.delete_volume_attachment,
                server_id,
                volume_id,
                ignore_missing=False,
            )
        except NotFound:
            pass
        wait_for(
            ctx,
            f"detach volume {volume_id} from server {server_id}",
            lambda: get_or_none(ctx, "read volume", conn.block_storage.get_volume, volume_id),
            lambda v: (
                v is None
                or not any(a.get("server_id") == server_id for a in v.attachments or [])
                and str(v.status) in ("available", "in-use", "error")
            ),
            lambda v: "detach failed: status error_detaching" if str(v.status) == "error_detaching" else None,
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self._detach(ctx, ctx.cloud(), physical_id)

    def physical_id_from_heat(self, ctx: ActionContext, heat_id: str | None, props: Mapping[str, Any]) -> str:
        """Heat keeps Nova's attachment id (the volume's id), which names no server: hotc's id is
        ``<server id>:<volume id>``, from the ``instance_uuid`` and ``volume_id`` the resource names."""
        volume_id = find_volume(ctx, ctx.cloud(), props["volume_id"]).id
        return f"{props['instance_uuid']}:{volume_id}"

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        try:
            volume_id = find_volume(ctx, conn, props["volume_id"]).id
        except (ProviderError, KeyError):
            return None
        pid = f"{props.get('instance_uuid')}:{volume_id}"
        return pid if self.read(ctx, pid, props) is not None else None


DRIVERS: dict[str, Driver] = with_defaults({"OS::Cinder::VolumeAttachment": VolumeAttachmentDriver()})
