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

# the metadata of a Cinder snapshot a stack snapshot took (its name), and of a volume kept for such snapshots
STACK_SNAPSHOT_KEY = "hotc-stack-snapshot"
KEPT_KEY = "hotc-kept-for-snapshots"


def _snapshots_of(conn: Any, vid: str) -> list[Any]:
    """The Cinder snapshots of volume ``vid`` (filtered here too: a cloud may ignore the query's filter)."""
    return [s for s in conn.block_storage.snapshots(details=True, volume_id=vid) if str(s.volume_id) == vid]


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
            self.snapshot(ctx, physical_id, props, f"hotc-backup-of-{physical_id}", lasting=True)
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
            try:
                ignore_missing(
                    ctx, f"delete volume {physical_id}", conn.block_storage.delete_volume, physical_id
                )
            except ProviderError:
                if self._kept_for_snapshots(ctx, conn, vol):
                    return
                raise
        wait_gone(
            ctx,
            f"delete volume {physical_id}",
            lambda: conn.block_storage.get_volume(physical_id),
            failures=("error_deleting",),
        )

    # ------------------------------------------------------------------------------ snapshots (Snapshotter)

    def snapshot(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], name: str, lasting: bool = False
    ) -> Mapping[str, Any]:
        """A stack snapshot's copy of the volume: a Cinder volume snapshot (``{"snapshot_id", "volume_id"}``),
        available; ``lasting`` (``deletion_policy: Snapshot``, the volume is deleted next): a Cinder backup
        (``{"backup_id"}``), which outlives the volume, as Heat's Volume.handle_snapshot_delete makes."""
        conn = ctx.cloud()
        vol = call(ctx, f"read volume {physical_id}", conn.block_storage.get_volume, physical_id)
        if lasting:
            return {"backup_id": self._backup_before_delete(ctx, conn, vol, name)}
        vid = str(vol.id)
        existing = call(
            ctx,
            f"list snapshots of volume {vid}",
            lambda: _snapshots_of(conn, vid),
        )
        mine = [s for s in existing if s.name == name and str(s.volume_id) == vid]
        snap = next((s for s in mine if str(s.status) == "available"), None)
        if snap is None:
            for s in mine:  # failed attempts of an earlier run
                ignore_missing(
                    ctx, f"delete failed snapshot {s.id}", conn.block_storage.delete_snapshot, s.id
                )
            ctx.log(f"volume {vid}: taking snapshot {name}")
            made = call(
                ctx,
                f"snapshot volume {vid}",
                lambda: conn.block_storage.create_snapshot(
                    volume_id=vid,
                    name=name,
                    force=True,
                    metadata={STACK_SNAPSHOT_KEY: name, "hotc-lineage": ctx.lineage},
                ),
            )
            snap = wait_for(
                ctx,
                f"snapshot volume {vid}",
                lambda: conn.block_storage.get_snapshot(made.id),
                lambda s: s is not None and str(s.status) == "available",
                lambda s: f"the snapshot went to {s.status}" if str(s.status).startswith("error") else None,
            )
        return {"snapshot_id": str(snap.id), "volume_id": vid}

    def restore_properties(self, props: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
        """A volume made from the snapshot (Heat's Volume.handle_restore): the other sources dropped, the size
        kept (a volume grown since the snapshot comes back at its old size)."""
        sources = ("image", "imageRef", "source_volid", "snapshot_id", "backup_id")
        out = {k: v for k, v in props.items() if k not in sources and v is not None}
        if data.get("backup_id"):
            out["backup_id"] = str(data["backup_id"])
        elif data.get("snapshot_id"):
            out["snapshot_id"] = str(data["snapshot_id"])
        return out

    def delete_snapshot(self, ctx: ActionContext, data: Mapping[str, Any]) -> None:
        """Delete the snapshot (or backup); then the volume it was taken of, when a restore or destroy kept that
        volume only because it held snapshots (Cinder deletes no volume that has any) and none is left."""
        conn = ctx.cloud()
        if data.get("backup_id"):
            bid = str(data["backup_id"])
            ignore_missing(ctx, f"delete backup {bid}", conn.block_storage.delete_backup, bid)
            wait_gone(ctx, f"delete backup {bid}", lambda: conn.block_storage.get_backup(bid))
            return
        sid = str(data.get("snapshot_id") or "")
        if not sid:
            return
        ignore_missing(ctx, f"delete snapshot {sid}", conn.block_storage.delete_snapshot, sid)
        wait_gone(
            ctx,
            f"delete snapshot {sid}",
            lambda: conn.block_storage.get_snapshot(sid),
            failures=("error_deleting",),
        )
        vid = str(data.get("volume_id") or "")
        vol = get_or_none(ctx, f"read volume {vid}", conn.block_storage.get_volume, vid) if vid else None
        if vol is None or (vol.metadata or {}).get(KEPT_KEY) != "true" or ctx.recorded(vid):
            return
        left = call(
            ctx,
            f"list snapshots of volume {vid}",
            lambda: _snapshots_of(conn, vid),
        )
        if left or vol.attachments:
            return
        ctx.log(f"volume {vid}: deleting it (it was kept only for its snapshots)")
        ignore_missing(ctx, f"delete volume {vid}", conn.block_storage.delete_volume, vid)
        wait_gone(
            ctx,
            f"delete volume {vid}",
            lambda: conn.block_storage.get_volume(vid),
            failures=("error_deleting",),
        )

    @staticmethod
    def _kept_for_snapshots(ctx: ActionContext, conn: Any, vol: Any) -> bool:
        """A volume Cinder refused to delete because stack snapshots (``hotc snapshot create``) hold snapshots
        of it: kept, marked, and left to ``hotc snapshot delete`` (which deletes it with the last of them)."""
        vid = str(vol.id)
        snaps = call(
            ctx,
            f"list snapshots of volume {vid}",
            lambda: _snapshots_of(conn, vid),
        )
        held = sorted({str((s.metadata or {}).get(STACK_SNAPSHOT_KEY)) for s in snaps if s.metadata})
        held = [h for h in held if h != "None"]
        if not snaps or len(held) < len(snaps):
            return False  # no snapshots, or some that no stack snapshot holds: Cinder's error stands
        call(
            ctx,
            f"set metadata of volume {vid}",
            lambda: conn.block_storage.set_volume_metadata(vid, **{KEPT_KEY: "true"}),
        )
        ctx.log(
            f"volume {vid} is kept: stack snapshots hold its snapshot(s) {', '.join(held)} (Cinder deletes no "
            "volume that has snapshots); 'hotc snapshot delete' deletes it with the last of them"
        )
        return True

    @staticmethod
    def _backup_before_delete(ctx: ActionContext, conn: Any, vol: Any, name: str) -> str:
        """``deletion_policy: Snapshot`` (Heat's Volume.handle_snapshot_delete): a Cinder backup of the volume,
        available, before it is deleted (its id). Without a backup service the delete fails and the volume
        stays."""
        vid = str(vol.id)
        backups = call(
            ctx, f"list backups of volume {vid}", lambda: list(conn.block_storage.backups(details=True))
        )
        mine = [b for b in backups if b.name == name and str(b.volume_id) == vid]
        done = next((b for b in mine if str(b.status) == "available"), None)
        if done is not None:
            ctx.log(f"volume {vid}: backup {name} already made (deletion_policy Snapshot)")
            return str(done.id)
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
        return str(backup.id)

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
