"""The small slips of a day with hotc: a non-UTF-8 terminal, a problem printed three times, a destroy plan
listing each delete twice, the PR comment's words, a hint that forgets --backend, Ctrl-C at the approval
prompt, and a failed markdown plan that wrote an empty comment."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hotc.apply.session import approve
from tests.clirun import run_hotc

ROOT = Path(__file__).resolve().parents[2]
UNDECLARED = """heat_template_version: 2018-08-31
resources:
  r1:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: nope}
"""
ARROWS = """heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: "old → new ✓"
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("quickstart.yaml", "quickstart-prod.env.yaml"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    (tmp_path / "undeclared.yaml").write_text(UNDECLARED)
    (tmp_path / "arrows.yaml").write_text(ARROWS, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_plan_on_a_cp1252_terminal_falls_back_to_ascii(work: Path, fmt: str) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    res = subprocess.run(
        [sys.executable, "-m", "hotc", "plan", "-t", "arrows.yaml", "--format", fmt],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr.decode("cp1252", "replace")
    assert b"UnicodeEncodeError" not in res.stderr
    out = res.stdout.decode("cp1252")
    assert "old -> new ok" in out


def test_a_problem_is_printed_once_with_its_error(work: Path) -> None:
    res = run_hotc(work, "plan", "-t", "undeclared.yaml")
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    assert len([ln for ln in lines if "nope" in ln]) == 1, res.stderr  # the warning, once
    assert "error: undeclared.yaml:6:15: the template cannot be evaluated for planning" in res.stderr


def test_destroy_plan_lists_each_delete_once(work: Path) -> None:
    assert run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve").returncode == 0
    res = run_hotc(work, "plan", "--destroy", "quickstart")
    assert res.returncode == 0, res.stderr
    for name in ("web", "app_config", "suffix", "placeholder", "db_password"):
        assert res.stdout.count(f" {name} (") == 1, res.stdout


def test_markdown_uses_the_words_of_the_text_plan(work: Path) -> None:
    res = run_hotc(work, "plan", "-t", "quickstart.yaml", "--format", "markdown")
    assert "**Plan: 5 to create, 0 to update, 0 to replace, 0 to delete**" in res.stdout
    for word in ("to add", "to change", "to destroy"):
        assert word not in res.stdout


def test_show_sensitive_hint_names_the_backend(work: Path) -> None:
    assert (
        run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve", "--backend", "st").returncode == 0
    )
    res = run_hotc(work, "output", "quickstart", "--backend", "st")
    assert "hotc output quickstart --backend st --show-sensitive" in res.stderr
    res = run_hotc(work, "output", "quickstart", "app_name", "--backend", "st")
    assert (
        res.returncode == 1 and "hotc output quickstart app_name --backend st --show-sensitive" in res.stderr
    )


def test_ctrl_c_at_the_approval_prompt_is_a_no() -> None:
    def interrupted() -> str:
        raise KeyboardInterrupt

    out = io.StringIO()
    assert approve(out, interrupted, True, "perform these actions") is False
    assert out.getvalue().endswith("\n")


def test_failed_markdown_plan_writes_a_comment_with_the_error(work: Path) -> None:
    res = run_hotc(work, "plan", "-t", "undeclared.yaml", "--format", "markdown")
    assert res.returncode == 1
    assert res.stdout.startswith("<!-- hotc-plan-comment stack=undeclared -->")
    assert "The plan failed" in res.stdout
    assert "undeclared.yaml:6:15: warning: get_param: the parameter 'nope' is not declared" in res.stdout
    assert "error: undeclared.yaml:6:15: the template cannot be evaluated for planning" in res.stdout
    res = run_hotc(work, "plan", "-t", "undeclared.yaml")
    assert res.stdout == ""  # other formats write nothing on stdout when the plan fails


def test_apply_says_no_changes_once(work: Path) -> None:
    assert run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve").returncode == 0
    res = run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("No changes") == 1, res.stdout
