"""``hotc graph``: the dependency graph of a template's plan, a saved plan, or a stack's state.

    hotc graph -t T [-e E]... [--parameter K=V]... [STACK]   the plan against STACK's state (all creates if new)
    hotc graph PLANFILE                                     a saved plan
    hotc graph STACK                                        the recorded state (no actions)
    [--format dot|mermaid|svg|png] [-o FILE] [--backend URL]

Plans are coloured by action, replacements are double-bordered and the critical path (the longest chain of
estimated durations) is bold. ``svg``/``png`` run Graphviz's ``dot``, which must be installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from hotc.cli.common import (
    DEFAULT_MAX_TEMPLATE_SIZE,
    EnvOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    check_format,
    other_stacks,
    parse_parameter_files,
    parse_parameters,
    stack_name_for,
)
from hotc.errors import HotcError

GRAPH_FORMATS = ("dot", "mermaid", "svg", "png")
GRAPHVIZ_HINT = (
    "Graphviz's 'dot' is not installed: install it (Debian/Ubuntu: apt-get install graphviz; Fedora: dnf "
    "install graphviz; macOS: brew install graphviz), or use --format dot or --format mermaid"
)


def _events(backend: Any, stack: str) -> list[Any]:
    try:
        return list(backend.read_events(stack))
    except (HotcError, AttributeError, OSError):
        return []


def _from_template(
    template: Path,
    environment: list[Path],
    params: dict[str, str],
    pfiles: dict[str, Path],
    stack: str,
    backend_url: str | None,
    max_size: int = DEFAULT_MAX_TEMPLATE_SIZE,
) -> tuple[Any, str]:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.plan import plan_wiring
    from hotc.ops.plan import PlanRequest, plan
    from hotc.planner.api import estimate, from_plan, measured_durations

    request = PlanRequest(
        stack=stack,
        template=template,
        environments=tuple(environment),
        parameters=params,
        parameter_files=pfiles,
        backend=backend_url,
        checks=(),  # a drawing, not a gate
        lock_state=False,
    )
    result = plan(request, plan_wiring(None, "graphed", max_size, embeds_files=False))
    est = estimate(result.plan, measured_durations(_events(result.backend, stack)))
    plan_ = result.plan
    return from_plan(plan_, est.critical_path), f"plan for stack {stack}"


def _from_plan_file(path: Path) -> tuple[Any, str]:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import estimate, from_plan, load_plan

    plan = load_plan(path)
    return from_plan(plan, estimate(plan).critical_path), f"plan for stack {plan.stack_name}"


def _from_state(stack: str, backend_url: str | None) -> tuple[Any, str]:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import from_dependencies
    from hotc.state import backend_from_config

    backend = backend_from_config(backend_url)
    state, _ = backend.read(stack)
    if state is None:
        raise HotcError(
            f"{stack}: neither a plan file nor a stack with state in {backend.describe()}; give a template "
            f"with -t.{other_stacks(backend, stack)}"
        )
    types = {a: r.type for a, r in state.resources.items()}
    deps = {a: r.dependencies for a, r in state.resources.items()}
    return from_dependencies(types, deps), f"stack {stack}"


def _run_dot(text: str, fmt: str) -> bytes:
    dot = shutil.which("dot")
    if dot is None:
        raise HotcError(GRAPHVIZ_HINT)
    proc = subprocess.run(
        [dot, f"-T{fmt}"], input=text.encode(), capture_output=True, timeout=120, check=False
    )
    if proc.returncode != 0:
        raise HotcError(f"dot -T{fmt} failed: {proc.stderr.decode(errors='replace').strip()[:500]}")
    return proc.stdout


def graph_command(
    what: Annotated[str | None, typer.Argument(help="A saved plan file, or a stack name.")] = None,
    template: Annotated[Path | None, typer.Option("-t", "--template", help="HOT template file.")] = None,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="dot, mermaid, svg or png.")] = "dot",
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Write to FILE instead of stdout.")] = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help="State backend (s3://... or a directory).")
    ] = None,
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
) -> None:
    """Draw the dependency graph: a plan coloured by action with its critical path, or a stack's state."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import render_dot, render_mermaid

    check_format(fmt, GRAPH_FORMATS)
    if template is not None:
        stack = stack_name_for(what, template)
        model, title = _from_template(
            template,
            list(environment or []),
            parse_parameters(parameter),
            parse_parameter_files(parameter_file),
            stack,
            backend,
            max_template_size,
        )
    elif what is None:
        raise HotcError("give a template with -t, a saved plan file or a stack name")
    elif Path(what).is_file():
        model, title = _from_plan_file(Path(what))
    else:
        model, title = _from_state(what, backend)
    data: bytes
    if fmt == "mermaid":
        data = render_mermaid(model).encode()
    else:
        text = render_dot(model, title)
        data = text.encode() if fmt == "dot" else _run_dot(text, fmt)
    if out is not None:
        try:
            out.write_bytes(data)
        except OSError as exc:
            raise HotcError(f"cannot write {out}: {exc.strerror or exc}") from exc
        print(f"Wrote the graph to {out}", file=sys.stderr)
        return
    if fmt == "png" and sys.stdout.isatty():
        raise HotcError("--format png writes binary data: give -o FILE")
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("graph")(graph_command)
