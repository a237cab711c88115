"""The fake block-storage proxy (Cinder v3): volumes with creating -> available, extending, retyping, deleting,
metadata (with Cinder's own ``readonly`` key), types, snapshots, backups (only with a running backup service,
as Cinder) and restores. Gates: ``volume.create``, ``volume.extend``, ``volume.retype``, ``volume.delete``,
``backup.create``, ``backup.restore``. Knobs: ``backup_service`` (default True), ``fail_create``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from openstack.block_storage.v3.backup import Backup
from openstack.block_storage.v3.service import Service
from openstack.block_storage.v3.snapshot import Snapshot
from openstack.block_storage.v3.type import Type
from openstack.block_storage.v3.volume import Volume

from tests.providers.fakesdk.core import Cloud, Proxy, bad_request, not_found, oid


class BlockStorageProxy(Proxy):
    service = "block_storage"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        self.backup_service = True
        self.fail_create = False
        for name in ("lvmdriver-1", "__DEFAULT__"):
            tid = cloud.new_id("type")
            cloud.put("volume_type", {"id": tid, "name": name, "extra_specs": {}})

    def _res(self, obj: Mapping[str, Any]) -> Any:
        return Volume.existing(**{k: v for k, v in obj.items() if not k.startswith("_")})

    def _vol(self, value: Any) -> dict[str, Any]:
        return self.cloud.get("volume", oid(value), "Volume")

    def create_volume(self, **body: Any) -> Any:
        if body.get("snapshot_id"):
            snap = self.cloud.get("snapshot", body["snapshot_id"], "Snapshot")
            body.setdefault("size", snap["size"])
        if body.get("source_volume_id"):
            body.setdefault("size", self._vol(body["source_volume_id"])["size"])
        if body.get("image_id"):
            self.cloud.get("image", body["image_id"], "Image")
            body.setdefault("size", 1)
        if not body.get("size"):
            raise bad_request("Invalid input received: size is required")
        vtype = body.get("volume_type") or "lvmdriver-1"
        if not any(t["name"] == vtype for t in self.cloud.all("volume_type")):
            raise not_found(f"Volume type {vtype}")
        obj = {
            "id": self.cloud.new_id("volume"),
            "name": body.get("name"),
            "size": int(body["size"]),
            "status": "creating",
            "description": body.get("description"),
            "metadata": {str(k): str(v) for k, v in (body.get("metadata") or {}).items()},
            "volume_type": vtype,
            "availability_zone": body.get("availability_zone") or "nova",
            "snapshot_id": body.get("snapshot_id"),
            "source_volid": body.get("source_volume_id"),
            "bootable": "true" if body.get("image_id") else "false",
            "encrypted": False,
            "multiattach": bool(body.get("multiattach")),
            "attachments": [],
            "created_at": f"2026-01-01T00:03:{len(self.cloud.table('volume')):02d}Z",
        }
        if body.get("image_id"):
            obj["volume_image_metadata"] = {"image_id": body["image_id"]}
        self.cloud.put("volume", obj)
        fail = self.fail_create
        self.cloud.later("volume.create", lambda: obj.update(status="error" if fail else "available"))
        return self._res(obj)

    def get_volume(self, value: Any) -> Any:
        return self._res(self._vol(value))

    def volumes(self, details: bool = True, **query: Any) -> Iterator[Any]:
        for obj in list(self.cloud.all("volume")):
            if query.get("name") is not None and obj.get("name") != query["name"]:
                continue
            yield self._res(obj)

    def update_volume(self, value: Any, **body: Any) -> Any:
        obj = self._vol(value)
        obj.update(body)
        return self._res(obj)

    def delete_volume(self, value: Any, ignore_missing: bool = True, **_: Any) -> None:
        obj = self.cloud.find("volume", oid(value))
        if obj is None:
            if not ignore_missing:
                raise not_found(f"Volume {oid(value)}")
            return
        if (
            obj["status"] not in ("available", "error", "error_restoring", "error_extending")
            or obj["attachments"]
        ):
            raise bad_request(
                f"Invalid volume: Volume status must be available or error or error_restoring or "
                f"error_extending or error_managing and must not be migrating, attached, belong to a group, "
                f"have snapshots or be disassociated from snapshots after volume transfer (status {obj['status']})"
            )
        obj["status"] = "deleting"
        self.cloud.later("volume.delete", lambda: self.cloud.drop("volume", obj["id"]))

    def set_volume_metadata(self, value: Any, **md: Any) -> Any:
        obj = self._vol(value)
        obj["metadata"].update({str(k): str(v) for k, v in md.items()})
        return self._res(obj)

    def delete_volume_metadata(self, value: Any, keys: list[str]) -> None:
        obj = self._vol(value)
        for k in keys:
            obj["metadata"].pop(k, None)

    def extend_volume(self, value: Any, size: int) -> None:
        obj = self._vol(value)
        if int(size) <= obj["size"]:
            raise bad_request(
                f"New size for extend must be greater than current size. (current: {obj['size']})"
            )
        back = obj["status"]
        obj["status"] = "extending"
        self.cloud.later("volume.extend", lambda: obj.update(status=back, size=int(size)))

    def retype_volume(self, value: Any, new_type: str, migration_policy: str = "never") -> None:
        obj = self._vol(value)
        vtype = self.cloud.get("volume_type", new_type, "Volume type")
        back = obj["status"]
        obj["status"] = "retyping"
        self.cloud.later("volume.retype", lambda: obj.update(status=back, volume_type=vtype["name"]))

    def set_volume_readonly(self, value: Any, readonly: bool = True) -> None:
        self._vol(value)["metadata"]["readonly"] = "True" if readonly else "False"

    # -- types and snapshots
    def get_type(self, value: Any) -> Any:
        return Type.existing(**self.cloud.get("volume_type", oid(value), "Volume type"))

    def types(self, **query: Any) -> Iterator[Any]:
        for t in self.cloud.all("volume_type"):
            yield Type.existing(**t)

    def get_snapshot(self, value: Any) -> Any:
        return Snapshot.existing(**self.cloud.get("snapshot", oid(value), "Snapshot"))

    def snapshots(self, **query: Any) -> Iterator[Any]:
        for s in self.cloud.all("snapshot"):
            if query.get("name") is None or s.get("name") == query["name"]:
                yield Snapshot.existing(**s)

    # -- backups
    def services(self) -> Iterator[Any]:
        yield Service.existing(binary="cinder-volume", state="up", status="enabled", host="fake@lvm")
        if self.backup_service:
            yield Service.existing(binary="cinder-backup", state="up", status="enabled", host="fake")

    def backups(self, details: bool = True, **query: Any) -> Iterator[Any]:
        for b in list(self.cloud.all("backup")):
            yield Backup.existing(**b)

    def create_backup(self, **body: Any) -> Any:
        vol = self._vol(body["volume_id"])
        obj = {
            "id": self.cloud.new_id("backup"),
            "name": body.get("name"),
            "volume_id": vol["id"],
            "size": vol["size"],
            "status": "creating",
            "fail_reason": None,
        }
        self.cloud.put("backup", obj)
        ok = self.backup_service

        def done() -> None:
            if ok:
                obj["status"] = "available"
            else:
                obj.update(status="error", fail_reason="Service cinder-backup could not be found.")

        self.cloud.later("backup.create", done)
        return Backup.existing(**obj)

    def get_backup(self, value: Any) -> Any:
        return Backup.existing(**self.cloud.get("backup", oid(value), "Backup"))

    def delete_backup(self, value: Any, ignore_missing: bool = True, **_: Any) -> None:
        if self.cloud.find("backup", oid(value)) is None and not ignore_missing:
            raise not_found(f"Backup {oid(value)}")
        self.cloud.drop("backup", oid(value))

    def restore_backup(self, backup: Any, volume: Any = None, name: str | None = None) -> Any:
        b = self.cloud.get("backup", oid(backup), "Backup")
        if b["status"] != "available":
            raise bad_request(f"Backup status must be available (is {b['status']})")
        obj = {
            "id": self.cloud.new_id("volume"),
            "name": name,
            "size": b["size"],
            "status": "restoring-backup",
            "description": None,
            "metadata": {},
            "volume_type": "lvmdriver-1",
            "availability_zone": "nova",
            "snapshot_id": None,
            "source_volid": None,
            "bootable": "false",
            "encrypted": False,
            "multiattach": False,
            "attachments": [],
            "created_at": "2026-01-01T00:04:00Z",
        }
        self.cloud.put("volume", obj)
        self.cloud.later("backup.restore", lambda: obj.update(status="available"))
        return Backup.existing(id=b["id"], volume_id=obj["id"], volume_name=name)
