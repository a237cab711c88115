"""KeyPair and Flavor drivers offline, through the fake openstacksdk connection."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.base import prepare_for_replace, restore_after_failed_replace
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

KEYPAIR, FLAVOR = "OS::Nova::KeyPair", "OS::Nova::Flavor"
PUBKEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBmHFCZYYwZ1S6zRyT9XWg3tdyLPLmf0Q6bfVn1ZClD7 hotc-test"
OTHER = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHCB7qrCbW1i+C2I4nDw7dUuGnsfxDgTqjfEhbC0LDQ5 other"


def test_generated_keypair_keeps_its_private_half_only_when_asked(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "kp", KEYPAIR)
    d = driver(KEYPAIR)
    out = d.create(ctx, {"name": "k1", "save_private_key": True})
    assert out.physical_id == "k1" and "OPENSSH PRIVATE KEY" in out.attributes["private_key"]
    assert conn.cloud.get("keypair", "k1")["public_key"] == out.attributes["public_key"]
    out2 = d.create(ctx_for(conn, "kp2", KEYPAIR), {"name": "k2"})
    assert out2.attributes["private_key"] == ""
    with pytest.raises(ProviderError, match="already exists"):
        d.create(ctx, {"name": "k1"})


def test_keypair_read_drift_adopt_and_delete(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "kp", KEYPAIR)
    d = driver(KEYPAIR)
    props = {"name": "k1", "public_key": PUBKEY}
    d.create(ctx, props)
    live = d.read(ctx, "k1", props)
    assert drift(KEYPAIR, props, live) == [] and live.attributes["public_key"] == PUBKEY
    assert d.find_adoptable(ctx, props) == "k1"
    assert d.find_adoptable(ctx, {"name": "k1", "public_key": OTHER}) is None
    conn.cloud.get("keypair", "k1")["public_key"] = OTHER  # re-imported by hand with another key
    assert drift(KEYPAIR, props, d.read(ctx, "k1", props)) == ["public_key"]
    with pytest.raises(ProviderError, match="cannot be updated"):
        d.update(ctx, "k1", props, props, frozenset({"public_key"}))
    d.delete(ctx, "k1", props)
    assert d.read(ctx, "k1", props) is None
    d.delete(ctx, "k1", props)


def test_keypair_replace_under_the_same_name_frees_it_and_restores_it(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "kp", KEYPAIR)
    d = driver(KEYPAIR)
    old = {"name": "k1", "public_key": PUBKEY}
    new = {"name": "k1", "public_key": OTHER}
    d.create(ctx, old)
    assert prepare_for_replace(d, ctx, "k1", old, new) is True
    assert conn.cloud.find("keypair", "k1") is None
    restore_after_failed_replace(d, ctx, "k1", old, new)
    assert conn.cloud.get("keypair", "k1")["public_key"] == PUBKEY
    assert prepare_for_replace(d, ctx, "k1", old, {"name": "k2", "public_key": OTHER}) is False
    # a generated key pair cannot be brought back
    gen = {"name": "g"}
    d.create(ctx, gen)
    assert prepare_for_replace(d, ctx, "g", gen, gen) is True
    with pytest.raises(ProviderError, match="cannot be re-imported"):
        restore_after_failed_replace(d, ctx, "g", gen, gen)


def test_flavor_lifecycle_specs_access_and_drift(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "fl", FLAVOR)
    d = driver(FLAVOR)
    props: dict[str, Any] = {
        "ram": 1024,
        "vcpus": 2,
        "disk": 10,
        "extra_specs": {"hw:cpu_policy": "dedicated", "n": 1},
        "is_public": False,
        "tenants": ["proj-a"],
    }
    out = d.create(ctx, props)
    obj = conn.cloud.get("flavor", out.physical_id)
    assert obj["extra_specs"] == {
        "hw:cpu_policy": "dedicated",
        "n": "1",
        "hotc:lineage": ctx.lineage,
        "hotc:address": "fl",
    }
    assert obj["_access"] == ["proj-a"] and out.attributes["extra_specs"] == {
        "hw:cpu_policy": "dedicated",
        "n": "1",
    }
    live = d.read(ctx, out.physical_id, props)
    assert drift(FLAVOR, props, live) == []
    # as the template wrote it; swap (not in the template) is the schema's default 0: not reported
    assert "swap" not in live.properties and live.properties["extra_specs"]["n"] == 1
    obj["extra_specs"]["added"] = "x"
    obj["_access"].append("proj-b")
    assert drift(FLAVOR, props, d.read(ctx, out.physical_id, props)) == ["extra_specs", "tenants"]
    new = dict(props, extra_specs={"hw:cpu_policy": "shared"}, tenants=["proj-c"])
    d.update(ctx, out.physical_id, props, new, frozenset({"extra_specs", "tenants"}))
    assert obj["extra_specs"] == {
        "hw:cpu_policy": "shared",
        "hotc:lineage": ctx.lineage,
        "hotc:address": "fl",
    }
    assert obj["_access"] == ["proj-b", "proj-c"]  # proj-a removed, proj-c added (proj-b is not hotc's)
    assert d.find_adoptable(ctx, props) == out.physical_id
    d.delete(ctx, out.physical_id, props)
    assert d.read(ctx, out.physical_id, props) is None
    assert d.find_adoptable(ctx, props) is None


def test_public_flavor_with_flavorid(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "fl", FLAVOR)
    props = {"ram": 256, "vcpus": 1, "flavorid": "custom-1", "name": "c1"}
    out = driver(FLAVOR).create(ctx, props)
    assert out.physical_id == "custom-1"
    live = driver(FLAVOR).read(ctx, "custom-1", props)
    assert (
        drift(FLAVOR, props, live) == [] and "is_public" not in live.properties
    )  # the default, as Nova has it
    conn.cloud.get("flavor", "custom-1")["os-flavor-access:is_public"] = False
    live = driver(FLAVOR).read(ctx, "custom-1", props)
    assert live.properties["is_public"] is False and drift(FLAVOR, props, live) == ["is_public"]
