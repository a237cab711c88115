"""The drivers' physical snapshots offline (the Snapshotter methods of hotc.providers.base), through the fake
openstacksdk connection: a volume's Cinder snapshot (taken once, restored as a new volume's ``snapshot_id``,
deleted with the volume a restore kept for it), a server's image (restored as its ``image``), the default of a
type without them (no physical snapshot), and ``deletion_policy: Snapshot`` going through the same ``snapshot``
method."""

from __future__ import annotations

from typing import Any

from hotc.providers import base
from hotc.providers.base import SNAPSHOT
from hotc.providers.openstack.cinder.volume import VolumeDriver
from tests.providers.fakesdk import FakeConnection
from tests.providers.fakesdk.core import bad_request, oid
from tests.providers.offline.helpers import Recorder, ctx_for, driver

VOLUME, SERVER = "OS::Cinder::Volume", "OS::Nova::Server"


def _with_snapshots(conn: FakeConnection) -> None:
    """Cinder's snapshot calls on the fake connection, and its refusal to delete a volume that has some."""
    bs: Any = conn.block_storage
    cloud = conn.cloud

    def create_snapshot(**body: Any) -> Any:
        obj = {
            "id": cloud.new_id("snapshot"),
            "name": body.get("name"),
            "volume_id": body["volume_id"],
            "metadata": dict(body.get("metadata") or {}),
            "status": "creating",
            "size": 1,
        }
        cloud.put("snapshot", obj)
        cloud.later("snapshot.create", lambda: obj.update(status="available"))
        return bs.get_snapshot(obj["id"])

    def delete_snapshot(value: Any, ignore_missing: bool = True, **_: Any) -> None:
        cloud.drop("snapshot", oid(value))

    plain_delete = bs.delete_volume

    def delete_volume(value: Any, ignore_missing: bool = True, **kw: Any) -> None:
        if any(s["volume_id"] == oid(value) for s in cloud.all("snapshot")):
            raise bad_request("Invalid volume: Volume still has 1 dependent snapshots.")
        plain_delete(value, ignore_missing, **kw)

    bs.create_snapshot = create_snapshot
    bs.delete_snapshot = delete_snapshot
    bs.delete_volume = delete_volume


def test_volume_snapshot_restore_and_delete(conn: FakeConnection) -> None:
    _with_snapshots(conn)
    rec = Recorder()
    ctx = ctx_for(conn, "data", VOLUME, rec=rec)
    d = driver(VOLUME)
    assert base.takes_snapshots(d)
    vid = str(d.create(ctx, {"size": 1}).physical_id)
    data = base.take_snapshot(d, ctx, vid, {"size": 1}, "hotc-s-snap1-data")
    snap = conn.cloud.get("snapshot", data["snapshot_id"])
    assert data["volume_id"] == vid and snap["status"] == "available"
    assert snap["metadata"]["hotc-stack-snapshot"] == "hotc-s-snap1-data"
    # taken once: an interrupted create run again finds it
    assert base.take_snapshot(d, ctx, vid, {"size": 1}, "hotc-s-snap1-data") == data
    assert len(conn.cloud.all("snapshot")) == 1

    # restored as a volume made from it: the other sources dropped, the size kept
    props = {"size": 2, "imageRef": "an-image", "name": "data", "description": None}
    assert base.restore_properties(d, props, data) == {
        "size": 2,
        "name": "data",
        "snapshot_id": data["snapshot_id"],
    }
    new = str(d.create(ctx, base.restore_properties(d, props, data)).physical_id)
    assert new != vid
    # the old volume, deleted by the restore's replacement: kept for its snapshot, marked
    d.delete(ctx, vid, props)
    assert conn.cloud.get("volume", vid)["metadata"]["hotc-kept-for-snapshots"] == "true"
    assert any("is kept" in line for line in rec.logs)

    # snapshot delete: the snapshot, then the volume kept only for it (no longer recorded in the state)
    base.delete_snapshot(d, ctx, data)
    assert conn.cloud.all("snapshot") == []
    assert conn.cloud.find("volume", vid) is None
    assert conn.cloud.find("volume", new) is not None


def test_server_image_restored_as_its_image() -> None:
    d = driver(SERVER)
    assert base.takes_snapshots(d)
    props = {
        "image": "cirros",
        "flavor": "m1.tiny",
        "networks": [{"network": "n", "port": None}],
        "key_name": None,
    }
    out = base.restore_properties(d, props, {"image_id": "img-1"})
    assert out["image"] == "img-1" and out["flavor"] == "m1.tiny" and "key_name" not in out


def test_a_type_without_snapshot_methods_takes_none(conn: FakeConnection) -> None:
    d = driver("OS::Neutron::Net")
    ctx = ctx_for(conn, "net", "OS::Neutron::Net")
    assert not base.takes_snapshots(d)
    assert base.take_snapshot(d, ctx, "x", {}, "n") == {}
    assert base.restore_properties(d, {"name": "a"}, {}) == {"name": "a"}
    base.delete_snapshot(d, ctx, {})  # nothing to delete: no call, no error


def test_deletion_policy_snapshot_goes_through_the_snapshot_method(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "data", VOLUME)
    d = driver(VOLUME)
    vid = str(d.create(ctx, {"size": 1}).physical_id)
    calls: list[tuple[str, bool]] = []

    class Spy(VolumeDriver):
        def snapshot(self, ctx: Any, pid: str, props: Any, name: str, lasting: bool = False) -> Any:
            calls.append((pid, lasting))
            return {"backup_id": "b"}

    Spy().delete(ctx, vid, {"size": 1}, policy=SNAPSHOT)
    assert calls == [(vid, True)]
    assert conn.cloud.find("volume", vid) is None or conn.cloud.get("volume", vid)["status"] == "deleting"
