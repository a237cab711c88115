"""``hotc hook poll STACK`` and ``hotc hook clear STACK RESOURCE --pre-create|...``: Heat's ``openstack stack
hook poll`` / ``stack hook clear`` for the hooks (breakpoints) an apply is paused at. Both go through the hook
store beside the stack's state (:mod:`hotc.state.hooks`), so they work from any terminal or CI job that reaches
the state backend; the running apply sees a clear at its next poll."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from hotc.cli.common import BackendOpt
from hotc.errors import HotcError
from hotc.state.hooks import HookStore

hook_app = typer.Typer(
    name="hook",
    help="The hooks (breakpoints) a running apply is paused at (poll, clear).",
    no_args_is_help=True,
)

StackArg = Annotated[str, typer.Argument(help="Stack name.")]


def _store(backend: str | None, stack: str) -> HookStore:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state import backend_from_config
    from hotc.state.backend import validate_stack_name
    from hotc.state.hooks import hook_store_for

    validate_stack_name(stack)
    return hook_store_for(backend_from_config(backend), stack)


@hook_app.command("poll")
def poll_command(
    stack: StackArg,
    backend: BackendOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """List the hooks a running apply of STACK is paused at (as 'openstack stack hook poll')."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.hooks import pending

    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state import backend_from_config

    store = _store(backend, stack)
    records = pending(store)
    holder = backend_from_config(backend).peek_lock(stack) if records else None
    if records and (holder is None or holder.holder_gone()):
        # no apply holds the stack: these were left by a run that was killed while paused
        records = []
    if fmt == "json":
        rows = [
            {
                "address": r.address,
                "hook": r.hook,
                "type": r.data.get("type"),
                "reason": r.data.get("reason"),
                "since": r.data.get("at"),
                "by": r.data.get("by"),
            }
            for r in records
        ]
        typer.echo(json.dumps({"stack": stack, "hooks": rows}, indent=2))
        return
    if not records:
        typer.echo(f"No pending hooks on stack {stack!r}.")
        return
    typer.echo(f"Pending hooks on stack {stack!r}:")
    for r in records:
        typer.echo(
            f"  {r.address} ({r.data.get('type', '?')}): {r.data.get('reason', r.hook)} "
            f"since {r.data.get('at', '?')} (apply run by {r.data.get('by', '?')})"
        )
        typer.echo(f"    clear with: hotc hook clear {stack} {r.address} --{r.hook}")


@hook_app.command("clear")
def clear_command(
    stack: StackArg,
    resource: Annotated[str, typer.Argument(help="The resource's address (app.db, web[2]).")],
    pre_create: Annotated[bool, typer.Option("--pre-create", help="Clear its pre-create hook.")] = False,
    pre_update: Annotated[bool, typer.Option("--pre-update", help="Clear its pre-update hook.")] = False,
    pre_delete: Annotated[bool, typer.Option("--pre-delete", help="Clear its pre-delete hook.")] = False,
    post_create: Annotated[bool, typer.Option("--post-create", help="Clear its post-create hook.")] = False,
    post_update: Annotated[bool, typer.Option("--post-update", help="Clear its post-update hook.")] = False,
    post_delete: Annotated[bool, typer.Option("--post-delete", help="Clear its post-delete hook.")] = False,
    backend: BackendOpt = None,
) -> None:
    """Clear a hook RESOURCE of STACK is paused at, so the apply goes on (as 'openstack stack hook clear')."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.hooks import request_clear

    chosen = [
        h
        for h, on in (
            ("pre-create", pre_create),
            ("pre-update", pre_update),
            ("pre-delete", pre_delete),
            ("post-create", post_create),
            ("post-update", post_update),
            ("post-delete", post_delete),
        )
        if on
    ]
    if not chosen:
        raise HotcError(
            "say which hook to clear: --pre-create, --pre-update, --pre-delete, --post-create, --post-update "
            f"or --post-delete (hotc hook poll {stack} lists the pending ones)"
        )
    store = _store(backend, stack)
    for hook in chosen:
        request_clear(store, resource, hook)
        typer.echo(f"Hook {hook} on {resource} of stack {stack!r}: clear requested; the apply goes on.")


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")
