"""Nova drivers against the real test cloud: servers (networks, rebuild, resize, interface attach/detach),
key pairs and flavors."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.openstack.nova import DRIVERS
from tests.providers.test_openstack_common import Recorder, make_ctx

pytestmark = pytest.mark.cloud

SERVER = DRIVERS["OS::Nova::Server"]
KEYPAIR = DRIVERS["OS::Nova::KeyPair"]
FLAVOR = DRIVERS["OS::Nova::Flavor"]

PUBKEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBmHFCZYYwZ1S6zRyT9XWg3tdyLPLmf0Q6bfVn1ZClD7 hotc-test"


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


def internal_port_id(cloud: Any, lineage: str) -> str:
    ports = list(cloud.network.ports(tags=["hotc-internal-port", f"hotc-lineage={lineage}"]))
    assert len(ports) == 1
    return str(ports[0].id)


@pytest.fixture(scope="module")
def extra_net(cloud: Any) -> Iterator[tuple[Any, Any]]:
    """A second network + subnet for interface attach/detach (module-wide)."""
    suffix = uuid.uuid4().hex[:8]
    net = cloud.network.create_network(name=f"hotc-t-nova-net-{suffix}")
    sub = cloud.network.create_subnet(
        name=f"hotc-t-nova-sub-{suffix}", network_id=net.id, ip_version=4, cidr="10.79.0.0/24"
    )
    yield net, sub
    for p in cloud.network.ports(network_id=net.id):
        cloud.network.delete_port(p, ignore_missing=True)
    cloud.network.delete_network(net, ignore_missing=True)


@pytest.fixture(scope="module")
def second_image(cloud: Any) -> Iterator[Any]:
    img = cloud.image.create_image(
        name=f"hotc-t-nova-img-{uuid.uuid4().hex[:8]}",
        data=b"\x01" * 4096,
        disk_format="raw",
        container_format="bare",
    )
    img = cloud.image.wait_for_status(cloud.image.get_image(img.id), "active", wait=60)
    yield img
    cloud.image.delete_image(img, ignore_missing=True)


def test_keypair_generated_and_given(cloud: Any, cloud_tracker: Any) -> None:
    ctx = make_ctx(cloud, "kp")
    name = cloud_tracker.name("kp")
    props = {"name": name, "save_private_key": True}
    out = KEYPAIR.create(ctx, props)
    assert out.physical_id == name
    assert out.attributes["public_key"].startswith("ssh-ed25519 ")
    assert "OPENSSH PRIVATE KEY" in out.attributes["private_key"]
    assert cloud.compute.get_keypair(name).public_key.split()[:2] == out.attributes["public_key"].split()[:2]
    read = KEYPAIR.read(ctx, name, props)
    assert read is not None and read.attributes["public_key"] == out.attributes["public_key"]
    with pytest.raises(ProviderError, match="already exists"):
        KEYPAIR.create(ctx, props)
    # "replace": a new key pair under another name, then the old one goes
    name2 = cloud_tracker.name("kp2")
    props2 = {"name": name2, "public_key": PUBKEY, "save_private_key": False}
    out2 = KEYPAIR.create(ctx, props2)
    assert out2.attributes["private_key"] == "" and out2.attributes["public_key"].startswith(
        PUBKEY.rsplit(" ", 1)[0]
    )
    assert KEYPAIR.find_adoptable(ctx, props2) == name2
    assert KEYPAIR.find_adoptable(ctx, {**props2, "public_key": "ssh-ed25519 AAAAother x"}) is None
    KEYPAIR.delete(ctx, name, props)
    assert KEYPAIR.read(ctx, name, props) is None
    KEYPAIR.delete(ctx, name, props)
    KEYPAIR.delete(ctx, name2, props2)


def test_flavor_extra_specs_and_access(cloud: Any, cloud_tracker: Any) -> None:
    ctx = make_ctx(cloud, "flavor")
    props = {
        "name": cloud_tracker.name("fl"),
        "ram": 64,
        "vcpus": 1,
        "disk": 0,
        "swap": 0,
        "ephemeral": 0,
        "rxtx_factor": 1.0,
        "is_public": False,
        "extra_specs": {"hw:cpu_policy": "shared"},
        "tenants": [cloud.current_project_id],
    }
    out = FLAVOR.create(ctx, props)
    fid = out.physical_id
    assert fid is not None
    cloud_tracker.defer("flavor", lambda: cloud.compute.delete_flavor(fid, ignore_missing=True))
    assert out.attributes["is_public"] is False
    assert out.attributes["extra_specs"] == {"hw:cpu_policy": "shared"}
    assert FLAVOR.find_adoptable(ctx, props) == fid
    new = {**props, "extra_specs": {"hw:mem_page_size": "small"}, "tenants": []}
    out = FLAVOR.update(ctx, fid, props, new, fs("extra_specs", "tenants"))
    assert out.attributes["extra_specs"] == {"hw:mem_page_size": "small"}
    assert [a["tenant_id"] for a in cloud.compute.get_flavor_access(fid)] == []
    FLAVOR.delete(ctx, fid, new)
    assert FLAVOR.read(ctx, fid, new) is None
    FLAVOR.delete(ctx, fid, new)


def test_server_lifecycle(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, extra_net: Any, second_image: Any
) -> None:
    net2, sub2 = extra_net
    lineage = uuid.uuid4().hex
    rec = Recorder()
    ctx = make_ctx(cloud, "web", lineage=lineage, rec=rec, timeout=180)
    kp = cloud.compute.create_keypair(name=cloud_tracker.name("kp"), public_key=PUBKEY)
    cloud_tracker.defer("keypair", lambda: cloud.compute.delete_keypair(kp.name, ignore_missing=True))
    props = {
        "name": cloud_tracker.name("vm"),
        "image": cloud_shared.image_name,
        "flavor": cloud_shared.flavor_name,
        "key_name": kp.name,
        "networks": [
            {"network": cloud_shared.private_network_name},
            {"subnet": sub2.name, "fixed_ip": "10.79.0.33"},
        ],
        "security_groups": ["default"],
        "metadata": {"role": "web"},
        "user_data": "#!/bin/sh\necho hi\n",
        "user_data_format": "RAW",  # SOFTWARE_CONFIG needs a signal store (tests/apply/test_cloud_software_deployment.py)
        "flavor_update_policy": "RESIZE",
        "image_update_policy": "REBUILD",
        "user_data_update_policy": "REPLACE",
    }
    out = SERVER.create(ctx, props)
    sid = out.physical_id
    assert sid is not None and rec.ids == [sid]
    a = out.attributes
    assert a["name"] == props["name"]
    # Heat's first_address: first address of the network whose label sorts last ("hotc-t-nova-net-…" > "hotc-private")
    assert a["first_address"] == "10.79.0.33"
    assert len(a["networks"][cloud_shared.private_network_name]) == 1
    assert a["networks"][cloud_shared.private_network_name][0].startswith("10.10.0.")
    assert a["networks"][net2.name] == ["10.79.0.33"] and a["networks"][net2.id] == ["10.79.0.33"]
    assert a["addresses"][net2.name][0]["port"] == internal_port_id(cloud, lineage)
    assert a["addresses"][net2.id] == a["addresses"][net2.name]
    assert a["show"]["id"] == sid
    live = cloud.compute.get_server(sid)
    assert live.metadata == {"role": "web", "hotc-lineage": lineage, "hotc-address": "web"}
    assert live.key_name == kp.name
    assert base64.b64decode(live.user_data).decode() == props["user_data"]
    internal = list(cloud.network.ports(tags=["hotc-internal-port", f"hotc-lineage={lineage}"]))
    assert len(internal) == 1 and internal[0].device_id == sid
    assert SERVER.find_adoptable(ctx, props) == sid

    # in place: name, metadata, networks (detach the subnet entry, attach the extra network by name)
    new = {
        **props,
        "name": cloud_tracker.name("vm2"),
        "metadata": {"role": "api"},
        "networks": [{"network": cloud_shared.private_network_name}, {"network": net2.id}],
    }
    SERVER.suspend(ctx, sid, props)  # type: ignore[attr-defined]
    assert cloud.compute.get_server(sid).status == "SUSPENDED"
    SERVER.resume(ctx, sid, props)  # type: ignore[attr-defined]
    assert cloud.compute.get_server(sid).status == "ACTIVE"
    out = SERVER.update(ctx, sid, props, new, fs("name", "metadata", "networks"))
    assert out.physical_id == sid and out.attributes["name"] == new["name"]
    assert cloud.compute.get_server(sid).metadata == {
        "role": "api",
        "hotc-lineage": lineage,
        "hotc-address": "web",
    }
    ips = out.attributes["networks"][net2.name]
    assert len(ips) == 1 and ips[0] != "10.79.0.33"
    assert (
        cloud.network.find_port(internal[0].id, ignore_missing=True) is None
    )  # hotc's port went with its entry

    # image change = rebuild in place (same server id)
    new2 = {**new, "image": second_image.id}
    out = SERVER.update(ctx, sid, new, new2, fs("image"))
    assert out.physical_id == sid and cloud.compute.get_server(sid).image["id"] == second_image.id

    # flavor change = resize + confirm (the test cloud sets allow_resize_to_same_host)
    flavors = [f for f in cloud_shared.flavor_names if f != cloud_shared.flavor_name]
    new3 = {**new2, "flavor": flavors[0]}
    try:
        out = SERVER.update(ctx, sid, new2, new3, fs("flavor"))
        assert cloud.compute.get_server(sid).flavor["original_name"] == flavors[0]
        assert out.attributes["show"]["status"] == "ACTIVE"
        # re-running the same update (e.g. after an interrupted apply) finds the flavor already right
        out = SERVER.update(ctx, sid, new2, new3, fs("flavor"))
        assert out.attributes["show"]["flavor"]["original_name"] == flavors[0]
    finally:
        SERVER.delete(ctx, sid, new3)
    assert SERVER.read(ctx, sid, new3) is None
    SERVER.delete(ctx, sid, new3)


def test_server_replacement_and_bad_flavor(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    """A non-updatable change (key_name, security_groups) is a create of a new server then a delete."""
    ctx = make_ctx(cloud, "db")
    props = {
        "name": cloud_tracker.name("db"),
        "image": cloud_shared.image_id,
        "flavor": cloud_shared.flavor_id,
        "networks": [{"network": cloud_shared.private_network_id, "fixed_ip": "10.10.0.201"}],
    }
    with pytest.raises(ProviderError, match="flavor 'no-such-flavor' not found"):
        SERVER.create(ctx, {**props, "flavor": "no-such-flavor"})
    old = SERVER.create(ctx, props)
    assert old.attributes["first_address"] == "10.10.0.201"
    new_props = {
        **props,
        "name": cloud_tracker.name("db2"),
        "networks": [{"network": cloud_shared.private_network_id}],
    }
    new = SERVER.create(make_ctx(cloud, "db"), new_props)
    assert new.physical_id != old.physical_id
    # user_data with user_data_update_policy REBUILD: rebuilt in place with the new user data
    ud = {**new_props, "user_data_update_policy": "REBUILD", "user_data_format": "RAW", "user_data": "v2"}
    out = SERVER.update(
        make_ctx(cloud, "db"),
        new.physical_id,
        {**ud, "user_data": "v1"},
        ud,  # type: ignore[arg-type]
        fs("user_data"),
    )
    assert out.physical_id == new.physical_id
    assert base64.b64decode(cloud.compute.get_server(new.physical_id).user_data).decode() == "v2"
    SERVER.delete(ctx, old.physical_id, props)  # type: ignore[arg-type]
    assert SERVER.read(ctx, old.physical_id, props) is None  # type: ignore[arg-type]
    SERVER.delete(ctx, new.physical_id, new_props)  # type: ignore[arg-type]


def test_server_block_devices_floating_ip_and_tags(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    """block_device_mapping_v2 with a data volume (kept after the server; the test cloud's fake Cinder cannot
    make a volume from an image, so no boot-from-volume here), a floating IP named in a networks entry, server
    tags updated in place."""
    fip = cloud.network.create_ip(
        floating_network_id=cloud_shared.public_network_id, description=cloud_tracker.name("fip")
    )
    cloud_tracker.track(fip)
    vol = cloud.block_storage.create_volume(name=cloud_tracker.name("data"), size=1)
    cloud.block_storage.wait_for_status(vol, "available", wait=60)
    ctx = make_ctx(cloud, "bdm", timeout=180)
    props = {
        "name": cloud_tracker.name("bdm"),
        "flavor": cloud_shared.flavor_name,
        "image": cloud_shared.image_id,
        "block_device_mapping_v2": [{"volume_id": vol.id, "boot_index": -1, "device_name": "vdb"}],
        "networks": [{"network": cloud_shared.private_network_name, "floating_ip": fip.id}],
        "tags": ["a"],
    }
    out = SERVER.create(ctx, props)
    sid = out.physical_id
    assert sid is not None
    try:
        live = cloud.compute.get_server(sid)
        assert [a["id"] for a in live.attached_volumes] == [vol.id]
        assert cloud.block_storage.get_volume(vol.id).status == "in-use"
        ip = cloud.network.get_ip(fip.id)
        assert ip.port_id and ip.fixed_ip_address == out.attributes["first_address"]
        out = SERVER.update(ctx, sid, props, {**props, "tags": ["b", "c"]}, fs("tags"))
        assert sorted(out.attributes["tags"]) == ["b", "c"]
    finally:
        SERVER.delete(ctx, sid, props)
    # delete_on_termination defaults to False for a volume_id mapping (as in Heat): the volume stays
    v = cloud.block_storage.wait_for_status(cloud.block_storage.get_volume(vol.id), "available", wait=60)
    cloud.block_storage.delete_volume(v)


def test_server_replacement_takes_over_its_port(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    """Replacing a server that uses a port (create the new one first, as Heat does): the port is detached from
    the instance being replaced, then given to the new one. A port of some other server is left alone."""
    port = cloud_tracker.track(
        cloud.network.create_port(network_id=cloud_shared.private_network_id, name=cloud_tracker.name("p"))
    )
    lineage = uuid.uuid4().hex
    props = {
        "name": cloud_tracker.name("vm"),
        "image": cloud_shared.image_id,
        "flavor": cloud_shared.flavor_id,
        "networks": [{"port": port.id}],
    }
    old = SERVER.create(make_ctx(cloud, "app", lineage=lineage), props)
    rec = Recorder()
    with pytest.raises(ProviderError, match=r"(?i)port .* (in use|still in use)"):
        SERVER.create(make_ctx(cloud, "other", lineage=lineage), props)  # another address: not ours to take
    # the executor's prepare-for-replace hook frees the port for the replacement (and says it changed the old one)
    assert old.physical_id is not None
    assert SERVER.prepare_for_replace(
        make_ctx(cloud, "app", lineage=lineage, rec=rec), old.physical_id, props, props
    )
    assert any("detaching port" in m for m in rec.logs)
    new = SERVER.create(make_ctx(cloud, "app", lineage=lineage, instance="app@1a2b3c4d"), props)
    assert new.physical_id != old.physical_id
    assert cloud.network.get_port(port.id).device_id == new.physical_id
    assert new.attributes["first_address"] == old.attributes["first_address"]
    SERVER.delete(make_ctx(cloud, "app", lineage=lineage), old.physical_id, props)  # type: ignore[arg-type]
    SERVER.delete(make_ctx(cloud, "app", lineage=lineage), new.physical_id, props)  # type: ignore[arg-type]


def test_adopting_a_server_a_killed_run_left_building(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any
) -> None:
    """A run killed right after Nova accepted the create leaves a stamped server in BUILD: the next run finds it
    by its stamp, and reading it waits until it is ACTIVE (never reports a half-made server)."""
    lineage = uuid.uuid4().hex
    ctx = make_ctx(cloud, "web", lineage=lineage, timeout=120)
    s = cloud.compute.create_server(
        name=cloud_tracker.name("vm"),
        image_id=cloud_shared.image_id,
        flavor_id=cloud_shared.flavor_id,
        networks=[{"uuid": cloud_shared.private_network_id}],
        metadata={"hotc-lineage": lineage, "hotc-address": "web"},
    )
    assert SERVER.find_adoptable(ctx, {}) == s.id
    out = SERVER.read(ctx, s.id, {})
    assert out is not None and out.attributes["show"]["status"] == "ACTIVE"
    assert out.attributes["first_address"].startswith("10.10.0.")
    SERVER.delete(ctx, s.id, {})


def test_internal_ports_go_with_their_server_whatever_instance_deletes_it(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any
) -> None:
    """A networks entry naming a subnet makes hotc create the port; deleting the server (here through the context
    of another instance of the same address, as when a replaced instance is cleaned up) deletes that port."""
    lineage = uuid.uuid4().hex
    props = {
        "name": cloud_tracker.name("vm"),
        "image": cloud_shared.image_id,
        "flavor": cloud_shared.flavor_id,
        "networks": [{"subnet": cloud_shared.private_subnet_name}],
    }
    out = SERVER.create(make_ctx(cloud, "app", lineage=lineage, instance="app@0badc0de"), props)
    port_id = internal_port_id(cloud, lineage)
    assert cloud.network.get_port(port_id).device_id == out.physical_id
    SERVER.delete(make_ctx(cloud, "app", lineage=lineage), out.physical_id, props)  # type: ignore[arg-type]
    assert cloud.network.find_port(port_id, ignore_missing=True) is None
