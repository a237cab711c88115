"""``hotc plan-store put|get|drop|list STACK``: the reviewed plans a CI pipeline keeps beside the stack's state
(:mod:`hotc.state.plan_store`). A pull request's plan job stores its saved plan (``put --pr N``); after the
merge, the apply job takes back exactly that plan (``get --pr N``) and applies it; ``drop`` releases it (the
plan was applied, or the pull request closed). A stored plan holds the stack: ``list`` names the pull requests
whose plans are pending, so another pull request's plan job can say the stack is held."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from hotc.cli.common import BackendOpt, check_format
from hotc.errors import HotcError
from hotc.planner.api import load_plan
from hotc.state import backend_from_config
from hotc.state.backend import validate_stack_name
from hotc.state.plan_store import PlanStore, check_pr, plan_digest, plan_store_for

plan_store_app = typer.Typer(
    name="plan-store",
    help="Reviewed plans kept beside the stack's state for CI (put, get, drop, list).",
    no_args_is_help=True,
)

StackArg = Annotated[str, typer.Argument(help="Stack name.")]
PrOpt = Annotated[int, typer.Option("--pr", help="The pull (merge) request's number.")]
FileArg = Annotated[Path, typer.Argument(metavar="PLANFILE", help="The saved plan file (hotc plan -o).")]


def _store(backend: str | None, stack: str) -> PlanStore:
    validate_stack_name(stack)
    return plan_store_for(backend_from_config(backend), stack)


@plan_store_app.command("put")
def put_command(stack: StackArg, planfile: FileArg, pr: PrOpt, backend: BackendOpt = None) -> None:
    """Store PLANFILE as the reviewed plan of pull request PR for STACK (replacing the one it stored before)."""
    check_pr(pr)
    plan = load_plan(planfile)
    if plan.stack_name != stack:
        raise HotcError(
            f"{planfile}: the plan is for stack {plan.stack_name!r}, not {stack!r}: store it under its own stack"
        )
    data = planfile.read_bytes()
    store = _store(backend, stack)
    store.put(pr, data)
    typer.echo(
        f"Stored the plan of PR #{pr} for stack {stack!r} ({plan_digest(data)}, made at state serial "
        f"{plan.state_serial}) in {store.describe()}.",
        err=True,
    )


@plan_store_app.command("get")
def get_command(stack: StackArg, planfile: FileArg, pr: PrOpt, backend: BackendOpt = None) -> None:
    """Write the reviewed plan pull request PR stored for STACK to PLANFILE (exit 1 if it stored none)."""
    check_pr(pr)
    store = _store(backend, stack)
    data = store.get(pr)
    if data is None:
        raise HotcError(
            f"no reviewed plan of PR #{pr} for stack {stack!r} in {store.describe()}: its plan job stored none "
            "(it had no changes, the stack was held, or it did not run); plan it again"
        )
    try:
        planfile.write_bytes(data)
    except OSError as exc:
        raise HotcError(f"{planfile}: cannot write the plan: {exc.strerror or exc}") from None
    typer.echo(f"Fetched the plan of PR #{pr} for stack {stack!r} ({plan_digest(data)}).", err=True)


@plan_store_app.command("drop")
def drop_command(stack: StackArg, pr: PrOpt, backend: BackendOpt = None) -> None:
    """Drop the reviewed plan of pull request PR for STACK (applied, or the pull request closed): the stack is
    no longer held by it."""
    check_pr(pr)
    store = _store(backend, stack)
    had = store.get(pr) is not None
    store.remove(pr)
    said = "Dropped" if had else "No stored plan to drop:"
    typer.echo(f"{said} the plan of PR #{pr} for stack {stack!r}.", err=True)


@plan_store_app.command("list")
def list_command(
    stack: StackArg,
    backend: BackendOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the numbers, one a line.")] = False,
) -> None:
    """The pull requests whose reviewed plans for STACK are pending (stored, not yet applied or dropped),
    oldest first."""
    check_format(fmt, ("text", "json"))
    plans = _store(backend, stack).pending()
    if fmt == "json":
        rows = [{"pr": p.pr, "stored_at": p.stored_at} for p in plans]
        typer.echo(json.dumps({"stack": stack, "pending": rows}, indent=2))
    elif quiet:
        for p in plans:
            typer.echo(str(p.pr))
    elif not plans:
        typer.echo(f"No pending reviewed plans for stack {stack!r}.")
    else:
        for p in plans:
            typer.echo(f"PR #{p.pr}  stored {p.stored_at}")


def register(app: typer.Typer) -> None:
    app.add_typer(plan_store_app, name="plan-store")
