"""The ``hotc`` command line: one typer app; each command group lives in its own module with
``register(app)``. Errors (:class:`hotc.errors.HotcError`) are printed plainly, never as a traceback."""

from __future__ import annotations

import sys

import typer

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
    # Each line wires one command group; modules are owned by their layer.
    from hotc.cli import validate

    validate.register(app)
    from hotc.cli import plan

    plan.register(app)


_register_all()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    try:
        app(args=argv, prog_name="hotc", standalone_mode=True)
    except HotcError as exc:
        for d in exc.diagnostics:
            print(str(d), file=sys.stderr)
        print(f"error: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
