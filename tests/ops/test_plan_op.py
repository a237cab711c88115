"""hotc.ops.plan: the one home of the plan pipeline. It prints nothing (what the user should read comes back
in the result), its checks are an ordered list of named checks, and nothing else in hotc/ calls the planner's
build_desired or make_plan."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from hotc.cli.plan import plan_wiring
from hotc.errors import HotcError
from hotc.ops.plan import CHECKS, PlanRequest, Policy, plan

HOTC = Path(__file__).resolve().parents[2] / "hotc"

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string, default: cirros, constraints: [{custom_constraint: glance.image}]}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: image}}
"""


def test_the_checks_run_in_a_fixed_order_and_policy_is_one_of_them() -> None:
    assert [c.name for c in CHECKS] == ["immutable-parameters", "constraints", "support", "policy", "quota"]


def test_plan_prints_nothing_and_returns_what_to_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OS_CLOUD", "OS_AUTH_URL", "HOTC_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    request = PlanRequest(
        stack="s",
        template=tmp_path / "t.yaml",
        policy=Policy(deny=("create:OS::Heat::*",), warn=("create:*@a",)),
        backend=str(tmp_path / "state"),
    )
    result = plan(request, plan_wiring(None, "planned"))
    assert capsys.readouterr() == ("", "")
    assert [c.address for c in result.plan.changes] == ["a"]
    # the cloud-backed constraint was not checked: said in a note, not printed
    assert any("glance.image" in n and "not checked" in n for n in result.notes)
    assert result.refused and [str(v.rule) for v in result.violations] == ["create:OS::Heat::*"]
    assert [str(v.rule) for v in result.warned] == ["create:*@a"]
    assert {f.level for f in result.plan.policy_findings} == {"deny", "warn"}
    assert result.plan.inputs and result.plan.template_digest  # stamped with what it was made from


def test_only_the_checks_asked_for_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    base = PlanRequest(stack="s", template=tmp_path / "t.yaml", backend=str(tmp_path / "state"))
    request = replace(base, policy=Policy(deny=("create:*",)), checks=())
    assert not plan(request, plan_wiring(None, "planned")).refused


def test_a_bad_rule_fails_before_the_state_is_read(tmp_path: Path) -> None:
    request = PlanRequest(stack="s", mode="destroy", policy=Policy(deny=("nope",)), backend=str(tmp_path))
    with pytest.raises(HotcError, match="expected ACTION:TYPE_GLOB"):
        plan(request, plan_wiring(None, "planned"))
    assert not list(tmp_path.iterdir())  # no lock file, nothing read


def test_build_desired_and_make_plan_are_called_from_ops_plan_alone() -> None:
    calls = re.compile(r"\b(build_desired|make_plan)\(")
    callers = sorted(
        str(p.relative_to(HOTC))
        for p in HOTC.rglob("*.py")
        if p.parts[len(HOTC.parts)] != "planner"
        and any(
            calls.search(line) and not line.lstrip().startswith("#") for line in p.read_text().splitlines()
        )
    )
    assert callers == ["ops/plan.py"]
