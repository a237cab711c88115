"""`hotc validate` (owned by the front end).

    hotc validate -t TEMPLATE [-e ENV]... [--parameter K=V]... [--parameter-file K=FILE]
                  [--format text|json|sarif] [--max-template-size BYTES] [--lint]

Like ``openstack orchestration template validate``: parameters without defaults need no value. Prints every
problem at once as ``FILE:LINE:COL: error|warning: MESSAGE`` and then ``OK`` when there is no error; exits 1
on errors. ``--format json`` prints ``{"valid": bool, "errors": n, "warnings": n, "diagnostics": [...],
"description": ..., "parameters": {...}, "parameter_groups": [...]}`` (the last three as Heat's validate
returns them; hidden defaults masked). ``--format sarif`` prints a SARIF 2.1.0 log for code scanning (rule ids
in ``docs/sarif-rules.md``); the exit code is the same. ``--lint`` then runs the security rules of ``hotc lint``
on a valid template (their lines before ``OK``, a ``lint`` member in json, a second run in sarif) and exits 1
when an unsuppressed finding is high or critical.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from hotc.cli import root
from hotc.cli.common import (
    EnvOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    TemplateOpt,
    check_format,
    display_diagnostics,
    parse_parameter_files,
    parse_parameters,
)
from hotc.errors import Diagnostic, Severity
from hotc.parser.api import DEFAULT_MAX_TEMPLATE_SIZE, MISSING, LoadedStack, load_stack


def _display(d: Diagnostic) -> Diagnostic:
    return display_diagnostics([d])[0]


def _sort_key(d: Diagnostic) -> tuple[str, int, int]:
    if d.pos is None:
        return ("", 0, 0)
    return (d.pos.file, d.pos.line, d.pos.col)


def run_validate(
    template: str,
    environments: list[str],
    parameters: dict[str, str],
    parameter_files: dict[str, str],
    *,
    max_size: int = DEFAULT_MAX_TEMPLATE_SIZE,
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    """Validate; returns the loaded stack (None when the template is unusable) and every diagnostic, sorted
    by file and position."""
    stack, diags = load_stack(
        template,
        environments,
        parameters,
        parameter_files,
        require_values=False,
        checks=root.type_checks(),
        max_size=max_size,
    )
    return stack, sorted(diags, key=_sort_key)


def _jsonable(value: Any) -> Any:
    if value is MISSING:
        return None
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def describe(stack: LoadedStack) -> dict[str, Any]:
    """What Heat's template validate returns besides the verdict: description, parameters (hidden defaults
    masked) and parameter groups."""
    t = stack.template
    params: dict[str, Any] = {}
    for name, p in t.parameters.items():
        entry: dict[str, Any] = {
            "type": p.type,
            "label": p.label or name,
            "description": p.description or "",
            "hidden": p.hidden,
            "immutable": p.immutable,
        }
        if p.default is not MISSING:
            entry["default"] = "******" if p.hidden else _jsonable(p.default)
        if name in stack.parameter_values and not p.hidden:
            entry["value"] = _jsonable(stack.parameter_values[name])
        if p.tags:
            entry["tags"] = list(p.tags)
        if p.constraints:
            entry["constraints"] = [
                {c.kind: _jsonable(list(c.spec) if isinstance(c.spec, tuple) else c.spec)}
                | ({"description": c.description} if c.description else {})
                for c in p.constraints
            ]
        params[name] = entry
    out: dict[str, Any] = {"description": t.description or "No description", "parameters": params}
    if t.parameter_groups:
        out["parameter_groups"] = [
            {"label": g.label, "description": g.description, "parameters": list(g.parameters)}
            for g in t.parameter_groups
        ]
    return out


def validate_command(
    template: TemplateOpt,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="Output format: text, json or sarif (SARIF 2.1.0, for code scanning)."
        ),
    ] = "text",
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
    lint: Annotated[bool, typer.Option("--lint", help="Then run the security rules (hotc lint).")] = False,
) -> None:
    """Check a template (with its environments and nested templates) the way Heat's template validate does."""
    check_format(fmt, ("text", "json", "sarif"))
    params = parse_parameters(parameter)
    pfiles = {k: str(v) for k, v in parse_parameter_files(parameter_file).items()}
    stack, raw = run_validate(
        str(template),
        [str(e) for e in environment or []],
        params,
        pfiles,
        max_size=max_template_size,
    )
    diags = [_display(d) for d in raw]
    n_err = sum(1 for d in diags if d.severity is Severity.ERROR)
    n_warn = len(diags) - n_err
    linted: tuple[Any, int] | None = None
    if lint and stack is not None and n_err == 0:
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.cli.lint_cmd import lint_for_validate
        from hotc.planner.api import diagnostic_results, render_sarif

        sarif = render_sarif(diagnostic_results(diags)) if fmt == "sarif" else None
        linted = lint_for_validate(stack, fmt, sarif)
    if fmt == "sarif" and linted is not None:
        typer.echo(linted[0], nl=False)
    elif fmt == "sarif":
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.planner.api import diagnostic_results, render_sarif

        typer.echo(render_sarif(diagnostic_results(diags)), nl=False)
    elif fmt == "json":
        doc: dict[str, Any] = {
            "valid": n_err == 0,
            "errors": n_err,
            "warnings": n_warn,
            "diagnostics": [d.to_json() for d in diags],
        }
        if stack is not None:
            doc.update(describe(stack))
        if linted is not None:
            doc["lint"] = linted[0]
        typer.echo(json.dumps(doc, indent=2))
    else:
        for d in diags:
            typer.echo(str(d))
        if linted is not None:
            typer.echo(linted[0], nl=False)
        elif lint:
            typer.echo("the security rules did not run: the template has errors", err=True)
        if n_err == 0:
            typer.echo("OK")
        else:
            typer.echo(f"{n_err} error(s), {n_warn} warning(s)")
    code = 1 if n_err or (linted is not None and linted[1]) else 0
    # everything is written: hotc's own process ends here, before the interpreter frees the template's IR
    # object by object (hotc.cli.process_end; called from Python, this returns)
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.process_end import end_process

    end_process(code)
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Wire the front end's commands into the app."""
    app.command("validate")(validate_command)
