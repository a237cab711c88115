"""Cinder drivers offline, through the fake openstacksdk connection: volumes (creating -> available, extend,
retype, metadata, read-only, restore from a backup), attachments through Nova, drift, and ``deletion_policy:
Snapshot`` (a backup first, or the delete fails and the volume stays)."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.base import physical_id_from_heat
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

VOLUME, ATTACH, SERVER = "OS::Cinder::Volume", "OS::Cinder::VolumeAttachment", "OS::Nova::Server"


def vol(conn: FakeConnection, vid: str) -> dict[str, Any]:
    return conn.cloud.get("volume", vid)


def test_volume_create_read_drift_and_update(conn: FakeConnection) -> None:
    gate = conn.cloud.gate("volume.create").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    ctx = ctx_for(conn, "data", VOLUME)
    d = driver(VOLUME)
    props: dict[str, Any] = {
        "size": 1,
        "name": "data",
        "metadata": {"tier": "db", "copies": 2},
        "read_only": True,
    }
    out = d.create(ctx, props)
    v = vol(conn, out.physical_id)
    assert gate.waited >= 2 and v["status"] == "available" and v["metadata"]["readonly"] == "True"
    assert v["metadata"]["hotc-lineage"] == ctx.lineage
    assert out.attributes["size"] == "1" and out.attributes["metadata_values"]["tier"] == "db"
    live = d.read(ctx, out.physical_id, props)
    assert drift(VOLUME, props, live) == []  # Cinder's own readonly key is not the template's metadata
    assert live.properties["metadata"] == {"tier": "db", "copies": 2} and live.properties["read_only"] is True
    # out of band: extended and re-labelled
    v["size"] = 3
    v["metadata"]["tier"] = "web"
    live = d.read(ctx, out.physical_id, props)
    assert drift(VOLUME, props, live) == ["metadata", "size"] and live.properties["size"] == 3
    # the update: extend (with its wait), metadata, rename, read-only off
    v["size"] = 1
    new = dict(props, size=2, metadata={"tier": "db"}, name="data2", read_only=False, description="d")
    d.update(
        ctx, out.physical_id, props, new, frozenset({"size", "metadata", "name", "read_only", "description"})
    )
    assert v["size"] == 2 and v["name"] == "data2" and v["description"] == "d"
    assert v["metadata"]["readonly"] == "False" and "copies" not in v["metadata"]
    with pytest.raises(ProviderError, match="shrinking"):
        d.update(ctx, out.physical_id, new, dict(new, size=1), frozenset({"size"}))
    assert d.find_adoptable(ctx, props) == out.physical_id


def test_volume_retype_and_type_drift(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "v", VOLUME)
    d = driver(VOLUME)
    props = {"size": 1, "volume_type": "lvmdriver-1"}
    out = d.create(ctx, props)
    assert drift(VOLUME, props, d.read(ctx, out.physical_id, props)) == []
    default = next(t["id"] for t in conn.cloud.all("volume_type") if t["name"] == "__DEFAULT__")
    d.update(ctx, out.physical_id, props, {"size": 1, "volume_type": default}, frozenset({"volume_type"}))
    assert vol(conn, out.physical_id)["volume_type"] == "__DEFAULT__"
    # the template names the type by id: still no drift
    assert (
        drift(
            VOLUME,
            {"size": 1, "volume_type": default},
            d.read(ctx, out.physical_id, {"size": 1, "volume_type": default}),
        )
        == []
    )
    assert drift(VOLUME, props, d.read(ctx, out.physical_id, props)) == ["volume_type"]


def test_volume_needs_a_size_or_a_source(conn: FakeConnection) -> None:
    with pytest.raises(ProviderError, match="size is required"):
        driver(VOLUME).create(ctx_for(conn, "v", VOLUME), {})


def test_volume_from_image_and_failed_create(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "v", VOLUME)
    props = {"image": "hotc-tiny"}
    out = driver(VOLUME).create(ctx, props)
    assert drift(VOLUME, props, driver(VOLUME).read(ctx, out.physical_id, props)) == []
    conn.block_storage.fail_create = True
    with pytest.raises(ProviderError, match="went to ERROR"):
        driver(VOLUME).create(ctx_for(conn, "w", VOLUME), {"size": 1})


def test_attachment_attach_read_detach_and_delete_attached_volume(conn: FakeConnection) -> None:
    srv = driver(SERVER).create(
        ctx_for(conn, "web", SERVER),
        {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]},
    )
    vctx = ctx_for(conn, "data", VOLUME)
    v = driver(VOLUME).create(vctx, {"size": 1})
    actx = ctx_for(conn, "att", ATTACH)
    a = driver(ATTACH)
    props = {"instance_uuid": srv.physical_id, "volume_id": v.physical_id, "mountpoint": "/dev/vdc"}
    gate = conn.cloud.gate("volume.attach").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    out = a.create(actx, props)
    assert out.physical_id == f"{srv.physical_id}:{v.physical_id}"
    assert vol(conn, v.physical_id)["status"] == "in-use" and gate.waited >= 2
    assert drift(ATTACH, props, a.read(actx, out.physical_id, props)) == []
    assert a.find_adoptable(actx, props) == out.physical_id
    # taken over from Heat, which keeps Nova's attachment id (the volume's): hotc's id names the server too
    assert physical_id_from_heat(a, actx, v.physical_id, props) == out.physical_id
    # a volume still attached (by something outside the stack) is detached before it is deleted
    driver(VOLUME).delete(vctx, v.physical_id, {"size": 1})
    assert conn.cloud.find("volume", v.physical_id) is None
    assert a.read(actx, out.physical_id, props) is None
    a.delete(actx, out.physical_id, props)  # already gone


def test_attachment_update_moves_the_volume(conn: FakeConnection) -> None:
    s1 = driver(SERVER).create(ctx_for(conn, "a", SERVER), {"image": "hotc-tiny", "flavor": "m1.tiny"})
    s2 = driver(SERVER).create(ctx_for(conn, "b", SERVER), {"image": "hotc-tiny", "flavor": "m1.tiny"})
    v = driver(VOLUME).create(ctx_for(conn, "v", VOLUME), {"size": 1})
    actx = ctx_for(conn, "att", ATTACH)
    a = driver(ATTACH)
    props = {"instance_uuid": s1.physical_id, "volume_id": v.physical_id}
    out = a.create(actx, props)
    new = {"instance_uuid": s2.physical_id, "volume_id": v.physical_id}
    out2 = a.update(actx, out.physical_id, props, new, frozenset({"instance_uuid"}))
    assert out2.physical_id == f"{s2.physical_id}:{v.physical_id}"
    assert [x["server_id"] for x in vol(conn, v.physical_id)["attachments"]] == [s2.physical_id]
    a.delete(actx, out2.physical_id, new)
    assert vol(conn, v.physical_id)["status"] == "available"
    with pytest.raises(ProviderError, match="not of the form"):
        a.read(actx, "nonsense", {})


def test_deletion_policy_snapshot_backs_up_first(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "v", VOLUME)
    out = driver(VOLUME).create(ctx, {"size": 1})
    driver(VOLUME).delete(ctx, out.physical_id, {"size": 1}, policy="Snapshot")
    (backup,) = conn.cloud.all("backup")
    assert backup["status"] == "available" and backup["volume_id"] == out.physical_id
    assert conn.cloud.find("volume", out.physical_id) is None
    # the backup restores into a new volume
    r = driver(VOLUME).create(
        ctx_for(conn, "r", VOLUME), {"backup_id": backup["id"], "description": "restored"}
    )
    assert (
        vol(conn, r.physical_id)["status"] == "available"
        and vol(conn, r.physical_id)["description"] == "restored"
    )


def test_deletion_policy_snapshot_without_backup_service_keeps_the_volume(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "v", VOLUME)
    out = driver(VOLUME).create(ctx, {"size": 1})
    conn.block_storage.backup_service = False
    with pytest.raises(ProviderError, match="no running Cinder backup service"):
        driver(VOLUME).delete(ctx, out.physical_id, {"size": 1}, policy="Snapshot")
    assert vol(conn, out.physical_id)["status"] == "available"


def test_volume_delete_waits_until_gone(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "v", VOLUME)
    out = driver(VOLUME).create(ctx, {"size": 1})
    gate = conn.cloud.gate("volume.delete").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    driver(VOLUME).delete(ctx, out.physical_id, {"size": 1})
    assert gate.waited >= 2 and conn.cloud.find("volume", out.physical_id) is None
    assert driver(VOLUME).read(ctx, out.physical_id, {"size": 1}) is None
    driver(VOLUME).delete(ctx, out.physical_id, {"size": 1})
