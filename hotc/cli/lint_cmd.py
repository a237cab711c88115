"""`hotc lint`: the security rules over a template (and its environments and nested templates).

    hotc lint -t TEMPLATE [-e ENV]... [--parameter K=V]... [--parameter-file K=FILE]
              [--format text|json|sarif|markdown] [--fail-on low|medium|high|critical]

Parameters are resolved as validate resolves them (environments, ``--parameter``, defaults); a rule whose value
depends on a parameter without a value, or on a resource that does not exist yet, reports "cannot tell".
Findings are suppressed by a ``# hotc:skip=RULE reason`` comment in the resource or by the ``[lint]`` section of
the nearest ``hotc.toml`` (docs/lint-rules.md). Exit 1 when a finding at or above ``--fail-on`` (default high)
is not suppressed, else 0; a template that does not load is an error (exit 1) with its diagnostics.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from hotc.cli.common import (
    DEFAULT_MAX_TEMPLATE_SIZE,
    EnvOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    TemplateOpt,
    check_format,
    load_for_command,
    parse_parameter_files,
    parse_parameters,
)
from hotc.errors import HotcError

LintFormatOpt = Annotated[
    str, typer.Option("--format", "-f", help="Output format: text, json, sarif or markdown.")
]
FailOnOpt = Annotated[
    str,
    typer.Option(
        "--fail-on",
        help="Exit 1 when an unsuppressed finding is at or above this severity: low, medium, high, critical.",
    ),
]


def parse_fail_on(text: str) -> object:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.lint.api import Level

    try:
        return Level.parse(text)
    except ValueError as exc:
        raise HotcError(f"--fail-on: {exc}") from None


def lint_command(
    template: TemplateOpt,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    fmt: LintFormatOpt = "text",
    fail_on: FailOnOpt = "high",
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
) -> None:
    """Check a template against hotc's security rules (docs/lint-rules.md)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.lint.api import FORMATS, Level, exit_code, load_config, render, run_rules

    check_format(fmt, FORMATS)
    threshold = parse_fail_on(fail_on)
    assert isinstance(threshold, Level)
    config = load_config()
    loaded = load_for_command(
        template,
        list(environment or []),
        parse_parameters(parameter),
        parse_parameter_files(parameter_file),
        verb="linted",
        require_values=False,
        max_size=max_template_size,
    )
    report = run_rules(loaded, config=config)
    typer.echo(render(report, fmt, threshold), nl=False)
    code = exit_code(report, threshold)
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Wire ``hotc lint`` into the app."""
    app.command("lint")(lint_command)


def lint_for_validate(
    stack: object, fmt: str, sarif_text: str | None = None
) -> tuple[str | dict[str, object], int]:
    """``hotc validate --lint``: the rules over the validated stack (fail-on high). Returns what to add to
    validate's output (text lines; the json ``lint`` member; for sarif, the whole log with the rules' run added
    to validate's) and the exit code the rules ask for."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.lint.api import (
        DEFAULT_FAIL_ON,
        exit_code,
        load_config,
        render,
        report_json,
        run_rules,
        sarif_run,
    )
    from hotc.parser.api import LoadedStack

    assert isinstance(stack, LoadedStack)
    report = run_rules(stack, config=load_config())
    code = exit_code(report, DEFAULT_FAIL_ON)
    if fmt == "json":
        return report_json(report, DEFAULT_FAIL_ON), code
    if fmt == "sarif":
        doc = json.loads(sarif_text or "{}")
        doc.setdefault("runs", []).append(sarif_run(report))
        return json.dumps(doc, indent=2) + "\n", code
    return render(report, "text", DEFAULT_FAIL_ON), code
