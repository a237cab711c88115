"""The rollback operation: a failed (or cancelled) apply returns the stack to its last good template, as Heat's
rollback (``disable_rollback: false``, ``openstack stack update --rollback enabled``, ``stack cancel``).

    roll_back(request, current, out=..., err=..., progress=...) -> RollbackOutcome

It runs under the lock of the apply that failed, right after it, from:

- ``request.before``: the state as that apply found it. Its template record (template, environments, parameters)
  is the last good one: an apply records its template only once it succeeded. A stack the failed apply was
  creating (no resources before) goes back to nothing: what the apply created is deleted (Heat's create
  rollback);
- ``current``: the state the failed apply left (written step by step).

The way back is a plan made as every plan is made (:func:`hotc.ops.plan.plan`: the planner, the plan-time
checks, the policy, the protection marks), printed before it runs ("Rolling back: ..."), then executed as an
apply is. Before planning, the state is prepared so that the plan reuses what still exists instead of making it
again, and undoes only what the failed apply did:

- a resource the failed apply replaced, whose original is still kept as a deposed instance, gets its original
  back as its current instance (Heat restores it from its backup stack); the new instance becomes the deposed
  one, which the plan deletes;
- a resource whose in-place update or deletion failed keeps its object: it is planned as an update back to the
  last good properties (the ones the failed update tried are taken as recorded, so each is set back), never
  replaced;
- the plan never deletes an object that existed before the failed apply (or that it imported): such a delete is
  left out of the plan (with what depends on it) and reported.

The stack's status and its event log say ``ROLLBACK_IN_PROGRESS``, then ``ROLLBACK_COMPLETE`` or
``ROLLBACK_FAILED`` (Heat's names). A rollback that fails leaves the state as the steps left it and says what is
left. A run killed during a rollback leaves a state that is true at every step: the next apply converges.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import field, replace
from pathlib import Path
from typing import IO, Any

from hotc.apply.events import STACK_TYPE, stack_event
from hotc.apply.executor import ApplyReport, ExecOptions, Executor
from hotc.apply.existing import ExistingInputs, existing_inputs
from hotc.apply.moves import moved, record_moves
from hotc.apply.resolve import StateResolver
from hotc.apply.scaling import group_states
from hotc.apply.session import (
    BackendSink,
    describe_plan,
    interrupt_handlers,
    print_report,
    unsupported_types,
    utc_datetime,
)
from hotc.apply.stepenv import as_deposed
from hotc.errors import HotcError
from hotc.model import model
from hotc.ops.plan import PlanRequest, PlanResult, Policy, Recorded, Wiring, plan, policy_lines
from hotc.ops.preflight import preflight
from hotc.planner.api import DEFAULT_PARALLELISM, Action, Move, Plan
from hotc.state import StackState
from hotc.state.events import Event
from hotc.values import Unknown

ROLLBACK_IN_PROGRESS = "ROLLBACK_IN_PROGRESS"
ROLLBACK_COMPLETE = "ROLLBACK_COMPLETE"
ROLLBACK_FAILED = "ROLLBACK_FAILED"


@model
class RollbackRequest:
    """A rollback of stack ``stack`` after the apply that made ``failed_plan`` failed (``why``: its failure, or
    who cancelled it and when), under that apply's ``lock`` on ``backend``. The rest is the apply's own
    settings, which the way back is planned and executed with."""

    stack: str
    before: StackState
    failed_plan: Plan
    why: str
    backend: Any
    lock: Any
    wiring: Wiring
    exec_options: ExecOptions
    policy: Policy = field(default_factory=Policy)
    parallelism: int = DEFAULT_PARALLELISM
    backend_url: str | None = None
    os_cloud: str | None = None
    signal_store: str | None = None
    allow_outside_files: bool = False
    cwd: Path | None = None


@model
class RollbackOutcome:
    """``ok``: the stack is back at its last good template (ROLLBACK_COMPLETE); ``state``: the state as the
    rollback left it."""

    ok: bool
    state: StackState


def rollback_enabled(state: StackState | None, asked: bool | None) -> bool:
    """Whether a failed apply rolls back: as asked (``--rollback``/``--no-rollback``), else as the stack's stored
    ``disable_rollback`` says; a stack that never set it does not (Heat's default for a new stack)."""
    if asked is not None:
        return asked
    return state is not None and state.disable_rollback is False


def roll_back(
    request: RollbackRequest,
    current: StackState,
    *,
    out: IO[str],
    err: IO[str],
    progress: Callable[[], Any],
) -> RollbackOutcome:
    """Plan the way back to ``request.before``'s template from ``current`` (the state the failed apply left),
    print it, and execute it. Never raises for a rollback that cannot be made or fails: the stack is then left
    ROLLBACK_FAILED, and what is left is said on ``err``."""
    stack, backend, lock = request.stack, request.backend, request.lock
    sink = BackendSink(backend, stack, lock)
    current = backend.write(
        stack,
        replace(current, status=ROLLBACK_IN_PROGRESS, status_reason=f"Stack rollback started: {request.why}"),
        lock,
    )
    sink.append_events([stack_event(stack, ROLLBACK_IN_PROGRESS, f"Stack rollback started: {request.why}")])
    in_flight = sorted(a for a, rs in current.resources.items() if rs.in_progress)
    if in_flight:
        return _failed(
            request,
            current,
            err,
            "steps in flight were not waited for ("
            + ", ".join(in_flight)
            + "): the stack cannot be rolled back "
            "until an apply has found out what they did",
        )
    try:
        prepared = restored_originals(current, request.before, request.failed_plan)
        if prepared != current:
            current = prepared = backend.write(stack, prepared, lock)
        with _way_back(request) as inputs:
            result = _plan_back(request, prepared, inputs)
            plan_ = result.plan
            first_create = plan_.mode == "destroy"
            if first_create:
                head = f"stack {stack!r} was being created: what the failed apply created is deleted"
            else:
                head = f"stack {stack!r} returns to its last good template, environments and parameters"
            out.write(f"\nRolling back: {head} ({request.why}).\n")
            out.write(describe_plan(plan_))
            for note in result.notes:
                err.write(note + "\n")
            for line in policy_lines(result, refused="; the stack was not rolled back"):
                err.write(line + "\n")
            if result.refused:
                return _failed(request, current, err, "a deny rule refuses the rollback plan")
            unsupported = unsupported_types(plan_, request.wiring.drivers)
            if unsupported:
                listed = "; ".join(f"{t} ({', '.join(a)})" for t, a in sorted(unsupported.items()))
                raise HotcError(f"hotc has no driver to create or update {listed}")
            rep: ApplyReport | None = None
            final = prepared
            if plan_.has_changes:
                preflight(plan_, request.wiring.drivers, request.wiring.cloud)
                # the records the failed apply moved go back first, in the state alone
                prepared = record_moves(plan_, moved(plan_, prepared), backend, stack, lock)
                rep = _execute(request, plan_, prepared, result, progress, err)
                _report(rep, plan_, out, err)
                final = rep.state
    except HotcError as exc:
        return _failed(request, current, err, f"no way back could be planned or started: {exc.message}")
    if rep is not None and not rep.ok:
        return _failed(request, final, err, final.status_reason or "the rollback plan did not complete")
    if first_create:
        final = replace(final, template={}, template_digest=None, parameters={}, outputs={}, groups={})
    else:
        final = group_states(final, result.desired, None, utc_datetime(), True)
        final = replace(
            final,
            template=request.before.template,
            template_digest=request.before.template_digest,
            parameters=request.before.parameters,
        )
    reason = f"Stack rollback completed successfully ({request.why})"
    final = backend.write(stack, replace(final, status=ROLLBACK_COMPLETE, status_reason=reason), lock)
    sink.append_events([stack_event(stack, ROLLBACK_COMPLETE, reason)])
    err.write(f"\nStack {stack!r} was rolled back: {ROLLBACK_COMPLETE} ({request.why}).\n")
    return RollbackOutcome(True, final)


# --------------------------------------------------------------------------------------- preparing the state


def restored_originals(current: StackState, before: StackState, failed: Plan) -> StackState:
    """``current`` made ready for the way back (see the module docstring): each original the failed apply
    replaced, still kept as a deposed instance, is the current instance again (its new instance deposed in its
    place); each object whose update or deletion failed is recorded as healthy, with the properties the failed
    update tried (so that the plan sets each one back). Every record stays true: the same objects exist."""
    tried = {c.address: c.after for c in failed.changes if not c.deposed and c.action is Action.UPDATE}
    moved_from = {new: old for new, old in moved_back(current, failed)}
    resources = dict(current.resources)
    for addr, rs in current.resources.items():
        old = before.resources.get(moved_from.get(addr, addr))
        if old is None or not old.physical_id or old.in_progress:
            continue
        if rs.physical_id != old.physical_id:
            original = next((d for d in rs.deposed if d.physical_id == old.physical_id), None)
            if original is None:
                continue  # the original is gone: the plan makes the resource again
            kept = tuple(d for d in rs.deposed if d.physical_id != old.physical_id)
            if rs.physical_id:
                kept = (*kept, as_deposed(rs, rs.type))
            resources[addr] = replace(old, address=addr, deposed=kept)
        elif rs.failed and rs.status.split("_", 1)[0] in ("UPDATE", "DELETE"):
            props = dict(rs.properties)
            if rs.status.startswith("UPDATE") and isinstance(tried.get(addr), Mapping):
                attempted = tried[addr]
                assert attempted is not None
                props.update({k: v for k, v in attempted.items() if not _has_unknown(v)})
            resources[addr] = replace(
                rs, status=old.status, status_reason=old.status_reason, properties=props
            )
    return replace(current, resources=resources) if resources != dict(current.resources) else current


def moved_back(current: StackState, failed: Plan) -> tuple[tuple[str, str], ...]:
    """The records the failed apply moved (``--move``: it moves them first, in the state alone), as (where they
    are now, where they were) pairs: the way back moves them back."""
    return tuple(
        (new, old)
        for m in failed.moves
        for old, new in m.leaves
        if new in current.resources and old not in current.resources
    )


def _has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, Mapping):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_unknown(v) for v in value)
    return False


def _existed_before(before: StackState, failed: Plan) -> set[str]:
    """The ids of the objects the failed apply did not make: those the state recorded before it (current and
    deposed instances) and those it imported."""
    ids = {rs.physical_id for rs in before.resources.values() if rs.physical_id}
    ids |= {d.physical_id for rs in before.resources.values() for d in rs.deposed}
    ids |= {c.import_id for c in failed.changes if c.import_id}
    return ids


def _kept(plan_: Plan, existed: set[str]) -> tuple[str, ...]:
    """The addresses whose object the plan would delete although the failed apply did not make it."""
    return tuple(
        sorted(
            {
                c.address
                for c in plan_.changes
                if c.action is Action.DELETE and c.previous_physical_id and c.previous_physical_id in existed
            }
        )
    )


# ------------------------------------------------------------------------------------------ the way back


@contextmanager
def _way_back(request: RollbackRequest) -> Iterator[ExistingInputs | None]:
    """The last good template, environments and parameters (files in a temporary directory for as long as the
    rollback runs), or None for a stack that had no resources before (its rollback deletes what was made)."""
    before = request.before
    if not before.resources:
        yield None
        return
    if not (before.template or {}).get("main"):
        raise HotcError(
            f"the state of stack {request.stack!r} holds no template from before this apply (it was imported, "
            "or applied from a plan without one): there is no last good template to return to"
        )
    key = getattr(request.backend, "key", None)
    with existing_inputs(before, request.stack, key, None, [], {}, {}) as inputs:
        yield inputs


def _plan_back(request: RollbackRequest, state: StackState, inputs: ExistingInputs | None) -> PlanResult:
    common: dict[str, Any] = dict(
        stack=request.stack,
        parallelism=request.parallelism,
        policy=request.policy,
        backend=request.backend_url,
        os_cloud=request.os_cloud,
        signal_store=request.signal_store,
        allow_outside_files=request.allow_outside_files,
        cwd=request.cwd,
    )
    if inputs is None:
        req = PlanRequest(mode="destroy", stored_hooks=False, **common)
    else:
        back = tuple(
            Move(new, old, source="the rollback") for new, old in moved_back(state, request.failed_plan)
        )
        req = PlanRequest(
            moves=back,
            template=inputs.template,
            environments=tuple(inputs.environments),
            parameters=inputs.parameters,
            parameter_files=inputs.parameter_files,
            **common,
        )
    recorded = Recorded(state, request.backend)
    result = plan(req, request.wiring, recorded=recorded)
    kept = _kept(result.plan, _existed_before(request.before, request.failed_plan))
    if kept:
        result = plan(replace(req, excludes=kept), request.wiring, recorded=recorded)
        note = (
            "note: the rollback leaves "
            + ", ".join(kept)
            + " in place: the failed apply did not make it (it existed before, or was imported)"
        )
        result = replace(result, notes=(*result.notes, note))
    return result


def _execute(
    request: RollbackRequest,
    plan_: Plan,
    state: StackState,
    result: PlanResult,
    progress: Callable[[], Any],
    err: IO[str],
) -> ApplyReport:
    desired = result.desired if plan_.mode != "destroy" else None
    sink = RollbackSink(BackendSink(request.backend, request.stack, request.lock))
    with progress() as show:
        getattr(show, "expect", int)(len({c.address for c in plan_.changes if c.action is not Action.NOOP}))

        def on_event(e: Event) -> None:
            mapped = rollback_event(e)
            if mapped is not None:
                show(mapped)

        executor = Executor(
            plan_,
            state,
            desired,
            request.wiring.drivers,
            sink,
            request.exec_options,
            make_resolver=StateResolver,
            on_event=on_event,
            desired_info=desired.resources if desired is not None else {},
            on_log=getattr(show, "log", None),
        )
        with interrupt_handlers(executor, err):
            return executor.run()


class RollbackSink:
    """The executor's state sink during a rollback: the stack's own status and events say ROLLBACK (the
    executor names them after the plan: CREATE, UPDATE, DELETE); the stack event that opens the run is dropped
    (the rollback recorded its own ROLLBACK_IN_PROGRESS before planning)."""

    def __init__(self, inner: BackendSink) -> None:
        self.inner = inner

    def write(self, state: StackState) -> StackState:
        return self.inner.write(replace(state, status=rollback_status(state.status)))

    def append_events(self, events: list[Event]) -> None:
        mapped = [m for m in (rollback_event(e) for e in events) if m is not None]
        if mapped:
            self.inner.append_events(mapped)


def rollback_status(status: str) -> str:
    """A stack status the executor sets, as the rollback's (``UPDATE_COMPLETE`` -> ``ROLLBACK_COMPLETE``)."""
    action, _, outcome = status.partition("_")
    if action in ("CREATE", "UPDATE", "DELETE") and outcome in ("IN_PROGRESS", "COMPLETE", "FAILED"):
        return f"ROLLBACK_{outcome}"
    return status


def rollback_event(e: Event) -> Event | None:
    """An event of the rollback's run as recorded: the resources' as they are; None for the stack's own (the
    rollback records its ROLLBACK_IN_PROGRESS, ROLLBACK_COMPLETE and ROLLBACK_FAILED itself, with its reason)."""
    return None if e.type == STACK_TYPE else e


def _report(rep: ApplyReport, plan_: Plan, out: IO[str], err: IO[str]) -> None:
    """The executor's report, as the rollback's ("Rollback complete!", "Rollback FAILED"); what is left after
    a failure is said once, by :func:`_failed`."""
    o = io.StringIO()
    report_before_rollback(rep, plan_, o, err)
    text = o.getvalue()
    for word in ("Apply", "Destroy"):
        for outcome in (" complete!", " FAILED", " INTERRUPTED"):
            text = text.replace("\n" + word + outcome, "\nRollback" + outcome)
    out.write(text)


def report_before_rollback(rep: ApplyReport, plan_: Plan, out: IO[str], err: IO[str]) -> None:
    """The report of a run that is rolled back next: as every run's, without the advice to apply again to
    continue (the rollback follows, and says what is left if it fails)."""
    e = io.StringIO()
    print_report(rep, plan_, out, e)
    err.writelines(
        line for line in e.getvalue().splitlines(keepends=True) if not line.startswith("The state holds")
    )


# ------------------------------------------------------------------------------------------ failure


def _failed(request: RollbackRequest, state: StackState, err: IO[str], why: str) -> RollbackOutcome:
    """Record ROLLBACK_FAILED (the state otherwise as it is) and say what is left."""
    reason = f"Stack rollback failed: {why}"
    before = request.before
    if (before.template or {}).get("main"):  # the way back began: the stack's template is the last good one
        state = replace(
            state,
            template=before.template,
            template_digest=before.template_digest,
            parameters=before.parameters,
        )
    state = request.backend.write(
        request.stack, replace(state, status=ROLLBACK_FAILED, status_reason=reason), request.lock
    )
    BackendSink(request.backend, request.stack, request.lock).append_events(
        [stack_event(request.stack, ROLLBACK_FAILED, reason)]
    )
    err.write(f"\nerror: the rollback of stack {request.stack!r} failed: {why}\n")
    lines = what_is_left(request.before, state)
    if lines:
        err.write("What is left, as the state records it:\n")
        err.writelines(f"  {line}\n" for line in lines)
    err.write(
        f"Stack {request.stack!r} is {ROLLBACK_FAILED}. Apply its last good template again "
        f"('hotc apply {request.stack} --existing') or a fixed one: the next apply starts from the state as it "
        "is.\n"
    )
    return RollbackOutcome(False, state)


def what_is_left(before: StackState, state: StackState) -> list[str]:
    """One line per resource that is not as it was before the failed apply."""
    lines: list[str] = []
    for addr in sorted(set(before.resources) | set(state.resources)):
        old, rs = before.resources.get(addr), state.resources.get(addr)
        if rs is None:
            lines.append(f"{addr}: deleted by the failed apply, not made again")
            continue
        what: list[str] = []
        if old is None:
            what.append("made by the failed apply, still there")
        elif rs.physical_id != old.physical_id:
            what.append(f"a new instance ({rs.physical_id}) in place of {old.physical_id}")
        if rs.failed or rs.in_progress:
            what.append(rs.status + (f" ({rs.status_reason})" if rs.status_reason else ""))
        old_deposed = {d.physical_id for d in old.deposed} if old is not None else set()
        for d in rs.deposed:
            if d.physical_id not in old_deposed:
                what.append(
                    f"an old instance {d.physical_id} kept (deposed), to be deleted by the next apply"
                )
        if what:
            lines.append(f"{addr}: " + "; ".join(what))
    return lines


__all__ = [
    "ROLLBACK_COMPLETE",
    "ROLLBACK_FAILED",
    "ROLLBACK_IN_PROGRESS",
    "RollbackOutcome",
    "RollbackRequest",
    "RollbackSink",
    "report_before_rollback",
    "roll_back",
    "rollback_enabled",
    "what_is_left",
]
