"""``hotc init``: write a stack's entry into the project file (``hotc.toml``) from the flags given, so that
later commands need only the stack's name (see :mod:`hotc.cli.project`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml  # init reads the template itself: no parser start-up for a file of this size

from hotc.cli.common import (
    BackendOpt,
    EnvOpt,
    ParamFileOpt,
    ParamOpt,
    TemplateOpt,
    parse_parameter_files,
    parse_parameters,
)
from hotc.cli.project import PROJECT_FILE, StackEntry, init_text, load_project
from hotc.errors import HotcError


def _hidden_names(template: Path) -> set[str]:
    """The template's hidden parameters (their values never go into the project file)."""
    try:
        doc = yaml.safe_load(template.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return set()
    params = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(params, dict):
        return set()
    return {str(n) for n, p in params.items() if isinstance(p, dict) and p.get("hidden") is True}


def init_command(
    stack: Annotated[
        str | None, typer.Argument(help="Stack name (default: the template file's stem).")
    ] = None,
    template: TemplateOpt = Path(),
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    backend: BackendOpt = None,
    policy_file: Annotated[
        list[Path] | None,
        typer.Option("--policy-file", help="Policy file the stack's plans obey (repeatable)."),
    ] = None,
    deny: Annotated[
        list[str] | None, typer.Option("--deny", help="ACTION:TYPE_GLOB refused (repeatable).")
    ] = None,
    warn: Annotated[
        list[str] | None, typer.Option("--warn", help="ACTION:TYPE_GLOB warned (repeatable).")
    ] = None,
    parallelism: Annotated[int | None, typer.Option("--parallelism", help="Actions at once.")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the stack's entry if there is one.")
    ] = False,
) -> None:
    """Pin a stack in hotc.toml (in this directory, or the project file above it): its template, environments,
    parameters, backend, policy and parallelism. Afterwards 'hotc plan NAME' and 'hotc apply NAME' need no
    other flag, and 'hotc plan' with no argument plans every stack of the file."""
    if template == Path() or not template.is_file():
        raise HotcError(f"-t {template}: no such template file; give the stack's template with -t FILE")
    name = stack or template.stem
    project = load_project()
    path = project.path if project is not None else Path.cwd() / PROJECT_FILE
    root = path.parent
    if project is not None and name in project.stacks and not force:
        raise HotcError(
            f"{path}: stack {name!r} is already pinned there; edit the file, or give --force to replace its entry"
        )
    params = parse_parameters(parameter)
    hidden = _hidden_names(template) & set(params)
    if hidden:
        raise HotcError(
            f"{', '.join(sorted(hidden))}: hidden parameter(s) of {template}; their values never go into the "
            "project file. Give them with --parameter when you run the command, or keep them in an "
            "environment or --parameter-file that is not committed"
        )
    entry = StackEntry(
        name=name,
        template=template,
        environments=tuple(environment or ()),
        parameters=params,
        parameter_files=parse_parameter_files(parameter_file),
        backend=backend,
        policy_files=tuple(policy_file or ()),
        deny=tuple(deny or ()),
        warn=tuple(warn or ()),
        parallelism=parallelism,
    )
    text = init_text(entry, root)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if project is not None and name in project.stacks:
        old = _without_table(old, name)
    new = (old.rstrip("\n") + "\n\n" if old.strip() else "") + text
    path.write_text(new, encoding="utf-8")
    load_project(root)  # what was written reads back
    typer.echo(f"Pinned stack {name!r} in {path}:\n\n{text}")


def _without_table(text: str, name: str) -> str:
    """``text`` without the ``[stacks.NAME]`` table (its header up to the next table header)."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped == f"[stacks.{name}]"
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n"


def register(app: typer.Typer) -> None:
    app.command("init")(init_command)
