"""The executor: walks the apply graph with a thread pool, each step starting as soon as the steps it waits
on have finished (no level-by-level barriers), at most ``parallelism`` driver calls in flight.

Every resource transition is written to the state (through :class:`~hotc.apply.statekeeper.StateKeeper`)
and recorded as an event. A create records ``CREATE_IN_PROGRESS`` before the driver is called and the
physical id as soon as the driver reports it, so a killed run leaves a trace. On a failure (or
:meth:`Executor.cancel`, wired to Ctrl-C/SIGTERM) nothing new is scheduled, steps in flight finish, the state
is saved and the report says what was done, what failed (with the error) and what never started.
"""

from __future__ import annotations

import hashlib
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import field, replace
from typing import Any, Protocol

from hotc.apply.adopt import (
    ADOPTED_STATUS,
    adopt_reason,
    adopted_record,
    is_external,
    missing_object,
    recorded_properties,
    without_unknowns,
)
from hotc.apply.batches import BatchOutcome, Pause, add_batch_gates, batch_report, gates_of, wait_or_stop
from hotc.apply.cascade import driver_cascades, with_cascades
from hotc.apply.durations import Durations
from hotc.apply.events import SECRET_ID_TYPES, resource_event, stack_event
from hotc.apply.graph import APPLY, BATCH, CLEANUP, FORGET, ApplyGraph, Step, build_graph
from hotc.apply.resolve import StateResolver, promise_mismatches
from hotc.apply.statekeeper import StateKeeper, StateSink
from hotc.apply.throttle import Throttle
from hotc.apply.walker import Walker
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.options import DEFAULT_PARALLELISM
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.providers.base import (
    DELETE,
    SNAPSHOT,
    ActionContext,
    Driver,
    Outcome,
    prepare_for_replace,
    restore_after_failed_replace,
)
from hotc.state.document import DeposedInstance, OutputState, ResourceState, StackState
from hotc.state.events import Event, utc_now
from hotc.state.secrets import secret_attributes, withheld_error
from hotc.values import collect_unknowns, contains_unknown

TAG_LINEAGE = "hotc-lineage"
TAG_ADDRESS = "hotc-address"

# Per-type default timeouts (seconds) for one action; anything else gets DEFAULT_TIMEOUT.
DEFAULT_TIMEOUT = 1800.0
TYPE_TIMEOUTS: Mapping[str, float] = {
    "OS::Nova::Server": 3600.0,
    "OS::Cinder::Volume": 1800.0,
    "OS::Octavia::LoadBalancer": 2400.0,
    "OS::Glance::WebImage": 3600.0,
    "OS::Heat::RandomString": 60.0,
    "OS::Heat::Value": 60.0,
    "OS::Heat::None": 60.0,
}


class DesiredLike(Protocol):
    """What the executor needs of the planner's DesiredStack."""

    def resolve_properties(self, address: str, resolver: Any) -> Mapping[str, Any]: ...

    def resolve_outputs(self, resolver: Any) -> Mapping[str, Any]: ...


def _no_cloud() -> Any:
    raise HotcError("no cloud connection is configured for this run (set OS_CLOUD or pass --os-cloud)")


def _no_signal_store() -> Any:
    raise HotcError(
        "no signal store is configured for this run (--signal-store s3://BUCKET/PREFIX, HOTC_SIGNAL_STORE, "
        "or an S3 state backend)"
    )


@model
class ExecOptions:
    parallelism: int = DEFAULT_PARALLELISM
    timeouts: Mapping[str, float] = field(default_factory=dict)  # per type, overriding TYPE_TIMEOUTS
    default_timeout: float = DEFAULT_TIMEOUT
    delete_attempts: int = 3  # a delete is idempotent: retried with backoff
    retry_backoff: float = 2.0  # first retry delay (doubles)
    cloud: Callable[[], Any] = _no_cloud
    signals: Callable[[], Any] = _no_signal_store  # the signal store (hotc.state.signal_store), lazily
    # how long each "TYPE ACTION" usually takes on this stack (hotc.apply.durations.learned): waits poll around it
    expected: Mapping[str, float] = field(default_factory=dict)

    def timeout_for(self, type_name: str) -> float:
        """``timeouts[type]``, else ``timeouts["*"]`` (every type), else the type's default."""
        if type_name in self.timeouts:
            return self.timeouts[type_name]
        if "*" in self.timeouts:
            return self.timeouts["*"]
        return TYPE_TIMEOUTS.get(type_name, self.default_timeout)


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


class StepFailed(Exception):
    """A step failed; ``message`` says why (the cloud's error)."""


DriverLookup = Callable[[str], Driver | None]
ResolverFactory = Callable[[StackState], Any]


@model
class ExecContext(ActionContext):
    """The driver context plus a look-up of other resources of the stack by physical id (used by the
    in-process software-config types to read configs they reference)."""

    lookup: Callable[[str], ResourceState | None] = lambda _pid: None


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
        self._gates = gates_of(plan)
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
        self._keeper: StateKeeper | None = None
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
            "CREATE" if not self._initial.resources else "UPDATE"
        )
        keeper = StateKeeper(self._initial, self._sink, self._on_event)
        self._keeper = keeper
        keeper.commit(
            lambda s: replace(s, status=f"{stack_action}_IN_PROGRESS", status_reason=""),
            (stack_event(self.plan.stack_name, f"{stack_action}_IN_PROGRESS", "Stack apply started"),),
        )
        g = self.graph
        walk = Walker(
            tuple(g.steps),
            g.waits_on,
            lambda key: self._run_step(g.steps[key]),
            workers=max(1, self.options.parallelism),
            limit=lambda: self._throttle.limit,
            priority=g.height,
            stopped=lambda: self._cancel.is_set() or self._failing.is_set(),
            # the end of a batch and its pause: a thread of its own, not a cloud call slot
            unpooled=lambda key: g.steps[key].kind == BATCH,
            on_success=lambda _res: self._throttle.completed(),
        ).walk()
        if walk.abandoned:
            # a second interrupt while waiting: stop waiting; steps in flight stay IN_PROGRESS in the state
            self.cancel("interrupted again: steps in flight were not waited for")
        done, failed, started = walk.done, walk.failed, walk.started
        not_started = tuple(g.steps[k].label for k in g.steps if k not in started)
        interrupted = self._cancel.is_set()
        output_errors: tuple[str, ...] = ()
        ok = not failed and not not_started and not interrupted
        if ok and self.plan.mode != "destroy" and self.desired is not None:
            output_errors = self._store_outputs(keeper)
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
                unchanged = self._apply(step) is UNCHANGED
            elif step.kind == CLEANUP:
                self._cleanup(step)
            elif step.kind == FORGET:
                self._forget(step)
            elif step.kind == BATCH:
                self._end_batch(step)
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

    def _end_batch(self, step: Step) -> None:
        """A batch of a group is complete: record it, then wait its pause (unless it is the last)."""
        gate = self._gates[step.key]
        r, b = gate.rollout, gate.batch
        pause = 0.0 if gate.last else b.pause_after
        what = f"batch {b.number} of {len(r.batches)} complete ({', '.join(b.members)})"
        if pause > 0:
            what += f"; pausing {pause:g} s before batch {b.number + 1}"
        self.keeper.commit(lambda s: s, (resource_event(r.address, r.type, "UPDATE_IN_PROGRESS", what),))
        if pause > 0 and not self._cancel.is_set():
            self._pause(pause, self._cancel)

    @property
    def keeper(self) -> StateKeeper:
        assert self._keeper is not None
        return self._keeper

    def _driver(self, type_name: str) -> Driver:
        d = self.drivers(type_name)
        if d is None:
            raise StepFailed(f"hotc has no driver for resource type {type_name}")
        return d

    def _ctx(
        self,
        address: str,
        type_name: str,
        on_id: Callable[[str], None],
        tag: str | None = None,
        action: str | None = None,
    ) -> ExecContext:
        """The driver context; ``tag`` is the address stamp of the instance (see :func:`instance_tag`);
        ``action`` (CREATE, UPDATE, DELETE) gives the driver the usual duration of that action of the type."""
        lineage = self._initial.lineage

        def lookup(pid: str) -> ResourceState | None:
            """The resource an id belongs to (for a replaced, deposed instance: a view of it as a resource)."""
            for rs in self.keeper.state.resources.values():
                if rs.physical_id == pid:
                    return rs
                for d in rs.deposed:
                    if d.physical_id == pid:
                        return replace(
                            rs,
                            type=d.type or rs.type,
                            physical_id=pid,
                            properties=d.properties,
                            attributes=d.attributes,
                            deletion_policy=d.deletion_policy,
                            deposed=(),
                        )
            return None

        return ExecContext(
            address=address,
            type=type_name,
            stack_name=self.plan.stack_name,
            lineage=lineage,
            timeout=self.options.timeout_for(type_name),
            cloud=self.options.cloud,
            record_physical_id=on_id,
            tags={TAG_LINEAGE: lineage, TAG_ADDRESS: tag or address},
            log=self._logger(address),
            signals=self.options.signals,
            cancelled=self._cancel.is_set,
            lookup=lookup,
            recorded=lambda pid: lookup(pid) is not None,
            expected=self._durations.expected(type_name, action) if action else None,
            on_call=self._call_watcher(address),
            lookups=self._lookups,
            update_policy=getattr(self._info.get(address), "update_policy", None) or {},
            generated_name=getattr(self.keeper.state.resources.get(address), "generated_name", None),
        )

    def _call_watcher(self, address: str) -> Callable[[float, int | None], None]:
        """``ActionContext.on_call``: the cloud's busy signals (429, 503, 409, a much slower answer than usual)
        lower the number of actions in flight (:class:`~hotc.apply.throttle.Throttle`)."""
        log = self._logger(address)

        def watch(seconds: float, status: int | None) -> None:
            if status in (429, 503, 409):
                reason: str | None = f"the cloud answered HTTP {status}"
            elif status is None:
                reason = self._throttle.answered(seconds)
            else:
                reason = None
            if reason is not None and self._throttle.congested(reason):
                log(f"the cloud is busy ({self._throttle.signals[-1]})")

        return watch

    def _timed(self, type_name: str, action: str, fn: Callable[[], Any]) -> Any:
        """``fn()``, its duration learned for ``(type_name, action)`` when it succeeds."""
        t0 = time.monotonic()
        result = fn()
        self._durations.observe(type_name, action, time.monotonic() - t0)
        return result

    def _logger(self, address: str) -> Callable[[str], None]:
        on_log = self._on_log
        if on_log is None:
            return lambda _msg: None
        return lambda msg: on_log(address, msg)

    def _desired_props(self, step: Step) -> dict[str, Any]:
        change = step.change
        assert change is not None
        if self.desired is None:
            raise StepFailed("the plan has no desired template to evaluate (a destroy plan cannot create)")
        resolver = self.make_resolver(self.keeper.state)
        try:
            props = dict(self.desired.resolve_properties(step.address, resolver))
        except HotcError as exc:
            # evaluation errors quote the value they failed on: withheld when the properties are sensitive
            raise StepFailed(withheld_error(exc.message) if change.sensitive_paths else exc.message) from exc
        unknown = collect_unknowns(props)
        if unknown is not None:
            raise StepFailed(f"properties still unknown at apply time: they wait on {unknown!r}")
        if change.after is not None and not change.after_sensitive:
            bad = promise_mismatches(change.after, props, change.sensitive_paths)
            if bad:
                raise StepFailed(
                    "the value of "
                    + ", ".join(bad)
                    + " differs from what the plan promised; the inputs changed since the plan was made: "
                    "make a new plan"
                )
        return props

    def _record(self, step: Step) -> tuple[tuple[str, ...], str]:
        """Dependencies and deletion policy to record for the resource of ``step``."""
        info = self._info.get(step.address)
        change = step.change
        deps = (
            tuple(change.depends_on) if change is not None else tuple(getattr(info, "depends_on", ()) or ())
        )
        policy = (change.deletion_policy if change is not None else None) or str(
            getattr(info, "deletion_policy", "Delete") or "Delete"
        )
        if info is not None and change is not None and not change.depends_on:
            deps = tuple(getattr(info, "depends_on", ()) or ())
        return deps, policy

    def _apply(self, step: Step) -> object:
        """Create, replace or update the resource of ``step``; UNCHANGED when nothing had to be done."""
        change = step.change
        assert change is not None
        if change.import_id is not None:  # adopt an existing object: nothing is created or changed
            self._import(step, change.import_id)
            return None
        props = self._desired_props(step)
        if self._unchanged_after_all(step, props):
            deps, _policy = self._record(step)
            self.keeper.commit(lambda s: _patch(s, step.address, dependencies=deps))
            self._logger(step.address)(
                "no change: the values the plan knew only after apply are the recorded ones, so the "
                f"planned {change.action.value} is not needed"
            )
            return UNCHANGED
        from hotc.planner.validate_resolved import apply_problems  # what the plan could not check (Unknowns)

        problem = apply_problems(
            change.type, props, tuple(props) if change.after_sensitive else change.sensitive_paths
        )
        if problem is not None:
            raise StepFailed(problem)
        if change.action is Action.UPDATE:
            self._update(step, props)
        elif (
            change.action is Action.REPLACE
            and change.action_reason in RECOVERABLE
            and self._recover(step, props)
        ):
            return None
        else:
            self._create(step, props)
        return None

    def _unchanged_after_all(self, step: Step, props: Mapping[str, Any]) -> bool:
        """Heat decides an update with the values it has when it gets to the resource. A change the plan made
        only because an input was known after apply (an attribute of a resource updated just before) is not
        needed when the resolved properties decide a no-op against the recorded ones (type rules such as
        ``replacement_policy: REPLACE_ALWAYS`` still replace)."""
        change = step.change
        assert change is not None
        if change.action not in (Action.UPDATE, Action.REPLACE) or change.rebuild:
            return False
        if change.action_reason not in _PROPERTY_REASONS or not contains_unknown(change.after):
            return False
        if change.action is Action.UPDATE and not change.reason_detail.startswith("update in place"):
            return False  # metadata, deletion policy or a status to mark: not only properties
        cur = self.keeper.state.resources.get(step.address)
        if (
            cur is None
            or cur.physical_id is None
            or cur.type != change.type
            or cur.failed
            or cur.in_progress
            or cur.deletion_policy != change.deletion_policy
        ):
            return False
        try:
            from hotc.planner.diff import apply_defaults, unmask
            from hotc.providers.registry import get_schema
            from hotc.providers.schemas.decide import decide_update
        except ImportError:
            return False
        rtype = get_schema(change.type)
        if rtype is None:
            return False
        old, new = apply_defaults(rtype, cur.properties), apply_defaults(rtype, props)
        return decide_update(rtype, unmask(old, new), new, defaults_applied=True).kind == "no-op"

    def _recover(self, step: Step, props: dict[str, Any]) -> bool:
        """Heat's ``needs_replace_failed`` at apply time: a resource left FAILED or IN_PROGRESS whose object is
        healthy in the cloud (read through its driver, judged by its type's ``failed_replace`` rule, after waiting
        out a transitional status) and whose properties are the desired ones is kept, not replaced. True when
        kept; False to replace as planned (no rule, gone, broken, unreadable, or properties differ)."""
        addr = step.address
        cur = self.keeper.state.resources.get(addr)
        change = step.change
        assert change is not None
        if cur is None or cur.physical_id is None or cur.type != change.type or dict(cur.properties) != props:
            return False
        rule = failed_replace_rule(cur.type)
        driver = self.drivers(cur.type)
        if rule is None or driver is None:
            return False
        ctx = self._ctx(addr, cur.type, lambda _p: None, instance_tag(cur))
        deadline = time.monotonic() + ctx.timeout
        delay = 1.0
        try:
            while True:
                live = driver.read(ctx, cur.physical_id, with_defaults(cur.type, props))
                record = live_record(live)
                if (
                    live is None
                    or not transitional(record)
                    or time.monotonic() >= deadline
                    or self._cancel.is_set()
                ):
                    break
                time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 10.0)
        except Exception as exc:  # noqa: BLE001 -- cannot tell: replace as planned
            ctx.log(
                f"reading {cur.physical_id} to see whether it can be kept failed: {_err(exc)}; replacing it"
            )
            return False
        if live is None or rule(record) or transitional(record):
            return False
        live = (
            self._restamp(driver, ctx, cur.physical_id, with_defaults(cur.type, props), record or {}) or live
        )
        action = (
            cur.status.split("_", 1)[0] if cur.status.split("_", 1)[0] in ("CREATE", "UPDATE") else "CREATE"
        )
        reason = f"left {cur.status} by an earlier run, but healthy in the cloud: kept (not replaced)"
        self._complete(
            addr,
            cur.type,
            action,
            replace(live, physical_id=live.physical_id or cur.physical_id),
            props,
            reason=reason,
        )
        return True

    def _restamp(
        self, driver: Driver, ctx: ExecContext, pid: str, props: dict[str, Any], record: Mapping[str, Any]
    ) -> Outcome | None:
        """Put the lineage/address stamp back on a kept object that lacks it (a run killed between the create
        and the tagging), by asking the driver to re-apply its ``metadata`` (Nova, Cinder) or ``tags``."""
        md = record.get("metadata")
        tags = record.get("tags")
        if isinstance(md, Mapping):
            missing = "metadata" if md.get(TAG_LINEAGE) != ctx.lineage else None
        elif isinstance(tags, list | tuple):
            missing = "tags" if f"{TAG_LINEAGE}={ctx.lineage}" not in tags else None
        else:
            missing = None
        if missing is None:
            return None
        try:
            out = driver.update(ctx, pid, props, props, frozenset({missing}))
        except Exception as exc:  # noqa: BLE001 -- the object is kept anyway; say so
            ctx.log(f"could not put the hotc stamp back on {pid}: {_err(exc)}")
            return None
        ctx.log(f"put the hotc stamp back on {pid} ({missing})")
        return out

    def _create(self, step: Step, props: dict[str, Any]) -> None:
        change = step.change
        assert change is not None
        addr, type_name = step.address, change.type
        driver = self._driver(type_name)
        deps, policy = self._record(step)
        old = self.keeper.state.resources.get(addr)
        now = utc_now()
        adopted: str | None = None
        if old is not None and old.physical_id is None and old.in_progress:
            # a run was killed between the cloud call and recording its id: find what it created
            ctx0 = self._ctx(addr, old.type, lambda _pid: None, instance_tag(old))
            try:
                adopted = self._driver(old.type).find_adoptable(ctx0, with_defaults(old.type, old.properties))
            except Exception as exc:  # noqa: BLE001
                raise StepFailed(f"looking for a resource left by an interrupted run failed: {exc}") from exc
            if adopted is not None and old.type == type_name and dict(old.properties) == props:
                self._adopt(step, driver, adopted, props, deps, policy, instance_tag(old))
                return
            if adopted is not None:
                old = replace(old, physical_id=adopted)

        def start(s: StackState) -> StackState:
            cur = s.resources.get(addr)
            deposed: tuple[DeposedInstance, ...] = cur.deposed if cur is not None else ()
            base = old if old is not None and old.physical_id is not None else cur
            if base is not None and base.physical_id is not None:
                deposed = (*deposed, _as_deposed(base, type_name))
            rs = ResourceState(
                address=addr,
                type=type_name,
                physical_id=None,
                status="CREATE_IN_PROGRESS",
                properties=props,
                dependencies=deps,
                deletion_policy=policy,
                status_reason="state changed",
                created_at=now,
                updated_at=now,
                sensitive_paths=change.sensitive_paths,
                deposed=deposed,
            )
            return s.with_resource(rs)

        started = self.keeper.commit(
            start, (resource_event(addr, type_name, "CREATE_IN_PROGRESS", "state changed"),)
        )
        entry = started.resources[addr]
        old_ids = {d.physical_id for d in entry.deposed}

        def on_id(pid: str) -> None:
            self.keeper.commit(lambda s: _patch(s, addr, physical_id=pid))

        ctx = self._ctx(addr, type_name, on_id, instance_tag(entry), "CREATE")
        new_d = with_defaults(type_name, props)
        lent: list[DeposedInstance] = []  # old instances that let go of something for the replacement
        try:
            for dep in entry.deposed:  # Heat's prepare_for_replace (a server's explicit ports, …)
                if (dep.type or type_name) == type_name:
                    lent.append(dep)
                    if not prepare_for_replace(
                        driver, ctx, dep.physical_id, with_defaults(type_name, dep.properties), new_d
                    ):
                        lent.pop()
            outcome = self._timed(type_name, "CREATE", lambda: driver.create(ctx, new_d))
        except Exception as exc:  # noqa: BLE001
            reason = _err(exc)
            self._failing.set()  # nothing new starts from now on, even before the failure is recorded
            for dep in reversed(lent):  # Heat's restore_prev_rsrc: the old instance gets back what it lent
                try:
                    restore_after_failed_replace(
                        driver, ctx, dep.physical_id, with_defaults(type_name, dep.properties), new_d
                    )
                except Exception as rexc:  # noqa: BLE001
                    reason += f"; restoring the old instance {dep.physical_id} failed too: {_err(rexc)}"

            def failed(s: StackState) -> StackState:
                rs = s.resources.get(addr)
                if rs is None:
                    return s
                pid = rs.physical_id
                if pid is not None and pid in old_ids:  # never delete what is still the live resource
                    return s.with_resource(
                        replace(
                            rs,
                            status="CREATE_FAILED",
                            status_reason=reason,
                            deposed=tuple(d for d in rs.deposed if d.physical_id != pid),
                        )
                    )
                return s.with_resource(replace(rs, status="CREATE_FAILED", status_reason=reason))

            self.keeper.commit(failed, (resource_event(addr, type_name, "CREATE_FAILED", reason),))
            raise StepFailed(reason) from exc
        current = self.keeper.state.resources.get(addr)
        got = outcome.physical_id or (current.physical_id if current is not None else None)
        if got is not None and got in old_ids:
            # The "new" object is the old one: a type whose id is made of its inputs (a volume attachment
            # server:volume, a router interface, a key pair by name) ensured it exists as desired. It is the
            # current instance now and must not be deleted as an old one.
            self.keeper.commit(
                lambda s: _patch(
                    s, addr, deposed=tuple(d for d in s.resources[addr].deposed if d.physical_id != got)
                )
            )
            self._complete(
                addr,
                type_name,
                "CREATE",
                outcome,
                props,
                reason=f"{got} already existed as desired: kept as the current instance",
            )
            return
        self._complete(addr, type_name, "CREATE", outcome, props)

    def _import(self, step: Step, pid: str) -> None:
        """Adopt the existing object ``pid`` (Heat's ``external_id``, or an import): read it through the type's
        driver and record it; the cloud is never changed. The previous record of the address (an external_id
        change) becomes an old instance: forgotten if it was adopted or Retain, else deleted by the cleanup.
        Nothing is recorded when the object cannot be read. Properties whose inputs are unknown (an import of
        one resource of a stack) are recorded as read from the cloud."""
        change = step.change
        assert change is not None
        addr, type_name = step.address, change.type
        driver = self._driver(type_name)
        deps, policy = self._record(step)
        external = is_external(change)
        if external:
            props = self._desired_props(step)
        else:
            props = self._import_props(step)
        ctx = self._ctx(addr, type_name, lambda _p: None)
        try:
            outcome = driver.read(ctx, pid, with_defaults(type_name, props))
        except Exception as exc:  # noqa: BLE001
            raise StepFailed(
                f"reading the existing {type_name} {pid} failed: {_err(exc)}; nothing was recorded"
            ) from exc
        if outcome is None:
            raise StepFailed(missing_object(type_name, pid))
        got = outcome.physical_id or pid
        if external:
            recorded, note = dict(props), None
        else:
            from hotc.providers.registry import get_schema

            recorded, note = recorded_properties(
                get_schema(type_name), props, outcome.properties, change.sensitive_paths
            )
        if note:
            ctx.log(note)
        now = utc_now()
        reason = adopt_reason(got, external)

        def adopt(s: StackState) -> StackState:
            cur = s.resources.get(addr)
            deposed: tuple[DeposedInstance, ...] = cur.deposed if cur is not None else ()
            same = cur is not None and cur.physical_id == got
            if cur is not None and cur.physical_id is not None and not same:
                deposed = (*deposed, _as_deposed(cur, type_name))
            return s.with_resource(
                adopted_record(
                    address=addr,
                    type_name=type_name,
                    outcome=outcome,
                    physical_id=got,
                    properties=recorded,
                    dependencies=deps,
                    deletion_policy=policy,
                    external=external,
                    reason=reason,
                    now=now,
                    sensitive_paths=change.sensitive_paths,
                    current=cur if same else None,
                    deposed=deposed,
                )
            )

        self.keeper.commit(adopt, (resource_event(addr, type_name, ADOPTED_STATUS, reason, got),))

    def _import_props(self, step: Step) -> dict[str, Any]:
        """The template's properties of an imported resource, with those whose inputs are still unknown left
        out (the live values are recorded for them)."""
        if self.desired is None:
            raise StepFailed("the plan has no desired template to evaluate")
        try:
            props = self.desired.resolve_properties(step.address, self.make_resolver(self.keeper.state))
        except HotcError as exc:
            raise StepFailed(exc.message) from exc
        return dict(without_unknowns(dict(props)))

    def _adopt(
        self,
        step: Step,
        driver: Driver,
        pid: str,
        props: dict[str, Any],
        deps: tuple[str, ...],
        policy: str,
        tag: str,
    ) -> None:
        addr = step.address
        type_name = step.change.type if step.change is not None else ""
        ctx = self._ctx(addr, type_name, lambda _p: None, tag)
        try:
            outcome = driver.read(ctx, pid, with_defaults(type_name, props))
        except Exception as exc:  # noqa: BLE001
            raise StepFailed(
                f"reading the resource {pid} left by an interrupted run failed: {_err(exc)}"
            ) from exc
        if outcome is None:
            raise StepFailed(f"the resource {pid} left by an interrupted run disappeared while being adopted")
        outcome = replace(outcome, physical_id=outcome.physical_id or pid)
        outcome = (
            self._restamp(driver, ctx, pid, with_defaults(type_name, props), live_record(outcome) or {})
            or outcome
        )
        self.keeper.commit(
            lambda s: _patch(
                s, addr, physical_id=outcome.physical_id, dependencies=deps, deletion_policy=policy
            )
        )
        self._complete(
            addr, type_name, "CREATE", outcome, props, reason="adopted a resource left by an interrupted run"
        )

    def _complete(
        self,
        addr: str,
        type_name: str,
        action: str,
        outcome: Outcome,
        props: Mapping[str, Any],
        reason: str = "state changed",
    ) -> None:
        applied = dict(outcome.properties) if outcome.properties is not None else dict(props)
        status = f"{action}_COMPLETE"

        cur = self.keeper.state.resources.get(addr)
        pid = outcome.physical_id if outcome.physical_id is not None else (cur.physical_id if cur else None)
        sensitive_paths = self._sensitive.get(addr, cur.sensitive_paths if cur is not None else ())
        attributes = _kept_secrets(outcome, cur)
        self.keeper.commit(
            lambda s: _patch(
                s,
                addr,
                physical_id=pid,
                status=status,
                status_reason=reason,
                properties=applied,
                attributes=attributes,
                updated_at=utc_now(),
                sensitive_paths=sensitive_paths,
                sensitive_attributes=secret_attributes(
                    outcome.sensitive_attributes, sensitive_paths, attributes
                ),
                reference_attribute=outcome.reference_attribute,
            ),
            (resource_event(addr, type_name, status, reason, pid),),
            wait=False,  # written with the next commit that waits (see StateKeeper.commit)
        )

    def _update(self, step: Step, props: dict[str, Any]) -> None:
        change = step.change
        assert change is not None
        addr, type_name = step.address, change.type
        driver = self._driver(type_name)
        cur = self.keeper.state.resources.get(addr)
        if cur is None or cur.physical_id is None:
            raise StepFailed("the plan updates a resource that the state no longer holds; make a new plan")
        deps, policy = self._record(step)
        old_props = _planned_old(cur.properties, change)
        old_d, new_d = with_defaults(type_name, old_props), with_defaults(type_name, props)
        changed = frozenset(k for k in set(old_d) | set(new_d) if old_d.get(k) != new_d.get(k))
        self.keeper.commit(
            lambda s: _patch(
                s,
                addr,
                status="UPDATE_IN_PROGRESS",
                status_reason="state changed",
                dependencies=deps,
                deletion_policy=policy,
            ),
            (resource_event(addr, type_name, "UPDATE_IN_PROGRESS", "state changed", cur.physical_id),),
        )

        def on_id(pid: str) -> None:
            self.keeper.commit(lambda s: _patch(s, addr, physical_id=pid))

        try:
            pid0 = cur.physical_id
            ctx = self._ctx(addr, type_name, on_id, action="UPDATE")
            outcome = self._timed(
                type_name, "UPDATE", lambda: driver.update(ctx, pid0, old_d, new_d, changed)
            )
        except Exception as exc:  # noqa: BLE001
            reason = _err(exc)
            self._failing.set()  # nothing new starts from now on, even before the failure is recorded
            self.keeper.commit(
                lambda s: _patch(s, addr, status="UPDATE_FAILED", status_reason=reason),
                (resource_event(addr, type_name, "UPDATE_FAILED", reason, cur.physical_id),),
            )
            raise StepFailed(reason) from exc
        self._complete(addr, type_name, "UPDATE", outcome, props)

    def _delete_call(
        self, driver: Driver, ctx: ActionContext, pid: str, props: Mapping[str, Any], policy: str
    ) -> None:
        """``driver.delete`` under ``policy`` (Delete or Snapshot; Retain never gets here), retried. A Snapshot
        asked of a driver that cannot take one fails, and the resource is kept."""
        if policy == SNAPSHOT and not getattr(driver, "snapshot_delete", False):
            raise StepFailed(
                f"deletion_policy Snapshot: hotc cannot snapshot a {ctx.type} before deleting it, so it was "
                "kept; change the deletion_policy to Retain (keep it) or Delete (lose it), then run again"
            )
        if policy not in (DELETE, SNAPSHOT):
            raise StepFailed(f"unknown deletion_policy {policy!r}: the resource was kept")
        attempts = max(1, self.options.delete_attempts)
        delay = self.options.retry_backoff
        for i in range(attempts):
            try:
                self._timed(ctx.type, "DELETE", lambda: driver.delete(ctx, pid, props, policy=policy))
                return
            except Exception:
                if i == attempts - 1 or self._cancel.is_set():
                    raise
                time.sleep(delay)
                delay *= 2

    def _cleanup(self, step: Step) -> None:
        addr = step.address
        cur = self.keeper.state.resources.get(addr)
        if cur is None:
            return
        # old instances first (they are older than the current one)
        for dep in cur.deposed:
            self._delete_deposed(addr, cur.type, dep)
        if step.change is not None and step.change.action is Action.DELETE and not step.change.deposed:
            self._delete_current(addr)

    def _delete_deposed(self, addr: str, cur_type: str, dep: DeposedInstance) -> None:
        type_name = dep.type or cur_type
        label = "old instance" if type_name in SECRET_ID_TYPES else f"old instance {dep.physical_id}"

        def drop(s: StackState) -> StackState:
            rs = s.resources.get(addr)
            if rs is None:
                return s
            return s.with_resource(
                replace(rs, deposed=tuple(d for d in rs.deposed if d.physical_id != dep.physical_id))
            )

        if dep.deletion_policy == "Retain":
            self.keeper.commit(
                drop,
                (
                    resource_event(
                        addr,
                        type_name,
                        "DELETE_SKIPPED",
                        f"{label} retained (deletion_policy Retain)",
                        dep.physical_id,
                    ),
                ),
            )
            return
        driver = self._driver(type_name)
        self.keeper.commit(
            lambda s: s,
            (
                resource_event(
                    addr, type_name, "DELETE_IN_PROGRESS", f"deleting {label} (replaced)", dep.physical_id
                ),
            ),
        )
        try:
            self._delete_call(
                driver,
                self._ctx(addr, type_name, lambda _p: None, action="DELETE"),
                dep.physical_id,
                with_defaults(type_name, dep.properties),
                dep.deletion_policy,
            )
        except Exception as exc:  # noqa: BLE001
            reason = _err(exc)
            self._failing.set()  # nothing new starts from now on, even before the failure is recorded

            def mark(s: StackState) -> StackState:
                rs = s.resources.get(addr)
                if rs is None:
                    return s
                deposed = tuple(
                    replace(d, status="DELETE_FAILED") if d.physical_id == dep.physical_id else d
                    for d in rs.deposed
                )
                return s.with_resource(replace(rs, deposed=deposed))

            self.keeper.commit(
                mark,
                (resource_event(addr, type_name, "DELETE_FAILED", f"{label}: {reason}", dep.physical_id),),
            )
            raise StepFailed(f"deleting {label}: {reason}") from exc
        self.keeper.commit(
            drop, (resource_event(addr, type_name, "DELETE_COMPLETE", f"{label} deleted", dep.physical_id),)
        )

    def _delete_current(self, addr: str) -> None:
        cur = self.keeper.state.resources.get(addr)
        if cur is None:
            return
        if cur.deletion_policy == "Retain":
            self._forget_now(addr, cur)
            return
        if cur.physical_id is None:
            # never got an id: look for one created by an interrupted run before forgetting it
            pid = None
            driver0 = self.drivers(cur.type)
            if driver0 is not None and cur.in_progress:
                try:
                    pid = driver0.find_adoptable(
                        self._ctx(addr, cur.type, lambda _p: None, instance_tag(cur)),
                        with_defaults(cur.type, cur.properties),
                    )
                except Exception as exc:  # noqa: BLE001
                    raise StepFailed(
                        f"looking for a resource left by an interrupted run failed: {_err(exc)}"
                    ) from exc
            if pid is None:
                self.keeper.commit(
                    lambda s: s.without_resource(addr),
                    (resource_event(addr, cur.type, "DELETE_COMPLETE", "nothing was created"),),
                )
                return
            cur = replace(cur, physical_id=pid)
        driver = self._driver(cur.type)
        pid = cur.physical_id
        assert pid is not None
        parent = self._cascaded.get(addr)
        why = "state changed" if parent is None else f"deleted with {parent} (cascade)"
        if parent is not None:
            self._logger(addr)(
                f"{parent} was deleted with cascade, which removes {addr}: checking it is gone"
            )
        self.keeper.commit(
            lambda s: _patch(s, addr, status="DELETE_IN_PROGRESS", status_reason=why, physical_id=pid),
            (resource_event(addr, cur.type, "DELETE_IN_PROGRESS", why, pid),),
        )
        try:
            self._delete_call(
                driver,
                self._ctx(addr, cur.type, lambda _p: None, action="DELETE"),
                pid,
                with_defaults(cur.type, cur.properties),
                cur.deletion_policy,
            )
        except Exception as exc:  # noqa: BLE001
            reason = _err(exc)
            self._failing.set()  # nothing new starts from now on, even before the failure is recorded
            self.keeper.commit(
                lambda s: _patch(s, addr, status="DELETE_FAILED", status_reason=reason),
                (resource_event(addr, cur.type, "DELETE_FAILED", reason, pid),),
            )
            raise StepFailed(reason) from exc
        self.keeper.commit(
            lambda s: s.without_resource(addr),
            (resource_event(addr, cur.type, "DELETE_COMPLETE", why, pid),),
            wait=False,
        )

    def _forget(self, step: Step) -> None:
        cur = self.keeper.state.resources.get(step.address)
        if cur is not None:
            self._forget_now(step.address, cur)

    def _forget_now(self, addr: str, cur: ResourceState) -> None:
        self.keeper.commit(
            lambda s: s.without_resource(addr),
            (
                resource_event(
                    addr,
                    cur.type,
                    "DELETE_SKIPPED",
                    "deletion_policy Retain: left in the cloud, removed from the state",
                    cur.physical_id,
                ),
            ),
        )

    # --------------------------------------------------------------------------------------------- outputs

    def _store_outputs(self, keeper: StateKeeper) -> tuple[str, ...]:
        assert self.desired is not None
        outs, errors = resolved_outputs(self.desired, self.make_resolver(keeper.state))
        if outs is not None:
            keeper.commit(lambda s: replace(s, outputs=outs))
        return errors


def resolved_outputs(
    desired: DesiredLike, resolver: Any
) -> tuple[dict[str, OutputState] | None, tuple[str, ...]]:
    """The outputs to store after an apply (None when they cannot be evaluated at all) and the errors."""
    errors: list[str] = []
    each = getattr(desired, "resolve_outputs_with_errors", None)
    raw: Mapping[str, Any]
    if each is not None:  # each output on its own: one that fails never hides the others (as in Heat)
        raw = {
            n: v if e is None else OutputState(value=None, error=e) for n, (v, e) in each(resolver).items()
        }
    else:
        try:
            raw = desired.resolve_outputs(resolver)
        except HotcError as exc:
            return None, (exc.message,)
    outs: dict[str, OutputState] = {}
    descriptions = _output_descriptions(desired)
    for name, v in raw.items():
        out = v if isinstance(v, OutputState) else OutputState(value=v)
        if descriptions.get(name) and not out.description:
            out = replace(out, description=descriptions[name])  # the template's, as Heat's output show gives
        if name in getattr(desired, "sensitive_outputs", ()) and not out.sensitive:
            out = replace(out, sensitive=True)  # stored masked, shown as (sensitive), as the plan said
        if collect_unknowns(out.value) is not None:
            out = replace(out, value=None, error="the value is still unknown after the apply")
        if out.error and out.sensitive:
            out = replace(out, error=withheld_error(out.error))  # errors quote the value they failed on
        if out.error:
            errors.append(f"output {name}: {out.error}")
        outs[name] = out
    return outs, tuple(errors)


def _output_descriptions(desired: Any) -> dict[str, str]:
    """The root template's output descriptions (empty for a desired stack that has no template)."""
    scopes = getattr(desired, "scopes", None)
    root = scopes.get("") if isinstance(scopes, Mapping) else None
    outputs = getattr(getattr(root, "template", None), "outputs", None) or {}
    return {n: str(o.description) for n, o in outputs.items() if getattr(o, "description", None)}


RECOVERABLE = frozenset({"replace_because_failed", "replace_because_incomplete"})
#: plan reasons that come from the resource's properties alone (see Executor._unchanged_after_all)
_PROPERTY_REASONS = frozenset({"update", "replace_because_cannot_update", "replace_because_update_policy"})
UNCHANGED = object()  # what Executor._apply returns when nothing had to be done
TRANSITIONAL = frozenset(
    {
        "BUILD",
        "REBUILD",
        "RESIZE",
        "MIGRATING",
        "REBOOT",
        "HARD_REBOOT",
        "PASSWORD",
        "CREATING",
        "DOWNLOADING",
        "ATTACHING",
        "DETACHING",
        "EXTENDING",
        "RETYPING",
        "RESERVED",
        "QUEUED",
        "SAVING",
        "IMPORTING",
        "UPLOADING",
        "BACKING-UP",
        "RESTORING-BACKUP",
        "MAINTENANCE",
    }
)


def failed_replace_rule(type_name: str) -> Callable[[Mapping[str, Any] | None], bool] | None:
    try:
        from hotc.providers.registry import get_schema
    except ImportError:
        return None
    rtype = get_schema(type_name)
    return getattr(rtype, "failed_replace", None) if rtype is not None else None


def live_record(outcome: Outcome | None) -> dict[str, Any] | None:
    """The cloud's record of an object as a driver read it (its ``show`` attribute, else its attributes)."""
    if outcome is None:
        return None
    show = outcome.attributes.get("show")
    record = dict(show) if isinstance(show, Mapping) else dict(outcome.attributes)
    if "status" not in record and "provisioning_status" in record:
        record["status"] = record["provisioning_status"]
    return record


def transitional(record: Mapping[str, Any] | None) -> bool:
    """Whether the object is still changing (a server in BUILD, a load balancer PENDING_CREATE, …)."""
    if not record:
        return False
    status = str(record.get("provisioning_status") or record.get("status") or "").upper()
    return status in TRANSITIONAL or status.startswith("PENDING_")


def instance_tag(rs: ResourceState) -> str:
    """The address stamp of the instance ``rs`` describes (a create in progress). The first instance of an
    address is stamped with the address itself; a replacement, made while the old instance still exists, gets
    ``address@NONCE`` (NONCE from the entry's creation time) so that a driver looking for "what this create
    made" by its stamp never mistakes the old instance for the new one. Deterministic: a later run adopting
    the instance of an interrupted create computes the same stamp from the same state entry."""
    if not rs.deposed:
        return rs.address
    nonce = hashlib.sha256(f"{rs.address}|{rs.created_at}".encode()).hexdigest()[:8]
    return f"{rs.address}@{nonce}"


def with_defaults(type_name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties as the driver sees them (as Heat's handle_* do): schema defaults filled in, values coerced,
    hidden legacy names moved to their current names. Unknown types get the properties as they are."""
    try:
        from hotc.providers.registry import get_schema
        from hotc.providers.validation import apply_defaults
    except ImportError:
        return dict(props)
    rtype = get_schema(type_name)
    if rtype is None:
        return dict(props)
    return dict(apply_defaults(rtype, props))


def _as_deposed(base: ResourceState, type_name: str) -> DeposedInstance:
    """The current instance of a resource as an old one, waiting for the cleanup after its replacement, with
    the type it has and the deletion policy its deletion honours (an adopted external object is only
    forgotten: Retain)."""
    policy = "Retain" if base.external_id is not None else (base.deletion_policy or "Delete")
    return DeposedInstance(
        base.physical_id or "",
        base.properties,
        base.attributes,
        type=base.type,
        deletion_policy=policy,
        sensitive_paths=base.sensitive_paths,
        sensitive_attributes=secret_attributes(
            base.sensitive_attributes, base.sensitive_paths, base.attributes
        ),
    )


def _patch(s: StackState, addr: str, **changes: Any) -> StackState:
    rs = s.resources.get(addr)
    if rs is None:
        return s
    return s.with_resource(replace(rs, **changes))


def _planned_old(recorded: Mapping[str, Any], change: ResourceChange) -> dict[str, Any]:
    """The properties an update starts from: the recorded ones, except those the plan saw changed outside hotc
    (a ``--refresh`` plan's ``before`` holds their live values): an update that brings drift back must know
    what is there now (a network renamed by hand, an interface attached by hand) to undo it."""
    out = dict(recorded)
    before = change.before or {}
    for path in change.changed_paths:
        key = path.split(".", 1)[0].split("[", 1)[0]
        if key in before and not _is_masked_value(before[key]):
            out[key] = before[key]
    return out


def _is_masked_value(value: Any) -> bool:
    if isinstance(value, dict):
        return "__sensitive__" in value or any(_is_masked_value(v) for v in value.values())
    if isinstance(value, list):
        return any(_is_masked_value(v) for v in value)
    return False


def _kept_secrets(outcome: Outcome, cur: ResourceState | None) -> dict[str, Any]:
    """The outcome's attributes; a sensitive attribute the driver cannot read back (a RandomString's value
    after a read or a no-op update) keeps its recorded value."""
    attrs = dict(outcome.attributes)
    if cur is not None:
        for name in outcome.sensitive_attributes:
            if name not in attrs and name in cur.attributes:
                attrs[name] = cur.attributes[name]
    return attrs


def _err(exc: BaseException) -> str:
    msg = exc.message if isinstance(exc, HotcError) else str(exc)
    return msg or type(exc).__name__


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
