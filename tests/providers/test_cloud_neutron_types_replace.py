"""What ``test_cloud_neutron_types.py`` leaves out, against the test cloud's real Neutron through the hotc CLI: a
QoS policy replaced (its ``tenant_id``: Heat's schema does not update it) with its rules; an address scope
replaced (its ``ip_version``); the DSCP, minimum-bandwidth and minimum-packet-rate rules updated in place (their
values) and replaced (moved to another policy, as Heat replaces a rule whose ``policy`` changes). Every check asks
openstacksdk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.providers.test_cloud_neutron_types import Cli, actions, sweeper

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  tenant: {type: string, default: ''}
  ip_version: {type: number, default: 4}
  rules_on: {type: string, default: first}
  mark: {type: number, default: 16}
  kbps: {type: number, default: 100}
  kpps: {type: number, default: 10}
conditions:
  has_tenant: {not: {equals: [{get_param: tenant}, '']}}
  on_second: {equals: [{get_param: rules_on}, second]}
resources:
  scope:
    type: OS::Neutron::AddressScope
    properties:
      name: {list_join: ['-', [{get_param: OS::stack_name}, scope]]}
      ip_version: {get_param: ip_version}
  first:
    type: OS::Neutron::QoSPolicy
    properties:
      tenant_id: {if: [has_tenant, {get_param: tenant}, null]}
  second:
    type: OS::Neutron::QoSPolicy
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties:
      policy: {if: [on_second, {get_resource: second}, {get_resource: first}]}
      dscp_mark: {get_param: mark}
  minbw:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties:
      policy: {if: [on_second, {get_resource: second}, {get_resource: first}]}
      min_kbps: {get_param: kbps}
  minpps:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties:
      policy: {if: [on_second, {get_resource: second}, {get_resource: first}]}
      min_kpps: {get_param: kpps}
      direction: any
"""


def rules_of(net: Any, policy_id: str) -> dict[str, dict[str, Any]]:
    return {r["type"]: r for r in net.get_qos_policy(policy_id).rules}


def test_qos_policy_address_scope_and_rules_update_and_replace(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    net = cloud.network
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("rep")
    cloud_tracker.defer("neutron qos/scopes", sweeper(cloud, p))
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    cli = Cli(tmp_path, hotc_cloud_env, "t.yaml")
    cloud_tracker.defer("hotc stack", lambda: cli.run("destroy", stack, "--auto-approve"))
    values: dict[str, Any] = {}

    cli.apply(stack, values)
    [scope] = [s for s in net.address_scopes() if s.name == f"{stack}-scope"]
    [first] = [q for q in net.qos_policies() if str(q.name).startswith(f"{stack}-first-")]
    [second] = [q for q in net.qos_policies() if str(q.name).startswith(f"{stack}-second-")]
    rules = rules_of(net, first.id)
    assert set(rules) == {"dscp_marking", "minimum_bandwidth", "minimum_packet_rate"}
    assert rules["minimum_bandwidth"]["min_kbps"] == 100 and rules["minimum_packet_rate"]["min_kpps"] == 10
    assert scope.ip_version == 4 and first.project_id == cloud.current_project_id
    cli.no_change(stack, values)

    # in place: each rule's value (the same rule objects)
    values = {"mark": 26, "kbps": 200, "kpps": 20}
    assert actions(cli.plan(stack, values)) == {"dscp": "update", "minbw": "update", "minpps": "update"}
    cli.apply(stack, values)
    after = rules_of(net, first.id)
    assert {t: r["id"] for t, r in after.items()} == {t: r["id"] for t, r in rules.items()}
    assert after["dscp_marking"]["dscp_mark"] == 26 and after["minimum_bandwidth"]["min_kbps"] == 200
    assert after["minimum_packet_rate"]["min_kpps"] == 20
    cli.no_change(stack, values)

    # replaced: the rules moved to the second policy (new rule objects there, none left on the first)
    values = {**values, "rules_on": "second"}
    assert actions(cli.plan(stack, values)) == {"dscp": "replace", "minbw": "replace", "minpps": "replace"}
    cli.apply(stack, values)
    assert rules_of(net, first.id) == {}
    moved = rules_of(net, second.id)
    assert set(moved) == set(after) and not {r["id"] for r in moved.values()} & {
        r["id"] for r in after.values()
    }
    assert (
        moved["minimum_packet_rate"]["min_kpps"] == 20 and moved["minimum_packet_rate"]["direction"] == "any"
    )
    cli.no_change(stack, values)

    # replaced: a policy for another project (Heat does not update tenant_id), a scope of another IP version
    demo = cloud.identity.find_project("demo")
    values = {**values, "tenant": demo.id, "ip_version": 6}
    assert actions(cli.plan(stack, values)) == {"first": "replace", "scope": "replace"}
    cli.apply(stack, values)
    assert net.find_qos_policy(first.id) is None and net.find_address_scope(scope.id) is None
    [first2] = [q for q in net.qos_policies() if str(q.name).startswith(f"{stack}-first-")]
    [scope2] = [s for s in net.address_scopes() if s.name == f"{stack}-scope"]
    assert first2.id != first.id and first2.project_id == demo.id
    assert scope2.ip_version == 6
    cli.no_change(stack, values)

    cli.destroy(stack)
    assert net.find_qos_policy(first2.id) is None and net.find_qos_policy(second.id) is None
    assert net.find_address_scope(scope2.id) is None
