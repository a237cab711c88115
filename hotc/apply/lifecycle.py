"""``hotc check``, ``suspend`` and ``resume``: stack-wide actions on the resources in the state.

check reads every resource the way a refresh does (:class:`hotc.planner.refresh.DriverReader`: one list call
per type, parallel GETs for the rest) and records CHECK_COMPLETE, or CHECK_FAILED when the object is gone,
cannot be read, or its live status says it is broken (ERROR, error_*: the next plan then replaces it).
suspend/resume call the driver's optional ``suspend``/``resume(ctx, physical_id, props)`` along the dependency
graph as the apply does (suspend: dependents first): each resource as soon as what it waits for is done, up to
PARALLELISM calls at once; a type without them has nothing to suspend (as in Heat, it simply
reaches SUSPEND_COMPLETE / RESUME_COMPLETE), which is said in the output.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import IO, Any

from hotc.apply.events import resource_event, stack_event
from hotc.apply.executor import TAG_ADDRESS, TAG_LINEAGE, ExecContext, ExecOptions
from hotc.errors import HotcError
from hotc.planner.api import DEFAULT_PARALLELISM, CycleError, DiGraph, DriverReader, topological_sort
from hotc.providers.base import Outcome
from hotc.state import ResourceState, StackState, backend_from_config
from hotc.state.signal_store import store_for

PARALLELISM = DEFAULT_PARALLELISM  # suspend/resume calls in flight at once


def _graph(state: StackState) -> DiGraph:
    g = DiGraph()
    g.add_nodes_from(state.resources)
    for a, rs in state.resources.items():
        g.add_edges_from((d, a) for d in rs.dependencies if d in state.resources and d != a)
    return g


def _broken_status(attributes: Any) -> str | None:
    """The live status of a resource when it says the object is broken (ERROR, error_extending, Octavia's
    provisioning_status ERROR, ...), else None."""
    show = attributes.get("show") if isinstance(attributes.get("show"), dict) else {}
    for value in (attributes.get("status"), show.get("status"), show.get("provisioning_status")):
        if isinstance(value, str) and value.upper().startswith("ERROR"):
            return value
    return None


def _order(state: StackState) -> list[str]:
    """Addresses in dependency order (what a resource depends on first)."""
    g = _graph(state)
    try:
        return topological_sort(g)
    except CycleError:
        return sorted(state.resources)


def _ctx(state: StackState, rs: ResourceState, opts: ExecOptions) -> ExecContext:
    return ExecContext(
        address=rs.address,
        type=rs.type,
        stack_name=state.stack_name,
        lineage=state.lineage,
        timeout=opts.timeout_for(rs.type),
        cloud=opts.cloud,
        record_physical_id=lambda _p: None,
        tags={TAG_LINEAGE: state.lineage, TAG_ADDRESS: rs.address},
        signals=opts.signals,
        lookup=lambda pid: next((r for r in state.resources.values() if r.physical_id == pid), None),
    )


def _open(stack: str, backend_url: str | None) -> Any:
    return backend_from_config(backend_url)


def check_stack(
    stack: str,
    backend_url: str | None,
    cloud: Callable[[], Any],
    out: IO[str],
    err: IO[str],
    lock_timeout: float = 0.0,
    *,
    drivers: Callable[[str], Any],
) -> int:
    """``cloud``: the run's connection getter; ``drivers``: the type -> driver look-up (both from the CLI's
    composition root)."""
    backend = _open(stack, backend_url)
    opts = ExecOptions(cloud=cloud)
    bad = 0
    with backend.lock(stack, "check", timeout=lock_timeout) as lk:
        state, _ = backend.read(stack)
        if state is None:
            raise HotcError(f"stack {stack!r} has no state: nothing to check")
        events = [stack_event(stack, "CHECK_IN_PROGRESS", "Stack check started")]
        # every resource read at once, as a refresh reads them (list calls per type, parallel GETs)
        reader = DriverReader(state, opts.cloud, drivers)
        errors: dict[str, str] = {}
        live = reader.read_all(state.resources.values(), errors=errors)
        for addr in _order(state):
            rs = state.resources[addr]
            driver = drivers(rs.type)
            status, reason = "CHECK_COMPLETE", "exists"
            if driver is None:
                status, reason = "CHECK_FAILED", f"hotc has no driver for {rs.type}"
            elif rs.physical_id is None:
                status, reason = "CHECK_FAILED", f"it has no physical id (left {rs.status})"
            elif addr in errors:
                status, reason = "CHECK_FAILED", f"cannot be read: {errors[addr]}"
            elif live.get(addr) is None:
                status, reason = "CHECK_FAILED", f"{rs.physical_id} no longer exists"
            else:
                found = live[addr]
                assert found is not None
                state = state.with_resource(replace(rs, attributes=dict(found.attributes) or rs.attributes))
                rs = state.resources[addr]
                broken = _broken_status(found.attributes)
                if broken:
                    status, reason = "CHECK_FAILED", f"exists, but its status is {broken}"
            if status == "CHECK_FAILED":
                bad += 1
            state = state.with_resource(replace(rs, status=status, status_reason=reason))
            events.append(resource_event(addr, rs.type, status, reason, rs.physical_id))
            out.write(f"{addr}: {status}: {reason}\n")
        final = "CHECK_FAILED" if bad else "CHECK_COMPLETE"
        state = replace(
            state, status=final, status_reason=f"{bad} resource(s) failed the check" if bad else ""
        )
        events.append(stack_event(stack, final, state.status_reason))
        backend.write(stack, state, lk)
        backend.append_events(stack, events)
    if bad:
        err.write(f"error: {bad} resource(s) failed the check; 'hotc apply' replaces them\n")
    return 1 if bad else 0


def _prerequisites(state: StackState, *, reverse: bool) -> dict[str, set[str]]:
    """What each resource waits for: what it depends on (resume), or, with ``reverse`` (suspend), what depends on
    it (dependents first, as Heat)."""
    deps = {
        a: {d for d in rs.dependencies if d in state.resources and d != a}
        for a, rs in state.resources.items()
    }
    if not reverse:
        return deps
    out: dict[str, set[str]] = {a: set() for a in state.resources}
    for a, ds in deps.items():
        for d in ds:
            out[d].add(a)
    return out


def with_outcome(rs: ResourceState, got: Any) -> ResourceState:
    """The record after a suspend or resume that reported what it did (an ``Outcome``): a Mistral external
    resource's workflow outputs merged into its ``output`` and its id the execution's, as Heat's
    ``_check_action``; a deployment's SUSPEND/RESUME outputs (``deploy_stdout``...). Attributes the call did not
    report keep their recorded values; a call that reports nothing (None) changes nothing."""
    if not isinstance(got, Outcome):
        return rs
    return replace(
        rs,
        physical_id=got.physical_id or rs.physical_id,
        attributes={**rs.attributes, **got.attributes},
        sensitive_attributes=tuple(dict.fromkeys((*rs.sensitive_attributes, *got.sensitive_attributes))),
    )


def suspend_resume(
    action: str,
    stack: str,
    backend_url: str | None,
    cloud: Callable[[], Any],
    lock_timeout: float,
    out: IO[str],
    err: IO[str],
    *,
    drivers: Callable[[str], Any],
    parallelism: int = PARALLELISM,
) -> int:
    """Suspend or resume every resource along the dependency graph, as the apply runs: each resource starts as
    soon as what it waits for is done (suspend: its dependents; resume: its dependencies), up to
    ``parallelism`` calls at once, no level-by-level barriers. A failure starts nothing new; calls in flight
    finish; the state records each transition."""
    act = action.upper()
    backend = _open(stack, backend_url)

    # deployments with SUSPEND/RESUME actions run them through the signal store (default configuration)
    opts = ExecOptions(cloud=cloud, signals=store_for(None, backend_url))
    failed = 0
    with backend.lock(stack, action, timeout=lock_timeout) as lk:
        state, _ = backend.read(stack)
        if state is None:
            raise HotcError(f"stack {stack!r} has no state: nothing to {action}")
        backend.append_events(stack, [stack_event(stack, f"{act}_IN_PROGRESS", f"Stack {action} started")])
        waits = _prerequisites(state, reverse=action == "suspend")
        dependents: dict[str, set[str]] = {a: set() for a in waits}
        for a, ws in waits.items():
            for w in ws:
                dependents[w].add(a)
        left = {a: set(ws) for a, ws in waits.items()}
        ready = sorted(a for a, ws in left.items() if not ws)
        finished: set[str] = set()

        def finish(addr: str) -> None:
            finished.add(addr)
            for d in sorted(dependents[addr]):
                left[d].discard(addr)
                if not left[d] and d not in finished:
                    ready.append(d)

        with ThreadPoolExecutor(max_workers=max(1, parallelism), thread_name_prefix=f"hotc-{action}") as pool:
            running: dict[Future[Any], str] = {}
            while True:
                calls: list[tuple[str, Any]] = []
                while ready and not failed and len(running) + len(calls) < parallelism:
                    addr = ready.pop(0)
                    rs = state.resources[addr]
                    driver = drivers(rs.type)
                    fn = getattr(driver, action, None) if driver is not None else None
                    if fn is None or rs.physical_id is None:
                        note = "nothing to do" if rs.physical_id is not None else "not created"
                        if driver is not None and fn is None:
                            note = (
                                f"{rs.type} cannot be {'suspended' if action == 'suspend' else 'resumed'}: "
                                "nothing to do"
                            )
                        state = state.with_resource(replace(rs, status=f"{act}_COMPLETE", status_reason=note))
                        out.write(f"{addr}: {act}_COMPLETE ({note})\n")
                        finish(addr)
                        continue
                    state = state.with_resource(replace(rs, status=f"{act}_IN_PROGRESS"))
                    calls.append((addr, fn))
                if calls:  # the starts of this round in one write, before their calls go out
                    state = backend.write(stack, state, lk)
                    backend.append_events(
                        stack,
                        [
                            resource_event(
                                a,
                                state.resources[a].type,
                                f"{act}_IN_PROGRESS",
                                "",
                                state.resources[a].physical_id,
                            )
                            for a, _fn in calls
                        ],
                    )
                    for a, fn in calls:
                        rs = state.resources[a]
                        running[pool.submit(fn, _ctx(state, rs, opts), rs.physical_id, rs.properties)] = a
                if not running:
                    if ready and not failed:
                        continue  # resources with nothing to do made others ready
                    stuck = sorted(a for a in left if a not in finished)
                    if stuck and not failed and not ready:  # a dependency cycle: the rest in name order
                        ready.extend(stuck)
                        for a in stuck:
                            left[a].clear()
                        continue
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in sorted(done, key=lambda f: running[f]):
                    addr = running.pop(fut)
                    rs = state.resources[addr]
                    exc = fut.exception()
                    if exc is not None:
                        failed += 1
                        reason = str(exc) or type(exc).__name__
                        status = f"{act}_FAILED"
                        err.write(f"error: {addr}: {act}_FAILED: {reason}\n")
                    else:
                        reason, status = "", f"{act}_COMPLETE"
                        rs = with_outcome(rs, fut.result())
                        out.write(f"{addr}: {act}_COMPLETE\n")
                        finish(addr)
                    state = backend.write(
                        stack, state.with_resource(replace(rs, status=status, status_reason=reason)), lk
                    )
                    backend.append_events(
                        stack, [resource_event(addr, rs.type, status, reason, rs.physical_id)]
                    )
        final = f"{act}_FAILED" if failed else f"{act}_COMPLETE"
        state = backend.write(stack, replace(state, status=final), lk)
        backend.append_events(stack, [stack_event(stack, final, "")])
    return 1 if failed else 0
