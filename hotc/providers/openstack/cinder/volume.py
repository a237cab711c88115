"""OS::Cinder::Volume: volumes carry the hotc stamp in their metadata; deleting one still attached (by something
outside the stack) detaches it first; ``deletion_policy: Snapshot`` makes a Cinder backup first."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, SNAPSHOT, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.cinder.common import (
    BUSY,
    CINDER_METADATA,
    _find_snapshot,
    _wait_volume,
    detach_everywhere,
    find_volume,
    find_volume_type,
)
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    has_stamp,
    ignore_missing,
    merge_metadata,
    newest,
    outcome,
    physical_name,
    props_get,
    settle,
    user_metadata,
    wait_for,
    wait_gone,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, map_as_given, resolve


class VolumeDriver(ListRead):
    snapshot_delete = True  # delete(policy=Snapshot) makes a backup first

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"))
        metadata = merge_metadata(ctx, props.get("metadata"))
        if props.get("backup_id"):
            return self._restore(ctx, conn, name, metadata, props)
        body: dict[str, Any] = {"name": name, "metadata": metadata}
        for prop, field in (
            ("size", "size"),
            ("description", "description"),
            ("availability_zone", "availability_zone"),
            ("snapshot_id", "snapshot_id"),
            ("scheduler_hints", "scheduler_hints"),
            ("multiattach", "multiattach"),
        ):
            if props.get(prop) not in (None, "", {}):
                body[field] = props[prop]
        if props.get("source_volid"):
            body["source_volume_id"] = find_volume(ctx, conn, props["source_volid"]).id
        image = props_get(props, "image", "imageRef")
        if image:
            # lazy: the nova package loads every Nova driver (drivers.service_drivers loads one service's)
            from hotc.providers.openstack.nova import find_image

            body["image_id"] = find_image(ctx, conn, image).id
        if props.get("volume_type"):
            body["volume_type"] = find_volume_type(ctx, conn, props["volume_type"]).name
        if "size" not in body and not (body.get("snapshot_id") or body.get("source_volume_id") or image):
            raise ProviderError(
                "volume: size is required unless the volume is made from an image, snapshot, "
                "source volume or backup"
            )
        find_new = fresh_finder(
            ctx,
            "create volume",
            lambda: [
                v
                for v in conn.block_storage.volumes(details=True, name=name)
                if has_stamp(ctx, metadata=v.metadata or {})
            ],
        )
        vol = create_once(ctx, "create volume", lambda: conn.block_storage.create_volume(**body), find_new)
        ctx.record_physical_id(vol.id)
        vol = _wait_volume(ctx, conn, vol.id, "create volume")
        if props.get("read_only"):
            call(ctx, f"set volume {vol.id} read-only", conn.block_storage.set_volume_readonly, vol.id, True)
        return self._outcome(conn.block_storage.get_volume(vol.id))

    def _restore(
        self, ctx: ActionContext, conn: Any, name: str, metadata: dict[str, str], props: Mapping[str, Any]
    ) -> Outcome:
        restored = call(
            ctx,
            f"restore backup {props['backup_id']}",
            conn.block_storage.restore_backup,
            props["backup_id"],
            name=name,
        )
        vid = getattr(restored, "volume_id", None) or restored.id
        ctx.record_physical_id(vid)
        _wait_volume(ctx, conn, vid, "restore volume")
        call(
            ctx,
            f"set metadata of volume {vid}",
            lambda: conn.block_storage.set_volume_metadata(vid, **metadata),
        )
        if props.get("description"):
            call(
                ctx,
                f"update volume {vid}",
                conn.block_storage.update_volume,
                vid,
                description=props["description"],
            )
        return self._outcome(conn.block_storage.get_volume(vid))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        vol = get_or_none(ctx, f"read volume {physical_id}", conn.block_storage.get_volume, physical_id)
        vol = settle(
            ctx,
            f"read volume {physical_id}",
            vol,
            lambda: conn.block_storage.get_volume(physical_id),
            lambda v: str(v.status) in BUSY,
        )
        return None if vol is None else self.read_outcome(ctx, conn, vol, props)

    list_what = "volumes"

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.block_storage.volumes(details=True))

    def listed_usable(self, obj: Any) -> bool:
        return str(obj.status) not in BUSY

    def read_outcome(self, ctx: ActionContext, conn: Any, vol: Any, props: Mapping[str, Any]) -> Outcome:
        """Attributes and live properties of ``vol`` (also one from a list call)."""
        lp = LiveProps(ctx, conn, props)
        lp.name(vol.name)
        lp.text("size", vol.size)
        lp.text("description", vol.description or "")
        lp.chosen("availability_zone", vol.availability_zone)
        md = user_metadata(vol.metadata)
        given_md = dict(props.get("metadata") or {})
        readonly = md.get("readonly")
        for key in CINDER_METADATA:
            if key not in given_md:
                md.pop(key, None)
        lp.put("metadata", map_as_given(given_md, md))
        if lp.wants("read_only"):
            lp.put("read_only", str(readonly).lower() == "true")
        if lp.wants("volume_type"):
            given = props.get("volume_type")
            live = vol.volume_type
            vtype = (
                None
                if given in (None, "", live)
                else resolve(ctx, conn, "volume type", given, find_volume_type)
            )
            same = given == live or (vtype is not None and live in (vtype.name, str(vtype.id)))
            lp.put("volume_type", given if same else live)
        lp.ref("snapshot_id", vol.snapshot_id, "snapshot", _find_snapshot)
        lp.ref("source_volid", vol.source_volume_id, "volume", find_volume)
        image_id = (getattr(vol, "volume_image_metadata", None) or {}).get("image_id")
        for key in ("image", "imageRef"):
            if lp.wants(key):
                # lazy: the nova package loads every Nova driver (drivers.service_drivers loads one service's)
                from hotc.providers.openstack.nova import find_image

                lp.ref(key, image_id, "image", find_image)
        return replace(self._outcome(vol), properties=lp.result())

    @staticmethod
    def _outcome(vol: Any) -> Outcome:
        """Attributes exactly as Heat resolves them: most are ``str()`` of the API value (``size`` is "1",
        ``bootable`` "false", ``attachments`` the string form of the list); ``metadata`` is JSON text,
        ``metadata_values`` and ``attachments_list`` are the values themselves. hotc's stamp is left out."""
        md = user_metadata(vol.metadata)
        attachments = [dict(a) for a in vol.attachments or []]
        attrs = {
            "availability_zone": str(vol.availability_zone),
            "size": str(vol.size),
            "snapshot_id": str(vol.snapshot_id),
            "display_name": vol.name,
            "display_description": vol.description,
            "volume_type": str(vol.volume_type),
            "metadata": json.dumps(md),
            "metadata_values": md,
            "source_volid": str(vol.source_volume_id),
            "status": str(vol.status),
            "created_at": str(vol.created_at),
            "bootable": "true" if vol.is_bootable else "false",  # Cinder's own string
            "encrypted": str(bool(vol.is_encrypted)),
            "attachments": str(attachments),
            "attachments_list": attachments,
            "multiattach": str(bool(vol.is_multiattach)),
        }
        return outcome(vol, attrs)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        vid = physical_id
        vol = call(ctx, f"read volume {vid}", conn.block_storage.get_volume, vid)
        body: dict[str, Any] = {}
        if "name" in changed:
            body["name"] = physical_name(ctx, new.get("name"))
        if "description" in changed:
            body["description"] = new.get("description") or ""
        if body:
            call(ctx, f"update volume {vid}", lambda: conn.block_storage.update_volume(vid, **body))
        if "metadata" in changed:
            want = merge_metadata(ctx, new.get("metadata"))
            gone = [k for k in (vol.metadata or {}) if k not in want]
            if gone:
                call(
                    ctx,
                    f"delete metadata of volume {vid}",
                    conn.block_storage.delete_volume_metadata,
                    vid,
                    gone,
                )
            call(
                ctx,
                f"set metadata of volume {vid}",
                lambda: conn.block_storage.set_volume_metadata(vid, **want),
            )
        if "backup_id" in changed and new.get("backup_id"):
            raise ProviderError(
                "volume: restoring a backup onto an existing volume (backup_id change) is not "
                "supported by hotc; replace the volume instead"
            )
        if "size" in changed and new.get("size") is not None:
            size = int(new["size"])
            if size < int(vol.size):
                raise ProviderError(
                    f"volume {vid}: shrinking a volume is not supported ({vol.size} GB -> {size} GB)"
                )
            if size > int(vol.size):
                settle = "in-use" if str(vol.status) == "in-use" else "available"
                call(ctx, f"extend volume {vid} to {size} GB", conn.block_storage.extend_volume, vid, size)
                wait_for(
                    ctx,
                    f"extend volume {vid}",
                    lambda: conn.block_storage.get_volume(vid),
                    lambda v: v is not None and int(v.size) == size and str(v.status) == settle,
                    lambda v: f"went to {v.status}" if str(v.status).startswith("error") else None,
                )
        if "volume_type" in changed and new.get("volume_type"):
            vtype = find_volume_type(ctx, conn, new["volume_type"])
            call(ctx, f"retype volume {vid}", conn.block_storage.retype_volume, vid, vtype.id, "never")
            wait_for(
                ctx,
                f"retype volume {vid}",
                lambda: conn.block_storage.get_volume(vid),
                lambda v: (
                    v is not None and v.volume_type == vtype.name and str(v.status) in ("available", "in-use")
                ),
                lambda v: f"went to {v.status}" if str(v.status).startswith("error") else None,
            )
        if "read_only" in changed and new.get("read_only") is not None:
            call(
                ctx,
                f"set read-only flag of volume {vid}",
                conn.block_storage.set_volume_readonly,
                vid,
                bool(new["read_only"]),
            )
        return self._outcome(call(ctx, f"read volume {vid}", conn.block_storage.get_volume, vid))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        vol = get_or_none(ctx, f"read volume {physical_id}", conn.block_storage.get_volume, physical_id)
        if vol is None:
            return
        if policy == SNAPSHOT:
            self._backup_before_delete(ctx, conn, vol)
        if vol.attachments:
            ctx.log(f"volume {physical_id} is still attached; detaching it before deletion")
            detach_everywhere(ctx, conn, vol)
        elif str(vol.status) in (
            "creating",
            "extending",
            "attaching",
            "detaching",
            "downloading",
            "retyping",
        ):
            _wait_volume(ctx, conn, physical_id, "wait for volume", ("available", "in-use", "error"))
        if str(vol.status) != "deleting":
            ignore_missing(ctx, f"delete volume {physical_id}", conn.block_storage.delete_volume, physical_id)
        wait_gone(
            ctx,
            f"delete volume {physical_id}",
            lambda: conn.block_storage.get_volume(physical_id),
            failures=("error_deleting",),
        )

    @staticmethod
    def _backup_before_delete(ctx: ActionContext, conn: Any, vol: Any) -> None:
        """``deletion_policy: Snapshot`` (Heat's Volume.handle_snapshot_delete): a Cinder backup of the volume,
        available, before it is deleted. Without a backup service the delete fails and the volume stays."""
        vid = str(vol.id)
        name = f"hotc-backup-of-{vid}"
        backups = call(
            ctx, f"list backups of volume {vid}", lambda: list(conn.block_storage.backups(details=True))
        )
        mine = [b for b in backups if b.name == name and str(b.volume_id) == vid]
        if any(str(b.status) == "available" for b in mine):
            ctx.log(f"volume {vid}: backup {name} already made (deletion_policy Snapshot)")
            return
        keep = (
            "deletion_policy Snapshot: the volume is kept; fix the backup service, or change the "
            "deletion_policy to Retain (keep it) or Delete (lose its data), then run again"
        )
        try:
            services = list(conn.block_storage.services())
        except Exception:  # noqa: BLE001 -- listing services needs an admin; try the backup instead
            services = None
        if services is not None and not any(
            s.binary == "cinder-backup" and str(s.state) == "up" and str(s.status) == "enabled"
            for s in services
        ):
            raise ProviderError(
                f"volume {vid}: this cloud has no running Cinder backup service (cinder-backup), "
                f"so it cannot be backed up before deletion; {keep}"
            )
        for b in mine:  # failed attempts of an earlier run
            ignore_missing(ctx, f"delete failed backup {b.id}", conn.block_storage.delete_backup, b.id)
        ctx.log(f"volume {vid}: backing it up before deletion (deletion_policy Snapshot)")
        backup = call(
            ctx,
            f"back up volume {vid}",
            lambda: conn.block_storage.create_backup(volume_id=vid, name=name, force=True),
        )
        try:
            wait_for(
                ctx,
                f"back up volume {vid}",
                lambda: conn.block_storage.get_backup(backup.id),
                lambda b: b is not None and str(b.status) == "available",
                lambda b: (
                    f"the backup went to {b.status}: {getattr(b, 'fail_reason', '') or ''}"
                    if str(b.status) == "error"
                    else None
                ),
            )
        except ProviderError as exc:
            ignore_missing(
                ctx, f"delete failed backup {backup.id}", conn.block_storage.delete_backup, backup.id
            )
            raise ProviderError(f"volume {vid}: {exc.message}; {keep}") from exc

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud())
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        volumes = call(ctx, "list volumes", lambda: list(conn.block_storage.volumes(details=True)))
        return newest(
            v
            for v in volumes
            if has_stamp(ctx, metadata=v.metadata or {})
            and str(v.status) not in ("deleting", "error_deleting")
        )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Cinder::Volume": VolumeDriver()})
