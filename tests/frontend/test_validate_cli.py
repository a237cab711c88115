"""`hotc validate` end to end (in-process through the typer app, and once as a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from hotc.cli.app import app

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()

GOOD = """
heat_template_version: 2018-08-31
parameters:
  key: {type: string}
resources:
  r: {type: OS::Heat::RandomString}
"""
BAD = """
heat_template_version: 2018-08-31
resources:
  r:
    type: OS::Nope::Thing
  s:
    type: OS::Heat::None
    depends_on: ghost
"""


def _w(p: Path, text: str) -> Path:
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def test_ok(tmp_path: Path) -> None:
    t = _w(tmp_path / "good.yaml", GOOD)
    res = runner.invoke(app, ["validate", "-t", str(t)])
    assert res.exit_code == 0, res.output
    assert res.output.strip().splitlines()[-1] == "OK"


def test_every_error_with_position(tmp_path: Path) -> None:
    t = _w(tmp_path / "bad.yaml", BAD)
    res = runner.invoke(app, ["validate", "-t", str(t)])
    assert res.exit_code == 1
    lines = [ln for ln in res.output.splitlines() if ": error: " in ln]
    assert len(lines) == 2
    assert lines[0].endswith("bad.yaml:4:11: error: " + lines[0].split(": error: ", 1)[1])
    assert "The Resource Type (OS::Nope::Thing) could not be found" in lines[0]
    assert ":7:17: error: " in lines[1] and 'reference "ghost"' in lines[1]
    assert "OK" not in res.output


def test_json_format(tmp_path: Path) -> None:
    t = _w(tmp_path / "bad.yaml", BAD)
    res = runner.invoke(app, ["validate", "-t", str(t), "--format", "json"])
    assert res.exit_code == 1
    doc = json.loads(res.output)
    assert doc["valid"] is False and doc["errors"] == 2
    assert {d["line"] for d in doc["diagnostics"]} == {4, 7}


def test_environment_and_parameters(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        "heat_template_version: 2018-08-31\nparameters:\n  n: {type: number}\nresources:\n  r: {type: My::T}\n",
    )
    e = _w(tmp_path / "e.yaml", 'resource_registry:\n  "My::T": OS::Heat::None\n')
    res = runner.invoke(app, ["validate", "-t", str(t), "-e", str(e), "--parameter", "n=5"])
    assert res.exit_code == 0, res.output
    # Heat's template validate checks no value (its create does): a warning here, an error for plan
    res = runner.invoke(app, ["validate", "-t", str(t), "-e", str(e), "--parameter", "n=five"])
    assert res.exit_code == 0 and "Parameter 'n' is invalid" in res.output, res.output
    assert "creating the stack would fail" in res.output
    from tests.clirun import run_hotc

    r = run_hotc(tmp_path, "plan", "-t", str(t), "-e", str(e), "--parameter", "n=five")
    assert r.returncode == 1 and "error: Parameter 'n' is invalid" in r.stdout + r.stderr, r.stdout + r.stderr


def test_max_template_size(tmp_path: Path) -> None:
    t = _w(tmp_path / "good.yaml", GOOD)
    res = runner.invoke(app, ["validate", "-t", str(t), "--max-template-size", "10"])
    assert res.exit_code == 1 and "exceeds the maximum allowed size" in res.output


def test_bad_format_option(tmp_path: Path) -> None:
    t = _w(tmp_path / "good.yaml", GOOD)
    res = runner.invoke(app, ["validate", "-t", str(t), "--format", "xml"])
    assert res.exit_code != 0


def test_subprocess_no_traceback(tmp_path: Path) -> None:
    t = _w(tmp_path / "broken.yaml", "heat_template_version: 2018-08-31\nresources: [\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "hotc", "validate", "-t", str(t)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "broken.yaml:" in proc.stdout and "YAML syntax error" in proc.stdout


def test_examples_validate() -> None:
    ex = REPO / "examples"
    t, e = ex / "webapp.yaml", ex / "webapp-env.yaml"
    res = runner.invoke(app, ["validate", "-t", str(t), "-e", str(e)])
    assert res.exit_code == 0, res.output


def test_json_describes_parameters_and_masks_hidden(tmp_path: Path) -> None:
    t = _w(
        tmp_path / "t.yaml",
        """
        heat_template_version: 2018-08-31
        description: demo
        parameter_groups:
          - {label: Secrets, parameters: [pw]}
        parameters:
          pw: {type: string, hidden: true, default: hunter2, label: Password}
          n: {type: number, default: 3, constraints: [{range: {min: 1}, description: positive}]}
        """,
    )
    res = runner.invoke(app, ["validate", "-t", str(t), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["description"] == "demo"
    assert doc["parameters"]["pw"]["default"] == "******" and "value" not in doc["parameters"]["pw"]
    assert doc["parameters"]["pw"]["label"] == "Password"
    assert doc["parameters"]["n"]["value"] == 3
    assert doc["parameters"]["n"]["constraints"] == [
        {"range": {"min": 1, "max": None}, "description": "positive"}
    ]
    assert doc["parameter_groups"] == [{"label": "Secrets", "description": None, "parameters": ["pw"]}]
    assert "hunter2" not in res.output
