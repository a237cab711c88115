"""The fake block-storage proxy (Cinder v3): volumes with creating -> available, extending, retyping, deleting,
metadata (with Cinder's own ``readonly`` key), types, snapshots, backups (only with a running backup service,
as Cinder) and restores. Gates: ``volume.create``, ``volume.extend``, ``volume.retype``, ``volume.delete``,
``backup.create``, ``backup.restore``. Knobs: ``backup_service`` (default True), ``fail_create``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from openstack.block_storage.v3.backup import Backup
from openstack.block_storage.v3.qos_spec import QoSSpec, QoSSpecAssociation
from openstack.block_storage.v3.service import Service
from openstack.block_storage.v3.snapshot import Snapshot
from openstack.block_storage.v3.type import Type, TypeEncryption
from openstack.block_storage.v3.volume import Volume

from tests.providers.fakesdk.core import Cloud, Proxy, Response, bad_request, conflict, not_found, oid


class BlockStorageProxy(Proxy):
    service = "block_storage"

    def __init__(self, cloud: Cloud) -> None:
        super().__init__(cloud)
        self.backup_service = True
        self.fail_create = False
        for name in ("lvmdriver-1", "__DEFAULT__"):
            tid = cloud.new_id("type")
            cloud.put(
                "volume_type",
                {
                    "id": tid,
                    "name": name,
                    "extra_specs": {},
                    "is_public": True,
                    "description": None,
                    "_access": [],
                },
            )

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
    def _type(self, value: Any) -> dict[str, Any]:
        return self.cloud.get("volume_type", oid(value), "Volume type")

    def _type_res(self, obj: Mapping[str, Any]) -> Any:
        return Type.existing(**{k: v for k, v in obj.items() if not k.startswith("_")})

    def get_type(self, value: Any) -> Any:
        return self._type_res(self._type(value))

    def types(self, **query: Any) -> Iterator[Any]:
        # Cinder lists only public types unless an admin asks with is_public=None
        for t in list(self.cloud.all("volume_type")):
            if t.get("is_public", True) or query.get("is_public") == "None":
                yield self._type_res(t)

    def create_type(self, **body: Any) -> Any:
        name = body.get("name")
        if any(t["name"] == name for t in self.cloud.all("volume_type")):
            raise conflict(f"Volume Type {name} already exists.")
        obj = {
            "id": self.cloud.new_id("volume_type"),
            "name": name,
            "description": body.get("description"),
            "is_public": body.get("is_public", True) is not False,
            "extra_specs": {str(k): str(v) for k, v in (body.get("extra_specs") or {}).items()},
            "_access": [],
        }
        return self._type_res(self.cloud.put("volume_type", obj))

    def put(self, url: str, json: Any = None, **_kw: Any) -> Response:
        """The raw PUTs drivers make: a volume type's update (``is_public`` as Cinder's update takes it) and
        setting keys of QoS specs (a flat map)."""
        parts = url.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "types":
            obj = self.cloud.find("volume_type", parts[1])
            if obj is None:
                return Response(404, {"itemNotFound": {"message": "Volume type not found"}})
            body = dict((json or {}).get("volume_type") or {})
            if "name" in body and any(
                t["name"] == body["name"] and t["id"] != obj["id"] for t in self.cloud.all("volume_type")
            ):
                return Response(409, {"conflictingRequest": {"message": "Volume type name exists"}})
            obj.update(body)
            return Response(200, {"volume_type": dict(obj)})
        if len(parts) == 2 and parts[0] == "qos-specs":
            obj = self.cloud.find("qos_specs", parts[1])
            if obj is None:
                return Response(404, {"itemNotFound": {"message": "QoS specs not found"}})
            keys = {str(k): str(v) for k, v in ((json or {}).get("qos_specs") or {}).items()}
            obj["specs"].update(keys)
            return Response(200, {"qos_specs": keys})
        return Response(404, {"itemNotFound": {"message": url}})

    def post(self, url: str, json: Any = None, **_kw: Any) -> Response:
        """The raw create of QoS specs: ``{"qos_specs": {"name": ..., KEY: VALUE}}``."""
        if url.strip("/") != "qos-specs":
            return Response(404, {"itemNotFound": {"message": url}})
        specs = {str(k): v for k, v in ((json or {}).get("qos_specs") or {}).items()}
        name = specs.pop("name", None)
        consumer = specs.pop("consumer", "back-end")
        if not name:
            return Response(400, {"badRequest": {"message": "Please specify a name for QoS specs."}})
        if any(not isinstance(v, str) for v in specs.values()):
            return Response(400, {"badRequest": {"message": "Value for key is not a string or unicode"}})
        if any(q["name"] == name for q in self.cloud.all("qos_specs")):
            return Response(409, {"conflictingRequest": {"message": f"QoS Specs {name} already exists."}})
        obj = {"id": self.cloud.new_id("qos_specs"), "name": name, "consumer": consumer, "specs": specs}
        self.cloud.put("qos_specs", obj)
        return Response(200, {"qos_specs": dict(obj)})

    def delete_type(self, value: Any, ignore_missing: bool = True) -> None:
        tid = oid(value)
        if self.cloud.find("volume_type", tid) is None:
            if not ignore_missing:
                raise not_found(f"Volume type {tid}")
            return
        if any(
            v.get("volume_type") == self.cloud.get("volume_type", tid)["name"]
            for v in self.cloud.all("volume")
        ):
            raise bad_request(f"Target volume type {tid} is still in use.")
        self.cloud.drop("volume_type", tid)
        self.cloud.drop("encryption", tid)

    def update_type_extra_specs(self, type: Any, **extra_specs: Any) -> dict[str, str]:  # noqa: A002
        obj = self._type(type)
        obj["extra_specs"].update({str(k): str(v) for k, v in extra_specs.items()})
        return dict(obj["extra_specs"])

    def delete_type_extra_specs(self, type: Any, keys: list[str]) -> None:  # noqa: A002
        obj = self._type(type)
        for k in keys:
            obj["extra_specs"].pop(k, None)

    def get_type_access(self, type: Any) -> list[dict[str, str]]:  # noqa: A002
        obj = self._type(type)
        if obj.get("is_public", True):
            raise not_found("Access list not available for public volume types.")
        return [{"volume_type_id": obj["id"], "project_id": p} for p in obj["_access"]]

    def add_type_access(self, type: Any, project_id: str) -> None:  # noqa: A002
        obj = self._type(type)
        if project_id in obj["_access"]:
            raise conflict(f"Volume type access for {obj['id']}/{project_id} already exists.")
        obj["_access"].append(project_id)

    def remove_type_access(self, type: Any, project_id: str) -> None:  # noqa: A002
        obj = self._type(type)
        if project_id not in obj["_access"]:
            raise not_found(f"Volume type access not found for {obj['id']}/{project_id}.")
        obj["_access"].remove(project_id)

    # -- QoS specs
    def _qos(self, value: Any) -> dict[str, Any]:
        return self.cloud.get("qos_specs", oid(value), "QoS specs")

    def get_qos_spec(self, qos_spec: Any) -> Any:
        return QoSSpec.existing(**self._qos(qos_spec))

    def qos_specs(self, **query: Any) -> Iterator[Any]:
        for q in list(self.cloud.all("qos_specs")):
            yield QoSSpec.existing(**q)

    def delete_qos_spec_metadata(self, qos_spec: Any, keys: Any) -> None:
        obj = self._qos(qos_spec)
        for k in keys:
            if k not in obj["specs"]:
                raise bad_request(f"QoS spec key {k} not found")
            obj["specs"].pop(k)

    def associate_qos_spec(self, qos_spec: Any, vol_type_id: str) -> None:
        obj = self._qos(qos_spec)
        t = self._type(vol_type_id)
        other = t.get("_qos")
        if other not in (None, obj["id"]):
            raise bad_request(f"Type {t['id']} is already associated with another qos specs: {other}")
        t["_qos"] = obj["id"]

    def disassociate_qos_spec(self, qos_spec: Any, vol_type_id: str) -> None:
        obj = self._qos(qos_spec)
        t = self._type(vol_type_id)
        if t.get("_qos") == obj["id"]:
            t["_qos"] = None

    def disassociate_all_qos_spec(self, qos_spec: Any) -> None:
        obj = self._qos(qos_spec)
        for t in self.cloud.all("volume_type"):
            if t.get("_qos") == obj["id"]:
                t["_qos"] = None

    def qos_spec_associations(self, qos_spec: Any) -> Iterator[Any]:
        obj = self._qos(qos_spec)
        for t in list(self.cloud.all("volume_type")):
            if t.get("_qos") == obj["id"]:
                yield QoSSpecAssociation.existing(association_type="volume_type", id=t["id"], name=t["name"])

    def delete_qos_spec(self, qos_spec: Any, ignore_missing: bool = True, *, force: bool = False) -> None:
        qid = oid(qos_spec)
        if self.cloud.find("qos_specs", qid) is None:
            if not ignore_missing:
                raise not_found(f"QoS specs {qid}")
            return
        if not force and any(t.get("_qos") == qid for t in self.cloud.all("volume_type")):
            raise bad_request("Qos specs still in use.")
        self.cloud.drop("qos_specs", qid)

    # -- encryption of volume types (Cinder answers an empty one for a type without)
    def get_type_encryption(self, volume_type: Any) -> Any:
        t = self._type(volume_type)
        enc = self.cloud.find("encryption", t["id"])
        return TypeEncryption.existing(**(enc or {}))

    def create_type_encryption(self, volume_type: Any, **attrs: Any) -> Any:
        t = self._type(volume_type)
        if self.cloud.find("encryption", t["id"]) is not None:
            raise bad_request(f"Volume type encryption for type {t['id']} already exists.")
        if any(v.get("volume_type") == t["name"] for v in self.cloud.all("volume")):
            raise bad_request(f"Volume type {t['id']} is in use by volumes.")
        if not attrs.get("provider"):
            raise bad_request("Invalid input for field/attribute provider")
        eid = self.cloud.new_id("encryption")
        enc = {k: attrs.get(k) for k in ("provider", "cipher", "key_size", "control_location")}
        enc.update(id=t["id"], encryption_id=eid, volume_type_id=t["id"])
        self.cloud.put("encryption", enc)
        return TypeEncryption.existing(**enc)

    def update_type_encryption(self, encryption: Any = None, volume_type: Any = None, **attrs: Any) -> Any:
        t = self._type(volume_type)
        enc = self.cloud.find("encryption", t["id"])
        if enc is None:
            raise not_found(f"Volume type encryption for type {t['id']} does not exist.")
        enc.update(attrs)
        return TypeEncryption.existing(**enc)

    def delete_type_encryption(
        self, encryption: Any = None, volume_type: Any = None, ignore_missing: bool = True
    ) -> None:
        t = self._type(volume_type)
        if self.cloud.find("encryption", t["id"]) is None:
            if not ignore_missing:
                raise not_found(f"Volume type encryption for type {t['id']} does not exist.")
            return
        self.cloud.drop("encryption", t["id"])

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
