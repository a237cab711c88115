"""``hotc state ...``, ``hotc stack list`` and ``hotc force-unlock`` (owned by the state layer).

    hotc state list    STACK                 addresses in the state, one per line
    hotc state show    STACK ADDR            one resource (--format text|json)
    hotc state rm      STACK ADDR...         forget resources (they stay in the cloud); ADDR also covers
                                             its members (ADDR[i], ADDR.child)
    hotc state mv      STACK SRC DST         rename an address (and its members; dependencies follow)
    hotc state pull    STACK                 the stored document as JSON on stdout
    hotc state push    STACK FILE            replace the state (refuses another lineage, or a serial not newer
                                             than the stored one, unless --force)
    hotc state history STACK                 stored versions (S3 bucket versioning; local: current + backup)
    hotc state restore STACK (--backup | --version N)
                                             make a stored version the current state again (also when
                                             the current one is corrupt)
    hotc stack list                          stacks in the backend
    hotc force-unlock  STACK LOCK_ID         remove a lock left by a dead process

Every command takes ``--backend``; those that change the state take ``--lock-timeout`` and
``--unsafe-no-locking``. Reading commands take no lock (a read is an atomic snapshot).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from hotc.cli.common import did_you_mean, display_message, other_stacks
from hotc.errors import HotcError
from hotc.state import HistoryEntry, Lock, StateBackend, StateFormatError, backend_from_config, codec
from hotc.state.document import ResourceState, StackState
from hotc.state.recover import (
    describe_versions,
    find_version,
    next_serial,
    overwrite,
    previous_version,
    read_chosen,
)
from hotc.state.secrets import shown_physical_id
from hotc.state.signals import exit_on_signals

BackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="State backend: s3://BUCKET/PREFIX, or a directory (default: HOTC_BACKEND, "
        "hotc.toml, then .hotc/ here).",
    ),
]
LockTimeoutOpt = Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock.")]
UnsafeOpt = Annotated[
    bool,
    typer.Option(
        "--unsafe-no-locking",
        help="Do not lock the state (writes are still compare-and-swap where the "
        "store supports it). Only when you are sure nobody else touches this stack.",
    ),
]
StackArg = Annotated[str, typer.Argument(help="Stack name.")]


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)


def open_backend(url: str | None, unsafe: bool = False) -> StateBackend:
    """The configured backend, with its warnings going to stderr."""
    b = backend_from_config(url, unsafe_no_locking=unsafe)
    b.notify = _warn
    return b


@contextmanager
def locked(backend: StateBackend, stack: str, operation: str, timeout: float) -> Iterator[Lock]:
    """The stack's lock, released also on SIGINT/SIGTERM."""
    with exit_on_signals(), backend.lock(stack, operation, timeout=timeout) as lk:
        yield lk


def _read_existing(backend: StateBackend, stack: str) -> StackState:
    st, _ = backend.read(stack)
    if st is None:
        raise HotcError(
            f"stack '{stack}' has no state in {backend.describe()}.{other_stacks(backend, stack)}"
        )
    return st


def _members(state: StackState, addr: str) -> list[str]:
    """``addr`` itself and the addresses inside it (``addr[i]``, ``addr.child``, ``addr[i].child``)."""
    return sorted(
        a for a in state.resources if a == addr or a.startswith(addr + ".") or a.startswith(addr + "[")
    )


# ---------------------------------------------------------------------------------------------- state


state_app = typer.Typer(name="state", help="Inspect and edit a stack's recorded state.", no_args_is_help=True)
stack_app = typer.Typer(name="stack", help="Stacks known to the state backend.", no_args_is_help=True)


@state_app.command("list")
def state_list(
    stack: StackArg,
    backend: BackendOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """List the resource addresses recorded for STACK (json: address, type, status, physical_id)."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    st = _read_existing(open_backend(backend), stack)
    if fmt == "json":
        rows = [
            {"address": a, "type": r.type, "status": r.status, "physical_id": r.physical_id}
            for a, r in sorted(st.resources.items())
        ]
        typer.echo(json.dumps({"stack_name": stack, "serial": st.serial, "resources": rows}, indent=2))
        return
    for addr in sorted(st.resources):
        typer.echo(addr)


def _resource_text(r: ResourceState) -> str:
    lines = [
        f"# {r.address}: {r.type}",
        f"physical_id     = {r.physical_id}",
        f"status          = {r.status}",
    ]
    if r.status_reason:
        lines.append(f"status_reason   = {r.status_reason}")
    lines.append(f"deletion_policy = {r.deletion_policy}")
    if r.dependencies:
        lines.append(f"depends_on      = {', '.join(r.dependencies)}")
    for label, value in (("created_at", r.created_at), ("updated_at", r.updated_at)):
        if value:
            lines.append(f"{label:<15} = {value}")
    for title, m in (("properties", r.properties), ("attributes", r.attributes), ("metadata", r.metadata)):
        if m:
            lines.append(f"{title}:")
            lines.extend("  " + line for line in json.dumps(m, indent=2, sort_keys=True).splitlines())
    for d in r.deposed:
        lines.append(
            f"deposed: {d.physical_id} ({d.status}, {d.type or r.type}, deletion_policy {d.deletion_policy})"
        )
    return "\n".join(lines)


@state_app.command("show")
def state_show(
    stack: StackArg,
    address: Annotated[str, typer.Argument(help="Resource address (name, group\\[i], parent.child).")],
    backend: BackendOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json")] = "text",
) -> None:
    """Show one resource of STACK's state (sensitive values stay masked)."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose text or json")
    b = open_backend(backend)
    st = _read_existing(b, stack)
    r = st.resources.get(address)
    if r is None:
        near = _members(st, address)
        hint = (
            f"; it contains {', '.join(near)}"
            if near
            else f".{did_you_mean(address, st.resources)} See `hotc state list {stack}`."
        )
        raise HotcError(f"stack '{stack}' has no resource '{address}' in its state{hint}")
    if fmt == "json":
        typer.echo(json.dumps(_display_dict(r), indent=2, sort_keys=True))
    else:
        typer.echo(_resource_text(json_masked(r)))


def _display_dict(r: ResourceState) -> dict[str, Any]:
    """The stored form of ``r`` without ciphertext (sensitive values as digests), secret ids masked."""
    d = codec.resource_to_dict(r, None)
    d["physical_id"] = shown_physical_id(r.type, r.physical_id)
    for dd in d["deposed"]:
        dd["physical_id"] = shown_physical_id(r.type, dd["physical_id"])
    return d


def json_masked(r: ResourceState) -> ResourceState:
    """``r`` with sensitive properties and attributes masked (as stored), secret ids masked, for display."""
    d = _display_dict(r)
    return replace(
        r,
        physical_id=d["physical_id"],
        properties=d["properties"],
        attributes=d["attributes"],
        deposed=tuple(
            replace(x, physical_id=dd["physical_id"]) for x, dd in zip(r.deposed, d["deposed"], strict=True)
        ),
    )


def _edit(
    backend_url: str | None,
    stack: str,
    timeout: float,
    unsafe: bool,
    operation: str,
    change: Callable[[StackState], StackState],
) -> StackState:
    b = open_backend(backend_url, unsafe)
    with locked(b, stack, operation, timeout) as lk:
        st = _read_existing(b, stack)
        return b.write(stack, change(st), lk)


@state_app.command("rm")
def state_rm(
    stack: StackArg,
    addresses: Annotated[list[str], typer.Argument(help="Addresses to forget (their members too).")],
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    unsafe_no_locking: UnsafeOpt = False,
) -> None:
    """Forget resources: remove them from the state without touching the cloud."""
    removed: list[str] = []

    def change(st: StackState) -> StackState:
        missing = [a for a in addresses if not _members(st, a)]
        if missing:
            raise HotcError(
                f"stack '{stack}' has no resource {', '.join(repr(m) for m in missing)} in its state; "
                f"nothing was removed.{did_you_mean(missing[0], st.resources)}"
            )
        for a in addresses:
            for m in _members(st, a):
                st = st.without_resource(m)
                removed.append(m)
        return st

    new = _edit(backend, stack, lock_timeout, unsafe_no_locking, "state rm", change)
    for m in removed:
        typer.echo(f"Removed {m}")
    typer.echo(f"State of '{stack}' is now serial {new.serial}; the resources still exist in the cloud.")


@state_app.command("mv")
def state_mv(
    stack: StackArg,
    source: Annotated[str, typer.Argument(help="Current address.")],
    destination: Annotated[str, typer.Argument(help="New address.")],
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    unsafe_no_locking: UnsafeOpt = False,
) -> None:
    """Rename a resource address (and its members); dependencies on it follow."""
    moved: list[tuple[str, str]] = []

    def rename(a: str) -> str:
        return (
            destination + a[len(source) :] if a == source or a.startswith((source + ".", source + "[")) else a
        )

    def change(st: StackState) -> StackState:
        members = _members(st, source)
        if not members:
            raise HotcError(
                f"stack '{stack}' has no resource '{source}' in its state; nothing was moved."
                + did_you_mean(source, st.resources)
            )
        clash = [rename(m) for m in members if rename(m) in st.resources and rename(m) not in members]
        if clash:
            raise HotcError(
                f"cannot move '{source}' to '{destination}': {', '.join(clash)} already exists in the "
                "state; nothing was moved"
            )
        res: dict[str, ResourceState] = {}
        for a, r in st.resources.items():
            new_addr = rename(a)
            if new_addr != a:
                moved.append((a, new_addr))
            res[new_addr] = replace(
                r, address=new_addr, dependencies=tuple(rename(d) for d in r.dependencies)
            )
        return replace(st, resources=res)

    new = _edit(backend, stack, lock_timeout, unsafe_no_locking, "state mv", change)
    for a, d in moved:
        typer.echo(f"Moved {a} -> {d}")
    typer.echo(f"State of '{stack}' is now serial {new.serial}.")


VersionOpt = Annotated[
    str | None,
    typer.Option(
        "--version",
        metavar="N",
        help="A stored version: its id as 'hotc state history' lists it (local: current, backup), or a serial.",
    ),
]


def _chosen_version(b: StateBackend, stack: str, version: str | None, backup: bool) -> HistoryEntry:
    entries = b.history(stack)
    if not entries:
        raise HotcError(f"stack '{stack}' has no state in {b.describe()} (see `hotc stack list`)")
    if backup:
        entry = previous_version(entries)
        if entry is None:
            raise HotcError(
                f"stack '{stack}' has no earlier version in {b.describe()} to go back to "
                f"(stored: {describe_versions(entries)})"
            )
        return entry
    assert version is not None
    entry = find_version(entries, version)
    if entry is None or entry.size == 0:
        raise HotcError(
            f"stack '{stack}' has no stored version {version!r}; the stored versions are: "
            f"{describe_versions(entries)} (see `hotc state history {stack}`)"
        )
    return entry


@state_app.command("pull")
def state_pull(stack: StackArg, backend: BackendOpt = None, version: VersionOpt = None) -> None:
    """Print STACK's stored state document (JSON) on stdout; with --version, an earlier stored version."""
    b = open_backend(backend)
    if version is None:
        st = _read_existing(b, stack)
    else:
        st = read_chosen(b, stack, _chosen_version(b, stack, version, False))
    sys.stdout.write(codec.dumps(st, b.key).decode())


@state_app.command("restore")
def state_restore(
    stack: StackArg,
    backup: Annotated[
        bool, typer.Option("--backup", help="The version before the current one (local: STACK.json.backup).")
    ] = False,
    version: VersionOpt = None,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    unsafe_no_locking: UnsafeOpt = False,
) -> None:
    """Make a stored version of STACK's state the current one again, also when the current document is
    corrupt (it is not read; it stays in the history). The restored state gets a serial above every stored one."""
    if backup == (version is not None):
        raise HotcError("give one of --backup or --version N (see `hotc state history " + stack + "`)")
    b = open_backend(backend, unsafe_no_locking)
    with locked(b, stack, "state restore", lock_timeout) as lk:
        entries = b.history(stack)
        entry = _chosen_version(b, stack, version, backup)
        chosen = read_chosen(b, stack, entry)
        new = overwrite(b, stack, replace(chosen, serial=next_serial(entries, chosen)), lk)
    typer.echo(
        f"Restored stack '{stack}' from version {entry.version_id} (serial {chosen.serial}); "
        f"the state is now serial {new.serial}."
    )


@state_app.command("push")
def state_push(
    stack: StackArg,
    file: Annotated[Path, typer.Argument(help="State document (JSON) to store; '-' reads stdin.")],
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Store it even if its lineage differs or its serial is not newer than the stored one.",
        ),
    ] = False,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    unsafe_no_locking: UnsafeOpt = False,
) -> None:
    """Replace STACK's state with FILE."""
    if str(file) == "-":
        data, source = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            data, source = file.read_bytes(), str(file)
        except OSError as exc:
            raise HotcError(f"{file}: error: cannot read: {exc.strerror}") from None
    b = open_backend(backend, unsafe_no_locking)
    incoming = codec.loads(data, source, b.key)
    incoming = replace(incoming, stack_name=stack)
    with locked(b, stack, "state push", lock_timeout) as lk:
        try:
            current, _ = b.read(stack)
        except StateFormatError as exc:
            if not force:
                raise HotcError(
                    f"{exc.message}\nrefusing to push {source} over it without --force (or go back to a stored "
                    f"version: `hotc state restore {stack} --backup`)"
                ) from None
            new = overwrite(b, stack, incoming, lk)  # the corrupt document is replaced, not read
            typer.echo(f"Pushed {source} to stack '{stack}' (serial {new.serial}, lineage {new.lineage}).")
            return
        if current is not None:
            problems = []
            if current.lineage != incoming.lineage:
                problems.append(
                    f"its lineage {incoming.lineage} differs from the stored {current.lineage} "
                    "(it is the state of another stack)"
                )
            if incoming.serial <= current.serial:
                problems.append(f"its serial {incoming.serial} is not newer than the stored {current.serial}")
            if problems and not force:
                raise HotcError(
                    f"refusing to push {source} to stack '{stack}': "
                    + "; ".join(problems)
                    + ". Pass --force to overwrite anyway (the stored version stays in the history "
                    "when the bucket keeps versions)."
                )
            if incoming.serial <= current.serial:
                incoming = replace(incoming, serial=current.serial + 1)
        new = b.write(stack, incoming, lk, exact=True)
    typer.echo(f"Pushed {source} to stack '{stack}' (serial {new.serial}, lineage {new.lineage}).")


@state_app.command("history")
def state_history(
    stack: StackArg,
    backend: BackendOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """List the stored versions of STACK's state, newest first."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    b = open_backend(backend)
    entries = b.history(stack)
    if not entries:
        raise HotcError(f"stack '{stack}' has no state in {b.describe()}.{other_stacks(b, stack)}")
    if fmt == "json":
        rows = [
            {
                "version_id": e.version_id,
                "modified": e.modified,
                "serial": e.serial,
                "size": e.size,
                "current": e.is_latest,
            }
            for e in entries
        ]
        typer.echo(json.dumps({"stack_name": stack, "versions": rows}, indent=2))
        return
    versioning = getattr(b, "versioning_enabled", None)
    if versioning is not None and not versioning():
        _warn(
            "bucket versioning is not enabled, so only the current version is kept; enable it to keep history"
        )
    typer.echo(f"{'VERSION':<38} {'MODIFIED':<20} {'SERIAL':>6} {'SIZE':>8}")
    for e in entries:
        serial = "-" if e.serial is None else str(e.serial)
        mark = " (current)" if e.is_latest else ""
        kind = " deleted" if e.size == 0 and e.serial is None else ""
        typer.echo(f"{e.version_id:<38} {e.modified:<20} {serial:>6} {e.size:>8}{mark}{kind}")


# ---------------------------------------------------------------------------------------------- stack / unlock


@stack_app.command("list")
def stack_list(
    backend: BackendOpt = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Also list destroyed stacks (no resources left).")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
) -> None:
    """List the stacks that have a state in the backend, with status, resource count and times (like
    'openstack stack list'). Destroyed stacks are left out unless --all."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    b = open_backend(backend)
    rows: list[dict[str, Any]] = []
    broken: list[str] = []
    for name in b.list_stacks():
        try:
            st, _ = b.read(name)
        except HotcError as exc:  # one unreadable stack does not hide the others
            broken.append(name)
            print(display_message(exc.message), file=sys.stderr)
            rows.append(
                {
                    "stack_name": name,
                    "status": "BROKEN",
                    "resources": None,
                    "created_at": None,
                    "updated_at": None,
                    "serial": None,
                    "error": exc.message,
                }
            )
            continue
        if st is None:
            continue
        destroyed = not st.resources and st.status.startswith("DELETE")
        if destroyed and not all_:
            continue
        rows.append(
            {
                "stack_name": name,
                "status": st.status,
                "resources": len(st.resources),
                "created_at": st.created_at,
                "updated_at": st.updated_at,
                "serial": st.serial,
            }
        )
    for name in broken:
        _warn(
            f"stack '{name}' cannot be read; see `hotc state history {name}`, then `hotc state restore {name} --backup`"
        )
    if fmt == "json":
        typer.echo(json.dumps({"stacks": rows}, indent=2))
        return
    if not rows:
        typer.echo("No stacks." + ("" if all_ else " (destroyed stacks are shown with --all)"))
        return
    w = max(len("STACK"), *(len(r["stack_name"]) for r in rows))
    ws = max(len("STATUS"), *(len(r["status"]) for r in rows))
    typer.echo(f"{'STACK':<{w}}  {'STATUS':<{ws}}  RESOURCES  CREATED                      UPDATED")
    for r in rows:
        typer.echo(
            f"{r['stack_name']:<{w}}  {r['status']:<{ws}}  {'-' if r['resources'] is None else r['resources']:>9}  "
            f"{r['created_at'] or '-':<27}  {r['updated_at'] or '-'}"
        )


def force_unlock(
    stack: StackArg,
    lock_id: Annotated[str, typer.Argument(help="The lock's ID, as shown in the 'locked by' message.")],
    backend: BackendOpt = None,
) -> None:
    """Remove the lock of STACK left behind by an operation that died. Only when you are sure it is not
    running any more."""
    holder = open_backend(backend).force_unlock(stack, lock_id)
    typer.echo(f"Unlocked stack '{stack}' (the lock was {holder.describe()}).")


def register(app: typer.Typer) -> None:
    app.add_typer(state_app, name="state")
    app.add_typer(stack_app, name="stack")
    app.command("force-unlock")(force_unlock)
