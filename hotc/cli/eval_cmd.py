"""`hotc eval`: evaluate one HOT expression against a template's parameters.

    hotc eval EXPR -t TEMPLATE [-e ENV]... [--parameter K=V]... [--parameter-file K=FILE] [--format text|json]
              [--stack-name NAME]

EXPR is the YAML/JSON flow form of a snippet, e.g. ``'{get_attr: [web, first_address]}'`` or
``'{str_replace: {template: "http://$H", params: {$H: {get_param: host}}}}'``; it is parsed with the
template's ``heat_template_version``, so the functions of that version apply. Parameters take their values
from the environments, ``--parameter`` and the template defaults; conditions of the template are available
to ``if``; ``get_file`` reads the template's files. Resources do not exist yet: their ids and attributes are
unknown and print as ``(known after apply: web.first_address)``.

Output: ``text`` prints the value as JSON (strings quoted); ``json`` prints
``{"value": ..., "known": bool, "waits_on": ["web.first_address", ...]}``.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from hotc.cli.common import (
    DEFAULT_MAX_TEMPLATE_SIZE,
    EnvOpt,
    FormatOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    TemplateOpt,
    check_format,
    load_for_command,
    parse_parameter_files,
    parse_parameters,
)
from hotc.errors import HotcError, Severity
from hotc.parser.api import (
    EvalContext,
    EvalError,
    UnknownResources,
    evaluate,
    evaluate_condition,
    parse_expr_text,
    references,
)
from hotc.planner.api import expr_refs
from hotc.values import Unknown, WaitsOn, collect_unknowns

ExprArg = Annotated[str, typer.Argument(help="The expression, e.g. '{get_attr: \\[web, first_address]}'.")]
StackNameOpt = Annotated[
    str | None,
    typer.Option("--stack-name", help="Value of OS::stack_name (default: the template file's stem)."),
]


def render(value: Any) -> Any:
    """A value with every Unknown replaced by the text ``(known after apply: ...)``."""
    if isinstance(value, Unknown):
        inner = ", ".join(sorted(str(w) for w in value.waits_on))
        return f"(known after apply: {inner})" if inner else "(known after apply)"
    if isinstance(value, dict):
        return {str(k): render(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render(v) for v in value]
    return value


def evaluate_in_stack(expr_text: str, loaded: Any, stack_name: str) -> Any:
    """Parse ``expr_text`` with the stack's template version and evaluate it (raises HotcError)."""
    template = loaded.template
    expr, diags = parse_expr_text(expr_text, template.version, where="outputs", file="<expr>")
    errors = [d for d in diags if d.severity is Severity.ERROR]
    if expr is None or errors:
        raise HotcError("the expression is not valid", diagnostics=tuple(diags))
    values: dict[str, Any] = dict(loaded.parameter_values)
    missing = [
        name
        for kind, name, _ in references(expr)
        if kind == "param" and name in template.parameters and name not in values
    ]
    if missing:
        raise HotcError(
            f"the parameter {missing[0]!r} has no value: give it with --parameter {missing[0]}=VALUE "
            "(or a default / an environment)"
        )
    for name in template.parameters:
        # parameters the expression may reach indirectly but that have no value
        values.setdefault(name, Unknown(frozenset({WaitsOn(f"parameter {name}")})))
    values["OS::stack_name"] = stack_name
    values.setdefault("OS::stack_id", Unknown.of("OS::stack_id"))
    values.setdefault("OS::project_id", Unknown.of("OS::project_id"))
    base = {
        "version": template.version,
        "parameters": values,
        "resolver": UnknownResources(),
        "files": loaded.files,
        "resource_names": frozenset(template.resources),
        "template_path": template.path,
    }
    conditions: dict[str, Any] = {}
    for _ in range(len(template.conditions) + 1):  # conditions may refer to each other: settle in rounds
        progress = False
        for name, cond in template.conditions.items():
            if name in conditions:
                continue
            try:
                conditions[name] = evaluate_condition(
                    cond.expr, EvalContext(conditions=conditions, **base), definition=True
                )
                progress = True
            except EvalError:
                continue
        if not progress:
            break
    try:
        return evaluate(expr, EvalContext(conditions=conditions, **base))
    except EvalError as exc:
        raise HotcError("the expression cannot be evaluated", diagnostics=(exc.diagnostic,)) from None


def _reads_hidden(expr_text: str, loaded: Any) -> bool:
    """Does the expression read a hidden parameter (directly or through a computed parameter name)?"""
    template = loaded.template
    hidden = frozenset(getattr(loaded, "hidden_parameters", ()) or ()) | {
        n for n, p in template.parameters.items() if p.hidden
    }
    if not hidden:
        return False
    expr, _diags = parse_expr_text(expr_text, template.version, where="outputs", file="<expr>")
    return expr is not None and expr_refs([expr]).reads_secret(hidden, set(), set())


def eval_command(
    expression: ExprArg,
    template: TemplateOpt,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    fmt: FormatOpt = "text",
    stack_name: StackNameOpt = None,
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
) -> None:
    """Evaluate one expression against the template's parameters (resources are unknown until apply)."""
    check_format(fmt, ("text", "json"))
    loaded = load_for_command(
        template,
        list(environment or []),
        parse_parameters(parameter),
        parse_parameter_files(parameter_file),
        verb="evaluated",
        require_values=False,
        max_size=max_template_size,
    )
    value = evaluate_in_stack(expression, loaded, stack_name or template.stem)
    if _reads_hidden(expression, loaded):
        # derived from a hidden parameter: never printed (hotc output --show-sensitive is the one way to see a
        # stored secret; the value given on the command line is the user's own)
        print("note: the value is derived from a hidden parameter and is not shown", file=sys.stderr)
        if fmt == "json":
            typer.echo(json.dumps({"value": None, "known": True, "waits_on": [], "sensitive": True}))
        else:
            typer.echo("(sensitive)")
        return
    if fmt == "json":
        unknown = collect_unknowns(value)
        doc = {
            "value": render(value),
            "known": unknown is None,
            "waits_on": sorted(str(w) for w in unknown.waits_on) if unknown else [],
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    rendered = render(value)
    if isinstance(rendered, dict | list):
        typer.echo(json.dumps(rendered, indent=2))
    else:
        typer.echo(json.dumps(rendered))


def register(app: typer.Typer) -> None:
    """Wire ``hotc eval`` into the app."""
    app.command("eval")(eval_command)
