"""``hotc snapshot create|list|show|delete|restore``: stack snapshots, as Heat's ``openstack stack snapshot
create|list|show|delete`` and ``stack snapshot restore`` (options -> request -> :mod:`hotc.ops.snapshot` ->
view). The snapshots live beside the stack's state in its backend (:mod:`hotc.state.snapshots`)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from hotc.cli import root
from hotc.cli.apply import (
    AutoApproveOpt,
    LockTimeoutOpt,
    OsCloudOpt,
    ParallelOpt,
    TimeoutOpt,
    _progress,
    _stdin_line,
    _timeouts,
    apply_wiring,
    policy_of,
)
from hotc.cli.common import BackendOpt, ParamOpt, check_format, operator_name, parse_parameters
from hotc.cli.plan import DenyOpt, PolicyOpt, WarnOpt
from hotc.planner.api import DEFAULT_PARALLELISM

snapshot_app = typer.Typer(
    name="snapshot",
    help="Stack snapshots: create, list, show, delete, restore (as 'openstack stack snapshot').",
    no_args_is_help=True,
)

StackArg = Annotated[str, typer.Argument(help="Stack name.")]
NameArg = Annotated[str, typer.Argument(metavar="SNAPSHOT", help="The snapshot's name.")]
FmtOpt = Annotated[str, typer.Option("--format", "-f", help="text or json.")]


def _request(stack: str, name: str, backend: str | None, lock_timeout: float = 0.0) -> Any:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.snapshot import SnapshotRequest

    return SnapshotRequest(stack, name, backend, lock_timeout, operator_name())


def _log(line: str) -> None:
    typer.echo(f"  {line}", err=True)


def _doc(snap: Any, detail: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": snap.name,
        "stack": snap.stack,
        "status": snap.status,
        "status_reason": snap.status_reason,
        "created_at": snap.created_at,
        "by": snap.by,
        "physical_snapshots": {a: dict(r.data) for a, r in sorted(snap.physical.items())},
    }
    if detail:
        doc["template"] = snap.state.template.get("main")
        doc["environments"] = list(snap.state.template.get("environments") or [])
        doc["parameters"] = {
            n: ("(hidden)" if p.hidden else p.value) for n, p in sorted(snap.state.parameters.items())
        }
        doc["resources"] = {
            a: {"type": r.type, "physical_id": r.physical_id, "status": r.status}
            for a, r in sorted(snap.state.resources.items())
        }
    return doc


@snapshot_app.command("create")
def create_command(
    stack: StackArg,
    name: Annotated[
        str, typer.Option("--name", help="The snapshot's name (default: the time, 20261202T140501Z).")
    ] = "",
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
) -> None:
    """Snapshot STACK: its template, environments, parameters and state, and a physical snapshot of each
    volume (a Cinder snapshot) and server (an image), as 'openstack stack snapshot create'."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.snapshot import create

    result = create(
        _request(stack, name, backend, lock_timeout),
        drivers=root.drivers(),
        cloud=root.cloud(os_cloud),
        log=_log,
    )
    snap = result.snapshot
    physical = snap.physical
    if result.failures:
        for f in result.failures:
            typer.echo(f"error: {f}", err=True)
        typer.echo(
            f"Snapshot {snap.name!r} of stack {stack!r} FAILED; what was taken is kept for "
            f"'hotc snapshot delete {stack} {snap.name}'.",
            err=True,
        )
        raise typer.Exit(1)
    typer.echo(
        f"Snapshot {snap.name!r} of stack {stack!r} created: {len(snap.resources)} resource(s), "
        f"{len(physical)} physical snapshot(s)."
    )
    for address, entry in sorted(physical.items()):
        typer.echo(f"  {address}: {', '.join(f'{k} {v}' for k, v in sorted(entry.data.items()))}")


@snapshot_app.command("list")
def list_command(stack: StackArg, backend: BackendOpt = None, fmt: FmtOpt = "text") -> None:
    """List the snapshots of STACK, oldest first (as 'openstack stack snapshot list')."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.snapshot import list_snapshots

    check_format(fmt, ("text", "json"))
    snaps = list_snapshots(_request(stack, "", backend))
    if fmt == "json":
        typer.echo(json.dumps({"stack": stack, "snapshots": [_doc(s, False) for s in snaps]}, indent=2))
        return
    if not snaps:
        typer.echo(f"Stack {stack!r} has no snapshots.")
        return
    typer.echo(f"{'NAME':24} {'STATUS':9} {'CREATED':21} {'PHYSICAL':8} BY")
    for s in snaps:
        typer.echo(f"{s.name:24} {s.status:9} {s.created_at:21} {len(s.physical):<8} {s.by}")


@snapshot_app.command("show")
def show_command(stack: StackArg, name: NameArg, backend: BackendOpt = None, fmt: FmtOpt = "text") -> None:
    """Show a snapshot of STACK: when and by whom it was taken, its template, parameters (hidden ones never
    shown), resources and physical snapshots (as 'openstack stack snapshot show')."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.snapshot import show

    check_format(fmt, ("text", "json"))
    doc = _doc(show(_request(stack, name, backend)), True)
    if fmt == "json":
        typer.echo(json.dumps(doc, indent=2))
        return
    typer.echo(f"Snapshot {doc['name']!r} of stack {stack!r}: {doc['status']}")
    if doc["status_reason"]:
        typer.echo(f"  reason: {doc['status_reason']}")
    typer.echo(f"  taken:        {doc['created_at']} by {doc['by']}")
    typer.echo(f"  template:     {doc['template']}")
    if doc["environments"]:
        typer.echo(f"  environments: {', '.join(doc['environments'])}")
    if doc["parameters"]:
        typer.echo("  parameters:")
        for n, v in doc["parameters"].items():
            typer.echo(f"    {n}: {v if isinstance(v, str) else json.dumps(v)}")
    typer.echo("  resources:")
    for a, r in doc["resources"].items():
        phys = doc["physical_snapshots"].get(a)
        extra = f"  snapshot: {', '.join(f'{k} {v}' for k, v in sorted(phys.items()))}" if phys else ""
        typer.echo(f"    {a} ({r['type']}) {r['physical_id'] or '-'}{extra}")


@snapshot_app.command("delete")
def delete_command(
    stack: StackArg,
    name: NameArg,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
) -> None:
    """Delete a snapshot of STACK and its physical snapshots (volume snapshots, images), as 'openstack stack
    snapshot delete'."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.snapshot import delete

    snap = delete(
        _request(stack, name, backend, lock_timeout),
        drivers=root.drivers(),
        cloud=root.cloud(os_cloud),
        log=_log,
    )
    typer.echo(
        f"Snapshot {snap.name!r} of stack {stack!r} deleted, with {len(snap.physical)} physical snapshot(s)."
    )


@snapshot_app.command("restore")
def restore_command(
    stack: StackArg,
    name: NameArg,
    parameter: ParamOpt = None,
    auto_approve: AutoApproveOpt = False,
    parallelism: ParallelOpt = DEFAULT_PARALLELISM,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
    timeout: TimeoutOpt = None,
    deny: DenyOpt = None,
    warn: WarnOpt = None,
    policy_file: PolicyOpt = None,
) -> None:
    """Restore STACK to a snapshot (as 'openstack stack snapshot restore'): the snapshot's template, environments
    and parameters, volumes made from their snapshots and servers built from their images. The plan is shown
    and approved as apply's (--auto-approve), held to --deny, --warn, --policy-file and the protection marks.
    --parameter gives a hidden parameter again when the state keeps only its digest."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.apply import ApplyOptions
    from hotc.ops.snapshot import restore

    opts = ApplyOptions(
        parallelism=parallelism,
        auto_approve=auto_approve,
        lock_timeout=lock_timeout,
        backend=backend,
        os_cloud=os_cloud,
        timeouts=_timeouts(timeout),
        policy=policy_of(deny, warn, policy_file),
    )
    out = root.sinks()
    code = restore(
        _request(stack, name, backend, lock_timeout),
        opts,
        parameters=parse_parameters(parameter),
        out=out.out,
        err=out.err,
        interactive=sys.stdin.isatty(),
        read_line=_stdin_line,
        progress=_progress,
        wiring=apply_wiring(os_cloud),
    )
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.add_typer(snapshot_app, name="snapshot")
