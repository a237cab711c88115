"""Attributes of a parent that list its children (a QoS policy's ``rules``, a provider network's ``subnets``) on
Heat 27 of the test cloud and through the hotc CLI, on the same template, step by step: what the outputs and a
resource reading the attribute (a Value that depends on the children) say is the same in both.

Heat resolves such an attribute when the parent's create or update ends and keeps that value for the outputs and
for the resources that read it (a no-change update keeps it too); only a write of the parent reads it again (its
``resource show`` is live). The children are made after their parent, so right after the create the lists are
empty in both, and they list the children once the parent is written again. hotc records a resource's
attributes at the same moments, and a refresh (``--refresh``, Heat has none) reads them from the cloud."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  description: {type: string, default: first}
  pnet_name: {type: string, default: first}
  third: {type: boolean, default: false}
conditions:
  third: {get_param: third}
resources:
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {description: {get_param: description}}
  bw:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: {get_resource: qos}, max_kbps: 1000}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties: {policy: {get_resource: qos}, dscp_mark: 16}
  minbw:
    type: OS::Neutron::QoSMinimumBandwidthRule
    condition: third
    properties: {policy: {get_resource: qos}, min_kbps: 100}
  pnet:
    type: OS::Neutron::ProviderNet
    properties: {network_type: vxlan, shared: false, name: {get_param: pnet_name}}
  sub:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: pnet}, cidr: CIDR}
  after:
    type: OS::Heat::Value
    depends_on: [bw, dscp]
    properties: {value: {get_attr: [qos, rules]}}
outputs:
  rules: {value: {get_attr: [qos, rules]}}
  after: {value: {get_attr: [after, value]}}
  subnets: {value: {get_attr: [pnet, subnets]}}
"""


def summary(outputs: dict[str, Any], sub_id: str) -> dict[str, Any]:
    """What the outputs say, without the ids that differ between the two stacks: the rule types listed, and
    whether the network lists its subnet."""
    return {
        "rules": sorted(r["type"] for r in outputs["rules"] or []),
        "after": sorted(r["type"] for r in outputs["after"] or []),
        "subnets": [s == sub_id for s in outputs["subnets"] or []],
    }


def test_heat_and_hotc_agree_on_attributes_that_list_children(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    p = cloud_tracker.prefix
    heat_template = yaml.safe_load(TEMPLATE.replace("CIDR", "10.211.0.0/24"))
    heat_template["heat_template_version"] = "2018-08-31"  # (YAML reads the version as a date)
    (tmp_path / "t.yaml").write_text(TEMPLATE.replace("CIDR", "10.212.0.0/24"))
    stack = cloud_tracker.name("attrs")

    st = heat.create_stack(
        name=cloud_tracker.name("heat"), template=heat_template, parameters={"pnet_name": f"{p}-h1"}
    )
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    def heat_update(values: dict[str, Any]) -> None:
        before = heat.get_stack(st.id).updated_at
        heat.update_stack(st.id, template=heat_template, parameters=values)
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            now = heat.get_stack(st.id)
            if now.updated_at != before and now.status in ("UPDATE_COMPLETE", "UPDATE_FAILED"):
                assert now.status == "UPDATE_COMPLETE", now.status_reason
                return
            time.sleep(2)
        raise AssertionError("Heat's update did not finish")

    def heat_says() -> dict[str, Any]:
        outs = {o["output_key"]: o["output_value"] for o in heat.get_stack(st.id).outputs}
        sub = next(r.physical_resource_id for r in heat.resources(st.id) if r.name == "sub")
        return summary(outs, sub)

    def hotc_apply(values: dict[str, str], *extra: str) -> None:
        args = [a for k, v in values.items() for a in ("--parameter", f"{k}={v}")]
        r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", *args, *extra, stack, "--auto-approve")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    def hotc_says() -> dict[str, Any]:
        r = hotc(tmp_path, hotc_cloud_env, "output", stack, "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        outs = {k: v["value"] for k, v in json.loads(r.stdout).items()}
        r = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, "sub", "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        return summary(outs, json.loads(r.stdout)["physical_id"])

    hotc_values = {"pnet_name": f"{p}-o1"}
    hotc_apply(hotc_values)
    cloud_tracker.defer(
        "hotc stack", lambda: hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    )

    # right after the create: the children came after their parent, so neither lists them
    empty = {"rules": [], "after": [], "subnets": []}
    assert heat_says() == empty
    assert hotc_says() == empty

    # an update that leaves the parents alone (a third rule): still as of the parents' create, in both
    heat_update({"pnet_name": f"{p}-h1", "third": "true"})
    hotc_values = {**hotc_values, "third": "true"}
    hotc_apply(hotc_values)
    assert heat_says() == empty
    assert hotc_says() == empty

    # the parents written again (the policy's description, the network's name): now they list their children,
    # and ``after``, whose value is the policy's new one, is updated with them, in both
    three = ["bandwidth_limit", "dscp_marking", "minimum_bandwidth"]
    listed = {"rules": three, "after": three, "subnets": [True]}
    heat_update({"pnet_name": f"{p}-h2", "third": "true", "description": "second"})
    hotc_values = {"pnet_name": f"{p}-o2", "third": "true", "description": "second"}
    hotc_apply(hotc_values)
    assert heat_says() == listed
    assert hotc_says() == listed

    # hotc's refresh (Heat has none) reads the attributes from the cloud: a rule removed is gone from the list
    hotc_values = {**hotc_values, "third": "false"}
    hotc_apply(hotc_values)
    assert hotc_says()["rules"] == listed["rules"]  # the policy was not written: as of its update
    hotc_apply(hotc_values, "--refresh")
    assert hotc_says()["rules"] == ["bandwidth_limit", "dscp_marking"]

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
