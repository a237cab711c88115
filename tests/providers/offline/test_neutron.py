"""Neutron drivers offline, through the fake openstacksdk connection: create/read/update/delete, adoption by
the stamp, the live properties a refresh compares (no drift right after a create; each out-of-band change seen
as exactly the property it touched) and Neutron's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.base import physical_id_from_heat
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import Recorder, ctx_for, drift, driver

NET, SUBNET, ROUTER, IFACE = (
    "OS::Neutron::Net",
    "OS::Neutron::Subnet",
    "OS::Neutron::Router",
    "OS::Neutron::RouterInterface",
)
PORT, FIP, FIPA = "OS::Neutron::Port", "OS::Neutron::FloatingIP", "OS::Neutron::FloatingIPAssociation"
SG, RULE = "OS::Neutron::SecurityGroup", "OS::Neutron::SecurityGroupRule"


def test_net_lifecycle_tags_and_drift(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "net", NET)
    d = driver(NET)
    props: dict[str, Any] = {"name": "n1", "tags": ["blue"], "admin_state_up": True}
    out = d.create(ctx, props)
    assert out.properties is None  # a create records the properties it was given
    obj = conn.cloud.get("network", out.physical_id)
    assert obj["name"] == "n1" and "blue" in obj["tags"] and f"hotc-lineage={ctx.lineage}" in obj["tags"]
    assert out.attributes["status"] == "ACTIVE" and out.attributes["show"]["id"] == out.physical_id
    live = d.read(ctx, out.physical_id, props)
    assert drift(NET, props, live) == []  # the noise test
    assert live.properties["tags"] == ["blue"]  # hotc's stamp is not the template's
    # out of band: renamed and set down
    obj.update(name="renamed", admin_state_up=False)
    live = d.read(ctx, out.physical_id, props)
    assert drift(NET, props, live) == ["admin_state_up", "name"]
    assert live.properties["name"] == "renamed" and live.properties["admin_state_up"] is False
    # the update that brings it back
    d.update(ctx, out.physical_id, live.properties, props, frozenset({"name", "admin_state_up"}))
    assert obj["name"] == "n1" and obj["admin_state_up"] is True
    assert d.find_adoptable(ctx, props) == out.physical_id
    d.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("network", out.physical_id) is None
    assert d.read(ctx, out.physical_id, props) is None
    d.delete(ctx, out.physical_id, props)  # deleting what is gone is done


def test_unnamed_net_rename_is_drift_but_generated_name_is_not(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "anon", NET)
    d = driver(NET)
    out = d.create(ctx, {})
    assert drift(NET, {}, d.read(ctx, out.physical_id, {})) == []
    conn.cloud.get("network", out.physical_id)["name"] = "by-hand"
    assert drift(NET, {}, d.read(ctx, out.physical_id, {})) == ["name"]


def test_untagged_net_of_an_interrupted_create_is_adopted(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "lost", NET)
    d = driver(NET)
    conn.cloud.fail_next("network.set_tags", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        d.create(ctx, {})
    (lost,) = [n for n in conn.cloud.all("network") if n["name"].startswith("hotc-t-lost-")]
    assert lost["tags"] == [] and d.find_adoptable(ctx, {}) == lost["id"]


def test_network_in_use_cannot_be_deleted(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    ctx = ctx_for(conn, "net", NET)
    d = driver(NET)
    out = d.create(ctx, {"name": "busy"})
    conn.network.create_subnet(network_id=out.physical_id, cidr="10.1.0.0/24")
    conn.network.create_port(network_id=out.physical_id, device_id="x", device_owner="compute:nova")
    with pytest.raises(ProviderError, match="ports still in use"):
        d.delete(ctx, out.physical_id, {})
    assert conn.cloud.count("network.delete_network") == 6  # a 409 is retried, then reported


def test_subnet_by_network_name_gateway_and_pools(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    ctx = ctx_for(conn, "sub", SUBNET)
    d = driver(SUBNET)
    props: dict[str, Any] = {
        "network": "hotc-private",
        "cidr": "10.20.0.0/24",
        "gateway_ip": "",
        "dns_nameservers": ["8.8.8.8"],
        "allocation_pools": [{"start": "10.20.0.10", "end": "10.20.0.20"}],
    }
    out = d.create(ctx, props)
    obj = conn.cloud.get("subnet", out.physical_id)
    assert obj["network_id"] == seeded["private"] and obj["gateway_ip"] is None
    live = d.read(ctx, out.physical_id, props)
    assert live.properties["network"] == "hotc-private"  # as the template named it
    assert drift(SUBNET, props, live) == []
    obj["dns_nameservers"] = ["1.1.1.1"]
    obj["enable_dhcp"] = False
    assert drift(SUBNET, props, d.read(ctx, out.physical_id, props)) == ["dns_nameservers", "enable_dhcp"]
    d.update(
        ctx,
        out.physical_id,
        props,
        dict(props, dns_nameservers=["9.9.9.9"], gateway_ip="10.20.0.1"),
        frozenset({"dns_nameservers", "gateway_ip"}),
    )
    assert obj["dns_nameservers"] == ["9.9.9.9"] and obj["gateway_ip"] == "10.20.0.1"
    d.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("subnet", out.physical_id) is None


def test_subnet_moved_to_another_network_reads_as_that_network_id(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    ctx = ctx_for(conn, "sub", SUBNET)
    d = driver(SUBNET)
    props = {"network": "hotc-private", "cidr": "10.21.0.0/24"}
    out = d.create(ctx, props)
    conn.cloud.get("subnet", out.physical_id)["network_id"] = seeded["public"]
    live = d.read(ctx, out.physical_id, props)
    assert live.properties["network"] == seeded["public"] and drift(SUBNET, props, live) == ["network"]


def test_router_gateway_interface_and_drift(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    rctx = ctx_for(conn, "router", ROUTER)
    r = driver(ROUTER)
    props: dict[str, Any] = {"external_gateway_info": {"network": "public"}}
    out = r.create(rctx, props)
    robj = conn.cloud.get("router", out.physical_id)
    assert robj["external_gateway_info"]["network_id"] == seeded["public"]
    live = r.read(rctx, out.physical_id, props)
    assert live.properties["external_gateway_info"] == {"network": "public"}
    assert drift(ROUTER, props, live) == []
    robj["external_gateway_info"] = None
    assert drift(ROUTER, props, r.read(rctx, out.physical_id, props)) == ["external_gateway_info"]
    r.update(rctx, out.physical_id, {}, props, frozenset({"external_gateway_info"}))
    assert robj["external_gateway_info"]["network_id"] == seeded["public"]
    # an interface on a subnet: physical id as Heat forms it, the interface port stamped
    ictx = ctx_for(conn, "iface", IFACE, lineage=rctx.lineage)
    i = driver(IFACE)
    iprops = {"router": out.physical_id, "subnet": "hotc-private-subnet"}
    iout = i.create(ictx, iprops)
    assert iout.physical_id == f"{out.physical_id}:subnet_id={seeded['private-subnet']}"
    live_i = i.read(ictx, iout.physical_id, iprops)
    assert drift(IFACE, iprops, live_i) == [] and live_i.properties["subnet"] == "hotc-private-subnet"
    assert i.create(ictx, iprops).physical_id == iout.physical_id  # already there: the same interface
    assert i.find_adoptable(ictx, iprops) == iout.physical_id
    with pytest.raises(ProviderError, match="still has ports"):
        r.delete(rctx, out.physical_id, props)
    i.delete(ictx, iout.physical_id, iprops)
    assert i.read(ictx, iout.physical_id, iprops) is None
    i.delete(ictx, iout.physical_id, iprops)
    r.delete(rctx, out.physical_id, props)
    assert conn.cloud.find("router", out.physical_id) is None
    assert i.read(ictx, iout.physical_id, iprops) is None  # the router is gone: so is its interface


def test_router_interface_needs_subnet_or_port(conn: FakeConnection) -> None:
    i = driver(IFACE)
    rid = conn.network.create_router(name="r").id
    with pytest.raises(ProviderError, match="one of subnet or port"):
        i.create(ctx_for(conn, "i", IFACE), {"router": rid})
    with pytest.raises(ProviderError, match="not of the form"):
        i.read(ctx_for(conn, "i", IFACE), "garbage", {})


def test_router_interface_on_a_port(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    rid = conn.network.create_router(name="r").id
    port = conn.network.create_port(network_id=seeded["private"])
    i = driver(IFACE)
    ctx = ctx_for(conn, "i", IFACE)
    props = {"router": rid, "port": port.id}
    out = i.create(ctx, props)
    assert out.physical_id == f"{rid}:port_id={port.id}"
    assert drift(IFACE, props, i.read(ctx, out.physical_id, props)) == []
    i.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("port", port.id) is None


def test_port_fixed_ips_groups_pairs_and_drift(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    sg = driver(SG).create(ctx_for(conn, "sg", SG), {"name": "web"})
    ctx = ctx_for(conn, "port", PORT)
    d = driver(PORT)
    props: dict[str, Any] = {
        "network": "hotc-private",
        "fixed_ips": [{"subnet": "hotc-private-subnet", "ip_address": "10.10.0.50"}],
        "security_groups": ["web"],
        "allowed_address_pairs": [{"ip_address": "10.10.0.200"}],
    }
    out = d.create(ctx, props)
    obj = conn.cloud.get("port", out.physical_id)
    assert obj["fixed_ips"] == [{"subnet_id": seeded["private-subnet"], "ip_address": "10.10.0.50"}]
    assert obj["security_groups"] == [sg.physical_id]
    live = d.read(ctx, out.physical_id, props)
    assert drift(PORT, props, live) == []
    assert live.properties["security_groups"] == ["web"] and live.properties["network"] == "hotc-private"
    assert out.attributes["subnets"][0]["id"] == seeded["private-subnet"]
    assert out.attributes["network"]["id"] == seeded["private"]
    # Nova binding the port is not drift (device_id/device_owner not set by the template)
    obj.update(device_id="server-1", device_owner="compute:nova")
    assert drift(PORT, props, d.read(ctx, out.physical_id, props)) == []
    # an extra group and another address are
    default = next(g["id"] for g in conn.cloud.all("security_group") if g["name"] == "default")
    obj["security_groups"] = [sg.physical_id, default]
    obj["fixed_ips"] = [{"subnet_id": seeded["private-subnet"], "ip_address": "10.10.0.51"}]
    live = d.read(ctx, out.physical_id, props)
    assert drift(PORT, props, live) == ["fixed_ips", "security_groups"]
    assert live.properties["security_groups"] == ["web", default]
    d.update(ctx, out.physical_id, live.properties, props, frozenset({"fixed_ips", "security_groups"}))
    assert obj["security_groups"] == [sg.physical_id] and obj["fixed_ips"][0]["ip_address"] == "10.10.0.50"
    # no fixed_ips in the template any more: back to one address Neutron picks
    d.update(ctx, out.physical_id, props, {"network": "hotc-private"}, frozenset({"fixed_ips"}))
    assert len(obj["fixed_ips"]) == 1 and obj["fixed_ips"][0]["ip_address"] != "10.10.0.50"
    d.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("port", out.physical_id) is None


def test_port_address_in_use_is_refused(conn: FakeConnection) -> None:
    d = driver(PORT)
    props = {"network": "hotc-private", "fixed_ips": [{"ip_address": "10.10.0.60"}]}
    d.create(ctx_for(conn, "a", PORT), props)
    with pytest.raises(ProviderError, match="already allocated"):
        d.create(ctx_for(conn, "b", PORT), props)


def test_floating_ip_and_association(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    port = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": "hotc-private"})
    ctx = ctx_for(conn, "fip", FIP)
    d = driver(FIP)
    props = {"floating_network": "public"}
    out = d.create(ctx, props)
    fobj = conn.cloud.get("ip", out.physical_id)
    assert fobj["floating_network_id"] == seeded["public"] and out.attributes["floating_ip_address"]
    assert drift(FIP, props, d.read(ctx, out.physical_id, props)) == []
    actx = ctx_for(conn, "assoc", FIPA)
    a = driver(FIPA)
    aprops = {"floatingip_id": out.physical_id, "port_id": port.physical_id}
    aout = a.create(actx, aprops)
    assert aout.physical_id == f"{out.physical_id}:{port.physical_id}" and fobj["port_id"] == port.physical_id
    assert drift(FIPA, aprops, a.read(actx, aout.physical_id, aprops)) == []
    assert (
        drift(FIP, props, d.read(ctx, out.physical_id, props)) == []
    )  # the association is not the FIP's drift
    assert a.find_adoptable(actx, aprops) == aout.physical_id
    # taken over from Heat, which keeps a row id of its own database: hotc's id comes from what it links
    assert physical_id_from_heat(a, actx, "213", aprops) == aout.physical_id
    # the port moved by hand: the association is gone
    other = driver(PORT).create(ctx_for(conn, "other", PORT), {"network": "hotc-private"})
    fobj["port_id"] = other.physical_id
    assert a.read(actx, aout.physical_id, aprops) is None
    a.update(actx, aout.physical_id, aprops, aprops, frozenset({"port_id"}))
    assert fobj["port_id"] == port.physical_id
    a.delete(actx, aout.physical_id, aprops)
    assert fobj["port_id"] is None
    # a FIP given a port at create
    out2 = d.create(ctx_for(conn, "fip2", FIP), {"floating_network": "public", "port_id": other.physical_id})
    assert conn.cloud.get("ip", out2.physical_id)["fixed_ip_address"]
    d.update(ctx, out2.physical_id, {}, {"floating_network": "public"}, frozenset({"port_id"}))
    assert conn.cloud.get("ip", out2.physical_id)["port_id"] is None
    d.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("ip", out.physical_id) is None


def test_security_group_rules_sync_and_drift(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "sg", SG)
    d = driver(SG)
    props: dict[str, Any] = {
        "name": "web",
        "description": "web tier",
        "rules": [
            {"protocol": "tcp", "port_range_min": 80, "port_range_max": 80},
            {"protocol": "icmp", "remote_ip_prefix": "10.0.0.0/8"},
            {"remote_mode": "remote_group_id", "protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
        ],
    }
    out = d.create(ctx, props)
    rules = [r for r in conn.cloud.all("security_group_rule") if r["security_group_id"] == out.physical_id]
    # the template's 3 rules plus Neutron's default egress ones (the template has no egress rule)
    assert len(rules) == 5
    assert any(r["remote_group_id"] == out.physical_id for r in rules)
    live = d.read(ctx, out.physical_id, props)
    assert drift(SG, props, live) == []
    # a rule added by hand
    conn.network.create_security_group_rule(
        security_group_id=out.physical_id,
        direction="ingress",
        ethertype="IPv4",
        protocol="tcp",
        port_range_min=3306,
        port_range_max=3306,
        remote_ip_prefix="0.0.0.0/0",
    )
    live = d.read(ctx, out.physical_id, props)
    assert drift(SG, props, live) == ["rules"]
    assert {
        "direction": "ingress",
        "ethertype": "IPv4",
        "protocol": "tcp",
        "port_range_min": 3306,
        "port_range_max": 3306,
        "remote_mode": "remote_ip_prefix",
        "remote_ip_prefix": "0.0.0.0/0",
    } in live.properties["rules"]
    # the update brings the rules back to the template's
    d.update(ctx, out.physical_id, live.properties, props, frozenset({"rules"}))
    assert drift(SG, props, d.read(ctx, out.physical_id, props)) == []
    assert not any(r.get("port_range_min") == 3306 for r in conn.cloud.all("security_group_rule"))
    # a rule removed by hand
    http = next(r for r in conn.cloud.all("security_group_rule") if r.get("port_range_min") == 80)
    conn.cloud.drop("security_group_rule", http["id"])
    assert drift(SG, props, d.read(ctx, out.physical_id, props)) == ["rules"]
    # an egress rule of the template's own replaces Neutron's defaults
    eg = dict(
        props,
        rules=[{"direction": "egress", "protocol": "tcp", "port_range_min": 443, "port_range_max": 443}],
    )
    d.update(ctx, out.physical_id, props, eg, frozenset({"rules"}))
    left = [r for r in conn.cloud.all("security_group_rule") if r["security_group_id"] == out.physical_id]
    assert [(r["direction"], r["port_range_min"]) for r in left] == [("egress", 443)]
    assert drift(SG, eg, d.read(ctx, out.physical_id, eg)) == []
    d.delete(ctx, out.physical_id, eg)
    assert conn.cloud.find("security_group", out.physical_id) is None


def test_security_group_rule_resource(conn: FakeConnection) -> None:
    sg = driver(SG).create(ctx_for(conn, "sg", SG), {"name": "db"})
    other = driver(SG).create(ctx_for(conn, "sg2", SG), {"name": "app"})
    ctx = ctx_for(conn, "rule", RULE)
    d = driver(RULE)
    props = {"security_group": "db", "port_range_min": 5432, "port_range_max": 5432, "remote_group": "app"}
    out = d.create(ctx, props)
    obj = conn.cloud.get("security_group_rule", out.physical_id)
    assert obj["security_group_id"] == sg.physical_id
    assert obj["protocol"] == "tcp" and obj["remote_group_id"] == other.physical_id  # Heat's default protocol
    assert drift(RULE, props, d.read(ctx, out.physical_id, props)) == []
    assert d.find_adoptable(ctx, props) == out.physical_id
    with pytest.raises(ProviderError, match="cannot be updated"):
        d.update(ctx, out.physical_id, props, props, frozenset({"description"}))
    d.delete(ctx, out.physical_id, props)
    assert d.read(ctx, out.physical_id, props) is None
    assert d.find_adoptable(ctx, props) is None
    assert d.find_adoptable(ctx, {"security_group": "nope"}) is None


def test_a_duplicate_rule_in_the_template_is_made_once(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "sg", SG)
    rule = {"protocol": "tcp", "port_range_min": 80, "port_range_max": 80}
    out = driver(SG).create(ctx, {"rules": [rule, dict(rule)]})
    mine = [r for r in conn.cloud.all("security_group_rule") if r["security_group_id"] == out.physical_id]
    assert len(mine) == 3


def test_router_gateway_with_snat_and_fixed_ips(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    ctx = ctx_for(conn, "router", ROUTER)
    r = driver(ROUTER)
    props: dict[str, Any] = {
        "external_gateway_info": {
            "network": "public",
            "enable_snat": False,
            "external_fixed_ips": [{"subnet": "public-subnet", "ip_address": "172.24.4.50"}],
        },
        "l3_agent_ids": ["agent-1"],
    }
    rec = Recorder()
    out = r.create(ctx_for(conn, "router", ROUTER, rec=rec), props)
    gw = conn.cloud.get("router", out.physical_id)["external_gateway_info"]
    assert gw["enable_snat"] is False and gw["external_fixed_ips"][0]["ip_address"] == "172.24.4.50"
    assert any("l3_agent_ids is not applied" in m for m in rec.logs)
    live = r.read(ctx, out.physical_id, props)
    assert drift(ROUTER, props, live) == []
    assert live.properties["external_gateway_info"]["external_fixed_ips"] == [
        {"subnet": "public-subnet", "ip_address": "172.24.4.50"}
    ]
    gw["enable_snat"] = True
    gw["external_fixed_ips"] = [dict(gw["external_fixed_ips"][0], ip_address="172.24.4.51")]
    live = r.read(ctx, out.physical_id, props)
    assert drift(ROUTER, props, live) == ["external_gateway_info"]
    assert live.properties["external_gateway_info"]["enable_snat"] is True
    # the gateway removed: an empty gateway in the template reads as {}
    r.update(ctx, out.physical_id, props, {"external_gateway_info": {}}, frozenset({"external_gateway_info"}))
    assert conn.cloud.get("router", out.physical_id)["external_gateway_info"] is None
    assert (
        drift(
            ROUTER, {"external_gateway_info": {}}, r.read(ctx, out.physical_id, {"external_gateway_info": {}})
        )
        == []
    )
    conn.network.delete_router(out.physical_id)
    r.delete(ctx, out.physical_id, props)  # gone already: done


def test_live_rules_are_written_as_the_template_wrote_them(conn: FakeConnection) -> None:
    """The driver compares with Heat's defaults filled in; what it reports is the template's own form, so a
    drift shows only what differs (here: one rule more), not every default."""
    ctx = ctx_for(conn, "sg", SG)
    rule = {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}
    out = driver(SG).create(ctx, {"rules": [rule]})
    conn.network.create_security_group_rule(
        security_group_id=out.physical_id,
        protocol="udp",
        direction="ingress",
        ethertype="IPv4",
        port_range_min=53,
        port_range_max=53,
    )
    live = driver(SG).read(ctx, out.physical_id, {"rules": [rule]})
    assert live.properties["rules"][0] == rule  # no direction/ethertype/remote_mode added
    assert live.properties["rules"][1]["port_range_min"] == 53
    assert (
        "admin_state_up"
        not in driver(NET)
        .read(ctx_for(conn, "n", NET), driver(NET).create(ctx_for(conn, "n", NET), {}).physical_id, {})
        .properties
    )  # the default, not reported
