"""The Server driver offline, through the fake openstacksdk connection: the BUILD -> ACTIVE wait (and a build
that fails or never ends), networks (Nova-made, explicit and hotc-made internal ports), live properties and
drift, resize/rebuild/rename/metadata/tags/networks updates, suspend/resume, the replace hooks that lend
explicit ports and fixed IPs to a replacement, and ``deletion_policy: Snapshot``."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from hotc.providers.base import prepare_for_replace, restore_after_failed_replace
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

SERVER, PORT = "OS::Nova::Server", "OS::Neutron::Port"


def base(**extra: Any) -> dict[str, Any]:
    return {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}], **extra}


def make(conn: FakeConnection, props: dict[str, Any], address: str = "web", **kw: Any) -> tuple[Any, Any]:
    ctx = ctx_for(conn, address, SERVER, **kw)
    return ctx, driver(SERVER).create(ctx, props)


def server(conn: FakeConnection, sid: str) -> dict[str, Any]:
    return conn.cloud.get("server", sid)


def test_create_waits_for_active_and_reads_without_drift(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    gate = conn.cloud.gate("server.create").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 3 else None)
    props = base(metadata={"role": "web", "n": 1}, tags=["a"], key_name=None, user_data="#!/bin/sh\necho hi")
    ctx, out = make(conn, props)
    srv = server(conn, out.physical_id)
    assert gate.waited >= 3 and srv["status"] == "ACTIVE"  # it polled while the build was held
    assert srv["flavor"]["original_name"] == "m1.tiny" and srv["image"]["id"] == seeded["image"]
    assert srv["metadata"]["hotc-lineage"] == ctx.lineage and srv["metadata"]["n"] == "1"
    assert base64.b64decode(srv["user_data"]).decode() == "#!/bin/sh\necho hi"
    assert out.attributes["first_address"].startswith("10.10.0.")
    assert out.attributes["networks"]["hotc-private"] == [out.attributes["first_address"]]
    assert seeded["private"] in out.attributes["networks"]  # keyed by network id too, as Heat
    live = driver(SERVER).read(ctx, out.physical_id, props)
    assert live.properties["flavor"] == "m1.tiny" and live.properties["image"] == "hotc-tiny"
    assert live.properties["metadata"] == {"role": "web", "n": 1}
    assert "user_data" not in live.properties  # not readable: the recorded value stays
    assert drift(SERVER, props, live) == []


def test_out_of_band_resize_metadata_and_interface_are_drift(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    props = base(metadata={"role": "web"})
    ctx, out = make(conn, props)
    srv = server(conn, out.physical_id)
    srv["flavor"] = dict(srv["flavor"], original_name="m1.small")
    srv["metadata"]["role"] = "db"
    conn.compute.create_server_interface(out.physical_id, net_id=seeded["public"])
    live = driver(SERVER).read(ctx, out.physical_id, props)
    assert drift(SERVER, props, live) == ["flavor", "metadata", "networks"]
    assert live.properties["flavor"] == "m1.small"
    extra = [n for n in live.properties["networks"] if "port" in n]
    assert len(extra) == 1 and conn.cloud.get("port", extra[0]["port"])["network_id"] == seeded["public"]


def test_scheduler_hints_read_back_as_written(conn: FakeConnection) -> None:
    """Nova (2.100+) reports the hints given at boot with every value a list; the read writes them back as the
    template did, so no drift, and a server whose hints are not the template's shows exactly that."""
    group = conn.compute.create_server_group(name="g", policy="affinity").id
    props = base(scheduler_hints={"group": group, "different_host": [], "custom": 5})
    ctx, out = make(conn, props)
    assert server(conn, out.physical_id)["scheduler_hints"]["group"] == [group]  # as Nova keeps it
    live = driver(SERVER).read(ctx, out.physical_id, props)
    assert live.properties["scheduler_hints"] == {"group": group, "different_host": [], "custom": 5}
    assert drift(SERVER, props, live) == []
    other = dict(props, scheduler_hints={"group": "another"})
    assert drift(SERVER, other, driver(SERVER).read(ctx, out.physical_id, other)) == ["scheduler_hints"]
    # the hints Heat adds by itself (stack_scheduler_hints) are not the template's: left out of the read
    heat_made = base(scheduler_hints={"group": group})
    ctx3, out3 = make(conn, {**heat_made, "scheduler_hints": {"group": group, "heat_stack_id": "s1"}}, "hm")
    assert "heat_stack_id" in server(conn, out3.physical_id)["scheduler_hints"]
    assert drift(SERVER, heat_made, driver(SERVER).read(ctx3, out3.physical_id, heat_made)) == []
    # none given: none read (the template's empty value stays)
    ctx2, bare = make(conn, base(scheduler_hints=None), address="bare")
    assert (
        "scheduler_hints" not in server(conn, bare.physical_id)
        or not server(conn, bare.physical_id)["scheduler_hints"]
    )
    live = driver(SERVER).read(ctx2, bare.physical_id, base(scheduler_hints=None))
    assert live.properties["scheduler_hints"] is None


def test_build_failure_reports_the_fault(conn: FakeConnection) -> None:
    conn.compute.fail_build = "No valid host was found."
    with pytest.raises(ProviderError, match="went to ERROR: No valid host"):
        make(conn, base())


def test_build_that_never_ends_times_out(conn: FakeConnection) -> None:
    conn.cloud.gate("server.create").hold()
    with pytest.raises(ProviderError, match=r"timed out after 120s \(last status: BUILD\)"):
        make(conn, base())


def test_no_image_nor_volume_is_an_error(conn: FakeConnection) -> None:
    with pytest.raises(ProviderError, match="neither image nor a bootable"):
        make(conn, {"flavor": "m1.tiny"})


def test_boot_from_volume_mapping(conn: FakeConnection) -> None:
    vol = conn.block_storage.create_volume(size=1, name="boot")
    conn.cloud.settle()
    ctx, out = make(conn, {"flavor": "m1.tiny", "block_device_mapping_v2": [{"volume_id": vol.id}]})
    bdm = server(conn, out.physical_id)["_bdm"]
    assert (
        bdm[0]["uuid"] == vol.id
        and bdm[0]["boot_index"] == 0
        and server(conn, out.physical_id)["image"] == ""
    )


def test_subnet_entry_gets_an_internal_port_deleted_with_the_server(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    sg = driver("OS::Neutron::SecurityGroup").create(
        ctx_for(conn, "sg", "OS::Neutron::SecurityGroup"), {"name": "web"}
    )
    props = {
        "image": "hotc-tiny",
        "flavor": "m1.tiny",
        "security_groups": ["web"],
        "networks": [{"subnet": "hotc-private-subnet", "fixed_ip": "10.10.0.77"}],
    }
    ctx, out = make(conn, props)
    (port,) = [p for p in conn.cloud.all("port") if "hotc-internal-port" in p["tags"]]
    assert port["device_id"] == out.physical_id and port["fixed_ips"][0]["ip_address"] == "10.10.0.77"
    assert port["security_groups"] == [sg.physical_id]
    live = driver(SERVER).read(ctx, out.physical_id, props)
    assert drift(SERVER, props, live) == [] and live.properties["security_groups"] == ["web"]
    driver(SERVER).delete(ctx, out.physical_id, props)
    assert conn.cloud.find("server", out.physical_id) is None and conn.cloud.find("port", port["id"]) is None


def test_explicit_port_in_use_elsewhere_is_refused(conn: FakeConnection) -> None:
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    make(conn, {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]}, "a")
    with pytest.raises(ProviderError, match="still in use"):
        make(conn, {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]}, "b")


def test_update_resize_rename_metadata_tags(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    props = base(name="web-1", metadata={"a": "1", "b": "2"}, tags=["x"])
    ctx, out = make(conn, props)
    sid = out.physical_id
    new = dict(
        props, name="web-2", flavor="m1.small", metadata={"a": "1", "c": "3"}, tags=["y"], admin_pass="pw"
    )
    gate = conn.cloud.gate("server.resize").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    driver(SERVER).update(
        ctx, sid, props, new, frozenset({"name", "flavor", "metadata", "tags", "admin_pass"})
    )
    srv = server(conn, sid)
    assert (
        srv["name"] == "web-2" and srv["flavor"]["original_name"] == "m1.small" and srv["status"] == "ACTIVE"
    )
    assert (
        "b" not in srv["metadata"]
        and srv["metadata"]["c"] == "3"
        and srv["metadata"]["hotc-address"] == "web"
    )
    assert srv["tags"] == ["y"] and srv["_password"] == "pw"
    assert conn.cloud.count("compute.confirm_server_resize") == 1
    assert drift(SERVER, new, driver(SERVER).read(ctx, sid, new)) == []
    # a second run of the same update: already of that flavor, no second resize
    driver(SERVER).update(ctx, sid, props, new, frozenset({"flavor"}))
    assert conn.cloud.count("compute.resize_server") == 1


def test_refused_resize_is_an_error(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    conn.compute.refuse_resize = True
    with pytest.raises(ProviderError, match="resize was refused"):
        driver(SERVER).update(
            ctx, out.physical_id, props, dict(props, flavor="m1.small"), frozenset({"flavor"})
        )


def test_update_confirms_a_resize_left_pending(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    conn.compute.resize_server(
        out.physical_id,
        server(conn, out.physical_id)["flavor"]
        and next(f["id"] for f in conn.cloud.all("flavor") if f["name"] == "m1.small"),
    )
    conn.cloud.settle()
    assert server(conn, out.physical_id)["status"] == "VERIFY_RESIZE"
    driver(SERVER).update(ctx, out.physical_id, props, dict(props, name="x"), frozenset({"name"}))
    assert server(conn, out.physical_id)["status"] == "ACTIVE"


def test_rebuild_on_image_change_and_user_data_rebuild(conn: FakeConnection) -> None:
    other = conn.image._make({"name": "other", "status": "active"})
    props = base(image_update_policy="REBUILD_PRESERVE_EPHEMERAL")
    ctx, out = make(conn, props)
    driver(SERVER).update(ctx, out.physical_id, props, dict(props, image="other"), frozenset({"image"}))
    assert server(conn, out.physical_id)["image"]["id"] == other["id"]
    call = next(c for c in conn.cloud.calls if c.method == "rebuild_server")
    assert call.kwargs == {"preserve_ephemeral": True}
    new = dict(props, image="other", user_data="v2", user_data_update_policy="REBUILD")
    driver(SERVER).update(ctx, out.physical_id, props, new, frozenset({"user_data"}))
    assert base64.b64decode(server(conn, out.physical_id)["user_data"]).decode() == "v2"
    assert conn.cloud.count("compute.rebuild_server") == 2


def test_networks_update_attaches_and_detaches(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    props = base()
    ctx, out = make(conn, props)
    sid = out.physical_id
    (first,) = [p for p in conn.cloud.all("port") if p["device_id"] == sid]
    new = dict(props, networks=[{"network": "hotc-private"}, {"subnet": "hotc-private-subnet"}])
    driver(SERVER).update(ctx, sid, props, new, frozenset({"networks"}))
    ports = [p for p in conn.cloud.all("port") if p["device_id"] == sid]
    assert len(ports) == 2 and any("hotc-internal-port" in p["tags"] for p in ports)
    assert drift(SERVER, new, driver(SERVER).read(ctx, sid, new)) == []
    # the internal port's entry leaves: detached and deleted; the first interface stays
    driver(SERVER).update(ctx, sid, new, props, frozenset({"networks"}))
    left = [p for p in conn.cloud.all("port") if p["device_id"] == sid]
    assert [p["id"] for p in left] == [first["id"]]
    assert not any("hotc-internal-port" in p["tags"] for p in conn.cloud.all("port"))


def test_floating_ip_of_a_networks_entry_is_associated(conn: FakeConnection) -> None:
    fip = driver("OS::Neutron::FloatingIP").create(
        ctx_for(conn, "fip", "OS::Neutron::FloatingIP"), {"floating_network": "public"}
    )
    ctx, out = make(conn, base(networks=[{"network": "hotc-private", "floating_ip": fip.physical_id}]))
    port_id = conn.cloud.get("ip", fip.physical_id)["port_id"]
    assert conn.cloud.get("port", port_id)["device_id"] == out.physical_id


def test_suspend_and_resume(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    d = driver(SERVER)
    d.suspend(ctx, out.physical_id, props)
    assert server(conn, out.physical_id)["status"] == "SUSPENDED"
    d.suspend(ctx, out.physical_id, props)  # already: nothing to do
    assert conn.cloud.count("compute.suspend_server") == 1
    d.resume(ctx, out.physical_id, props)
    assert server(conn, out.physical_id)["status"] == "ACTIVE"
    d.resume(ctx, out.physical_id, props)
    assert conn.cloud.count("compute.resume_server") == 1


def test_delete_waits_until_gone_and_adoption_by_stamp(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    assert driver(SERVER).find_adoptable(ctx, props) == out.physical_id
    gate = conn.cloud.gate("server.delete").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 2 else None)
    driver(SERVER).delete(ctx, out.physical_id, props)
    assert gate.waited >= 2 and conn.cloud.find("server", out.physical_id) is None
    assert driver(SERVER).read(ctx, out.physical_id, props) is None
    assert driver(SERVER).find_adoptable(ctx, props) is None
    driver(SERVER).delete(ctx, out.physical_id, props)  # gone: done


def test_deletion_policy_snapshot_makes_an_image_first(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    name = server(conn, out.physical_id)["name"]
    driver(SERVER).delete(ctx, out.physical_id, props, policy="Snapshot")
    (img,) = [i for i in conn.cloud.all("image") if i["name"] == f"{name}-snapshot"]
    assert img["status"] == "active" and img["instance_uuid"] == out.physical_id
    assert conn.cloud.find("server", out.physical_id) is None
    order = [m for m in conn.cloud.methods() if m in ("compute.create_server_image", "compute.delete_server")]
    assert order == ["compute.create_server_image", "compute.delete_server"]


def test_deletion_policy_snapshot_that_never_finishes_keeps_the_server(conn: FakeConnection) -> None:
    props = base()
    ctx, out = make(conn, props)
    conn.compute.snapshot_stalls = True
    with pytest.raises(ProviderError, match="the server is kept"):
        driver(SERVER).delete(ctx, out.physical_id, props, policy="Snapshot")
    assert server(conn, out.physical_id)["status"] == "ACTIVE"
    assert not [
        i for i in conn.cloud.all("image") if i["name"].endswith("-snapshot")
    ]  # the failed one is removed


def test_replace_hooks_lend_an_explicit_port_and_give_it_back(conn: FakeConnection) -> None:
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]}
    ctx, old = make(conn, props)
    new = dict(props, flavor="m1.small")
    d = driver(SERVER)
    assert prepare_for_replace(d, ctx, old.physical_id, props, new) is True
    assert conn.cloud.get("port", port.physical_id)["device_id"] == ""
    # the replacement takes the port, then fails: restore takes it back from the failed replacement
    _, repl = make(conn, new, instance="web@2")
    assert conn.cloud.get("port", port.physical_id)["device_id"] == repl.physical_id
    restore_after_failed_replace(d, ctx, old.physical_id, props, new)
    assert conn.cloud.get("port", port.physical_id)["device_id"] == old.physical_id
    # nothing shared: nothing to do
    assert prepare_for_replace(d, ctx, old.physical_id, props, base()) is False


def test_replace_hooks_free_a_fixed_ip_for_the_replacement(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    props = base(networks=[{"network": "hotc-private", "fixed_ip": "10.10.0.90"}])
    ctx, old = make(conn, props)
    d = driver(SERVER)
    assert prepare_for_replace(d, ctx, old.physical_id, props, props) is True
    assert not [p for p in conn.cloud.all("port") if p["device_id"] == old.physical_id]
    restore_after_failed_replace(d, ctx, old.physical_id, props, props)
    (back,) = [p for p in conn.cloud.all("port") if p["device_id"] == old.physical_id]
    assert back["fixed_ips"][0]["ip_address"] == "10.10.0.90"


def test_create_does_not_take_ports_from_another_instance_by_itself(conn: FakeConnection) -> None:
    """Freeing a port for a replacement is the prepare-for-replace hook's job (with its way back), never a
    side effect of every create: a create whose explicit port is held fails as Nova says."""
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]}
    ctx, old = make(conn, props)
    with pytest.raises(ProviderError, match="still in use"):
        make(conn, dict(props, flavor="m1.small"), lineage=ctx.lineage, instance="web@2")
    assert conn.cloud.get("port", port.physical_id)["device_id"] == old.physical_id


def test_a_server_create_reads_its_interfaces_from_neutron_not_nova(conn: FakeConnection) -> None:
    """The interfaces behind a created server's addresses (their ports) come from Neutron's ports bound to the
    server, the list Nova's os-interface answers from, with no call to Nova's API for them; the addresses are
    mapped to the ports as with Nova's list."""
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    conn.cloud.calls.clear()
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"port": port.physical_id}]}
    out = driver(SERVER).create(ctx_for(conn, "web", SERVER), props)
    assert "compute.server_interfaces" not in conn.cloud.methods()
    entries = [e for es in out.attributes["addresses"].values() for e in es]
    assert entries and {e["port"] for e in entries} == {port.physical_id}
    assert (
        out.attributes["first_address"]
        == conn.cloud.get("port", port.physical_id)["fixed_ips"][0]["ip_address"]
    )
