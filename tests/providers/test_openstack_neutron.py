"""Neutron drivers against the real test cloud: create, read, update in place, replace, delete, adopt."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.openstack.neutron import DRIVERS
from tests.providers.test_openstack_common import Recorder, make_ctx

pytestmark = pytest.mark.cloud

NET = DRIVERS["OS::Neutron::Net"]
SUBNET = DRIVERS["OS::Neutron::Subnet"]
ROUTER = DRIVERS["OS::Neutron::Router"]
RIF = DRIVERS["OS::Neutron::RouterInterface"]
PORT = DRIVERS["OS::Neutron::Port"]
FIP = DRIVERS["OS::Neutron::FloatingIP"]
FIPA = DRIVERS["OS::Neutron::FloatingIPAssociation"]
SG = DRIVERS["OS::Neutron::SecurityGroup"]
SGR = DRIVERS["OS::Neutron::SecurityGroupRule"]


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


def test_net_and_subnet_lifecycle(cloud: Any, cloud_tracker: Any) -> None:
    lineage = uuid.uuid4().hex
    rec = Recorder()
    nctx = make_ctx(cloud, "net", lineage=lineage, rec=rec)
    props = {
        "name": cloud_tracker.name("net"),
        "admin_state_up": True,
        "shared": False,
        "value_specs": {},
        "tags": ["app=web"],
    }
    out = NET.create(nctx, props)
    net_id = out.physical_id
    assert net_id and rec.ids == [net_id]
    assert out.attributes["status"] == "ACTIVE" and out.attributes["subnets"] == []
    assert out.attributes["show"]["id"] == net_id
    live = cloud.network.get_network(net_id)
    assert set(live.tags) == {"app=web", f"hotc-lineage={lineage}", "hotc-address=net"}
    assert NET.find_adoptable(nctx, props) == net_id
    assert NET.find_adoptable(make_ctx(cloud, "net"), props) is None  # another lineage

    # update in place: name, admin_state_up, tags
    new = {**props, "name": cloud_tracker.name("net2"), "admin_state_up": False, "tags": ["app=db"]}
    out = NET.update(nctx, net_id, props, new, fs("name", "admin_state_up", "tags"))
    assert out.physical_id == net_id and out.attributes["name"] == new["name"]
    assert out.attributes["admin_state_up"] is False
    assert set(cloud.network.get_network(net_id).tags) == {
        "app=db",
        f"hotc-lineage={lineage}",
        "hotc-address=net",
    }

    # subnet on the network by NAME, with pools and a gateway
    sctx = make_ctx(cloud, "subnet", lineage=lineage)
    sprops = {
        "network": new["name"],
        "cidr": "10.77.1.0/24",
        "ip_version": 4,
        "enable_dhcp": False,
        "gateway_ip": "10.77.1.1",
        "allocation_pools": [{"start": "10.77.1.10", "end": "10.77.1.20"}],
        "dns_nameservers": [],
        "value_specs": {},
    }
    sout = SUBNET.create(sctx, sprops)
    sid = sout.physical_id
    assert sout.attributes["cidr"] == "10.77.1.0/24" and sout.attributes["gateway_ip"] == "10.77.1.1"
    assert sout.attributes["network_id"] == net_id
    assert sout.attributes["allocation_pools"] == [{"start": "10.77.1.10", "end": "10.77.1.20"}]
    assert sout.attributes["name"].startswith("hotc-t-subnet-")  # Heat-style default name
    assert NET.read(nctx, net_id, new).attributes["subnets"] == [sid]  # type: ignore[union-attr]

    snew = {
        **sprops,
        "name": cloud_tracker.name("sub"),
        "gateway_ip": "",
        "allocation_pools": [{"start": "10.77.1.30", "end": "10.77.1.40"}],
        "dns_nameservers": ["10.0.0.53"],
    }
    sout = SUBNET.update(
        sctx, sid, sprops, snew, fs("name", "gateway_ip", "allocation_pools", "dns_nameservers")
    )
    assert sout.attributes["gateway_ip"] is None
    assert sout.attributes["allocation_pools"] == [{"start": "10.77.1.30", "end": "10.77.1.40"}]
    assert sout.attributes["dns_nameservers"] == ["10.0.0.53"]

    # replacement of a non-updatable property (cidr): a new subnet, then the old one goes
    rctx = make_ctx(cloud, "subnet", lineage=lineage)
    rprops = {**snew, "cidr": "10.77.2.0/24", "name": cloud_tracker.name("sub-r"), "allocation_pools": None}
    rout = SUBNET.create(rctx, rprops)
    assert rout.physical_id != sid and rout.attributes["cidr"] == "10.77.2.0/24"
    SUBNET.delete(sctx, sid, snew)
    assert SUBNET.read(sctx, sid, snew) is None
    SUBNET.delete(sctx, sid, snew)  # idempotent
    SUBNET.delete(rctx, rout.physical_id, rprops)  # type: ignore[arg-type]
    NET.delete(nctx, net_id, new)
    assert NET.read(nctx, net_id, new) is None
    NET.delete(nctx, net_id, new)


def test_bad_input_gives_cloud_message(cloud: Any, cloud_tracker: Any) -> None:
    with pytest.raises(ProviderError, match="network 'no-such-net-.*' not found"):
        SUBNET.create(
            make_ctx(cloud, "s"), {"network": f"no-such-net-{uuid.uuid4().hex}", "cidr": "10.0.0.0/24"}
        )
    net = NET.create(make_ctx(cloud, "n"), {"name": cloud_tracker.name("bad"), "value_specs": {}})
    with pytest.raises(ProviderError, match=r"create subnet: .*(cidr|CIDR).*\(HTTP 400\)"):
        SUBNET.create(
            make_ctx(cloud, "s"), {"network": net.physical_id, "cidr": "10.0.0.0/99", "ip_version": 4}
        )
    NET.delete(make_ctx(cloud, "n"), net.physical_id, {})  # type: ignore[arg-type]


def test_router_interface_port_floating_ip(cloud: Any, cloud_shared: Any, cloud_tracker: Any) -> None:
    lineage = uuid.uuid4().hex

    def ctx(addr: str) -> Any:
        return make_ctx(cloud, addr, lineage=lineage)

    net = NET.create(ctx("net"), {"name": cloud_tracker.name("net"), "value_specs": {}})
    sub = SUBNET.create(
        ctx("sub"),
        {
            "network": net.physical_id,
            "cidr": "10.78.0.0/24",
            "ip_version": 4,
            "name": cloud_tracker.name("sub"),
            "value_specs": {},
        },
    )
    sub_name = sub.attributes["name"]

    # router with an external gateway given by network NAME; drop and restore the gateway in place
    rprops = {
        "name": cloud_tracker.name("r"),
        "admin_state_up": True,
        "value_specs": {},
        "external_gateway_info": {"network": cloud_shared.public_network_name},
    }
    r = ROUTER.create(ctx("router"), rprops)
    rid = r.physical_id
    assert r.attributes["external_gateway_info"]["network_id"] == cloud_shared.public_network_id
    r2 = ROUTER.update(
        ctx("router"),
        rid,
        rprops,
        {**rprops, "external_gateway_info": None},  # type: ignore[arg-type]
        fs("external_gateway_info"),
    )
    assert not r2.attributes["external_gateway_info"]
    r3 = ROUTER.update(
        ctx("router"),
        rid,
        {**rprops, "external_gateway_info": None},
        rprops,  # type: ignore[arg-type]
        fs("external_gateway_info"),
    )
    assert r3.attributes["external_gateway_info"]["network_id"] == cloud_shared.public_network_id

    # router interface by subnet name; adoptable by the stamp on its port
    iprops = {"router": rid, "subnet": sub_name}
    i = RIF.create(ctx("rif"), iprops)
    assert i.physical_id == f"{rid}:subnet_id={sub.physical_id}"
    assert RIF.read(ctx("rif"), i.physical_id, iprops) is not None  # type: ignore[arg-type]
    assert RIF.find_adoptable(ctx("rif"), iprops) == i.physical_id
    assert RIF.create(ctx("rif"), iprops).physical_id == i.physical_id  # re-create converges

    # port with a fixed ip on the subnet by name, security groups by name; update in place
    sg = SG.create(ctx("sg"), {"name": cloud_tracker.name("sg"), "rules": []})
    pprops = {
        "network": net.attributes["name"],
        "name": cloud_tracker.name("port"),
        "value_specs": {},
        "fixed_ips": [{"subnet": sub_name, "ip_address": "10.78.0.50"}],
        "security_groups": ["default"],
        "admin_state_up": True,
    }
    p = PORT.create(ctx("port"), pprops)
    pid = p.physical_id
    assert p.attributes["fixed_ips"] == [{"subnet_id": sub.physical_id, "ip_address": "10.78.0.50"}]
    assert p.attributes["mac_address"] and p.attributes["subnets"][0]["cidr"] == "10.78.0.0/24"
    pnew = {
        **pprops,
        "fixed_ips": [{"subnet": sub.physical_id, "ip_address": "10.78.0.51"}],
        "security_groups": [sg.attributes["show"]["name"]],
        "allowed_address_pairs": [{"ip_address": "10.78.0.200"}],
        "admin_state_up": False,
    }
    p2 = PORT.update(
        ctx("port"),
        pid,
        pprops,
        pnew,  # type: ignore[arg-type]
        fs("fixed_ips", "security_groups", "allowed_address_pairs", "admin_state_up"),
    )
    assert p2.physical_id == pid
    assert p2.attributes["fixed_ips"][0]["ip_address"] == "10.78.0.51"
    assert p2.attributes["security_groups"] == [sg.physical_id]
    assert p2.attributes["allowed_address_pairs"][0]["ip_address"] == "10.78.0.200"
    assert p2.attributes["admin_state_up"] is False

    # floating IP on the public network, on the port; move off the port in place; association resource
    fprops = {"floating_network": cloud_shared.public_network_name, "port_id": pid, "value_specs": {}}
    f = FIP.create(ctx("fip"), fprops)
    fid = f.physical_id
    assert f.attributes["floating_ip_address"].startswith("172.24.4.")
    assert f.attributes["port_id"] == pid and f.attributes["fixed_ip_address"] == "10.78.0.51"
    assert FIP.find_adoptable(ctx("fip"), fprops) == fid
    f2 = FIP.update(ctx("fip"), fid, fprops, {**fprops, "port_id": None}, fs("port_id"))  # type: ignore[arg-type]
    assert f2.attributes["port_id"] is None
    aprops = {"floatingip_id": fid, "port_id": pid}
    a = FIPA.create(ctx("assoc"), aprops)
    assert a.physical_id == f"{fid}:{pid}"
    assert cloud.network.get_ip(fid).port_id == pid
    assert FIPA.find_adoptable(ctx("assoc"), aprops) == a.physical_id
    # move the association to another port in place (its id follows the port)
    p2 = PORT.create(ctx("port2"), {"network": net.physical_id, "value_specs": {}})
    aprops2 = {"floatingip_id": fid, "port_id": p2.physical_id}
    a2 = FIPA.update(ctx("assoc"), a.physical_id, aprops, aprops2, fs("port_id"))  # type: ignore[arg-type]
    assert a2.physical_id == f"{fid}:{p2.physical_id}" and cloud.network.get_ip(fid).port_id == p2.physical_id
    assert FIPA.read(ctx("assoc"), a.physical_id, aprops) is None  # type: ignore[arg-type]
    FIPA.delete(ctx("assoc"), a.physical_id, aprops)  # type: ignore[arg-type]  # stale id: leaves p2's alone
    assert cloud.network.get_ip(fid).port_id == p2.physical_id
    FIPA.delete(ctx("assoc"), a2.physical_id, aprops2)  # type: ignore[arg-type]
    assert cloud.network.get_ip(fid).port_id is None
    assert FIPA.read(ctx("assoc"), a2.physical_id, aprops2) is None  # type: ignore[arg-type]
    PORT.delete(ctx("port2"), p2.physical_id, {})  # type: ignore[arg-type]

    # tear down in Heat's reverse order, each delete idempotent
    FIP.delete(ctx("fip"), fid, fprops)  # type: ignore[arg-type]
    assert FIP.read(ctx("fip"), fid, fprops) is None  # type: ignore[arg-type]
    PORT.delete(ctx("port"), pid, pnew)  # type: ignore[arg-type]
    PORT.delete(ctx("port"), pid, pnew)  # type: ignore[arg-type]
    SG.delete(ctx("sg"), sg.physical_id, {})  # type: ignore[arg-type]
    RIF.delete(ctx("rif"), i.physical_id, iprops)  # type: ignore[arg-type]
    assert RIF.read(ctx("rif"), i.physical_id, iprops) is None  # type: ignore[arg-type]
    RIF.delete(ctx("rif"), i.physical_id, iprops)  # type: ignore[arg-type]
    ROUTER.delete(ctx("router"), rid, rprops)  # type: ignore[arg-type]
    assert ROUTER.read(ctx("router"), rid, rprops) is None  # type: ignore[arg-type]
    SUBNET.delete(ctx("sub"), sub.physical_id, {})  # type: ignore[arg-type]
    NET.delete(ctx("net"), net.physical_id, {})  # type: ignore[arg-type]


def _rules(cloud: Any, sg_id: str) -> set[tuple[Any, ...]]:
    return {
        (r.direction, r.ether_type, r.protocol, r.port_range_min, r.port_range_max, r.remote_ip_prefix)
        for r in cloud.network.security_group_rules(security_group_id=sg_id)
    }


def test_security_group_rules_diff_and_rule_resource(cloud: Any, cloud_tracker: Any) -> None:
    ctx = make_ctx(cloud, "sg")
    props = {
        "name": cloud_tracker.name("sg"),
        "description": "web",
        "rules": [
            {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22, "remote_ip_prefix": "10.0.0.0/8"},
            {"direction": "egress", "protocol": "tcp", "port_range_min": 443, "port_range_max": 443},
        ],
    }
    sg = SG.create(ctx, props)
    sid = sg.physical_id
    assert sid is not None
    # the template has egress rules of its own: Neutron's default egress rules are gone, as in Heat
    assert _rules(cloud, sid) == {
        ("ingress", "IPv4", "tcp", 22, 22, "10.0.0.0/8"),
        ("egress", "IPv4", "tcp", 443, 443, None),
    }
    new = {
        **props,
        "description": "web2",
        "rules": [
            {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22, "remote_ip_prefix": "10.0.0.0/8"},
            {"protocol": "icmp"},
        ],
    }
    keep = next(
        r.id for r in cloud.network.security_group_rules(security_group_id=sid) if r.port_range_min == 22
    )
    out = SG.update(ctx, sid, props, new, fs("rules", "description"))
    assert out.attributes["show"]["description"] == "web2"
    rules = _rules(cloud, sid)
    assert ("ingress", "IPv4", "icmp", None, None, None) in rules
    assert ("egress", "IPv4", None, None, None, None) in rules and (
        "egress",
        "IPv6",
        None,
        None,
        None,
        None,
    ) in rules
    assert ("egress", "IPv4", "tcp", 443, 443, None) not in rules
    assert keep in {
        r.id for r in cloud.network.security_group_rules(security_group_id=sid)
    }  # unchanged rule kept

    # a standalone rule: create, read, replace (create new + delete old), delete
    rctx = make_ctx(cloud, "rule")
    rprops = {
        "security_group": props["name"],
        "direction": "ingress",
        "ethertype": "IPv4",
        "protocol": "tcp",
        "port_range_min": 80,
        "port_range_max": 80,
        "remote_ip_prefix": "0.0.0.0/0",
    }
    r1 = SGR.create(rctx, rprops)
    assert SGR.read(rctx, r1.physical_id, rprops) is not None  # type: ignore[arg-type]
    assert SGR.find_adoptable(rctx, rprops) == r1.physical_id
    r2props = {**rprops, "port_range_min": 8080, "port_range_max": 8080}
    r2 = SGR.create(rctx, r2props)
    SGR.delete(rctx, r1.physical_id, rprops)  # type: ignore[arg-type]
    assert SGR.read(rctx, r1.physical_id, rprops) is None  # type: ignore[arg-type]
    assert ("ingress", "IPv4", "tcp", 8080, 8080, "0.0.0.0/0") in _rules(cloud, sid)
    SGR.delete(rctx, r2.physical_id, r2props)  # type: ignore[arg-type]
    SG.delete(ctx, sid, new)
    assert SG.read(ctx, sid, new) is None


def test_adopts_an_untagged_resource_hotc_named(cloud: Any, cloud_tracker: Any) -> None:
    """A run killed between a network's create and its tagging leaves an untagged network with a name hotc
    generated; the next run adopts it (and only that one)."""
    from hotc.providers.openstack.common import physical_name

    ctx = make_ctx(cloud, "orphan", stack=cloud_tracker.name("st"))
    name = physical_name(ctx)
    net = cloud_tracker.track(cloud.network.create_network(name=name))
    assert NET.find_adoptable(ctx, {}) == net.id
    assert NET.find_adoptable(make_ctx(cloud, "other", stack=cloud_tracker.name("st")), {}) is None
    assert NET.find_adoptable(ctx, {"name": "given"}) is None  # a template name is not evidence enough
