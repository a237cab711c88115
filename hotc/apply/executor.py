"""The executor: runs a plan's apply graph (:mod:`hotc.apply.graph`) against the cloud.

The walk itself is :class:`~hotc.apply.walker.Walker` (generic: the ready set, the parallelism bound, the
throttle's limit, stop on failure or cancel); the work of each step is :mod:`hotc.apply.steps` (create,
update, delete, adopt), with crash recovery in :mod:`hotc.apply.recovery` and the outputs in
:mod:`hotc.apply.outputs`. The executor ties them together: it builds the graph, opens the stack's state
(:class:`~hotc.apply.statekeeper.StateKeeper`), walks, and closes the run with its status and report.

Every resource transition is written to the state and recorded as an event. A create records
``CREATE_IN_PROGRESS`` before the driver is called and the physical id as soon as the driver reports it, so a
killed run leaves a trace. On a failure (or :meth:`Executor.cancel`, wired to Ctrl-C/SIGTERM) nothing new is
scheduled, steps in flight finish, the state is saved and the report says what was done, what failed (with
the error) and what never started.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.batches import BatchOutcome, Pause, add_batch_gates, batch_report, gates_of, wait_or_stop
from hotc.apply.cascade import driver_cascades, with_cascades
from hotc.apply.durations import Durations
from hotc.apply.events import resource_event, stack_event
from hotc.apply.graph import APPLY, BATCH, CLEANUP, FORGET, HOOK, ApplyGraph, Step, build_graph, id_only_edges
from hotc.apply.hooks import add_hook_nodes
from hotc.apply.outputs import resolved_outputs
from hotc.apply.recovery import (
    TRANSITIONAL,
    failed_replace_rule,
    live_record,
    transitional,
)
from hotc.apply.resolve import StateResolver
from hotc.apply.statekeeper import StateKeeper, StateSink
from hotc.apply.stepenv import (
    DEFAULT_TIMEOUT,
    TAG_ADDRESS,
    TAG_LINEAGE,
    TYPE_TIMEOUTS,
    DesiredLike,
    DriverLookup,
    ExecContext,
    ExecOptions,
    ResolverFactory,
    StepEnv,
    StepFailed,
    as_deposed,
    instance_tag,
    kept_secrets,
    with_defaults,
)
from hotc.apply.steps.apply import apply
from hotc.apply.steps.delete import cleanup, forget
from hotc.apply.steps.hook import wait_hook
from hotc.apply.throttle import Throttle
from hotc.apply.walker import Walker
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.plan import Plan
from hotc.state.document import StackState
from hotc.state.events import Event
from hotc.state.hooks import forget_pending

# what other modules took from here before the step handlers moved out (kept importable from here)
__all__ = [
    "DEFAULT_TIMEOUT",
    "TAG_ADDRESS",
    "TAG_LINEAGE",
    "TRANSITIONAL",
    "TYPE_TIMEOUTS",
    "ApplyReport",
    "DesiredLike",
    "DriverLookup",
    "ExecContext",
    "ExecOptions",
    "Executor",
    "ResolverFactory",
    "StepFailed",
    "StepResult",
    "execute",
    "failed_replace_rule",
    "instance_tag",
    "live_record",
    "resolved_outputs",
    "transitional",
    "with_defaults",
]
_as_deposed = as_deposed
_kept_secrets = kept_secrets


@model
class StepResult:
    key: str
    label: str
    address: str
    ok: bool
    error: str = ""
    seconds: float = 0.0
    # the plan changed it only through values known after apply, which turned out to be the recorded ones:
    # nothing was done (as Heat, which decides the update with the values it has when it gets there)
    unchanged: bool = False


@model
class ApplyReport:
    done: tuple[StepResult, ...]
    failed: tuple[StepResult, ...]
    not_started: tuple[str, ...]  # labels of steps never started
    state: StackState
    interrupted: bool = False
    output_errors: tuple[str, ...] = ()
    batches: tuple[BatchOutcome, ...] = ()  # groups' rolling-update batches: which ran, failed, never started

    @property
    def ok(self) -> bool:
        return not self.failed and not self.not_started and not self.interrupted


def stack_is_new(state: StackState) -> bool:
    """Whether an apply on ``state`` creates the stack (Heat's stack create) rather than updates it: the stack
    was never applied, or was destroyed. A stack that exists with no resources (an empty template, a create
    that failed before anything was made) is updated, as Heat updates it."""
    if state.resources:
        return False
    return state.serial == 0 or state.status in ("INIT_COMPLETE", "DELETE_COMPLETE")


class Executor:
    def __init__(
        self,
        plan: Plan,
        state: StackState,
        desired: DesiredLike | None,
        drivers: DriverLookup,
        sink: StateSink,
        options: ExecOptions | None = None,
        *,
        make_resolver: ResolverFactory = StateResolver,
        on_event: Callable[[Event], None] | None = None,
        desired_info: Mapping[str, Any] | None = None,
        on_log: Callable[[str, str], None] | None = None,
        pause: Pause | None = None,
    ) -> None:
        self.plan = plan
        self.desired = desired
        self.drivers = drivers
        self.options = options or ExecOptions()
        self.make_resolver = make_resolver
        # a parent deleted with its children (an Octavia load balancer, cascade) goes first: hotc.apply.cascade
        self.graph: ApplyGraph
        self.graph, self._cascaded = with_cascades(
            add_batch_gates(build_graph(plan, state), plan), state, driver_cascades(drivers)
        )
        # the environment's hooks: a pause in front of (pre-*) or after (post-*) a step (hotc.apply.hooks)
        self.graph = add_hook_nodes(self.graph, plan)
        self._gates = gates_of(plan)
        # creates that need only the id of another create start once it exists (ActionContext.ready_for_dependents)
        id_only = getattr(desired, "id_only_parents", None)
        self._early = id_only_edges(self.graph, id_only) if callable(id_only) else frozenset()
        self._walker: Walker[str, StepResult] | None = None
        self._pause: Pause = pause or wait_or_stop  # the pause between batches (a fake one in tests)
        self._initial = state
        self._sink = sink
        self._on_event = on_event
        self._on_log = on_log
        # address -> (type, depends_on, deletion_policy) of the desired stack, for the state records
        self._info: Mapping[str, Any] = desired_info or {}
        # property paths the plan marks sensitive, per address (recorded again on every completed action)
        self._sensitive: dict[str, tuple[str, ...]] = {
            c.address: tuple(c.sensitive_paths) for c in plan.changes if not c.deposed and c.after is not None
        }
        self._cancel = threading.Event()
        self._cancel_reason = ""
        # set as soon as a driver call fails (before its failure is written to the state): scheduling stops
        self._failing = threading.Event()
        self._env_: StepEnv | None = None
        self._durations = Durations(self.options.expected)
        self._throttle = Throttle(self.options.parallelism)
        # catalog look-ups shared by the run's actions (ActionContext.lookups), and with the plan's constraint
        # checks when the cloud getter keeps them (hotc.providers.openstack.auth.CloudFactory.catalog)
        catalog = getattr(self.options.cloud, "catalog", None)
        self._lookups: dict[Any, Any] = catalog if isinstance(catalog, dict) else {}

    # ----------------------------------------------------------------------------------------------- control

    def cancel(self, reason: str = "interrupted") -> None:
        """Stop scheduling new steps (steps in flight finish). Safe to call from a signal handler."""
        self._cancel_reason = reason
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # ------------------------------------------------------------------------------------------------- run

    def run(self) -> ApplyReport:
        stack_action = {"destroy": "DELETE"}.get(self.plan.mode) or (
            "CREATE" if stack_is_new(self._initial) else "UPDATE"
        )
        keeper = StateKeeper(self._initial, self._sink, self._on_event)
        self._env_ = StepEnv(
            stack_name=self.plan.stack_name,
            lineage=self._initial.lineage,
            keeper=keeper,
            desired=self.desired,
            drivers=self.drivers,
            options=self.options,
            make_resolver=self.make_resolver,
            info=self._info,
            sensitive=self._sensitive,
            cancel=self._cancel,
            failing=self._failing,
            durations=self._durations,
            throttle=self._throttle,
            lookups=self._lookups,
            cascaded=self._cascaded,
            on_log=self._on_log,
            # looked up here at each call, so that tests can give a type a rule (monkeypatch)
            failed_replace_rule=lambda type_name: failed_replace_rule(type_name),
            release=self._release,
        )
        keeper.commit(
            lambda s: replace(s, status=f"{stack_action}_IN_PROGRESS", status_reason=""),
            (stack_event(self.plan.stack_name, f"{stack_action}_IN_PROGRESS", "Stack apply started"),),
        )
        g = self.graph
        if self.options.hooks is not None and any(st.kind == HOOK for st in g.steps.values()):
            forget_pending(self.options.hooks)  # left by a killed run (this one holds the stack's lock)
        early = self._early
        self._walker = Walker(
            tuple(g.steps),
            g.waits_on,
            lambda key: self._run_step(g.steps[key]),
            workers=max(1, self.options.parallelism),
            limit=lambda: self._throttle.limit,
            priority=g.height,
            stopped=lambda: self._cancel.is_set() or self._failing.is_set(),
            # the end of a batch and its pause, a pause at a hook: a thread of its own, not a cloud call slot
            unpooled=lambda key: g.steps[key].kind in (BATCH, HOOK),
            on_success=lambda _res: self._throttle.completed(),
            early_ok=lambda waiter, waited: (waiter, waited) in early,
        )
        walk = self._walker.walk()
        if walk.abandoned:
            # a second interrupt while waiting: stop waiting; steps in flight stay IN_PROGRESS in the state
            self.cancel("interrupted again: steps in flight were not waited for")
        done, failed, started = walk.done, walk.failed, walk.started
        not_started = tuple(g.steps[k].label for k in g.steps if k not in started)
        interrupted = self._cancel.is_set()
        output_errors: tuple[str, ...] = ()
        ok = not failed and not not_started and not interrupted
        if ok and self.plan.mode != "destroy" and self.desired is not None:
            outs, output_errors = resolved_outputs(self.desired, self.make_resolver(keeper.state))
            if outs is not None:
                keeper.commit(lambda s: replace(s, outputs=outs))
        elif ok and self.plan.mode == "destroy":
            keeper.commit(lambda s: replace(s, outputs={}))
        if ok:
            final = f"{stack_action}_COMPLETE"
            reason = f"Stack {stack_action.lower()} completed successfully"
        elif failed:
            final = f"{stack_action}_FAILED"
            reason = "; ".join(f"{f.address}: {f.error}" for f in failed)
        else:
            final = f"{stack_action}_FAILED"
            reason = self._cancel_reason or "interrupted"
        keeper.commit(
            lambda s: replace(s, status=final, status_reason=reason),
            (stack_event(self.plan.stack_name, final, reason),),
        )
        final_state = keeper.close()
        return ApplyReport(
            done=done,
            failed=failed,
            not_started=not_started,
            state=final_state,
            interrupted=interrupted,
            output_errors=output_errors,
            batches=batch_report(self.plan, g, started, (d.key for d in done), (f.key for f in failed)),
        )

    # ----------------------------------------------------------------------------------------------- steps

    def _run_step(self, step: Step) -> StepResult:
        t0 = time.monotonic()
        try:
            unchanged = False
            if step.kind == APPLY:
                unchanged = apply(self._env, step)
            elif step.kind == CLEANUP:
                cleanup(self._env, step)
            elif step.kind == FORGET:
                forget(self._env, step)
            elif step.kind == BATCH:
                self._end_batch(step)
            elif step.kind == HOOK:
                wait_hook(self._env, step)
            res = StepResult(
                step.key, step.label, step.address, True, seconds=time.monotonic() - t0, unchanged=unchanged
            )
        except StepFailed as exc:
            res = StepResult(step.key, step.label, step.address, False, str(exc), time.monotonic() - t0)
        except Exception as exc:  # noqa: BLE001 -- a bug or an unexpected driver error: reported, not raised
            msg = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if not isinstance(exc, HotcError):
                msg += " (" + traceback.extract_tb(exc.__traceback__)[-1].name + ")"
            res = StepResult(step.key, step.label, step.address, False, msg, time.monotonic() - t0)
        return res

    def _release(self, key: str) -> None:
        """The resource of step ``key`` exists and is usable: the creates that need only its id may start."""
        if self._walker is not None:
            self._walker.release(key)

    @property
    def _env(self) -> StepEnv:
        assert self._env_ is not None, "the step handlers run inside run()"
        return self._env_

    def _end_batch(self, step: Step) -> None:
        """A batch of a group is complete: record it, then wait its pause (unless it is the last)."""
        gate = self._gates[step.key]
        r, b = gate.rollout, gate.batch
        pause = 0.0 if gate.last else b.pause_after
        what = f"batch {b.number} of {len(r.batches)} complete ({', '.join(b.members)})"
        if pause > 0:
            what += f"; pausing {pause:g} s before batch {b.number + 1}"
        self._env.keeper.commit(lambda s: s, (resource_event(r.address, r.type, "UPDATE_IN_PROGRESS", what),))
        if pause > 0 and not self._cancel.is_set():
            self._pause(pause, self._cancel)


def execute(
    plan: Plan,
    state: StackState,
    desired: DesiredLike | None,
    drivers: DriverLookup,
    sink: StateSink,
    options: ExecOptions | None = None,
    **kw: Any,
) -> ApplyReport:
    return Executor(plan, state, desired, drivers, sink, options, **kw).run()
