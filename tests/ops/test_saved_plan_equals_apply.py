"""For every example template that plans offline, the plan saved by ``hotc plan -o`` and the plan ``hotc apply
-t`` makes are the same plan: both come from :func:`hotc.ops.plan.plan`, and this holds it so (a step one
path takes and the other skips shows up here as a difference)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import hotc.ops.apply as ops_apply
from hotc.ops.plan import PlanResult
from hotc.planner.planfile import plan_to_data
from tests.clirun import run_hotc as hotc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# what differs between the two by design: the review (estimate, cost, blast radius) is made for the reader
# of `hotc plan` only
VOLATILE = ("review",)


def _templates() -> list[Path]:
    out = []
    for p in sorted(EXAMPLES.glob("*.yaml")):
        doc = yaml.safe_load(p.read_text())
        if isinstance(doc, dict) and "heat_template_version" in doc:
            out.append(p)
    return out


def _environments(template: Path) -> list[str]:
    """The example's own environment files (``STEM-…env.yaml``), which give the values the template needs."""
    return [str(e) for e in sorted(EXAMPLES.glob(f"{template.stem}*env*.yaml"))]


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in VOLATILE}


def test_every_example_template_is_checked() -> None:
    assert {p.name for p in _templates()} >= {"quickstart.yaml", "multitier.yaml", "webapp.yaml"}


@pytest.mark.parametrize("template", _templates(), ids=lambda p: p.stem)
def test_a_saved_plan_and_apply_make_the_same_plan(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envs = [a for e in _environments(template) for a in ("-e", e)]
    env = {"OS_CLOUD": ""}  # offline: the cloud-backed constraints are noted as unchecked, on both paths
    monkeypatch.delenv("OS_CLOUD", raising=False)
    saved = hotc(tmp_path, "plan", "-t", str(template), *envs, "stk", "-o", "plan.json", env=env)
    if saved.returncode != 0:
        pytest.skip(f"{template.name} does not plan offline: {saved.stderr.strip()[:200]}")
    made: list[PlanResult] = []
    real = ops_apply.plan

    def spy(*args: Any, **kw: Any) -> PlanResult:
        result = real(*args, **kw)
        made.append(result)
        return result

    monkeypatch.setattr(ops_apply, "plan", spy)
    # no --auto-approve, and stdin is not a terminal: the apply plans, shows the plan and stops at approval
    applied = hotc(tmp_path, "apply", "-t", str(template), *envs, "stk", env=env)
    assert applied.returncode == 1 and "needs approval" in applied.stderr, applied.stderr
    assert not (tmp_path / ".hotc" / "stk.json").exists()  # nothing was applied
    assert len(made) == 1
    on_disk = json.loads((tmp_path / "plan.json").read_text())["plan"]
    assert on_disk["changes"], "an example that plans no change checks nothing"
    assert _comparable(plan_to_data(made[0].plan)) == _comparable(on_disk)
