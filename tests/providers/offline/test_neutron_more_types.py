"""The less common Neutron types offline, through the fake openstacksdk connection: AddressScope, SubnetPool,
QoSPolicy and its four rule types, Trunk, ProviderNet, RouterGateway — create/read/update/delete, no drift right
after a create, an out-of-band change seen as exactly what it touched, adoption after a killed run, and
Neutron's refusals reported."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import ERROR, NOOP, REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver

N = "OS::Neutron::"
SCOPE, POOL, QOS, TRUNK, PNET, GW = (
    N + t for t in ("AddressScope", "SubnetPool", "QoSPolicy", "Trunk", "ProviderNet", "RouterGateway")
)
RULES = {
    N + "QoSBandwidthLimitRule": ("qos_bandwidth_limit_rule", {"max_kbps": 1000}, {"max_kbps": 2000}),
    N + "QoSDscpMarkingRule": ("qos_dscp_marking_rule", {"dscp_mark": 16}, {"dscp_mark": 26}),
    N + "QoSMinimumBandwidthRule": ("qos_minimum_bandwidth_rule", {"min_kbps": 100}, {"min_kbps": 200}),
    N + "QoSMinimumPacketRateRule": (
        "qos_minimum_packet_rate_rule",
        {"min_kpps": 10, "direction": "any"},
        {"min_kpps": 20},
    ),
}


def rt(name: str) -> Any:
    t = get_schema(name)
    assert t is not None
    return t


# ------------------------------------------------------------------------------- address scope + subnet pool


def test_address_scope_and_subnet_pool_lifecycle(conn: FakeConnection) -> None:
    sctx = ctx_for(conn, "scope", SCOPE)
    scope = driver(SCOPE).create(sctx, {"name": "s1"})
    assert conn.cloud.get("address_scope", scope.physical_id)["ip_version"] == 4
    sprops = {"name": "s1"}
    assert drift(SCOPE, sprops, driver(SCOPE).read(sctx, scope.physical_id, sprops)) == []

    pctx = ctx_for(conn, "pool", POOL)
    d = driver(POOL)
    props: dict[str, Any] = {
        "address_scope": "s1",
        "prefixes": ["10.60.0.0/24", "10.60.1.0/24"],  # Neutron stores them merged: 10.60.0.0/23
        "default_prefixlen": 26,
        "tags": ["green"],
    }
    out = d.create(pctx, props)
    obj = conn.cloud.get("subnet_pool", out.physical_id)
    assert obj["prefixes"] == ["10.60.0.0/23"] and obj["address_scope_id"] == scope.physical_id
    assert "green" in obj["tags"] and f"hotc-lineage={pctx.lineage}" in obj["tags"]
    live = d.read(pctx, out.physical_id, props)
    assert drift(POOL, props, live) == []  # the merged prefixes are the same address space
    assert live.properties["address_scope"] == "s1"  # as the template named it
    obj["default_prefixlen"] = 28
    assert drift(POOL, props, d.read(pctx, out.physical_id, props)) == ["default_prefixlen"]

    new = dict(props, prefixes=[*props["prefixes"], "10.61.0.0/24"], address_scope=None, default_prefixlen=26)
    d.update(pctx, out.physical_id, props, new, frozenset({"prefixes", "address_scope", "default_prefixlen"}))
    assert obj["prefixes"] == ["10.60.0.0/23", "10.61.0.0/24"] and obj["address_scope_id"] is None
    assert obj["default_prefixlen"] == 26
    assert d.find_adoptable(pctx, new) == out.physical_id  # found again by the stamp

    # an address scope in use cannot go: Neutron's 409 (retried, then reported)
    d.update(pctx, out.physical_id, new, props, frozenset({"address_scope"}))
    with pytest.raises(ProviderError, match="subnet pools in use"):
        driver(SCOPE).delete(sctx, scope.physical_id, sprops)
    d.delete(pctx, out.physical_id, props)
    driver(SCOPE).delete(sctx, scope.physical_id, sprops)
    assert conn.cloud.all("subnet_pool") == [] and conn.cloud.all("address_scope") == []
    assert d.read(pctx, out.physical_id, props) is None


def test_unnamed_address_scope_is_adopted_by_its_generated_name_only(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "scope", SCOPE)
    d = driver(SCOPE)
    out = d.create(ctx, {})
    assert d.find_adoptable(ctx, {}) == out.physical_id
    assert d.find_adoptable(ctx_for(conn, "other", SCOPE), {}) is None  # another address's name
    conn.network.create_address_scope(name="given")
    assert d.find_adoptable(ctx, {"name": "given"}) is None  # a given name is no evidence it is ours


def test_subnet_pool_schema_rules() -> None:
    pool = rt(POOL)
    bad = [v(apply_defaults(pool, {"prefixes": ["10.0.0.0/8"], "min_prefixlen": 28, "max_prefixlen": 24}))
           for v in pool.validators]  # fmt: skip
    assert [p for hits in bad for p, _ in hits] == ["min_prefixlen"]
    ok = {"prefixes": ["10.0.0.0/8"], "min_prefixlen": 16, "default_prefixlen": 24, "max_prefixlen": 28}
    assert [h for v in pool.validators for h in v(ok)] == []
    old = {"prefixes": ["10.0.0.0/24", "10.0.1.0/24"]}
    assert decide_update(pool, old, {"prefixes": ["10.0.0.0/23", "10.9.0.0/24"]}).kind == UPDATE  # a superset
    shrunk = decide_update(pool, old, {"prefixes": ["10.0.0.0/24"]})
    assert shrunk.kind == ERROR and shrunk.errors[0][0] == "prefixes"
    assert decide_update(pool, old, {**old, "shared": True}).kind == REPLACE


# ------------------------------------------------------------------------------------------- QoS


def test_qos_policy_and_its_rules(conn: FakeConnection) -> None:
    qctx = ctx_for(conn, "qos", QOS)
    policy = driver(QOS).create(qctx, {"name": "q1", "description": "first"})
    qprops = {"name": "q1", "description": "first"}
    assert drift(QOS, qprops, driver(QOS).read(qctx, policy.physical_id, qprops)) == []
    made = {}
    for type_name, (kind, first, second) in RULES.items():
        ctx = ctx_for(conn, kind, type_name)
        d = driver(type_name)
        props = {"policy": "q1", **first}
        out = d.create(ctx, props)
        made[type_name] = (ctx, out.physical_id, props)
        rule = conn.cloud.get(kind, out.physical_id)
        assert rule["qos_policy_id"] == policy.physical_id and all(rule[k] == v for k, v in first.items())
        live = d.read(ctx, out.physical_id, props)
        assert drift(type_name, props, live) == [], type_name
        assert live.attributes["show"]["qos_policy_id"] == policy.physical_id
        # out of band: the value changed; hotc plans it back in place
        (field,) = second
        rule[field] = 7
        assert drift(type_name, props, d.read(ctx, out.physical_id, props)) == [field]
        assert decide_update(rt(type_name), props, {**props, **second}).kind == UPDATE
        d.update(ctx, out.physical_id, props, {**props, **second}, frozenset(second))
        assert rule[field] == second[field]
        assert decide_update(rt(type_name), props, {**props, "policy": "other"}).kind == REPLACE
        # found again by its exact values after a killed run; a second one of the kind is Neutron's 409
        assert d.find_adoptable(ctx, {**props, **second}) == out.physical_id
        with pytest.raises(ProviderError, match="already exists"):
            d.create(ctx, {**props, **second})
    rules = driver(QOS).read(qctx, policy.physical_id, qprops).attributes["rules"]
    assert sorted(r["type"] for r in rules) == [
        "bandwidth_limit",
        "dscp_marking",
        "minimum_bandwidth",
        "minimum_packet_rate",
    ]
    # a rule read with a policy property that no longer names its policy (an import, a rename) is found by
    # scanning the policies
    ctx, rid, props = made[N + "QoSDscpMarkingRule"]
    assert driver(N + "QoSDscpMarkingRule").read(ctx, rid, {"policy": "renamed", "dscp_mark": 26}) is not None
    driver(N + "QoSDscpMarkingRule").delete(ctx, rid, props)
    assert conn.cloud.find("qos_dscp_marking_rule", rid) is None
    driver(N + "QoSDscpMarkingRule").delete(ctx, rid, props)  # deleting what is gone is done
    # deleting the policy takes its rules with it: their reads say gone, their deletes are done
    driver(QOS).delete(qctx, policy.physical_id, qprops)
    for type_name, (ctx, rid, props) in made.items():
        assert driver(type_name).read(ctx, rid, props) is None
        driver(type_name).delete(ctx, rid, props)


def test_qos_rule_schema_constraints() -> None:
    dscp = rt(N + "QoSDscpMarkingRule")
    (c,) = dscp.properties["dscp_mark"].constraints
    assert 16 in c.spec and 2 not in c.spec and 56 in c.spec
    pps = rt(N + "QoSMinimumPacketRateRule")
    assert pps.properties["direction"].constraints[0].spec == ["any", "egress", "ingress"]
    assert rt(N + "QoSBandwidthLimitRule").properties["direction"].default == "egress"


# ------------------------------------------------------------------------------------------ trunk


def test_trunk_subports_update_and_refusals(conn: FakeConnection, seeded: dict[str, Any]) -> None:
    ports = {
        n: conn.network.create_port(network_id=seeded["private"], name=n).id
        for n in ("parent", "a", "b", "c")
    }
    ctx = ctx_for(conn, "trunk", TRUNK)
    d = driver(TRUNK)
    props: dict[str, Any] = {
        "port": "parent",
        "sub_ports": [
            {"port": "a", "segmentation_type": "vlan", "segmentation_id": 101},
            {"port": ports["b"], "segmentation_type": "vlan", "segmentation_id": 102},
        ],
    }
    out = d.create(ctx, props)
    obj = conn.cloud.get("trunk", out.physical_id)
    assert obj["port_id"] == ports["parent"] and {sp["port_id"] for sp in obj["sub_ports"]} == {
        ports["a"],
        ports["b"],
    }
    assert out.attributes["port_id"] == ports["parent"]
    assert drift(TRUNK, props, d.read(ctx, out.physical_id, props)) == []
    # the subports compare as a set
    swapped = dict(props, sub_ports=list(reversed(props["sub_ports"])))
    assert decide_update(rt(TRUNK), props, swapped).kind == NOOP
    # a subport removed outside hotc is drift of sub_ports
    obj["sub_ports"] = [sp for sp in obj["sub_ports"] if sp["port_id"] != ports["b"]]
    assert drift(TRUNK, props, d.read(ctx, out.physical_id, props)) == ["sub_ports"]
    obj["sub_ports"].append({"port_id": ports["b"], "segmentation_type": "vlan", "segmentation_id": 102})
    # in place: b's VLAN changes, a goes, c comes; the removals are made before the additions
    new = dict(
        props,
        name="t2",
        sub_ports=[
            {"port": ports["b"], "segmentation_type": "vlan", "segmentation_id": 110},
            {"port": "c", "segmentation_type": "vlan", "segmentation_id": 103},
        ],
    )
    assert decide_update(rt(TRUNK), props, new).kind == UPDATE
    conn.cloud.calls.clear()
    d.update(ctx, out.physical_id, props, new, frozenset({"name", "sub_ports"}))
    assert obj["name"] == "t2"
    assert {(sp["port_id"], sp["segmentation_id"]) for sp in obj["sub_ports"]} == {
        (ports["b"], 110),
        (ports["c"], 103),
    }
    methods = conn.cloud.methods()
    assert methods.index("network.delete_trunk_subports") < methods.index("network.add_trunk_subports")
    assert drift(TRUNK, new, d.read(ctx, out.physical_id, new)) == []
    # the parent port is immutable: a change fails the update (Heat does not replace a trunk for it)
    assert decide_update(rt(TRUNK), new, dict(new, port="a")).kind == ERROR
    # Neutron refuses to delete a trunk's parent port, and a port already in a trunk as a new parent
    with pytest.raises(Exception, match="parent port"):
        conn.network.delete_port(ports["parent"])
    with pytest.raises(ProviderError, match="not eligible"):
        d.create(ctx_for(conn, "trunk2", TRUNK), {"port": ports["b"]})
    assert d.find_adoptable(ctx, new) == out.physical_id
    d.delete(ctx, out.physical_id, new)
    assert conn.cloud.find("trunk", out.physical_id) is None
    conn.network.delete_port(ports["parent"])


# ------------------------------------------------------------------------------------ provider net


def test_provider_net_fields_and_drift(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "pnet", PNET)
    d = driver(PNET)
    props = {"network_type": "vlan", "physical_network": "public", "segmentation_id": "150", "shared": False}
    out = d.create(ctx, props)
    obj = conn.cloud.get("network", out.physical_id)
    assert obj["provider:network_type"] == "vlan" and obj["provider:physical_network"] == "public"
    assert obj["router:external"] is False and obj["shared"] is False  # Heat's default router_external
    obj["provider:segmentation_id"] = 150  # Neutron answers an integer for the string Heat sends
    assert drift(PNET, props, d.read(ctx, out.physical_id, props)) == []
    obj["router:external"] = True
    assert drift(PNET, props, d.read(ctx, out.physical_id, props)) == ["router_external"]
    d.update(ctx, out.physical_id, props, dict(props, router_external=False, name="p2"),
             frozenset({"router_external", "name"}))  # fmt: skip
    assert obj["router:external"] is False and obj["name"] == "p2"
    assert decide_update(rt(PNET), props, dict(props, tenant_id="other")).kind == REPLACE
    d.delete(ctx, out.physical_id, props)
    assert conn.cloud.find("network", out.physical_id) is None


def test_provider_net_schema_checks() -> None:
    pnet = rt(PNET)

    def hits(props: dict[str, Any]) -> list[str]:
        return [p for v in pnet.validators for p, _ in v(apply_defaults(pnet, props))]

    assert hits({"network_type": "flat", "segmentation_id": "5"}) == ["segmentation_id"]
    assert hits({"network_type": "vxlan", "physical_network": "public"}) == ["physical_network"]
    assert hits({"network_type": "vlan", "physical_network": "public", "segmentation_id": "5"}) == []


# ---------------------------------------------------------------------------------- router gateway


def test_router_gateway_sets_reads_and_clears_the_gateway(
    conn: FakeConnection, seeded: dict[str, Any]
) -> None:
    router = conn.network.create_router(name="r1")
    ctx = ctx_for(conn, "gw", GW)
    d = driver(GW)
    props = {"router_id": "r1", "network": "public"}
    assert d.find_adoptable(ctx, props) is None
    out = d.create(ctx, props)
    assert out.physical_id == f"{router.id}:{seeded['public']}"  # as Heat forms it
    obj = conn.cloud.get("router", router.id)
    assert obj["external_gateway_info"]["network_id"] == seeded["public"]
    live = d.read(ctx, out.physical_id, props)
    assert drift(GW, props, live) == [] and live.properties == {"router_id": "r1", "network": "public"}
    legacy = {"router_id": router.id, "network_id": seeded["public"]}  # the hidden network_id works too
    assert drift(GW, legacy, d.read(ctx, out.physical_id, legacy)) == []
    assert d.find_adoptable(ctx, props) == out.physical_id
    assert decide_update(rt(GW), props, dict(props, network="other")).kind == REPLACE
    # the gateway cleared outside hotc: the gateway resource is gone
    obj["external_gateway_info"] = None
    assert d.read(ctx, out.physical_id, props) is None
    d.delete(ctx, out.physical_id, props)  # nothing to clear
    d.create(ctx, props)
    d.delete(ctx, out.physical_id, props)
    assert not obj["external_gateway_info"]
    with pytest.raises(ProviderError, match="ROUTER_ID:NETWORK_ID"):
        d.read(ctx, "no-colon", props)
