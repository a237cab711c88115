"""``hotc drift``: what changed in the cloud behind the stacks' back, read-only (options -> request ->
:mod:`hotc.ops.drift` -> :mod:`hotc.cli.drift_view`); ``--accept`` writes an accepted-drift entry."""

from __future__ import annotations

import getpass
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from hotc.cli import root
from hotc.cli.common import BackendOpt
from hotc.errors import HotcError

FORMATS = ("text", "json", "markdown", "sarif")


def _who() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def drift_command(
    stacks: Annotated[list[str] | None, typer.Argument(help="Stacks to scan (or --all).")] = None,
    all_stacks: Annotated[bool, typer.Option("--all", help="Scan every stack of the backend.")] = False,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="Output format: text, json, markdown or sarif.")
    ] = "text",
    backend: BackendOpt = None,
    os_cloud: Annotated[
        str | None,
        typer.Option("--os-cloud", help="Cloud name in clouds.yaml (default: OS_CLOUD / OS_* variables)."),
    ] = None,
    parallelism: Annotated[
        int, typer.Option("--parallelism", help="Stacks scanned at a time (with --all or several stacks).")
    ] = 4,
    accept: Annotated[
        str | None,
        typer.Option(
            "--accept",
            help="Accept a difference: ADDRESS:PROPERTY_PATH (web[2].port:name; ADDRESS:* for a deleted "
            "resource), with --reason and --until; written into the stack's state.",
        ),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the difference is accepted.")] = "",
    until: Annotated[str, typer.Option("--until", help="Last day the acceptance holds (YYYY-MM-DD).")] = "",
    lock_timeout: Annotated[
        float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock (--accept).")
    ] = 0.0,
) -> None:
    """Report drift: per resource and property, what changed in the cloud outside hotc, what was deleted out of
    band, and objects that carry a stack's tag but are not in its state. Read-only. Exit 0 no drift, 2 drift,
    1 errors. Accepted drift (--accept, or [[drift.accept]] in hotc.toml) is shown apart until it expires."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops import drift as op

    if accept is not None:
        if all_stacks or len(stacks or []) != 1:
            raise HotcError("--accept takes exactly one STACK (not --all)")
        if not until:
            raise HotcError("--accept needs --until YYYY-MM-DD: an accepted difference expires")
        at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        res = op.accept(
            op.AcceptRequest((stacks or [""])[0], accept, reason, until, _who(), at, backend, lock_timeout)
        )
        verb = "Replaced" if res.replaced is not None else "Accepted"
        typer.echo(
            f"{verb} drift {res.key} of stack {res.stack!r} until {res.entry.until}: {res.entry.reason} "
            f"(state serial {res.serial})."
        )
        return
    if output_format not in FORMATS:
        raise HotcError(f"--format {output_format!r}: expected one of {', '.join(FORMATS)}")
    if all_stacks and stacks:
        raise HotcError("give either STACK names or --all, not both")
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.drift_view import RENDERERS
    from hotc.state.signal_store import store_for

    common, by_stack = op.declared_accepted(Path.cwd() / "hotc.toml")
    request = op.DriftRequest(
        stacks=tuple(stacks or ()),
        all_stacks=all_stacks,
        backend=backend,
        accepted=common,
        accepted_by_stack=by_stack,
        stack_parallelism=max(1, parallelism),
    )
    result = op.run(
        request,
        cloud=root.cloud(os_cloud),
        drivers=root.drivers(),
        signals=lambda b: store_for(None, b),
    )
    typer.echo(RENDERERS[output_format](result), nl=False)
    for s in result.stacks:
        for line in s.errors:
            typer.echo(f"error: {s.stack}: {line}", err=True)
    raise typer.Exit(result.exit_code)


def register(app: typer.Typer) -> None:
    app.command("drift")(drift_command)
