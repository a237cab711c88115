"""A saved refresh plan (``hotc plan --refresh -o FILE``, then ``hotc apply FILE``) does what the plan said
(no cloud: the fake SDK and the real Neutron QoS drivers, the in-process CLI).

A QoS policy's ``rules`` are recorded when the policy is written (as Heat keeps them); a rule made outside hotc
shows in the refreshed attribute, and the plan updates the Value that reads it. The plan file carries what the
refresh read; the apply reads those resources again and, when the cloud still says the same, resolves the
dependents from it (before, it resolved the recorded attribute and stopped with "differs from what the plan
promised"). When the cloud changed between the plan and the apply, it stops before anything runs and says what
changed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.state import backend_from_config
from tests.clirun import Result, run_hotc
from tests.providers.fakesdk import FakeConnection

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  qos:
    type: OS::Neutron::QoSPolicy
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


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    c = FakeConnection()
    c.clock.install(monkeypatch)
    c.seed()
    monkeypatch.setattr("hotc.cli.root.cloud", lambda _os_cloud=None, prewarm=False: lambda: c)
    return c


def hotc(tmp: Path, *args: str) -> Result:
    return run_hotc(tmp, *args)


def rule_types(value: Any) -> list[str]:
    return sorted(r["type"] for r in value or [])


def state(tmp: Path) -> Any:
    return backend_from_config(str(tmp / ".hotc"), tmp).read("t")[0]


def created(tmp: Path, conn: FakeConnection) -> str:
    """The stack made, and a DSCP rule added to its policy outside hotc; the policy's id."""
    (tmp / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    st = state(tmp)
    assert st.resources["seen"].attributes["value"] == []  # as Heat keeps it
    policy = str(st.resources["qos"].physical_id)
    conn.network.create_qos_dscp_marking_rule(policy, dscp_mark=16)  # made outside hotc
    return policy


def test_saved_refresh_plan_applies_what_the_refresh_read(tmp_path: Path, conn: FakeConnection) -> None:
    created(tmp_path, conn)
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "--refresh", "-o", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "seen" in r.stdout and "update" in r.stdout.lower(), r.stdout
    saved = json.loads((tmp_path / "plan.bin").read_text())["plan"]
    carried = saved["refreshed_attributes"]
    assert list(carried) == ["qos"] and list(carried["qos"]) == [
        "rules"
    ]  # only what the plan read and changed
    assert rule_types(carried["qos"]["rules"]) == ["bandwidth_limit", "dscp_marking"]

    shown = hotc(tmp_path, "show", "plan.bin", "--format", "json")  # the file still renders as any plan
    assert shown.returncode == 0 and json.loads(shown.stdout)["resource_changes"], shown.stderr
    r = hotc(tmp_path, "apply", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "differs from what the plan promised" not in r.stdout + r.stderr
    st = state(tmp_path)
    both = ["bandwidth_limit", "dscp_marking"]
    assert rule_types(st.resources["qos"].attributes["rules"]) == both
    assert rule_types(st.resources["seen"].attributes["value"]) == both
    assert rule_types(st.outputs["rules"].value) == both

    r = hotc(tmp_path, "plan", "-t", "t.yaml", "--refresh", "--detailed-exitcode", "-o", "again.bin")
    assert r.returncode == 0, r.stdout + r.stderr  # converged: nothing left to do
    assert json.loads((tmp_path / "again.bin").read_text())["plan"]["refreshed_attributes"] == {}


def test_saved_refresh_plan_stops_when_the_cloud_changed_since(tmp_path: Path, conn: FakeConnection) -> None:
    policy = created(tmp_path, conn)
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "--refresh", "-o", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    before = state(tmp_path)
    conn.network.create_qos_minimum_bandwidth_rule(policy, min_kbps=100)  # the cloud moves again

    r = hotc(tmp_path, "apply", "plan.bin")
    assert r.returncode != 0
    assert "qos.rules" in r.stderr and "changed in the cloud since the plan was made" in r.stderr, r.stderr
    assert "minimum_bandwidth" in r.stderr  # what it is now
    assert "hotc plan --refresh" in r.stderr  # what to do
    assert "Traceback" not in r.stderr
    after = state(tmp_path)
    assert after.serial == before.serial  # nothing was applied or written
    assert after.resources["seen"].attributes == before.resources["seen"].attributes


def test_saved_refresh_plan_stops_when_the_object_is_gone_since(tmp_path: Path, conn: FakeConnection) -> None:
    policy = created(tmp_path, conn)
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "--refresh", "-o", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    before = state(tmp_path)
    for rule in list(conn.network.qos_dscp_marking_rules(policy)):
        conn.network.delete_qos_dscp_marking_rule(rule, policy)
    for rule in list(conn.network.qos_bandwidth_limit_rules(policy)):
        conn.network.delete_qos_bandwidth_limit_rule(rule, policy)
    conn.network.delete_qos_policy(policy)

    r = hotc(tmp_path, "apply", "plan.bin")
    assert r.returncode != 0
    assert "qos" in r.stderr and "no longer exists" in r.stderr, r.stderr
    assert state(tmp_path).serial == before.serial


def test_a_hidden_attribute_is_carried_as_a_digest_and_checked_by_it() -> None:
    from hotc.planner.refresh import carried_attributes, changed_since
    from hotc.state.document import ResourceState, StackState

    recorded = ResourceState(
        "sig",
        "OS::Heat::SwiftSignalHandle",
        "x",
        "CREATE_COMPLETE",
        attributes={"endpoint": "https://old?sig=aaa"},
        sensitive_attributes=("endpoint",),
    )
    st = StackState.new("t").with_resource(recorded)
    live = replace(recorded, attributes={"endpoint": "https://new?sig=bbb"})
    carried = carried_attributes(st, {"sig": live}, {"sig": live}, [("sig", "endpoint")])
    assert "bbb" not in json.dumps(carried) and list(carried["sig"]) == ["endpoint"]
    assert changed_since(carried, {"sig": live}) == []
    moved = changed_since(carried, {"sig": replace(live, attributes={"endpoint": "https://new?sig=ccc"})})
    assert moved == ["sig.endpoint (a hidden value) is not what the plan read"]
    assert changed_since(carried, {"sig": None}) == ["sig no longer exists"]


def test_saved_refresh_plan_without_the_cloud_at_apply_stops_with_the_reason(
    tmp_path: Path, conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotc.errors import HotcError

    created(tmp_path, conn)
    r = hotc(tmp_path, "plan", "-t", "t.yaml", "--refresh", "-o", "plan.bin")
    assert r.returncode == 0, r.stdout + r.stderr
    before = state(tmp_path)

    def no_cloud() -> Any:
        raise HotcError("no cloud configured: set OS_CLOUD")

    monkeypatch.setattr("hotc.cli.root.cloud", lambda _os_cloud=None, prewarm=False: no_cloud)
    r = hotc(tmp_path, "apply", "plan.bin")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "the plan was made from a refresh, and reading the cloud again failed" in r.stderr, r.stderr
    assert "set OS_CLOUD" in r.stderr and "nothing was applied" in r.stderr
    assert state(tmp_path).serial == before.serial
