"""Options shared by every command (the `openstack stack` habits): -t, -e (repeatable), --parameter K=V,
--parameter-file K=FILE, optional positional STACK (default: the template's stem), --format."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from typer._click.globals import get_current_context

from hotc.errors import Diagnostic, HotcError, Pos, Severity, did_you_mean

if TYPE_CHECKING:
    from hotc.parser.api import LoadedStack

TemplateOpt = Annotated[Path, typer.Option("-t", "--template", help="HOT template file.")]
EnvOpt = Annotated[
    list[Path] | None,
    typer.Option("-e", "--environment", help="Environment file (repeatable, applied in order)."),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option("--parameter", help="Parameter value KEY=VALUE (repeatable; also K1=V1;K2=V2)."),
]
ParamFileOpt = Annotated[
    list[str] | None,
    typer.Option("--parameter-file", help="Parameter value read from a file: KEY=FILE (repeatable)."),
]
# Heat's default (``max_template_size``); the parser's own default is the same number (a test checks)
DEFAULT_MAX_TEMPLATE_SIZE = 512 * 1024
MaxSizeOpt = Annotated[
    int,
    typer.Option(
        "--max-template-size",
        help="Largest template or environment accepted, in bytes (Heat's default: 524288).",
    ),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: text or json.")]
BackendOpt = Annotated[
    str | None,
    typer.Option("--backend", help="State backend: s3://BUCKET/PREFIX or a directory (default .hotc/)."),
]
SignalStoreOpt = Annotated[
    str | None,
    typer.Option(
        "--signal-store",
        help="Where wait-condition signals and server metadata live: s3://BUCKET/PREFIX (default "
        "HOTC_SIGNAL_STORE, \\[signals] in hotc.toml, else the S3 state backend's bucket).",
    ),
]


def parse_parameters(values: list[str] | None) -> dict[str, str]:
    """``--parameter`` values as heatclient reads them: KEY=VALUE, or several joined with ';'."""
    out: dict[str, str] = {}
    for raw in values or []:
        for item in raw.split(";") if ";" in raw and "=" in raw.split(";", 1)[1] else [raw]:
            if "=" not in item:
                raise HotcError(f"--parameter {item!r}: expected KEY=VALUE")
            key, value = item.split("=", 1)
            if not key:
                raise HotcError(f"--parameter {item!r}: the key is empty")
            out[key] = value
    return out


def parse_parameter_files(values: list[str] | None) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for raw in values or []:
        if "=" not in raw:
            raise HotcError(f"--parameter-file {raw!r}: expected KEY=FILE")
        key, value = raw.split("=", 1)
        out[key] = Path(value)
    return out


def operator_name() -> str:
    """Who runs this command (``user@host``), as the marks and requests it writes record it."""
    # lazy: hotc --help loads this module; getpass and socket only when a command records its operator
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def stack_name_for(stack: str | None, template: Path | None) -> str:
    if stack:
        return stack
    if template is None:
        raise HotcError("give a STACK name or a template with -t")
    return template.stem


__all__ = ["did_you_mean"]  # re-exported for the command modules


def other_stacks(backend: Any, stack: str) -> str:
    """For "stack X has no state": the stacks the backend has, the closest first when one looks like a
    misspelling of ``stack`` (`` Did you mean 'web'? Stacks in BACKEND: db, web.``), or that it has none."""
    try:
        names = sorted(n for n in backend.list_stacks() if n != stack)
    except Exception:  # noqa: BLE001 - the hint must never hide the error it completes
        return ""
    if not names:
        return f" {backend.describe()} has no stacks."
    shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    return f"{did_you_mean(stack, names)} Stacks in {backend.describe()}: {shown}."


def check_format(fmt: str, allowed: tuple[str, ...]) -> str:
    if fmt not in allowed:
        raise HotcError(f"--format {fmt!r}: choose one of {', '.join(allowed)}")
    return fmt


def display_path(path: str) -> str:
    """A path as the user gave it: relative to the current directory when the file lies under it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def display_message(message: str) -> str:
    """A message as printed: paths of files under the current directory as the user gave them (relative)."""
    try:
        cwd = os.getcwd()
    except OSError:
        return message
    return message.replace(cwd.rstrip(os.sep) + os.sep, "") if cwd != os.sep else message


# The click context's ``meta`` key (shared by the contexts of one run) under which a command's printed warnings
# are kept by position: an error about the same spot then says "see the warning above" instead of repeating it
WARNED_AT = "hotc.warned_at"
WARNINGS = "hotc.warnings"  # the lines, for a report that gathers them (the failed plan's comment)


def remember_warning(d: Diagnostic) -> None:
    """Note that the warning ``d`` (positions as displayed) was printed by the command running now."""
    ctx = get_current_context(silent=True)
    if ctx is not None:
        ctx.meta.setdefault(WARNINGS, []).append(str(d))
        if d.pos is not None:
            ctx.meta.setdefault(WARNED_AT, set()).add(str(d.pos))


def display_diagnostics(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics as every command prints them: paths as the user gave them, sorted by file and position,
    each problem once."""
    out: list[Diagnostic] = []
    seen: set[Diagnostic] = set()
    for d in diags:
        if d.pos is not None:
            d = Diagnostic(
                d.severity, d.message, Pos(display_path(d.pos.file), d.pos.line, d.pos.col), d.code
            )
        if d not in seen:
            seen.add(d)
            out.append(d)
    return sorted(out, key=lambda d: (d.pos.file, d.pos.line, d.pos.col) if d.pos is not None else ("", 0, 0))


AllowOutsideOpt = Annotated[
    bool,
    typer.Option(
        "--allow-outside-files",
        help="Let get_file read files outside the template's directory tree (their content is copied into "
        "saved plans and the state); without it such a template is refused.",
    ),
]


def load_for_command(
    template: Path,
    envs: list[Path],
    params: dict[str, str],
    pfiles: dict[str, Path],
    *,
    verb: str,
    require_values: bool = True,
    warnings: list[Diagnostic] | None = None,
    err: IO[str] | None = None,
    embeds_files: bool = False,
    allow_outside_files: bool = False,
    max_size: int = DEFAULT_MAX_TEMPLATE_SIZE,
) -> LoadedStack:
    """``load_stack`` for a command (plan and apply require every value; eval does not), with the type checks
    of the composition root: warnings go to ``err`` (default: stderr; and into ``warnings`` when given),
    errors raise a HotcError carrying them (printed by the CLI), saying that nothing was ``verb``. A command
    that ``embeds_files`` (plan, apply: get_file contents go into saved plans and the state) refuses a get_file
    target outside the template's directory tree unless ``allow_outside_files``."""
    # (hotc.cli.app imports this module at start-up, before any command runs)
    # lazy: the parser and the providers behind the composition root cost about half a second
    from hotc.cli import root
    from hotc.parser.api import OUTSIDE_FILE_CODE, load_stack

    sink = err if err is not None else sys.stderr
    loaded, diags = load_stack(
        str(template),
        [str(e) for e in envs],
        params,
        {k: str(v) for k, v in pfiles.items()},
        require_values=require_values,
        checks=root.type_checks(),
        max_size=max_size,
    )
    if embeds_files and not allow_outside_files:
        diags = [replace(d, severity=Severity.ERROR) if d.code == OUTSIDE_FILE_CODE else d for d in diags]
    errors = display_diagnostics(d for d in diags if d.severity is Severity.ERROR)
    for d in display_diagnostics(d for d in diags if d.severity is not Severity.ERROR):
        sink.write(str(d) + "\n")
        if warnings is not None:
            warnings.append(d)
        remember_warning(d)
    if errors or loaded is None:
        raise HotcError(
            f"{display_path(str(template))}: the template has {len(errors)} error(s); nothing was {verb}",
            diagnostics=tuple(errors),
        )
    return loaded
