"""``hotc cancel STACK``: stop a running apply or destroy from anywhere (options -> request ->
:mod:`hotc.ops.cancel` -> view)."""

from __future__ import annotations

from typing import Annotated

import typer

from hotc.cli.common import BackendOpt, operator_name
from hotc.ops.cancel import CancelRequest, run


def cancel_command(
    stack: Annotated[str, typer.Argument(help="Stack name.")],
    no_rollback: Annotated[
        bool, typer.Option("--no-rollback", help="Leave the stack as the cancel finds it (the default too).")
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait/--no-wait", help="Wait until the operation has stopped (default).")
    ] = True,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for it to stop.")] = 600.0,
    backend: BackendOpt = None,
) -> None:
    """Cancel the apply or destroy that holds STACK's lock, from any terminal or CI job (Heat's 'stack
    cancel'): it starts nothing new, lets the actions in flight finish and records them, then exits
    non-zero saying who cancelled and when."""
    result = run(CancelRequest(stack, operator_name(), no_rollback, wait, timeout, backend))
    typer.echo(
        f"Cancel of the {result.operation} of stack {stack!r} (run by {result.holder}) requested at "
        f"{result.requested_at}."
    )
    if not wait:
        return
    if not result.stopped:
        typer.echo(f"error: the {result.operation} did not stop within {timeout:g} s", err=True)
        raise typer.Exit(1)
    typer.echo(f"It stopped: stack {stack!r} is {result.status} ({result.status_reason}).")
    typer.echo(
        "The stack was not rolled back: hotc has no rollback yet. Apply the last good template to return to "
        "it, or apply again to finish what was cancelled."
    )


def register(app: typer.Typer) -> None:
    app.command("cancel")(cancel_command)
