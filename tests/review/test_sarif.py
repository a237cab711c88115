"""``--format sarif`` of validate and plan: valid SARIF 2.1.0 (Microsoft's schema), stable documented rule ids,
results at the template position."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from hotc.cli.app import app
from hotc.planner.render.sarif import PLAN_RULES, TEMPLATE_RULES, all_rules

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()

BAD = """
heat_template_version: 2018-08-31
resources:
  r:
    type: OS::Nope::Thing
  s:
    type: OS::Heat::None
    depends_on: ghost
"""

STACK_V1 = """
heat_template_version: 2018-08-31
parameters:
  tag: {type: string, default: v1}
resources:
  keep:
    type: OS::Heat::TestResource
    properties: {value: {get_param: tag}, update_replace: true}
  gone:
    type: OS::Heat::Value
    properties: {value: bye}
"""

STACK_V2 = """
heat_template_version: 2018-08-31
parameters:
  tag: {type: string, default: v2}
resources:
  keep:
    type: OS::Heat::TestResource
    properties: {value: {get_param: tag}, update_replace: true}
"""


def _w(p: Path, text: str) -> Path:
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def _sarif(output: str) -> dict[str, Any]:
    start = output.index("{")
    doc: dict[str, Any] = json.loads(output[start:])
    return doc


def test_validate_sarif_is_valid_and_positioned(
    tmp_path: Path, sarif_schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "bad.yaml", BAD)
    res = runner.invoke(app, ["validate", "-t", "bad.yaml", "--format", "sarif"])
    assert res.exit_code == 1
    doc = _sarif(res.stdout)
    jsonschema.validate(doc, sarif_schema)
    run = doc["runs"][0]
    results = run["results"]
    assert {r["ruleId"] for r in results} == {"template/unknown-type", "template/reference"}
    by_rule = {r["ruleId"]: r for r in results}
    loc = by_rule["template/unknown-type"]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "bad.yaml"
    assert loc["region"] == {"startLine": 4, "startColumn": 11}
    assert all(r["level"] == "error" for r in results)
    # ruleIndex points at the rule in the driver's list
    rules = run["tool"]["driver"]["rules"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]


def test_validate_sarif_of_a_valid_template_has_no_results(
    tmp_path: Path, sarif_schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "ok.yaml", STACK_V1)
    res = runner.invoke(app, ["validate", "-t", "ok.yaml", "--format", "sarif"])
    assert res.exit_code == 0, res.output
    doc = _sarif(res.stdout)
    jsonschema.validate(doc, sarif_schema)
    assert doc["runs"][0]["results"] == []


def test_plan_sarif_marks_replace_delete_and_policy(
    tmp_path: Path, sarif_schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "s.yaml", STACK_V1)
    res = runner.invoke(app, ["apply", "-t", "s.yaml", "--auto-approve"])
    assert res.exit_code == 0, res.output
    _w(tmp_path / "s.yaml", STACK_V2)
    res = runner.invoke(app, ["plan", "-t", "s.yaml", "--format", "sarif", "--deny", "delete:OS::Heat::*"])
    assert res.exit_code == 3, res.output  # the deny rule still fails the gate
    doc = _sarif(res.stdout)
    jsonschema.validate(doc, sarif_schema)
    results = doc["runs"][0]["results"]
    rules = sorted(r["ruleId"] for r in results)
    assert rules == ["plan/delete", "plan/replace", "policy/deny"]
    replace = next(r for r in results if r["ruleId"] == "plan/replace")
    region = replace["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 5  # `keep:` in s.yaml
    assert "keep" in replace["message"]["text"]
    deny = next(r for r in results if r["ruleId"] == "policy/deny")
    assert deny["level"] == "error" and "gone" in deny["message"]["text"]
    # the deleted resource is no longer in the template: no location, still reported
    delete = next(r for r in results if r["ruleId"] == "plan/delete")
    assert "locations" not in delete


def test_plan_sarif_reports_template_errors(
    tmp_path: Path, sarif_schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "bad.yaml", BAD)
    res = runner.invoke(app, ["plan", "-t", "bad.yaml", "--format", "sarif"])
    assert res.exit_code == 1
    doc = _sarif(res.stdout)
    jsonschema.validate(doc, sarif_schema)
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} == {"template/unknown-type", "template/reference"}


def test_fingerprints_do_not_move_with_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _w(tmp_path / "bad.yaml", BAD)
    first = _sarif(runner.invoke(app, ["validate", "-t", "bad.yaml", "--format", "sarif"]).stdout)
    _w(tmp_path / "bad.yaml", "\n\n" + textwrap.dedent(BAD).lstrip("\n"))
    second = _sarif(runner.invoke(app, ["validate", "-t", "bad.yaml", "--format", "sarif"]).stdout)

    def prints(doc: dict[str, Any]) -> set[str]:
        return {r["partialFingerprints"]["hotc/v1"] for r in doc["runs"][0]["results"]}

    assert prints(first) == prints(second)


def test_every_diagnostic_code_has_a_documented_rule() -> None:
    """Rule ids are stable and documented: every ``code="..."`` hotc emits maps to a rule of its own, and
    docs/sarif-rules.md lists exactly the catalogue."""
    codes: set[str] = set()
    for path in (REPO / "hotc").rglob("*.py"):
        codes |= set(re.findall(r'code="([a-z-]+)"', path.read_text(encoding="utf-8")))
    missing = sorted(c for c in codes if c not in TEMPLATE_RULES)
    assert not missing, f"diagnostic codes without a SARIF rule: {missing}"
    doc = (REPO / "docs" / "sarif-rules.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z/-]+)` \|", doc, flags=re.M))
    assert documented == {r.id for r in all_rules()}
    assert set(PLAN_RULES) <= documented
