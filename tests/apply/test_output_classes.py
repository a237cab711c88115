"""Outputs as Heat's ``heat.engine.output`` has them: each output evaluated on its own (one that
fails reports its error, the others resolve), an output whose condition is false is listed with null, and a
stack with no resources still gets a state. Offline, in-process CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotc.cli.app import main

ONE_FAILS = """\
heat_template_version: 2018-08-31
conditions:
  never: false
resources:
  r:
    type: OS::Heat::Value
    properties: {value: [1, 2]}
outputs:
  good: {value: {get_attr: [r, value]}}
  broken: {value: {str_split: [',', {get_attr: [r, value]}]}}
  disabled: {value: {get_attr: [r, value]}, condition: never}
"""

NOTHING_ENABLED = """\
heat_template_version: 2018-08-31
conditions:
  never: false
outputs:
  disabled: {value: 1, condition: never}
"""


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_one_failing_output_never_hides_the_others(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "s.yaml").write_text(ONE_FAILS)
    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--auto-approve")
    assert code == 0, out + err  # Heat: the stack is CREATE_COMPLETE, the output stores its error
    assert "good = [1, 2]" in out  # apply's summary lists every output
    assert 'broken = (error: Incorrect arguments to "str_split"' in out
    assert "warning: output broken:" in err

    code, out, err = run(capsys, "output", "s")
    assert code == 0, err
    lines = dict(line.split(" = ", 1) for line in out.splitlines())
    assert lines["good"] == "[1, 2]"
    assert lines["broken"].startswith('(error: Incorrect arguments to "str_split"')
    assert "s.yaml:10:" in lines["broken"]  # where the failing expression is
    assert lines["disabled"] == "null"

    code, out, err = run(capsys, "output", "s", "--format", "json")
    doc = json.loads(out)
    assert doc["good"]["value"] == [1, 2] and "error" not in doc["good"]
    assert doc["broken"]["value"] is None and "str_split" in doc["broken"]["error"]
    assert doc["disabled"] == {"value": None, "description": "", "sensitive": False}

    code, out, err = run(capsys, "output", "s", "good", "--format", "json")
    assert code == 0 and json.loads(out) == [1, 2]
    code, out, err = run(capsys, "output", "s", "broken")
    assert code == 1 and "str_split" in err


def test_disabled_output_is_planned_and_listed_as_null(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "s.yaml").write_text(ONE_FAILS)
    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--format", "json")
    assert code == 0, err
    outs = json.loads(out)["output_changes"]
    assert outs["disabled"]["actions"] == ["create"] and outs["disabled"]["after"] is None
    code, out, err = run(capsys, "plan", "-t", "s.yaml")
    assert "+ disabled: null" in out


def test_stack_with_no_resources_and_every_output_disabled_gets_a_state(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "e.yaml").write_text(NOTHING_ENABLED)
    code, out, err = run(capsys, "apply", "-t", "e.yaml", "--auto-approve")
    assert code == 0, out + err
    code, out, err = run(capsys, "output", "e", "--format", "json")
    assert code == 0, err
    assert json.loads(out) == {"disabled": {"value": None, "description": "", "sensitive": False}}
    code, out, err = run(capsys, "plan", "-t", "e.yaml", "--detailed-exitcode")
    assert code == 0 and "No changes" in out


def test_empty_template_creates_an_empty_stack(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "z.yaml").write_text("heat_template_version: 2018-08-31\n")
    code, out, err = run(capsys, "plan", "-t", "z.yaml", "--detailed-exitcode")
    assert code == 2 and "applying creates it" in out  # the stack does not exist yet: that is a change
    code, out, err = run(capsys, "apply", "-t", "z.yaml", "--auto-approve")
    assert code == 0, out + err
    code, out, err = run(capsys, "output", "z", "--format", "json")
    assert code == 0 and json.loads(out) == {}, err
    code, out, err = run(capsys, "plan", "-t", "z.yaml", "--detailed-exitcode")
    assert code == 0 and "No changes" in out
