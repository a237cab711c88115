"""Octavia L7 policies and rules, flavor profiles and flavors offline, through the fake openstacksdk connection:
a policy and its rules wait for their load balancer to be ACTIVE around each change, read back with no drift,
show a change made outside hotc, update in place (action and redirect, position, rule match), are adopted by
their tags after a killed create, and go when deleted (a policy's rules with it); profiles and flavors (no tags)
are adopted by the name hotc generated."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, drift, driver
from tests.providers.offline.test_octavia import LB, LISTENER, POOL

POLICY, RULE = "OS::Octavia::L7Policy", "OS::Octavia::L7Rule"
FLAVOR, PROFILE = "OS::Octavia::Flavor", "OS::Octavia::FlavorProfile"


def listener_and_pool(conn: FakeConnection) -> tuple[str, str, str]:
    lb = driver(LB).create(ctx_for(conn, "lb", LB), {"vip_subnet": "hotc-private-subnet"})
    lst = driver(LISTENER).create(
        ctx_for(conn, "l", LISTENER),
        {"loadbalancer": lb.physical_id, "protocol": "HTTP", "protocol_port": 80},
    )
    pool = driver(POOL).create(
        ctx_for(conn, "p", POOL),
        {"loadbalancer": lb.physical_id, "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN", "name": "static"},
    )
    return lb.physical_id, lst.physical_id, pool.physical_id


def test_policy_and_rules_create_drift_update_and_delete(conn: FakeConnection) -> None:
    lb_id, listener, pool = listener_and_pool(conn)
    lb = conn.cloud.get("load_balancer", lb_id)
    conn.load_balancer.refusals = 0
    pctx = ctx_for(conn, "policy", POLICY)
    pprops: dict[str, Any] = {"listener": listener, "action": "REDIRECT_TO_POOL", "redirect_pool": "static"}
    pol = driver(POLICY).create(pctx, pprops)
    obj = conn.cloud.get("l7_policy", pol.physical_id)
    assert obj["redirect_pool_id"] == pool and obj["position"] == 1 and obj["provisioning_status"] == "ACTIVE"
    assert lb["provisioning_status"] == "ACTIVE" and conn.load_balancer.refusals == 0
    assert any(t.startswith("hotc-lineage=") for t in obj["tags"])
    assert drift(POLICY, pprops, driver(POLICY).read(pctx, pol.physical_id, pprops)) == []
    # rules under it, each after the load balancer settled
    rctx = ctx_for(conn, "rule", RULE)
    rprops: dict[str, Any] = {
        "l7policy": pol.physical_id,
        "type": "PATH",
        "compare_type": "STARTS_WITH",
        "value": "/s",
    }
    rule = driver(RULE).create(rctx, rprops)
    hctx = ctx_for(conn, "hdr", RULE)
    hprops: dict[str, Any] = {
        "l7policy": pol.physical_id,
        "type": "HEADER",
        "compare_type": "EQUAL_TO",
        "key": "X-App",
        "value": "v2",
        "invert": True,
    }
    hdr = driver(RULE).create(hctx, hprops)
    assert conn.load_balancer.refusals == 0
    live = driver(POLICY).read(pctx, pol.physical_id, pprops)
    assert live is not None and {r["id"] for r in live.attributes["rules"]} == {
        rule.physical_id,
        hdr.physical_id,
    }
    assert drift(RULE, rprops, driver(RULE).read(rctx, rule.physical_id, rprops)) == []
    assert drift(RULE, hprops, driver(RULE).read(hctx, hdr.physical_id, hprops)) == []
    # outside hotc: the rule's value and the policy's state
    conn.cloud.get("l7_rule", rule.physical_id)["value"] = "/other"
    obj["admin_state_up"] = False
    assert drift(RULE, rprops, driver(RULE).read(rctx, rule.physical_id, rprops)) == ["value"]
    assert drift(POLICY, pprops, driver(POLICY).read(pctx, pol.physical_id, pprops)) == ["admin_state_up"]
    # in place: the policy becomes a URL redirect, the rule matches another path
    new_p = {
        "listener": listener,
        "action": "REDIRECT_TO_URL",
        "redirect_url": "https://example.org",
        "admin_state_up": True,
    }
    driver(POLICY).update(
        pctx,
        pol.physical_id,
        pprops,
        new_p,
        frozenset({"action", "redirect_url", "redirect_pool", "admin_state_up"}),
    )
    assert (
        obj["action"] == "REDIRECT_TO_URL"
        and obj["redirect_pool_id"] is None
        and obj["admin_state_up"] is True
    )
    assert drift(POLICY, new_p, driver(POLICY).read(pctx, pol.physical_id, new_p)) == []
    new_r = dict(rprops, compare_type="REGEX", value="^/s.*")
    driver(RULE).update(rctx, rule.physical_id, rprops, new_r, frozenset({"compare_type", "value"}))
    r = conn.cloud.get("l7_rule", rule.physical_id)
    assert r["compare_type"] == "REGEX" and r["value"] == "^/s.*"
    assert conn.load_balancer.refusals == 0
    # delete: a rule, then the policy with what is left under it
    driver(RULE).delete(rctx, rule.physical_id, new_r)
    assert conn.cloud.find("l7_rule", rule.physical_id) is None
    driver(POLICY).delete(pctx, pol.physical_id, new_p)
    assert (
        conn.cloud.find("l7_policy", pol.physical_id) is None
        and conn.cloud.find("l7_rule", hdr.physical_id) is None
    )
    assert driver(RULE).read(hctx, hdr.physical_id, hprops) is None  # gone with its policy
    driver(RULE).delete(hctx, hdr.physical_id, hprops)


def test_policy_positions_are_kept_and_updated(conn: FakeConnection) -> None:
    _lb, listener, _pool = listener_and_pool(conn)
    first = driver(POLICY).create(ctx_for(conn, "a", POLICY), {"listener": listener, "action": "REJECT"})
    ctx = ctx_for(conn, "b", POLICY)
    props: dict[str, Any] = {"listener": listener, "action": "REJECT", "position": 1}
    second = driver(POLICY).create(ctx, props)
    assert conn.cloud.get("l7_policy", second.physical_id)["position"] == 1
    assert conn.cloud.get("l7_policy", first.physical_id)["position"] == 2
    assert drift(POLICY, props, driver(POLICY).read(ctx, second.physical_id, props)) == []
    new = dict(props, position=2.0)  # a Number property: 2.0 is position 2
    driver(POLICY).update(ctx, second.physical_id, props, new, frozenset({"position"}))
    assert conn.cloud.get("l7_policy", second.physical_id)["position"] == 2
    assert drift(POLICY, new, driver(POLICY).read(ctx, second.physical_id, new)) == []


def test_policy_and_rule_of_a_killed_create_are_adopted_by_their_tags(conn: FakeConnection) -> None:
    _lb, listener, _pool = listener_and_pool(conn)
    ctx = ctx_for(conn, "policy", POLICY)
    conn.cloud.fail_next("load_balancer.get_l7_policy", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(POLICY).create(ctx, {"listener": listener, "action": "REJECT"})
    (made,) = conn.cloud.all("l7_policy")
    conn.cloud.settle()
    again = ctx_for(conn, "policy", POLICY, lineage=ctx.lineage)
    assert driver(POLICY).find_adoptable(again, {"listener": listener, "action": "REJECT"}) == made["id"]
    assert driver(POLICY).find_adoptable(ctx_for(conn, "policy", POLICY), {"listener": listener}) is None
    rctx = ctx_for(conn, "rule", RULE)
    rprops = {"l7policy": made["id"], "type": "HOST_NAME", "compare_type": "EQUAL_TO", "value": "a.example"}
    conn.cloud.fail_next("load_balancer.get_l7_rule", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(RULE).create(rctx, rprops)
    (rule,) = conn.cloud.all("l7_rule")
    conn.cloud.settle()
    assert (
        driver(RULE).find_adoptable(ctx_for(conn, "rule", RULE, lineage=rctx.lineage), rprops) == rule["id"]
    )


def test_flavor_profile_and_flavor_create_drift_update_adopt_and_delete(conn: FakeConnection) -> None:
    fctx = ctx_for(conn, "fp", PROFILE)
    fprops: dict[str, Any] = {
        "flavor_data": '{"loadbalancer_topology": "SINGLE"}',
        "provider_name": "amphora",
    }
    fp = driver(PROFILE).create(fctx, fprops)
    prof = conn.cloud.get("lb_flavor_profile", fp.physical_id)
    assert prof["name"].startswith("hotc-t-fp-")
    assert drift(PROFILE, fprops, driver(PROFILE).read(fctx, fp.physical_id, fprops)) == []
    prof["flavor_data"] = '{"loadbalancer_topology":"SINGLE"}'  # the same JSON, written otherwise
    assert drift(PROFILE, fprops, driver(PROFILE).read(fctx, fp.physical_id, fprops)) == []
    prof["flavor_data"] = '{"loadbalancer_topology": "ACTIVE_STANDBY"}'
    assert drift(PROFILE, fprops, driver(PROFILE).read(fctx, fp.physical_id, fprops)) == ["flavor_data"]
    new_fp = dict(fprops, flavor_data='{"compute_flavor": "m1.small"}', name="prof")
    driver(PROFILE).update(fctx, fp.physical_id, fprops, new_fp, frozenset({"flavor_data", "name"}))
    assert prof["flavor_data"] == '{"compute_flavor": "m1.small"}' and prof["name"] == "prof"
    ctx = ctx_for(conn, "flavor", FLAVOR)
    props: dict[str, Any] = {"flavor_profile": "prof", "description": "small"}
    fl = driver(FLAVOR).create(ctx, props)
    obj = conn.cloud.get("lb_flavor", fl.physical_id)
    assert obj["flavor_profile_id"] == fp.physical_id and fl.attributes["flavor_profile_id"] == fp.physical_id
    assert drift(FLAVOR, props, driver(FLAVOR).read(ctx, fl.physical_id, props)) == []
    obj["enabled"] = False
    assert drift(FLAVOR, props, driver(FLAVOR).read(ctx, fl.physical_id, props)) == ["enabled"]
    new = dict(props, description="smaller", enabled=True, name="lbf")
    driver(FLAVOR).update(ctx, fl.physical_id, props, new, frozenset({"description", "enabled", "name"}))
    assert obj["description"] == "smaller" and obj["enabled"] is True and obj["name"] == "lbf"
    assert drift(FLAVOR, new, driver(FLAVOR).read(ctx, fl.physical_id, new)) == []
    # a profile in use can neither change (as in Heat, Octavia's 409 fails the update) nor go
    with pytest.raises(ProviderError, match="in use"):
        driver(PROFILE).update(fctx, fp.physical_id, new_fp, dict(new_fp, name="p3"), frozenset({"name"}))
    with pytest.raises(ProviderError, match="in use"):
        driver(PROFILE).delete(fctx, fp.physical_id, new_fp)
    driver(FLAVOR).delete(ctx, fl.physical_id, new)
    driver(PROFILE).delete(fctx, fp.physical_id, new_fp)
    assert conn.cloud.all("lb_flavor") == [] and conn.cloud.all("lb_flavor_profile") == []
    assert driver(FLAVOR).read(ctx, fl.physical_id, new) is None
    driver(FLAVOR).delete(ctx, fl.physical_id, new)  # already gone


def test_flavor_profile_of_a_killed_create_is_adopted_by_its_generated_name(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "fp", PROFILE)
    conn.cloud.fail_next("load_balancer.get_flavor_profile", RuntimeError("killed"))
    with pytest.raises(ProviderError):
        driver(PROFILE).create(ctx, {"flavor_data": "{}"})
    (made,) = conn.cloud.all("lb_flavor_profile")
    assert driver(PROFILE).find_adoptable(ctx_for(conn, "fp", PROFILE), {"flavor_data": "{}"}) == made["id"]
    assert driver(PROFILE).find_adoptable(ctx_for(conn, "fp", PROFILE), {"name": "given"}) is None
    with pytest.raises(ProviderError, match="not JSON"):
        driver(PROFILE).create(ctx_for(conn, "bad", PROFILE), {"flavor_data": "{nope"})


def test_a_child_refused_while_a_sibling_holds_the_load_balancer_waits_and_is_made(
    conn: FakeConnection,
) -> None:
    from tests.providers.fakesdk import conflict

    lb = driver(LB).create(ctx_for(conn, "lb", LB), {"vip_subnet": "hotc-private-subnet"})
    busy = [conflict(f"Load Balancer {lb.physical_id} is immutable and cannot be updated.") for _ in range(4)]
    # siblings made in parallel take the load balancer between this child's wait and its call, four times over
    conn.cloud.fail_next("load_balancer.create_listener", *busy)
    props = {"loadbalancer": lb.physical_id, "protocol": "HTTP", "protocol_port": 80}
    out = driver(LISTENER).create(ctx_for(conn, "l", LISTENER), props)
    assert conn.cloud.count("load_balancer.create_listener") == 5 and len(conn.cloud.all("listener")) == 1
    pol = driver(POLICY).create(ctx_for(conn, "p", POLICY), {"listener": out.physical_id, "action": "REJECT"})
    conn.cloud.fail_next("load_balancer.update_l7_policy", *busy[:2])
    ctx = ctx_for(conn, "p", POLICY)
    old = {"listener": out.physical_id, "action": "REJECT"}
    driver(POLICY).update(ctx, pol.physical_id, old, dict(old, name="n"), frozenset({"name"}))
    assert conn.cloud.get("l7_policy", pol.physical_id)["name"] == "n"
    # another conflict is not the load balancer being busy: it fails as before
    conn.cloud.fail_next("load_balancer.create_listener", *[conflict("port 80 in use")] * 3)
    with pytest.raises(ProviderError, match="in use"):
        driver(LISTENER).create(ctx_for(conn, "l2", LISTENER), props)
