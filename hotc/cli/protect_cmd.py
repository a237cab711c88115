"""``hotc protect`` and ``hotc unprotect``: protection marks kept with the stack (options -> request ->
:mod:`hotc.ops.protect` -> view)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from hotc.cli.common import BackendOpt, operator_name
from hotc.ops.protect import ProtectRequest, ProtectResult, run
from hotc.state.document import STACK_MARK

StackArg = Annotated[str, typer.Argument(help="Stack name.")]
AddressesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Resource addresses or patterns (web, web[*], app.*); a group or nested stack covers its "
        "members. None: the stack itself (destroy is refused)."
    ),
]
LockTimeoutOpt = Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock.")]


def _name(key: str) -> str:
    return "the stack" if key == STACK_MARK else key


def _show(result: ProtectResult, protect: bool) -> None:
    verb = "Protected" if protect else "Unprotected"
    for key in result.changed:
        what = f"stack {result.stack!r}" if key == STACK_MARK else f"{key} of stack {result.stack!r}"
        typer.echo(f"{verb} {what}.")
    for key in result.unchanged:
        what = f"Stack {result.stack!r}" if key == STACK_MARK else f"{key} of stack {result.stack!r}"
        typer.echo(f"{what} was already protected.")
    if result.marks:
        typer.echo("Protection marks now:")
        for key, mark in sorted(result.marks.items()):
            why = f": {mark.reason}" if mark.reason else ""
            typer.echo(f"  {_name(key)} (by {mark.by} at {mark.at}{why})")
    else:
        typer.echo(f"Stack {result.stack!r} has no protection marks now.")


def protect_command(
    stack: StackArg,
    addresses: AddressesArg = None,
    reason: Annotated[
        str, typer.Option("--reason", help="Why (stored with the mark, shown on refusal).")
    ] = "",
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
) -> None:
    """Protect a stack (no ADDRESS: destroy is refused) or some of its resources (a plan that would delete or
    replace them is refused), from every command and runner that uses the backend."""
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    request = ProtectRequest(
        stack, tuple(addresses or ()), True, reason, operator_name(), at, backend, lock_timeout
    )
    _show(run(request), True)


def unprotect_command(
    stack: StackArg,
    addresses: AddressesArg = None,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
) -> None:
    """Lift protection marks set by 'hotc protect' (no ADDRESS: the stack's own)."""
    request = ProtectRequest(stack, tuple(addresses or ()), False, "", "", "", backend, lock_timeout)
    _show(run(request), False)


def register(app: typer.Typer) -> None:
    app.command("protect")(protect_command)
    app.command("unprotect")(unprotect_command)
