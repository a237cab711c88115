"""The public API of hotc's security rules (what the CLI uses).

all_rules() -> tuple[Rule, ...]
load_config(start=None) -> LintConfig                (the [lint] section of the nearest hotc.toml)
run_rules(loaded, config=..., rules=...) -> LintReport
render(report, fmt, fail_on) -> str                   (text | json | sarif | markdown)
sarif_run(report) -> dict                             (one SARIF run, for a log with other runs)
exit_code(report, fail_on) -> int                     (1 when an unsuppressed finding is at or above fail_on)
"""

from __future__ import annotations

from hotc.lint.config import LintConfig, Skip, load_config
from hotc.lint.engine import LintFinding, LintReport, all_rules, run_rules
from hotc.lint.render import FORMATS, render, report_json, sarif_run
from hotc.lint.rule import Kind, Level, Rule

DEFAULT_FAIL_ON = Level.HIGH


def exit_code(report: LintReport, fail_on: Level = DEFAULT_FAIL_ON) -> int:
    return 1 if report.failing(fail_on) else 0


__all__ = [
    "DEFAULT_FAIL_ON",
    "FORMATS",
    "Kind",
    "Level",
    "LintConfig",
    "LintFinding",
    "LintReport",
    "Rule",
    "Skip",
    "all_rules",
    "exit_code",
    "load_config",
    "render",
    "report_json",
    "run_rules",
    "sarif_run",
]
