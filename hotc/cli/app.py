"""The ``hotc`` command line: one typer app; each command group lives in its own module with
``register(app)``. Errors (:class:`hotc.errors.HotcError`) are printed plainly, never as a traceback."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

import hotc.cli as cli_pkg
from hotc.cli.common import display_diagnostics, display_message
from hotc.errors import HotcError

app = typer.Typer(
    name="hotc",
    help="Plan/apply compiler for OpenStack Heat Orchestration Templates.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Plan/apply compiler for OpenStack Heat Orchestration Templates."""
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
        print(f"error: {display_message(exc.message)}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
