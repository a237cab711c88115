"""Cinder volume types, QoS specs and their associations, encrypted volume types, and Nova server groups
offline, through the fake openstacksdk connection: create, read with no drift, drift made outside hotc, in-place
update, delete, and adoption of what a killed run made (by the type's extra-spec stamp, by the name hotc
generated, or by the encryption's settings)."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

VTYPE, QOS, ASSOC = "OS::Cinder::VolumeType", "OS::Cinder::QoSSpecs", "OS::Cinder::QoSAssociation"
ENC, GROUP, PROJECT = "OS::Cinder::EncryptedVolumeType", "OS::Nova::ServerGroup", "OS::Keystone::Project"


def test_volume_type_create_drift_update_access_adopt_and_delete(conn: FakeConnection) -> None:
    proj = driver(PROJECT).create(ctx_for(conn, "p", PROJECT), {"name": "tenant"})
    ctx = ctx_for(conn, "vt", VTYPE)
    d = driver(VTYPE)
    props: dict[str, Any] = {"name": "gold", "metadata": {"tier": "1"}, "description": "fast"}
    out = d.create(ctx, props)
    obj = conn.cloud.get("volume_type", out.physical_id)
    assert obj["extra_specs"]["tier"] == "1" and obj["extra_specs"]["hotc:lineage"] == ctx.lineage
    live = d.read(ctx, out.physical_id, props)
    assert drift(VTYPE, props, live) == []
    assert (
        live is not None and live.properties is not None and "hotc:lineage" not in live.properties["metadata"]
    )
    obj["extra_specs"]["tier"] = "2"
    assert drift(VTYPE, props, d.read(ctx, out.physical_id, props)) == ["metadata"]
    # in place: name, description, metadata (a key dropped, the stamp kept), made private with access
    new = dict(props, name="platinum", description="faster", metadata={"iops": 9}, is_public=False)
    new["projects"] = ["tenant"]
    changed = frozenset({"name", "description", "metadata", "is_public", "projects"})
    d.update(ctx, out.physical_id, props, new, changed)
    assert obj["name"] == "platinum" and obj["description"] == "faster" and obj["is_public"] is False
    assert obj["extra_specs"] == {"iops": "9", "hotc:lineage": ctx.lineage, "hotc:address": "vt"}
    assert obj["_access"] == [proj.physical_id]
    assert drift(VTYPE, new, d.read(ctx, out.physical_id, new)) == []
    conn.block_storage.remove_type_access(out.physical_id, proj.physical_id)
    assert drift(VTYPE, new, d.read(ctx, out.physical_id, new)) == ["projects"]
    d.update(ctx, out.physical_id, new, new, frozenset({"projects"}))
    assert obj["_access"] == [proj.physical_id]
    assert d.find_adoptable(ctx, new) == out.physical_id  # private types too: listed with is_public=None
    assert d.find_adoptable(ctx_for(conn, "vt", VTYPE), new) is None  # another stack's lineage
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.find("volume_type", out.physical_id) is None
    assert d.read(ctx, out.physical_id, new) is None
    d.delete(ctx, out.physical_id, new)


def test_volume_type_of_a_killed_create_is_adopted_by_its_stamp(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "vt", VTYPE)
    conn.cloud.fail_next("block_storage.get_type", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(VTYPE).create(ctx, {"name": "silver"})
    (made,) = [t for t in conn.cloud.all("volume_type") if t["name"] == "silver"]
    again = ctx_for(conn, "vt", VTYPE, lineage=ctx.lineage)
    assert driver(VTYPE).find_adoptable(again, {"name": "silver"}) == made["id"]
    with pytest.raises(ProviderError, match="already exists"):
        driver(VTYPE).create(again, {"name": "silver"})  # what adoption saves a rerun from


def test_qos_specs_create_drift_update_adopt_and_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "qos", QOS)
    d = driver(QOS)
    props: dict[str, Any] = {"specs": {"read_iops_sec": "100", "write_iops_sec": "50"}}
    out = d.create(ctx, props)
    obj = conn.cloud.get("qos_specs", out.physical_id)
    assert obj["name"].startswith("hotc-t-qos-") and obj["specs"] == {
        "read_iops_sec": "100",
        "write_iops_sec": "50",
    }
    assert obj["consumer"] == "back-end"
    assert drift(QOS, props, d.read(ctx, out.physical_id, props)) == []
    obj["specs"]["total_bytes_sec"] = "1"
    assert drift(QOS, props, d.read(ctx, out.physical_id, props)) == ["specs"]
    new = {"specs": {"read_iops_sec": "200"}}
    d.update(ctx, out.physical_id, props, new, frozenset({"specs"}))
    assert obj["specs"] == {"read_iops_sec": "200"}  # the stale keys unset, the new value set
    assert drift(QOS, new, d.read(ctx, out.physical_id, new)) == []
    assert d.find_adoptable(ctx_for(conn, "qos", QOS), new) == out.physical_id
    assert d.find_adoptable(ctx_for(conn, "qos", QOS), {"name": "given", "specs": {}}) is None
    # deleting specs still associated disassociates them first
    vt = driver(VTYPE).create(ctx_for(conn, "vt", VTYPE), {"name": "gold"})
    conn.block_storage.associate_qos_spec(out.physical_id, vt.physical_id)
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.find("qos_specs", out.physical_id) is None
    assert conn.cloud.get("volume_type", vt.physical_id).get("_qos") is None
    d.delete(ctx, out.physical_id, new)
    # a number where Cinder wants a string fails as under Heat (nothing is made)
    with pytest.raises(ProviderError, match="not a string"):
        d.create(ctx_for(conn, "bad", QOS), {"specs": {"read_iops_sec": 100}, "name": "bad"})
    assert conn.cloud.all("qos_specs") == []


def test_qos_association_create_drift_update_and_delete(conn: FakeConnection) -> None:
    qos = driver(QOS).create(ctx_for(conn, "qos", QOS), {"name": "q", "specs": {"read_iops_sec": "1"}})
    gold = driver(VTYPE).create(ctx_for(conn, "a", VTYPE), {"name": "gold"})
    silver = driver(VTYPE).create(ctx_for(conn, "b", VTYPE), {"name": "silver"})
    ctx = ctx_for(conn, "assoc", ASSOC)
    d = driver(ASSOC)
    props: dict[str, Any] = {"qos_specs": "q", "volume_types": ["gold"]}
    out = d.create(ctx, props)
    assert out.physical_id == qos.physical_id
    assert conn.cloud.get("volume_type", gold.physical_id)["_qos"] == qos.physical_id
    assert drift(ASSOC, props, d.read(ctx, out.physical_id, props)) == []
    conn.block_storage.associate_qos_spec(qos.physical_id, silver.physical_id)  # outside hotc
    assert drift(ASSOC, props, d.read(ctx, out.physical_id, props)) == ["volume_types"]
    new = {"qos_specs": "q", "volume_types": [silver.physical_id]}
    d.update(ctx, out.physical_id, props, new, frozenset({"volume_types"}))
    assert conn.cloud.get("volume_type", gold.physical_id)["_qos"] is None
    assert conn.cloud.get("volume_type", silver.physical_id)["_qos"] == qos.physical_id
    assert drift(ASSOC, new, d.read(ctx, out.physical_id, new)) == []
    assert d.find_adoptable(ctx, new) is None  # associating again is harmless: a killed create is made again
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.get("volume_type", silver.physical_id)["_qos"] is None
    assert conn.cloud.find("qos_specs", qos.physical_id) is not None  # the specs are another resource's
    driver(QOS).delete(ctx_for(conn, "qos", QOS), qos.physical_id, {"name": "q"})
    assert d.read(ctx, out.physical_id, new) is None
    d.delete(ctx, out.physical_id, new)


def test_encrypted_volume_type_create_drift_update_adopt_and_delete(conn: FakeConnection) -> None:
    vt = driver(VTYPE).create(ctx_for(conn, "vt", VTYPE), {"name": "secret"})
    ctx = ctx_for(conn, "enc", ENC)
    d = driver(ENC)
    props: dict[str, Any] = {
        "volume_type": "secret",
        "provider": "luks",
        "cipher": "aes-xts-plain64",
        "key_size": 256,
    }
    out = d.create(ctx, props)
    assert out.physical_id == vt.physical_id
    enc = conn.cloud.get("encryption", vt.physical_id)
    assert enc["provider"] == "luks" and enc["control_location"] == "front-end" and enc["key_size"] == 256
    assert drift(ENC, props, d.read(ctx, out.physical_id, props)) == []
    enc["key_size"] = 128
    assert drift(ENC, props, d.read(ctx, out.physical_id, props)) == ["key_size"]
    new = dict(props, key_size=512, control_location="back-end")
    d.update(ctx, out.physical_id, props, new, frozenset({"key_size", "control_location"}))
    assert enc["key_size"] == 512 and enc["control_location"] == "back-end"
    assert drift(ENC, new, d.read(ctx, out.physical_id, new)) == []
    assert d.find_adoptable(ctx, new) == vt.physical_id  # the type's encryption has exactly these settings
    assert d.find_adoptable(ctx, dict(new, key_size=128)) is None  # not one hotc would have made
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.find("encryption", vt.physical_id) is None
    assert conn.cloud.find("volume_type", vt.physical_id) is not None  # the type is another resource's
    assert d.read(ctx, out.physical_id, new) is None
    d.delete(ctx, out.physical_id, new)


def test_encrypted_volume_type_of_a_killed_create_is_adopted(conn: FakeConnection) -> None:
    vt = driver(VTYPE).create(ctx_for(conn, "vt", VTYPE), {"name": "secret"})
    ctx = ctx_for(conn, "enc", ENC)
    props = {"volume_type": vt.physical_id, "provider": "luks"}
    conn.cloud.fail_next("block_storage.get_type_encryption", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(ENC).create(ctx, props)
    assert conn.cloud.find("encryption", vt.physical_id) is not None
    assert driver(ENC).find_adoptable(ctx_for(conn, "enc", ENC), props) == vt.physical_id
    with pytest.raises(ProviderError, match="already exists"):
        driver(ENC).create(ctx, props)


def test_server_group_create_read_adopt_and_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "sg", GROUP)
    d = driver(GROUP)
    props: dict[str, Any] = {"policies": ["anti-affinity"], "rules": {"max_server_per_host": 2}}
    out = d.create(ctx, props)
    obj = conn.cloud.get("server_group", out.physical_id)
    assert obj["policy"] == "anti-affinity" and obj["rules"] == {"max_server_per_host": 2}
    assert obj["name"].startswith("hotc-t-sg-")
    assert drift(GROUP, props, d.read(ctx, out.physical_id, props)) == []
    # a longer list, as Heat takes it: created with its first policy
    two = driver(GROUP).create(
        ctx_for(conn, "two", GROUP), {"name": "g2", "policies": ["affinity", "anti-affinity"]}
    )
    assert conn.cloud.get("server_group", two.physical_id)["policy"] == "affinity"
    with pytest.raises(ProviderError, match="cannot update"):
        d.update(ctx, out.physical_id, props, dict(props, name="x"), frozenset({"name"}))
    # a killed create is adopted by the generated name; a given name never
    conn.cloud.fail_next("compute.get_server_group", RuntimeError("killed"))
    kctx = ctx_for(conn, "killed", GROUP)
    with pytest.raises(ProviderError):
        d.create(kctx, {"policies": ["affinity"]})
    (made,) = [g for g in conn.cloud.all("server_group") if g["name"].startswith("hotc-t-killed-")]
    assert d.find_adoptable(ctx_for(conn, "killed", GROUP), {"policies": ["affinity"]}) == made["id"]
    assert d.find_adoptable(ctx_for(conn, "two", GROUP), {"name": "g2", "policies": ["affinity"]}) is None
    # Nova's refusals reach the user
    with pytest.raises(ProviderError, match="Only anti-affinity"):
        d.create(ctx_for(conn, "bad", GROUP), {"policies": ["affinity"], "rules": {"max_server_per_host": 1}})
    d.delete(ctx, out.physical_id, props)
    assert (
        conn.cloud.find("server_group", out.physical_id) is None
        and d.read(ctx, out.physical_id, props) is None
    )
    d.delete(ctx, out.physical_id, props)


def test_qos_association_replacement_takes_the_types_from_the_old_specs(conn: FakeConnection) -> None:
    old_q = driver(QOS).create(ctx_for(conn, "q1", QOS), {"name": "q1", "specs": {}})
    new_q = driver(QOS).create(ctx_for(conn, "q2", QOS), {"name": "q2", "specs": {}})
    gold = driver(VTYPE).create(ctx_for(conn, "a", VTYPE), {"name": "gold"})
    ctx = ctx_for(conn, "assoc", ASSOC)
    d = driver(ASSOC)
    old = {"qos_specs": "q1", "volume_types": ["gold"]}
    new = {"qos_specs": "q2", "volume_types": ["gold"]}
    d.create(ctx, old)
    # without the preparation Cinder refuses: a volume type has one QoS specs at most
    with pytest.raises(ProviderError, match="already associated"):
        d.create(ctx_for(conn, "assoc", ASSOC), new)
    assert d.prepare_for_replace(ctx, old_q.physical_id, old, new) is True
    out = d.create(ctx_for(conn, "assoc", ASSOC), new)
    assert out.physical_id == new_q.physical_id
    assert conn.cloud.get("volume_type", gold.physical_id)["_qos"] == new_q.physical_id
    d.delete(ctx, old_q.physical_id, old)  # the old association's delete leaves the moved type alone
    assert conn.cloud.get("volume_type", gold.physical_id)["_qos"] == new_q.physical_id
    # a failed replacement gives the types back to the old specs
    d.restore_after_failed_replace(ctx, old_q.physical_id, old, new)
    assert conn.cloud.get("volume_type", gold.physical_id)["_qos"] == old_q.physical_id
    assert d.prepare_for_replace(ctx, new_q.physical_id, new, old) is False  # nothing of its own to give
