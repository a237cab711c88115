"""The ``hotc`` command line: one typer app; each command group lives in its own module with
``register(app)``. Errors (:class:`hotc.errors.HotcError`) are printed plainly, never as a traceback."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer

import hotc.cli as cli_pkg
from hotc.cli.common import display_diagnostics
from hotc.errors import HotcError

app = typer.Typer(
    name="hotc",
    help="Plan/apply compiler for OpenStack Heat Orchestration Templates.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from hotc import __version__

        print(f"hotc {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print hotc's version and exit.", callback=_version, is_eager=True
    ),
    no_color: bool = typer.Option(
        False, "--no-color", help="No colours in any output (also: the NO_COLOR environment variable)."
    ),
) -> None:
    """Plan/apply compiler for OpenStack Heat Orchestration Templates."""
    if no_color:
        os.environ["NO_COLOR"] = "1"  # the process's own setting, read where output is coloured
    # (a callback keeps typer in sub-command mode even while only one command is registered)


def _register_all() -> None:
    """Wire every command group: each module of ``hotc.cli`` that defines ``register(app)`` (one module per
    layer, owned by that layer) adds its commands, so adding a group never edits this file."""
    for info in sorted(pkgutil.iter_modules(cli_pkg.__path__), key=lambda m: m.name):
        if info.name in ("app", "common") or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"hotc.cli.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(app)


_register_all()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    try:
        app(args=argv, prog_name="hotc", standalone_mode=True)
    except HotcError as exc:
        for d in display_diagnostics(exc.diagnostics):
            print(str(d), file=sys.stderr)
        print(f"error: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
