"""Cinder drivers against the real test cloud: volumes (extend, metadata, rename) and attachments."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hotc.providers.openstack.cinder import DRIVERS
from hotc.providers.openstack.common import ProviderError
from tests.providers.test_openstack_common import make_ctx

pytestmark = pytest.mark.cloud

VOLUME = DRIVERS["OS::Cinder::Volume"]
ATTACH = DRIVERS["OS::Cinder::VolumeAttachment"]


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


@pytest.fixture(scope="module")
def server(cloud: Any, cloud_shared: Any) -> Iterator[Any]:
    s = cloud.compute.create_server(
        name=f"hotc-t-cinder-vm-{uuid.uuid4().hex[:8]}",
        image_id=cloud_shared.image_id,
        flavor_id=cloud_shared.flavor_id,
        networks=[{"uuid": cloud_shared.private_network_id}],
    )
    s = cloud.compute.wait_for_server(s, wait=120)
    yield s
    cloud.compute.delete_server(s, ignore_missing=True)
    cloud.compute.wait_for_delete(s, wait=120)


def test_volume_lifecycle(cloud: Any, cloud_tracker: Any) -> None:
    lineage = uuid.uuid4().hex
    ctx = make_ctx(cloud, "vol", lineage=lineage)
    props = {"name": cloud_tracker.name("vol"), "size": 1, "description": "data", "metadata": {"tier": "db"}}
    out = VOLUME.create(ctx, props)
    vid = out.physical_id
    assert vid is not None
    a = out.attributes
    # Heat's forms: str() of most values, JSON text for metadata
    assert a["size"] == "1" and a["status"] == "available" and a["display_description"] == "data"
    assert a["metadata_values"] == {"tier": "db"} and json.loads(a["metadata"]) == {"tier": "db"}
    assert a["attachments"] == "[]" and a["attachments_list"] == [] and a["bootable"] == "false"
    assert a["snapshot_id"] == "None" and a["multiattach"] == "False"
    assert cloud.block_storage.get_volume(vid).metadata == {
        "tier": "db",
        "hotc-lineage": lineage,
        "hotc-address": "vol",
    }
    assert VOLUME.find_adoptable(ctx, props) == vid

    new = {
        **props,
        "size": 2,
        "name": cloud_tracker.name("vol2"),
        "metadata": {"tier": "cache"},
        "description": "d2",
    }
    out = VOLUME.update(ctx, vid, props, new, fs("size", "name", "metadata", "description"))
    assert out.physical_id == vid
    assert out.attributes["size"] == "2" and out.attributes["display_name"] == new["name"]
    assert out.attributes["metadata_values"] == {"tier": "cache"}
    with pytest.raises(ProviderError, match="shrinking a volume is not supported"):
        VOLUME.update(ctx, vid, new, {**new, "size": 1}, fs("size"))

    # replacement (e.g. availability_zone or image change): a new volume, then the old one goes
    other = VOLUME.create(
        make_ctx(cloud, "vol", lineage=lineage), {**new, "name": cloud_tracker.name("vol3")}
    )
    VOLUME.delete(ctx, vid, new)
    assert VOLUME.read(ctx, vid, new) is None
    VOLUME.delete(ctx, vid, new)
    VOLUME.delete(ctx, other.physical_id, new)  # type: ignore[arg-type]
    with pytest.raises(ProviderError, match="size is required"):
        VOLUME.create(ctx, {"name": cloud_tracker.name("nosize")})


def test_attachment_and_delete_order(cloud: Any, cloud_tracker: Any, server: Any) -> None:
    ctx = make_ctx(cloud, "vol")
    v1 = VOLUME.create(ctx, {"name": cloud_tracker.name("a"), "size": 1})
    v2 = VOLUME.create(make_ctx(cloud, "vol2"), {"name": cloud_tracker.name("b"), "size": 1})
    actx = make_ctx(cloud, "att")
    props = {"instance_uuid": server.id, "volume_id": v1.attributes["display_name"]}  # volume by name
    att = ATTACH.create(actx, props)
    assert att.physical_id == f"{server.id}:{v1.physical_id}"
    vol = cloud.block_storage.get_volume(v1.physical_id)
    assert vol.status == "in-use" and vol.attachments[0]["server_id"] == server.id
    assert ATTACH.find_adoptable(actx, props) == att.physical_id
    read = VOLUME.read(ctx, v1.physical_id, {})  # type: ignore[arg-type]
    assert read is not None and read.attributes["attachments_list"][0]["server_id"] == server.id

    # extend while attached (in place)
    out = VOLUME.update(ctx, v1.physical_id, {"size": 1}, {"size": 2}, fs("size"))  # type: ignore[arg-type]
    assert out.attributes["size"] == "2" and out.attributes["status"] == "in-use"
    assert server.id in out.attributes["attachments"]

    # update the attachment to the other volume: detach, then attach
    props2 = {"instance_uuid": server.id, "volume_id": v2.physical_id}
    att2 = ATTACH.update(actx, att.physical_id, props, props2, fs("volume_id"))  # type: ignore[arg-type]
    assert att2.physical_id == f"{server.id}:{v2.physical_id}"
    assert cloud.block_storage.get_volume(v1.physical_id).status == "available"
    assert ATTACH.read(actx, att.physical_id, props) is None  # type: ignore[arg-type]

    # detach waits until the volume is available, so the volume delete right after works
    ATTACH.delete(actx, att2.physical_id, props2)  # type: ignore[arg-type]
    assert cloud.block_storage.get_volume(v2.physical_id).status == "available"
    ATTACH.delete(actx, att2.physical_id, props2)  # type: ignore[arg-type]
    VOLUME.delete(ctx, v2.physical_id, {})  # type: ignore[arg-type]

    # a volume still attached is detached by its own delete
    ATTACH.create(actx, {"instance_uuid": server.id, "volume_id": v1.physical_id})
    VOLUME.delete(ctx, v1.physical_id, {})  # type: ignore[arg-type]
    assert VOLUME.read(ctx, v1.physical_id, {}) is None  # type: ignore[arg-type]
