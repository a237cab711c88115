"""A saved refresh plan against the real Neutron of the test cloud, through the hotc CLI: a QoS policy's
``rules`` attribute is recorded when the policy is written (as Heat keeps it), so a rule made outside hotc shows
only in a refresh. ``hotc plan --refresh -o FILE`` plans the Value that reads it; ``hotc apply FILE`` reads the
policy again and gives the Value exactly what the plan showed. A rule added between plan and apply stops the
apply before anything runs, naming what changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hotc.state import backend_from_config
from tests.apply.cloud_cli import hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {name: NAME}
  bw:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: {get_resource: qos}, max_kbps: 1000}
  seen:
    type: OS::Heat::Value
    depends_on: [bw]
    properties: {value: {get_attr: [qos, rules]}}
outputs:
  rules: {value: {get_attr: [qos, rules]}}
"""


def kinds(value: Any) -> list[str]:
    return sorted(r["type"] for r in value or [])


def test_saved_refresh_plan_applies_what_it_read_and_stops_when_the_cloud_moved(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE.replace("NAME", cloud_tracker.name("qos")))
    env = hotc_cloud_env

    def recorded() -> Any:
        return backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)[0]

    def destroy() -> None:
        hotc(tmp_path, env, "destroy", stack, "--auto-approve")

    cloud_tracker.defer(f"stack {stack}", destroy)
    r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    policy = str(recorded().resources["qos"].physical_id)
    assert kinds(recorded().resources["seen"].attributes["value"]) == []  # as Heat keeps it
    cloud.network.create_qos_dscp_marking_rule(policy, dscp_mark=16)  # made outside hotc

    r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, "--refresh", "-o", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    carried = json.loads((tmp_path / "plan.bin").read_text())["plan"]["refreshed_attributes"]
    assert kinds(carried["qos"]["rules"]) == ["bandwidth_limit", "dscp_marking"]
    r = hotc(tmp_path, env, "apply", "plan.bin")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    both = ["bandwidth_limit", "dscp_marking"]
    st = recorded()
    assert kinds(st.resources["seen"].attributes["value"]) == both
    assert kinds(st.outputs["rules"].value) == both
    r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr

    # the cloud moves between the plan and its apply: the apply stops before anything runs
    minbw = cloud.network.create_qos_minimum_bandwidth_rule(policy, min_kbps=100)
    r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, "--refresh", "-o", "plan2.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    cloud.network.delete_qos_minimum_bandwidth_rule(minbw, policy)
    serial = recorded().serial
    r = hotc(tmp_path, env, "apply", "plan2.bin")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "qos.rules" in r.stderr and "changed in the cloud since the plan was made" in r.stderr, r.stderr
    assert "removed" in r.stderr and "minimum_bandwidth" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert recorded().serial == serial  # nothing applied, nothing written
    assert kinds(recorded().resources["seen"].attributes["value"]) == both

    r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.network.find_qos_policy(policy) is None
