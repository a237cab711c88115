"""ScalingPolicy signals through hotc, offline: moto's S3 server is the signal store, the group's members are
Heat-native (OS::Heat::TestResource), and the test sends signals the way a webhook does (an HTTP PUT to the
policy's ``signal_url``) or with ``hotc signal``. What is asserted is what Heat does: the adjustment within
min_size/max_size, cooldown refusals, scale-down removing the oldest members, the size kept apart from the
template's desired_capacity, one event per decision, the decisions in the state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from hotc.state import backend_from_config
from tests.clirun import run_hotc
from tests.fixtures.s3 import S3Bucket

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  cooldown: {type: number, default: 0}
  adjustment: {type: number, default: 1}
  kind: {type: string, default: change_in_capacity}
  label: {type: string, default: one}
  fail: {type: boolean, default: false}
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 4
      desired_capacity: 2
      resource:
        type: OS::Heat::TestResource
        properties: {value: {get_param: label}, fail: {get_param: fail}}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: asg}
      adjustment_type: {get_param: kind}
      scaling_adjustment: {get_param: adjustment}
      cooldown: {get_param: cooldown}
  down:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: asg}
      adjustment_type: change_in_capacity
      scaling_adjustment: -1
outputs:
  size: {value: {get_attr: [asg, current_size]}}
  refs: {value: {get_attr: [asg, refs_map]}}
  values: {value: {get_attr: [asg, outputs_list, output]}}
  by_member: {value: {get_attr: [asg, outputs, output]}}
  ref_list: {value: {get_attr: [asg, refs]}}
  up_url: {value: {get_attr: [up, signal_url]}}
  alarm_url: {value: {get_attr: [up, alarm_url]}}
"""


@pytest.fixture
def work(tmp_path: Path, s3_bucket: S3Bucket) -> tuple[Path, str]:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    return tmp_path, f"s3://{s3_bucket.name}/sig"


def hotc(cwd: Path, *args: str) -> Any:
    r = run_hotc(cwd, *args)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def apply(cwd: Path, store: str, *extra: str) -> Any:
    r = hotc(cwd, "apply", "-t", "t.yaml", "--auto-approve", "--signal-store", store, *extra)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def state(cwd: Path) -> Any:
    st, _ = backend_from_config(str(cwd / ".hotc")).read("t")
    assert st is not None
    return st


def members(cwd: Path) -> list[str]:
    return sorted(a for a in state(cwd).resources if a.startswith("asg["))


def outputs(cwd: Path) -> dict[str, Any]:
    r = hotc(cwd, "output", "t", "--format", "json", "--show-sensitive")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return {k: (v["value"] if isinstance(v, dict) and "value" in v else v) for k, v in doc.items()}


def put(url: str, body: Any = None) -> None:
    """What a webhook sender does with signal_url: a plain HTTP PUT, no other credential."""
    r = requests.put(url, data=json.dumps(body if body is not None else {}), timeout=10)
    assert r.status_code == 200, r.text


def events(cwd: Path, address: str) -> list[str]:
    r = hotc(cwd, "events", "t")
    return [ln for ln in r.stdout.splitlines() if f"[{address}]" in ln]


def test_a_signal_to_signal_url_is_executed_by_the_next_apply(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store)
    assert members(cwd) == ["asg[0]", "asg[1]"]
    st = state(cwd)
    assert st.groups["asg"].size == 2
    url = outputs(cwd)["up_url"]
    assert isinstance(url, str) and url.startswith("http")
    put(url, {"alarm_id": "a1", "current": "alarm", "previous": "ok", "reason": "cpu"})
    r = apply(cwd, store)
    assert "scaling: up: signal received" in r.stderr and "asg 2 → 3 members" in r.stderr
    assert "asg (OS::Heat::AutoScalingGroup): 2 → 3 members" in r.stdout
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]
    st = state(cwd)
    assert st.groups["asg"].size == 3
    [d] = st.groups["asg"].decisions
    assert (d.policy, d.accepted, d.before, d.after, d.reason) == ("up", True, 2, 3, "change_in_capacity : 1")
    assert outputs(cwd)["size"] == 3
    # the signal was consumed: the next apply changes nothing, and keeps the scaled size although the
    # template says desired_capacity 2 (Heat does not resize a group whose properties did not change)
    r = apply(cwd, store)
    assert "scaling:" not in r.stderr and "No changes" in r.stdout
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]
    assert any("SIGNAL_COMPLETE" in e and "adjusting asg from 2 to 3 members" in e for e in events(cwd, "up"))


def test_hotc_signal_scales_at_once_and_cooldown_refuses_the_next(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store, "--parameter", "cooldown=3600")
    # the group's own create starts no cooldown here (it sets none); the policy's does after a resize
    r = hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "asg 2 → 3 members" in r.stderr
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]
    serial = state(cwd).serial
    r = hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "refused: due to cooldown, cooldown 3600" in r.stderr
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]
    st = state(cwd)
    assert [(d.accepted, d.before, d.after) for d in st.groups["asg"].decisions] == [
        (True, 2, 3),
        (False, 3, 3),
    ]
    assert "due to cooldown" in st.groups["asg"].decisions[-1].reason
    assert st.serial > serial  # the refusal is a new state version (hotc state history)
    evs = events(cwd, "up")
    assert any("no action: due to cooldown" in e for e in evs), evs
    # the other policy has no cooldown of its own, but the group is in cooldown until the first one's end
    r = hotc(cwd, "signal", "t", "down", "--signal-store", store)
    assert "refused: due to cooldown" in r.stderr
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]


def test_bounds_and_no_change_in_capacity(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store, "--parameter", "adjustment=10")
    r = hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert "asg 2 → 4 members" in r.stderr  # max_size 4
    r = hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert "refused: no change in capacity" in r.stderr
    assert len(members(cwd)) == 4
    for _ in range(4):
        hotc(cwd, "signal", "t", "down", "--signal-store", store)
    assert members(cwd) == ["asg[3]"]  # min_size 1; the oldest went first (Heat's removal order)


def test_percent_change_and_min_adjustment_step(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store, "--parameter", "kind=percent_change_in_capacity", "--parameter", "adjustment=10")
    # 10 % of 2 is 0.2: under one member rounds up to 1 (Heat)
    r = hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert "asg 2 → 3 members" in r.stderr


def test_pending_signals_wait_for_the_next_apply_and_are_decided_in_order(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store, "--parameter", "cooldown=3600")
    for _ in range(2):
        r = hotc(cwd, "signal", "t", "up", "--pending", "--signal-store", store)
        assert r.returncode == 0 and "Signal stored" in r.stderr
    assert len(members(cwd)) == 2
    p = hotc(cwd, "plan", "-t", "t.yaml", "--signal-store", store, "--parameter", "cooldown=3600")
    assert p.returncode == 0 and "note: 2 scaling signal(s) pending for up" in p.stderr, p.stderr
    assert "No changes" in p.stdout  # a plan does not execute them
    # an apply that is not approved executes nothing and leaves them pending
    r = hotc(cwd, "apply", "-t", "t.yaml", "--signal-store", store, "--parameter", "cooldown=3600")
    assert r.returncode == 1 and "needs approval" in r.stderr, r.stdout + r.stderr
    assert "asg (OS::Heat::AutoScalingGroup): 2 → 3 members" in r.stdout  # what it would have done
    assert len(members(cwd)) == 2 and not state(cwd).groups["asg"].decisions
    r = apply(cwd, store, "--parameter", "cooldown=3600")
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("scaling:")]
    assert len(lines) == 2 and "asg 2 → 3 members" in lines[0] and "refused: due to cooldown" in lines[1]
    assert len(members(cwd)) == 3


def test_scale_down_removes_the_oldest_member_first(work: tuple[Path, str]) -> None:
    cwd, store = work
    apply(cwd, store)
    hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert members(cwd) == ["asg[0]", "asg[1]", "asg[2]"]
    r = hotc(cwd, "signal", "t", "down", "--signal-store", store)
    assert "asg 3 → 2 members" in r.stderr
    assert members(cwd) == ["asg[1]", "asg[2]"]
    # the group's attributes follow its members (Heat's current_size, refs, refs_map, outputs, outputs_list)
    st = state(cwd)
    ids = [st.resources[a].physical_id for a in ("asg[1]", "asg[2]")]
    out = outputs(cwd)
    assert out["size"] == 2
    assert out["refs"] == {"1": ids[0], "2": ids[1]}
    assert sorted(out["ref_list"]) == sorted(ids)
    assert out["by_member"] == {"1": "one", "2": "one"} and out["values"] == ["one", "one"]


def test_a_changed_group_goes_back_to_desired_capacity(work: tuple[Path, str]) -> None:
    """Heat resizes to desired_capacity when the group itself is updated (here its resource definition)."""
    cwd, store = work
    apply(cwd, store)
    hotc(cwd, "signal", "t", "up", "--signal-store", store)
    assert len(members(cwd)) == 3
    apply(cwd, store, "--parameter", "label=two")
    assert len(members(cwd)) == 2
    assert state(cwd).groups["asg"].size == 2


def test_the_urls_are_secrets(work: tuple[Path, str]) -> None:
    cwd, store = work
    r = apply(cwd, store)
    url = outputs(cwd)["up_url"]
    assert url not in r.stdout + r.stderr
    raw = (cwd / ".hotc" / "t.json").read_text()
    assert url not in raw
    shown = hotc(cwd, "output", "t", "up_url")
    assert url not in shown.stdout + shown.stderr


def test_min_adjustment_step_needs_percent_change_as_in_heat(work: tuple[Path, str]) -> None:
    """Heat's AutoScalingPolicy.validate (at create): min_adjustment_step only with percent_change_in_capacity.
    validate warns (Heat's template validate accepts it), plan refuses it; the group itself is never reported
    as a type hotc cannot apply (it is expanded into its members)."""
    cwd, store = work
    text = TEMPLATE.replace(
        "      adjustment_type: {get_param: kind}\n      scaling_adjustment: {get_param: adjustment}\n"
        "      cooldown: {get_param: cooldown}\n",
        "      adjustment_type: KIND\n      scaling_adjustment: 1\n      min_adjustment_step: 1\n",
        1,
    )
    # hotc runs a type's cross-property checks only when every property is literal (here the group is named,
    # not given with get_resource)
    text = text.replace("auto_scaling_group_id: {get_resource: asg}", "auto_scaling_group_id: asg", 1)
    assert "KIND" in text
    (cwd / "t.yaml").write_text(text.replace("KIND", "change_in_capacity"))
    v = hotc(cwd, "validate", "-t", "t.yaml")
    assert v.returncode == 0, v.stdout
    assert (
        "warning: OS::Heat::ScalingPolicy: min_adjustment_step property should only be specified" in v.stdout
    )
    assert "AutoScalingGroup: hotc cannot create" not in v.stdout
    p = hotc(cwd, "plan", "-t", "t.yaml", "--signal-store", store)
    assert p.returncode == 1 and "min_adjustment_step property should only be specified" in p.stderr, p.stderr
    (cwd / "t.yaml").write_text(text.replace("KIND", "percent_change_in_capacity"))
    p = hotc(cwd, "plan", "-t", "t.yaml", "--signal-store", store)
    assert p.returncode == 0, p.stderr


def test_a_group_with_failed_members_is_not_scaled(work: tuple[Path, str]) -> None:
    """Heat's adjust does nothing while the group is not COMPLETE; the signal is refused and recorded."""
    cwd, store = work
    apply(cwd, store)
    r = hotc(
        cwd, "apply", "-t", "t.yaml", "--auto-approve", "--signal-store", store, "--parameter", "fail=true"
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert any(rs.failed for a, rs in state(cwd).resources.items() if a.startswith("asg["))
    hotc(cwd, "signal", "t", "up", "--pending", "--signal-store", store)
    r = hotc(
        cwd, "apply", "-t", "t.yaml", "--auto-approve", "--signal-store", store, "--parameter", "fail=true"
    )
    assert "refused: the group is not COMPLETE" in r.stderr, r.stderr
    assert len(members(cwd)) == 2
    assert state(cwd).groups["asg"].decisions[-1].accepted is False
