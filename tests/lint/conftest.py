"""Helpers for the security rules' tests: write a template, load it as ``hotc lint`` does, run the rules."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hotc.cli import root
from hotc.errors import Severity
from hotc.lint.api import LintConfig, LintReport, run_rules
from hotc.parser.api import LoadedStack, load_stack
from tests.review.conftest import sarif_schema  # noqa: F401  (the SARIF 2.1.0 schema fixture)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def load(path: Path, envs: tuple[Path, ...] = ()) -> LoadedStack:
    stack, diags = load_stack(
        str(path), [str(e) for e in envs], {}, {}, require_values=False, checks=root.type_checks()
    )
    errors = [d for d in diags if d.severity is Severity.ERROR]
    assert stack is not None and not errors, errors
    return stack


def lint(path: Path, envs: tuple[Path, ...] = (), config: LintConfig | None = None) -> LintReport:
    return run_rules(load(path, envs), config=config)


@pytest.fixture
def lint_text(tmp_path: Path):  # type: ignore[no-untyped-def]
    def run(text: str, name: str = "t.yaml") -> LintReport:
        return lint(write(tmp_path / name, text))

    return run
