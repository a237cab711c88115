"""``hotc lint`` and ``hotc validate --lint``: formats, exit codes (--fail-on), suppression in the output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hotc.lint.api import all_rules
from tests.clirun import run_hotc
from tests.lint.conftest import write

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string}
resources:
  web_sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 0.0.0.0/0}
  listener:
    # hotc:skip=HOT401 redirects to HTTPS
    type: OS::Octavia::Listener
    properties: {loadbalancer: lb, protocol: HTTP, protocol_port: 80}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "t.yaml", TEMPLATE)
    return tmp_path


def test_text_lists_findings_at_file_line_col(project: Path) -> None:
    res = run_hotc(project, "lint", "-t", "t.yaml")
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert "t.yaml:3:3: medium: HOT001 SecretParameterNotHidden: db_password: " in lines[0]
    assert lines[1].startswith("t.yaml:9:11: high: HOT101 AdminPortOpenToWorld: web_sg: ingress tcp port 22")
    assert lines[2].startswith("t.yaml:13:46: suppressed (inline: redirects to HTTPS): medium: HOT401")
    assert lines[-1].startswith("2 finding(s) (1 high, 1 medium), 1 suppressed, 0 cannot tell")


@pytest.mark.parametrize(
    "args, code",
    [
        ((), 1),  # default --fail-on high: HOT101 is high
        (("--fail-on", "critical"), 0),
        (("--fail-on", "MEDIUM"), 1),
        (("--fail-on", "low"), 1),
    ],
)
def test_fail_on_sets_the_exit_code(project: Path, args: tuple[str, ...], code: int) -> None:
    assert run_hotc(project, "lint", "-t", "t.yaml", *args).returncode == code


def test_suppressed_findings_do_not_fail(project: Path) -> None:
    write(
        project / "hotc.toml",
        '[lint]\nskip = [{rule = "HOT101", resource = "web_sg", reason = "lab only"}]\n',
    )
    res = run_hotc(project, "lint", "-t", "t.yaml")
    assert res.returncode == 0, res.stdout
    assert "suppressed (hotc.toml: lab only): high: HOT101" in res.stdout
    # medium is still at or above --fail-on medium
    assert run_hotc(project, "lint", "-t", "t.yaml", "--fail-on", "medium").returncode == 1


def test_bad_options_and_templates_are_errors(project: Path) -> None:
    res = run_hotc(project, "lint", "-t", "t.yaml", "--fail-on", "severe")
    assert res.returncode == 1 and "--fail-on" in res.stderr and "critical" in res.stderr
    res = run_hotc(project, "lint", "-t", "t.yaml", "--format", "xml")
    assert res.returncode == 1 and "markdown" in res.stderr
    write(
        project / "broken.yaml", "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Nope::X}\n"
    )
    res = run_hotc(project, "lint", "-t", "broken.yaml")
    assert res.returncode == 1 and "broken.yaml:3" in res.stderr and "Traceback" not in res.stderr


def test_json(project: Path) -> None:
    res = run_hotc(project, "lint", "-t", "t.yaml", "--format", "json")
    doc = json.loads(res.stdout)
    assert doc["summary"] == {
        "findings": 2,
        "by_severity": {"critical": 0, "high": 1, "medium": 1, "low": 0},
        "suppressed": 1,
        "cannot_tell": 0,
        "rules": len(all_rules()),
        "fail_on": "high",
        "failed": True,
    }
    by_rule = {f["rule"]: f for f in doc["findings"]}
    assert by_rule["HOT101"]["file"] == "t.yaml" and by_rule["HOT101"]["line"] == 9
    assert by_rule["HOT401"]["suppressed"] == {"reason": "redirects to HTTPS", "by": "inline"}


def test_sarif_is_valid_with_rules_and_positions(project: Path, sarif_schema: dict[str, Any]) -> None:
    res = run_hotc(project, "lint", "-t", "t.yaml", "--format", "sarif")
    doc = json.loads(res.stdout)
    jsonschema.validate(doc, sarif_schema)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(rules) == len(all_rules())
    for r in rules:
        assert r["helpUri"] == f"docs/lint-rules.md#{r['id'].lower()}"
        assert r["fullDescription"]["text"]
    results = {r["ruleId"]: r for r in run["results"]}
    loc = results["HOT101"]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "t.yaml"
    assert loc["region"] == {"startLine": 9, "startColumn": 11}
    assert results["HOT101"]["level"] == "error"
    assert rules[results["HOT101"]["ruleIndex"]]["id"] == "HOT101"
    assert results["HOT401"]["suppressions"] == [{"kind": "inSource", "justification": "redirects to HTTPS"}]


def test_markdown(project: Path) -> None:
    res = run_hotc(project, "lint", "-t", "t.yaml", "--format", "markdown")
    assert "**2 finding(s)** (1 high, 1 medium)" in res.stdout
    assert "| 🟧 high | [HOT101](docs/lint-rules.md#hot101)" in res.stdout
    assert "<details><summary>1 suppressed</summary>" in res.stdout
    assert "redirects to HTTPS (inline)" in res.stdout


def test_validate_lint(project: Path, sarif_schema: dict[str, Any]) -> None:
    plain = run_hotc(project, "validate", "-t", "t.yaml")
    assert plain.returncode == 0 and "HOT101" not in plain.stdout
    res = run_hotc(project, "validate", "-t", "t.yaml", "--lint")
    assert res.returncode == 1
    assert "high: HOT101" in res.stdout and res.stdout.rstrip().endswith("OK")
    doc = json.loads(run_hotc(project, "validate", "-t", "t.yaml", "--lint", "--format", "json").stdout)
    assert doc["valid"] is True and doc["lint"]["summary"]["failed"] is True
    sarif = json.loads(run_hotc(project, "validate", "-t", "t.yaml", "--lint", "--format", "sarif").stdout)
    jsonschema.validate(sarif, sarif_schema)
    assert [r["tool"]["driver"]["name"] for r in sarif["runs"]] == ["hotc", "hotc-lint"]
    write(project / "hotc.toml", '[lint]\nskip = [{rule = "HOT101", reason = "lab only"}]\n')
    assert run_hotc(project, "validate", "-t", "t.yaml", "--lint").returncode == 0


def test_validate_lint_on_a_template_with_errors(project: Path) -> None:
    write(
        project / "broken.yaml", "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Nope::X}\n"
    )
    res = run_hotc(project, "validate", "-t", "broken.yaml", "--lint")
    assert res.returncode == 1
    assert "the security rules did not run" in res.stderr and "HOT" not in res.stdout
