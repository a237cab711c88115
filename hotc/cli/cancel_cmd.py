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
        bool,
        typer.Option(
            "--no-rollback",
            help="Leave the stack as the cancel finds it (default: the apply rolls it back to its last good "
            "template, as Heat's 'stack cancel').",
        ),
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait/--no-wait", help="Wait until the operation has stopped (default).")
    ] = True,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="SECONDS", help="Seconds to wait for it to stop (and roll back)."),
    ] = 600.0,
    backend: BackendOpt = None,
) -> None:
    """Cancel the apply or destroy that holds STACK's lock, from any terminal or CI job (Heat's 'stack
    cancel'): it starts nothing new, lets the actions in flight finish and records them, rolls the stack back
    to its last good template (a stack being created: deletes what the apply made; never a destroy) unless
    --no-rollback, then exits non-zero saying who cancelled and when. Exit 1 here when it did not stop in time
    or its rollback failed."""
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
    said = f"stack {stack!r} is {result.status} ({result.status_reason})"
    if result.status == "ROLLBACK_COMPLETE":
        typer.echo(f"It stopped and rolled back: {said}.")
        return
    if result.status == "ROLLBACK_FAILED":
        typer.echo(f"It stopped, but its rollback failed: {said}.", err=True)
        typer.echo(
            f"'hotc events {stack}' says what failed; the state records what is left. Apply the last good "
            f"template again with 'hotc apply {stack} --existing', or a fixed one.",
            err=True,
        )
        raise typer.Exit(1)
    typer.echo(f"It stopped: {said}.")
    if result.status.endswith("_COMPLETE"):
        return  # it was done before it saw the request: nothing to roll back
    why = (
        "as asked: --no-rollback"
        if no_rollback
        else "a destroy is not rolled back"
        if result.operation == "destroy"
        else "it stopped before the request reached it"
    )
    typer.echo(
        f"The stack was not rolled back ({why}). Apply again to finish what was cancelled, or return to the "
        f"last good template with 'hotc apply {stack} --existing'."
    )


def register(app: typer.Typer) -> None:
    app.command("cancel")(cancel_command)
