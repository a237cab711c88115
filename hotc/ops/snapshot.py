"""Stack snapshots (``hotc snapshot create|list|show|delete|restore``), as Heat's ``openstack stack snapshot``
and ``stack snapshot restore``.

- **create** (Heat's ``Stack.snapshot``): under the stack's lock, each recorded resource whose driver takes a
  physical snapshot (:class:`hotc.providers.base.Snapshotter`: a Cinder volume snapshot, a server image) is
  asked for one, in dependency order; the snapshot document (:mod:`hotc.state.snapshots`) keeps the state as it
  was (template, environments, parameters: hidden values sealed as the state's own are) and what each driver
  took. A resource whose snapshot fails makes the snapshot FAILED (exit 1); what was taken is kept in the
  document so that ``delete`` removes it.
- **delete** (``Stack.delete_snapshot``): each physical snapshot is deleted by its driver, then the document.
- **restore** (``Stack.restore``): the stack is planned back to the snapshot through the normal plan path
  (:func:`hotc.ops.apply.run_apply`, so approval, the policy and the protection marks hold as for any plan):
  the snapshot's template, environments and parameters, with each snapshotted resource's properties made to
  rebuild it from its physical snapshot (Heat's ``handle_restore``: a volume made from its snapshot, a server
  built from its image); the planner decides replace or rebuild. Once applied, the restored resources' recorded
  properties are the template's again, so applying the same template next changes nothing (a restored server
  is not rebuilt back to the template's image, nor a volume replaced by a blank one).

Unlike Heat, which deletes a stack's snapshots with the stack, ``hotc destroy`` keeps them (they live beside
the state, not in it) and says so; ``snapshot delete`` removes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import IO, Any

from hotc.apply.existing import existing_inputs
from hotc.errors import HotcError, did_you_mean
from hotc.model import model
from hotc.ops.apply import ApplyOptions, run_apply
from hotc.ops.plan import Wiring
from hotc.ops.stacks import stack_not_found
from hotc.planner.api import DesiredStack
from hotc.providers.base import (
    ActionContext,
    delete_snapshot,
    restore_properties,
    take_snapshot,
    takes_snapshots,
)
from hotc.state import ResourceState, StackState, backend_from_config
from hotc.state.backend import validate_stack_name
from hotc.state.snapshots import (
    COMPLETE,
    FAILED,
    ResourceSnapshot,
    Snapshot,
    SnapshotStore,
    read,
    snapshot_store_for,
    validate_name,
    write,
)
from hotc.state.snapshots import (
    names as snapshot_names,
)
from hotc.values import contains_unknown

TAG_LINEAGE = "hotc-lineage"
TAG_ADDRESS = "hotc-address"
SNAPSHOT_TIMEOUT = 1800.0  # seconds one physical snapshot may take


@model
class SnapshotRequest:
    stack: str
    name: str = (
        ""  # create: the snapshot's name (default: the time, 20261202T140501Z); else the one to act on
    )
    backend: str | None = None
    lock_timeout: float = 0.0
    by: str = ""  # who asks (user@host)


@model
class CreateResult:
    snapshot: Snapshot
    failures: tuple[str, ...] = ()  # "ADDRESS: why" for each resource whose snapshot failed


def _open(request: SnapshotRequest) -> tuple[Any, SnapshotStore, bytes | None]:
    validate_stack_name(request.stack)
    backend: Any = backend_from_config(request.backend)
    return backend, snapshot_store_for(backend, request.stack), getattr(backend, "key", None)


def _ctx(
    state: StackState,
    rs: ResourceState | ResourceSnapshot,
    address: str,
    cloud: Callable[[], Any],
    log: Callable[[str], None],
) -> ActionContext:
    recorded = {r.physical_id for r in state.resources.values() if r.physical_id} | {
        d.physical_id for r in state.resources.values() for d in r.deposed
    }
    return ActionContext(
        address=address,
        type=rs.type,
        stack_name=state.stack_name,
        lineage=state.lineage,
        timeout=SNAPSHOT_TIMEOUT,
        cloud=cloud,
        record_physical_id=lambda _p: None,
        tags={TAG_LINEAGE: state.lineage, TAG_ADDRESS: address},
        log=log,
        recorded=lambda pid: pid in recorded,
    )


def _order(state: StackState) -> list[str]:
    """Addresses, what a resource depends on first (Heat's snapshot walks the stack in creation order)."""
    done: list[str] = []
    seen: set[str] = set()

    def visit(a: str, path: frozenset[str]) -> None:
        if a in seen or a in path or a not in state.resources:
            return
        for d in state.resources[a].dependencies:
            visit(d, path | {a})
        seen.add(a)
        done.append(a)

    for a in sorted(state.resources):
        visit(a, frozenset())
    return done


def not_found(store: SnapshotStore, stack: str, name: str) -> HotcError:
    names = snapshot_names(store)
    listed = ", ".join(names) if names else "none"
    return HotcError(
        f"stack {stack!r} has no snapshot {name!r} (its snapshots: {listed}).{did_you_mean(name, names)}"
    )


def physical_name(stack: str, snapshot: str, address: str) -> str:
    """The name of a physical snapshot: which stack, snapshot and resource it belongs to."""
    return f"hotc-{stack}-{snapshot}-{address}"[:255]


def create(
    request: SnapshotRequest,
    *,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    log: Callable[[str], None],
) -> CreateResult:
    backend, store, key = _open(request)
    name = request.name or datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    validate_name(name)
    state, _token = backend.read(request.stack)
    if state is None:
        raise HotcError(stack_not_found(request.stack, backend, hint=": there is nothing to snapshot"))
    with backend.lock(request.stack, "snapshot", request.lock_timeout):
        state, _token = backend.read(request.stack)
        if state is None:
            raise HotcError(stack_not_found(request.stack, backend, hint=": there is nothing to snapshot"))
        if store.get(name) is not None:
            raise HotcError(
                f"stack {request.stack!r} already has a snapshot {name!r}: give another --name, or delete it "
                f"first (hotc snapshot delete {request.stack} {name})"
            )
        if not state.template.get("main") or not state.resources:
            raise HotcError(
                f"stack {request.stack!r} has no applied template or no resources (never applied, or "
                "destroyed): there is nothing to snapshot"
            )
        taken: dict[str, ResourceSnapshot] = {}
        failures: list[str] = []
        for address in _order(state):
            rs = state.resources[address]
            entry = ResourceSnapshot(rs.type, rs.physical_id)
            driver = drivers(rs.type)
            if (
                not failures
                and rs.physical_id
                and rs.external_id is None
                and driver is not None
                and takes_snapshots(driver)
            ):
                ctx = _ctx(state, rs, address, cloud, log)
                try:
                    data = take_snapshot(
                        driver,
                        ctx,
                        rs.physical_id,
                        rs.properties,
                        physical_name(request.stack, name, address),
                    )
                except HotcError as exc:
                    failures.append(f"{address}: {exc.message}")
                else:
                    entry = replace(entry, data=data)
            taken[address] = entry
        snap = Snapshot(
            name=name,
            stack=request.stack,
            lineage=state.lineage,
            created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            by=request.by,
            status=FAILED if failures else COMPLETE,
            status_reason="; ".join(failures),
            state=state,
            resources=taken,
        )
        write(store, snap, key)
    return CreateResult(snap, tuple(failures))


def list_snapshots(request: SnapshotRequest) -> list[Snapshot]:
    backend, store, key = _open(request)
    found = [read(store, n, key) for n in snapshot_names(store)]
    snaps = [s for s in found if s is not None]
    if not snaps and backend.read(request.stack)[0] is None:
        raise HotcError(stack_not_found(request.stack, backend))
    return sorted(snaps, key=lambda s: (s.created_at, s.name))


def show(request: SnapshotRequest) -> Snapshot:
    _backend, store, key = _open(request)
    snap = read(store, request.name, key)
    if snap is None:
        raise not_found(store, request.stack, request.name)
    return snap


def delete(
    request: SnapshotRequest,
    *,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    log: Callable[[str], None],
) -> Snapshot:
    """Delete the snapshot's physical snapshots (each by its driver), then its document. A physical snapshot
    that cannot be deleted stops it with the document kept (run it again once fixed)."""
    backend, store, key = _open(request)
    snap = read(store, request.name, key)
    if snap is None:
        raise not_found(store, request.stack, request.name)
    with backend.lock(request.stack, "snapshot delete", request.lock_timeout):
        current, _token = backend.read(request.stack)
        state = current if current is not None else snap.state
        for address, entry in sorted(snap.physical.items()):
            driver = drivers(entry.type)
            if driver is None:
                raise HotcError(
                    f"snapshot {request.name!r}: {address} ({entry.type}) has a physical snapshot "
                    f"{dict(entry.data)} but hotc has no driver for its type; nothing more was deleted"
                )
            try:
                delete_snapshot(driver, _ctx(state, entry, address, cloud, log), entry.data)
            except HotcError as exc:
                raise HotcError(
                    f"snapshot {request.name!r}: cannot delete the physical snapshot of {address}: {exc.message}; "
                    "the snapshot is kept (run 'hotc snapshot delete' again once fixed)"
                ) from None
            log(
                f"{address}: deleted its physical snapshot ({', '.join(f'{k} {v}' for k, v in sorted(entry.data.items()))})"
            )
        store.remove(request.name)
    return snap


# --------------------------------------------------------------------------------------------------- restore


class RestoredDesired(DesiredStack):
    """The snapshot's desired stack with each snapshotted resource's properties made to rebuild it from its
    physical snapshot (the driver's ``restore_properties``). ``base`` keeps the properties the template gives
    (the last resolution of each), which the state records once the restore is applied."""

    restore: Mapping[str, Callable[[Mapping[str, Any]], dict[str, Any]]]
    base: dict[str, dict[str, Any]]

    @classmethod
    def of(
        cls, desired: DesiredStack, restore: Mapping[str, Callable[[Mapping[str, Any]], dict[str, Any]]]
    ) -> RestoredDesired:
        made = cls.__new__(cls)
        made.__dict__.update(desired.__dict__)
        made.restore = {a: fn for a, fn in restore.items() if a in desired.resources}
        made.base = {}
        # evaluated with every value Unknown, before the restore's properties: evaluated again instead
        made.static_properties = {a: p for a, p in desired.static_properties.items() if a not in made.restore}
        return made

    def resolve_properties(
        self,
        address: str,
        resolver: Any,
        memo: dict[Any, Any] | None = None,
        *,
        only: frozenset[str] | None = None,
    ) -> dict[str, Any]:
        fn = self.restore.get(address)
        if fn is None:
            return super().resolve_properties(address, resolver, memo, only=only)
        props = super().resolve_properties(address, resolver, memo)
        self.base[address] = dict(props)
        return fn(props)


@model
class RestoreInputs:
    snapshot: Snapshot
    template: Any
    environments: list[Any]
    parameters: dict[str, str]
    parameter_files: dict[str, Any]


@contextmanager
def restore_inputs(request: SnapshotRequest, parameters: Mapping[str, str]) -> Iterator[RestoreInputs]:
    """The snapshot's template, environments and parameters, written to a temporary directory for as long as the
    restore runs (hidden values decrypted with the state key, or given again with ``--parameter``)."""
    backend, store, key = _open(request)
    snap = read(store, request.name, key)
    if snap is None:
        raise not_found(store, request.stack, request.name)
    if snap.status != COMPLETE:
        raise HotcError(
            f"snapshot {request.name!r} of stack {request.stack!r} is {snap.status} ({snap.status_reason}): it "
            "cannot be restored; delete it (hotc snapshot delete) and take another"
        )
    current, _token = backend.read(request.stack)
    if current is not None and current.lineage != snap.lineage:
        raise HotcError(
            f"snapshot {request.name!r} was taken of another stack named {request.stack!r} (lineage "
            f"{snap.lineage}; this one is {current.lineage}): it cannot be restored onto this one"
        )
    try:
        with existing_inputs(snap.state, request.stack, key, None, [], parameters, {}) as inputs:
            yield RestoreInputs(
                snap, inputs.template, inputs.environments, inputs.parameters, inputs.parameter_files
            )
    except HotcError as exc:
        if exc.message.startswith("--existing: "):
            text = exc.message[len("--existing: ") :].replace(", or give the environment again with -e", "")
            raise HotcError(f"snapshot {request.name!r}: {text}") from None
        raise


def restore_rules(
    snap: Snapshot, drivers: Callable[[str], Any]
) -> dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]]:
    rules: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {}
    for address, entry in snap.physical.items():
        driver = drivers(entry.type)
        if driver is None:
            continue

        def rule(
            props: Mapping[str, Any], driver: Any = driver, data: Mapping[str, Any] = entry.data
        ) -> dict[str, Any]:
            return restore_properties(driver, props, data)

        rules[address] = rule
    return rules


def restore(
    request: SnapshotRequest,
    opts: ApplyOptions,
    *,
    parameters: Mapping[str, str],
    out: IO[str],
    err: IO[str],
    interactive: bool,
    read_line: Callable[[], str],
    progress: Callable[[], Any],
    wiring: Wiring,
) -> int:
    """Plan the stack back to the snapshot, show the plan, and once approved apply it (see the module
    docstring). Returns the exit code as ``hotc apply`` does."""
    with restore_inputs(request, parameters) as inputs:
        snap = inputs.snapshot
        rules = restore_rules(snap, wiring.drivers)
        made: list[RestoredDesired] = []

        def adjust(desired: DesiredStack) -> DesiredStack:
            d = RestoredDesired.of(desired, rules)
            made.append(d)
            return d

        out.write(f"Restoring stack {request.stack!r} to snapshot {snap.name!r} (taken {snap.created_at}).\n")
        for address, entry in sorted(snap.physical.items()):
            what = ", ".join(f"{k} {v}" for k, v in sorted(entry.data.items()))
            out.write(f"  {address} is rebuilt from its snapshot ({what})\n")
        code = run_apply(
            stack=request.stack,
            opts=replace(
                opts, backend=request.backend, lock_timeout=request.lock_timeout, template_path=None
            ),
            out=out,
            err=err,
            interactive=interactive,
            read_line=read_line,
            progress=progress,
            wiring=wiring,
            template=inputs.template,
            envs=inputs.environments,
            params=inputs.parameters,
            pfiles=inputs.parameter_files,
            adjust_desired=adjust,
        )
    if code == 0 and made:
        _record_template_properties(request, made[-1])
    return code


def _record_template_properties(request: SnapshotRequest, desired: RestoredDesired) -> None:
    """The restored resources' recorded properties as the template gives them (see the module docstring)."""
    backend: Any = backend_from_config(request.backend)
    with backend.lock(request.stack, "snapshot restore", request.lock_timeout) as lk:
        state, _token = backend.read(request.stack)
        if state is None:
            return
        changed = state
        for address, base in desired.base.items():
            rs = changed.resources.get(address)
            if rs is None or rs.failed or contains_unknown(base):
                continue
            props = _template_properties(rs.properties, base, desired.restore[address](base))
            if props != dict(rs.properties):
                changed = changed.with_resource(replace(rs, properties=props))
        if changed is not state:
            backend.write(request.stack, changed, lk)


def _template_properties(
    recorded: Mapping[str, Any], base: Mapping[str, Any], restored: Mapping[str, Any]
) -> dict[str, Any]:
    """``recorded`` with each property the restore changed (``restored`` against ``base``, the template's) set
    back to the template's value (or removed where the template gives none)."""
    out = dict(recorded)
    for k in set(base) | set(restored):
        if base.get(k) == restored.get(k):
            continue
        if base.get(k) is None:
            out.pop(k, None)
        else:
            out[k] = base[k]
    return out
