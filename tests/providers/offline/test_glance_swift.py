"""Glance WebImage and Swift Container drivers offline, through the fake openstacksdk connection."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

IMAGE, CONTAINER = "OS::Glance::WebImage", "OS::Swift::Container"


def test_web_image_import_read_drift_update_delete(conn: FakeConnection) -> None:
    gate = conn.cloud.gate("image.import").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    ctx = ctx_for(conn, "img", IMAGE)
    d = driver(IMAGE)
    props: dict[str, Any] = {
        "location": "http://example.org/cirros.img",
        "disk_format": "qcow2",
        "container_format": "bare",
        "name": "cirros",
        "tags": ["os"],
        "os_distro": "cirros",
        "extra_properties": {"hw_rng_model": "virtio", "n": 2},
        "visibility": "shared",
        "members": ["proj-a"],
    }
    out = d.create(ctx, props)
    img = conn.cloud.get("image", out.physical_id)
    assert gate.waited >= 2 and img["status"] == "active" and img["hw_rng_model"] == "virtio"
    assert (
        "os" in img["tags"] and f"hotc-lineage={ctx.lineage}" in img["tags"] and img["_members"] == ["proj-a"]
    )
    live = d.read(ctx, out.physical_id, props)
    assert drift(IMAGE, props, live) == []
    assert live.properties["tags"] == ["os"] and live.properties["extra_properties"]["n"] == 2
    img["os_distro"] = "ubuntu"
    img["protected"] = True
    assert drift(IMAGE, props, d.read(ctx, out.physical_id, props)) == ["os_distro", "protected"]
    new = dict(
        props,
        os_distro="cirros",
        protected=False,
        tags=["os", "tiny"],
        extra_properties={"n": 3},
        members=["proj-b"],
        active=False,
    )
    d.update(
        ctx,
        out.physical_id,
        props,
        new,
        frozenset({"os_distro", "protected", "tags", "extra_properties", "members", "active"}),
    )
    assert img["os_distro"] == "cirros" and img["protected"] is False and "hw_rng_model" not in img
    assert img["n"] == "3" and "tiny" in img["tags"] and img["_members"] == ["proj-b"]
    assert img["status"] == "deactivated"
    assert drift(IMAGE, new, d.read(ctx, out.physical_id, new)) == []
    d.update(ctx, out.physical_id, new, dict(new, active=True), frozenset({"active"}))
    assert img["status"] == "active"
    assert d.find_adoptable(ctx, props) == out.physical_id
    d.delete(ctx, out.physical_id, props)
    assert d.read(ctx, out.physical_id, props) is None


def test_web_image_refused_or_failed_import(conn: FakeConnection) -> None:
    conn.image.refuse_uri = "file:"
    with pytest.raises(ProviderError, match="import filter"):
        driver(IMAGE).create(
            ctx_for(conn, "img", IMAGE),
            {"location": "file:///etc/passwd", "disk_format": "raw", "container_format": "bare"},
        )
    conn.image.import_fails = True
    with pytest.raises(ProviderError, match="web-download import failed"):
        driver(IMAGE).create(
            ctx_for(conn, "img2", IMAGE),
            {"location": "http://x/y", "disk_format": "raw", "container_format": "bare"},
        )


def test_container_create_read_drift_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "bucket", CONTAINER)
    d = driver(CONTAINER)
    props = {
        "name": "c1",
        "X-Container-Read": ".r:*",
        "X-Container-Meta": {"Owner": "web"},
        "X-Account-Meta": {"quota": "1"},
    }
    out = d.create(ctx, props)
    c = conn.cloud.get("container", "c1")
    assert (
        c["read_ACL"] == ".r:*"
        and c["metadata"]["owner"] == "web"
        and c["metadata"]["hotc-lineage"] == ctx.lineage
    )
    assert conn.object_store.account_metadata == {"quota": "1"}
    assert out.attributes["WebsiteURL"].endswith("/c1") and out.attributes["DomainName"] == "127.0.0.1"
    live = d.read(ctx, "c1", props)
    assert drift(CONTAINER, props, live) == [] and live.properties["X-Container-Meta"] == {"Owner": "web"}
    c["read_ACL"] = None
    c["metadata"]["owner"] = "db"
    assert drift(CONTAINER, props, d.read(ctx, "c1", props)) == ["X-Container-Meta", "X-Container-Read"]
    with pytest.raises(ProviderError, match="already exists"):
        d.create(ctx_for(conn, "other", CONTAINER), {"name": "c1"})
    assert d.find_adoptable(ctx, props) == "c1"
    with pytest.raises(ProviderError, match="cannot be updated"):
        d.update(ctx, "c1", props, props, frozenset({"name"}))
    conn.object_store.upload_object("c1", "o1", b"data")
    with pytest.raises(ProviderError, match="not empty"):
        d.delete(ctx, "c1", props)
    d.delete(ctx, "c1", dict(props, PurgeOnDelete=True))
    assert conn.cloud.find("container", "c1") is None and d.read(ctx, "c1", props) is None
    d.delete(ctx, "c1", props)


def test_unnamed_container_is_adopted_by_its_stamp(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "bucket", CONTAINER)
    out = driver(CONTAINER).create(ctx, {})
    assert out.physical_id.startswith("hotc-t-bucket-")
    assert driver(CONTAINER).find_adoptable(ctx, {}) == out.physical_id
    assert driver(CONTAINER).find_adoptable(ctx_for(conn, "bucket", CONTAINER), {}) is None  # another lineage
