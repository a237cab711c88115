"""The example CI pipelines (examples/ci/): both call hotc-ci.sh, and this test runs exactly that script on
an example stack with local state, then checks its files (SARIF valid, Markdown within GitHub's limit, plan
JSON valid, exit codes) and evaluates the example OPA policy over a plan JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from hotc.planner.render.json import render_json
from hotc.planner.render.markdown import GITHUB_COMMENT_LIMIT

REPO = Path(__file__).resolve().parents[2]
CI = REPO / "examples" / "ci"
PLAN_SCHEMA = json.loads((REPO / "hotc" / "planner" / "plan.schema.json").read_text())


def _ci(work: Path, cmd: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {
        **os.environ,
        "HOTC": f"{sys.executable} -m hotc",
        "HOTC_TEMPLATE": "quickstart.yaml",
        "OUT": "out",
        **env,
    }
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        ["bash", str(CI / "hotc-ci.sh"), cmd], cwd=work, env=full, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("quickstart.yaml", "quickstart-prod.env.yaml"):
        shutil.copy(REPO / "examples" / name, tmp_path / name)
    return tmp_path


def test_workflows_run_the_tested_script() -> None:
    gh = yaml.safe_load((CI / "github-actions.yml").read_text())
    steps = [s.get("run", "") for job in gh["jobs"].values() for s in job["steps"]]
    assert any("hotc-ci.sh plan" in r for r in steps) and any("hotc-ci.sh apply" in r for r in steps)
    gl = yaml.safe_load((CI / "gitlab-ci.yml").read_text())
    scripts = [line for job in ("hotc-plan", "hotc-apply") for line in gl[job]["script"]]
    assert any("hotc-ci.sh plan" in s for s in scripts) and any("hotc-ci.sh apply" in s for s in scripts)
    # no pipeline calls hotc directly, so this test covers every hotc command they run
    for text in [*steps, *scripts]:
        for line in text.splitlines():
            assert not line.strip().startswith("hotc "), line


def test_plan_then_apply_the_saved_plan(work: Path, sarif_schema: dict[str, Any]) -> None:
    res = _ci(work, "plan")
    assert res.returncode == 2, res.stderr  # changes to review
    out = work / "out"
    for name in ("validate.sarif", "plan.sarif"):
        jsonschema.validate(json.loads((out / name).read_text()), sarif_schema)
    md = (out / "plan.md").read_text()
    assert len(md) <= GITHUB_COMMENT_LIMIT
    assert md.startswith("<!-- hotc-plan-comment stack=quickstart -->")
    assert "hotc apply out/plan.json" in md
    doc = json.loads((out / "plan.show.json").read_text())
    jsonschema.validate(doc, PLAN_SCHEMA)
    assert doc["summary"]["create"] == 5 and doc["policy"]["passed"] is True
    assert (out / "plan.mmd").read_text().startswith("flowchart LR")
    if shutil.which("dot"):
        assert "<svg" in (out / "plan.svg").read_text()
    res = _ci(work, "apply")
    assert res.returncode == 0, res.stderr
    res = _ci(work, "plan")
    assert res.returncode == 0, res.stderr  # nothing left to do
    assert "**No changes.**" in (work / "out" / "plan.md").read_text()


def test_a_deny_rule_fails_the_pipeline_and_saves_no_plan(work: Path, sarif_schema: dict[str, Any]) -> None:
    (work / "policy.yaml").write_text("deny:\n  - {action: create, type: 'OS::Heat::RandomString'}\n")
    res = _ci(work, "plan", HOTC_POLICY="policy.yaml")
    assert res.returncode == 3, res.stderr
    assert not (work / "out" / "plan.json").exists()
    sarif = json.loads((work / "out" / "plan.sarif").read_text())
    jsonschema.validate(sarif, sarif_schema)
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"policy/deny"}
    assert "Policy violations" in (work / "out" / "plan.md").read_text()
    res = _ci(work, "apply")
    assert res.returncode == 1 and "no saved plan" in res.stderr


def test_an_invalid_template_fails_with_its_sarif(work: Path, sarif_schema: dict[str, Any]) -> None:
    (work / "quickstart.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Nope}\n"
    )
    res = _ci(work, "plan")
    assert res.returncode == 1
    sarif = json.loads((work / "out" / "validate.sarif").read_text())
    jsonschema.validate(sarif, sarif_schema)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "template/unknown-type"


def test_the_example_opa_policy_reads_the_plan_json() -> None:
    regopy = pytest.importorskip("regopy")
    from tests.review.test_comment_golden import review_plan

    doc = json.loads(render_json(review_plan()))
    jsonschema.validate(doc, PLAN_SCHEMA)
    rego = regopy.Interpreter()
    rego.add_module("plan-policy.rego", (CI / "plan-policy.rego").read_text())
    rego.set_input_term(json.dumps(doc))
    out = rego.query("data.hotc.plan")
    assert out.ok()
    value = json.loads(str(out))["expressions"][0]
    assert sorted(value["deny"]) == [
        "db_volume: replacing a Cinder volume loses its data",
        "worker: a rebuild wipes the root disk",
    ]  # hotc's own gate passed (its findings are warnings only), so no "gate failed"
    assert sorted(value["warn"]) == ["db_attach: replace:OS::Cinder::*", "db_volume: replace:OS::Cinder::*"]
