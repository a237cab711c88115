"""OS::Octavia::L7Policy, L7Rule, FlavorProfile and Flavor against the real Octavia of the test cloud (noop
amphora provider; profiles and flavors are admin-only), through the hotc CLI: created; a fresh apply shows no
drift; a rule changed outside hotc shows as drift; what Heat updates in place (a policy's action and redirect,
a rule's match, a profile's data, a flavor's description) keeps the same object; what it does not (a policy's
listener, a rule's policy, a flavor's profile) replaces it; a policy and a flavor made outside hotc are imported
and then managed; destroy deletes. Every check asks openstacksdk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  subnet: {type: string}
  use_second: {type: boolean, default: false}
  url_redirect: {type: boolean, default: false}
  path: {type: string, default: /static}
  topology: {type: string, default: SINGLE}
conditions:
  second: {get_param: use_second}
  to_url: {get_param: url_redirect}
resources:
  lb:
    type: OS::Octavia::LoadBalancer
    properties:
      vip_subnet: {get_param: subnet}
      name: {list_join: ['-', [{get_param: prefix}, lb]]}
  web:
    type: OS::Octavia::Listener
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, protocol_port: 80}
  alt:
    type: OS::Octavia::Listener
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, protocol_port: 8080}
  static:
    type: OS::Octavia::Pool
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, lb_algorithm: ROUND_ROBIN}
  policy:
    type: OS::Octavia::L7Policy
    properties:
      listener: {if: [second, {get_resource: alt}, {get_resource: web}]}
      action: {if: [to_url, REDIRECT_TO_URL, REDIRECT_TO_POOL]}
      redirect_pool: {if: [to_url, null, {get_resource: static}]}
      redirect_url: {if: [to_url, 'https://example.org/', null]}
      position: 1
  rule:
    type: OS::Octavia::L7Rule
    properties:
      l7policy: {get_resource: policy}
      type: PATH
      compare_type: STARTS_WITH
      value: {get_param: path}
  profile:
    type: OS::Octavia::FlavorProfile
    properties:
      provider_name: amphora
      flavor_data: '{"loadbalancer_topology": "SINGLE"}'
  profile2:
    type: OS::Octavia::FlavorProfile
    properties:
      provider_name: amphora
      flavor_data: {str_replace: {template: '{"loadbalancer_topology": "T"}', params: {T: {get_param: topology}}}}
  flavor:
    type: OS::Octavia::Flavor
    properties:
      # Octavia keeps flavor names unique: a replacement (made before the old one goes) needs another name, as
      # under Heat
      name: {list_join: ['-', [{get_param: prefix}, flavor, {if: [second, b, a]}]]}
      description: {get_param: path}
      flavor_profile: {if: [second, {get_resource: profile2}, {get_resource: profile}]}
outputs:
  rules: {value: {get_attr: [policy, rules]}}
  profile_id: {value: {get_attr: [flavor, flavor_profile_id]}}
"""


def test_l7_policy_rule_flavor_profile_and_flavor(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    lbs: list[str] = []
    flavors: list[str] = []
    profiles: list[str] = []

    def cleanup() -> None:
        for lid in lbs:
            cloud.load_balancer.delete_load_balancer(lid, ignore_missing=True, cascade=True)
        for fid in flavors:
            cloud.load_balancer.delete_flavor(fid, ignore_missing=True)
        for pid in profiles:
            cloud.load_balancer.delete_flavor_profile(pid, ignore_missing=True)

    cloud_tracker.defer("octavia load balancer, flavors, profiles", cleanup)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}", "--parameter", f"subnet={cloud_shared.private_subnet_name}"]

    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    apply, plan, resources = cli.apply, cli.plan, cli.ids

    apply()
    ids = resources()
    lbs.append(ids["lb"])
    profiles += [ids["profile"], ids["profile2"]]
    flavors.append(ids["flavor"])
    pol = cloud.load_balancer.get_l7_policy(ids["policy"])
    assert pol.listener_id == ids["web"] and pol.action == "REDIRECT_TO_POOL"
    assert pol.redirect_pool_id == ids["static"] and pol.position == 1
    rule = cloud.load_balancer.get_l7_rule(ids["rule"], ids["policy"])
    assert rule.rule_value == "/static" and rule.compare_type == "STARTS_WITH"
    fl = cloud.load_balancer.get_flavor(ids["flavor"])
    assert fl.flavor_profile_id == ids["profile"] and fl.name == f"{p}-flavor-a"
    prof = cloud.load_balancer.get_flavor_profile(ids["profile"])
    assert json.loads(prof.flavor_data) == {"loadbalancer_topology": "SINGLE"}
    assert plan() == {}
    # a policy's ``rules`` are as of its last create or update, as Heat keeps them for outputs (its rule is made
    # after it): empty until the policy is written again (below)
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "rules", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [], r.stdout + r.stderr

    # drift: the rule's value changed outside hotc, planned back in place
    cloud.load_balancer.update_l7_rule(ids["rule"], ids["policy"], rule_value="/hand")
    _wait_active(cloud, ids["lb"])
    planned = plan()
    assert set(planned) == {"rule"} and planned["rule"]["actions"] == ["update"]
    assert planned["rule"]["changed_paths"] == [["value"]]

    # in place: the policy redirects to a URL, the rule matches another path, the unused profile's data (Octavia
    # refuses to change a profile a flavor uses, under Heat too), the flavor's text
    upd = [
        "--parameter",
        "url_redirect=true",
        "--parameter",
        "path=/assets",
        "--parameter",
        "topology=ACTIVE_STANDBY",
    ]
    planned = plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {
        "policy": ["update"],
        "rule": ["update"],
        "profile2": ["update"],
        "flavor": ["update"],
    }
    apply(*upd)
    pol = cloud.load_balancer.get_l7_policy(ids["policy"])
    assert (
        pol.action == "REDIRECT_TO_URL"
        and pol.redirect_url == "https://example.org/"
        and not pol.redirect_pool_id
    )
    assert cloud.load_balancer.get_l7_rule(ids["rule"], ids["policy"]).rule_value == "/assets"
    prof = cloud.load_balancer.get_flavor_profile(ids["profile2"])
    assert json.loads(prof.flavor_data) == {"loadbalancer_topology": "ACTIVE_STANDBY"}
    assert cloud.load_balancer.get_flavor(ids["flavor"]).description == "/assets"
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "rules", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [{"id": ids["rule"]}], r.stdout + r.stderr
    assert plan(*upd) == {}

    # replaced: the policy's listener (its rule with it), the flavor's profile
    rep = [*upd, "--parameter", "use_second=true"]
    planned = plan(*rep)
    assert set(planned) == {"policy", "rule", "flavor"}
    for c in planned.values():
        assert "create" in c["actions"] and "delete" in c["actions"]
    apply(*rep)
    new = resources()
    flavors.append(new["flavor"])
    assert new["policy"] != ids["policy"] and new["rule"] != ids["rule"] and new["flavor"] != ids["flavor"]
    assert cloud.load_balancer.find_l7_policy(ids["policy"]) is None
    assert cloud.load_balancer.find_flavor(ids["flavor"]) is None
    assert cloud.load_balancer.get_l7_policy(new["policy"]).listener_id == ids["alt"]
    assert cloud.load_balancer.get_flavor(new["flavor"]).flavor_profile_id == ids["profile2"]
    assert plan(*rep) == {}

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    ipol = cloud.load_balancer.create_l7_policy(listener_id=ids["web"], action="REJECT", name=f"{p}-ipol")
    _wait_active(cloud, ids["lb"])
    ifl = cloud.load_balancer.create_flavor(
        name=f"{p}-iflavor", flavor_profile_id=ids["profile2"], description=""
    )
    flavors.append(ifl.id)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  ip: {{type: OS::Octavia::L7Policy, properties: {{name: {p}-ipol, listener: {ids['web']}, action: REJECT}}}}\n"
        f"  if: {{type: OS::Octavia::Flavor, properties: {{name: {p}-iflavor, flavor_profile: {ids['profile2']}}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"ip": ipol.id, "if": ifl.id}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (
        cloud.load_balancer.find_l7_policy(ipol.id) is None
        and cloud.load_balancer.find_flavor(ifl.id) is None
    )

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.load_balancer.find_load_balancer(ids["lb"]) is None
    assert cloud.load_balancer.find_flavor(new["flavor"]) is None
    assert cloud.load_balancer.find_flavor_profile(ids["profile"]) is None


def _wait_active(cloud: Any, lb_id: str) -> None:
    import time

    for _ in range(120):
        if cloud.load_balancer.get_load_balancer(lb_id).provisioning_status == "ACTIVE":
            return
        time.sleep(1)
    raise AssertionError(f"load balancer {lb_id} never became ACTIVE")
