"""A plan for a stack the backend has no state for says so in its headline, naming the backend: a reviewer who
mistyped the stack name or pointed at the wrong backend sees "new stack" where an update was expected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.clirun import run_hotc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "examples" / "quickstart.yaml", tmp_path / "quickstart.yaml")
    return tmp_path


def _plan(work: Path, *args: str) -> str:
    res = run_hotc(work, "plan", "-t", "quickstart.yaml", *args)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_text_and_markdown_name_the_backend_without_state(work: Path) -> None:
    where = f"no state in local directory {work / '.hotc'}"
    text = _plan(work, "quickstart")
    assert text.splitlines()[1] == f"New stack: {where}; applying creates stack 'quickstart'.", text
    md = _plan(work, "quickstart", "--format", "markdown")
    head = md.split("| Action | Count |")[0]  # above the summary table, not only in the inputs
    # the comment shows a local backend relative to the project root (here the working directory)
    assert "New stack: no state in local directory .hotc; applying creates stack 'quickstart'." in head, md
    assert "| state | none in local directory .hotc (a new stack) |" in md


def test_another_backend_is_named(work: Path) -> None:
    other = work / "elsewhere"
    text = _plan(work, "quickstart", "--backend", str(other))
    assert f"New stack: no state in local directory {other};" in text, text


def test_a_stack_with_state_has_no_such_line(work: Path) -> None:
    assert run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve").returncode == 0
    text = _plan(work, "quickstart")
    md = _plan(work, "quickstart", "--format", "markdown")
    assert "New stack" not in text and "New stack" not in md and "a new stack" not in md
    # the typo is what the line is for: the same template under a misspelt name is a new stack
    assert "New stack: no state in" in _plan(work, "qucikstart")


def test_a_saved_plan_keeps_the_line(work: Path) -> None:
    _plan(work, "quickstart", "-o", "new.plan")
    res = run_hotc(work, "show", "new.plan")
    assert res.returncode == 0 and f"New stack: no state in local directory {work / '.hotc'};" in res.stdout
