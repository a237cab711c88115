"""What every step handler of the apply (:mod:`hotc.apply.steps`) works with: the run's options, the driver
context, and :class:`StepEnv`, the services of one run (the state keeper, drivers, the desired stack, the
timers, the flag that stops scheduling), with the helpers that write a resource's record.

The handlers report a failure by raising :class:`StepFailed` (the cloud's error, already written to the state);
the executor turns it into a failed step of its report.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import field, replace
from typing import Any, Protocol

from hotc.apply.durations import Durations
from hotc.apply.events import resource_event
from hotc.apply.graph import Step
from hotc.apply.resolve import promise_mismatches
from hotc.apply.statekeeper import StateKeeper
from hotc.apply.throttle import Throttle
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.options import DEFAULT_PARALLELISM
from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.state.document import DeposedInstance, ResourceState, StackState
from hotc.state.events import utc_now
from hotc.state.secrets import secret_attributes, withheld_error
from hotc.values import collect_unknowns

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
    # hooks (breakpoints): where pauses and clear requests live (hotc.state.hooks; None: in memory), how long
    # a pause may last (None: until cleared or cancelled), and a question put to the operator on a terminal
    # ((address, hook) -> True to clear it; it may block: it runs on a thread of its own)
    hooks: Any = None
    hook_timeout: float | None = None
    hook_prompt: Callable[[str, str], bool] | None = None

    def timeout_for(self, type_name: str) -> float:
        """``timeouts[type]``, else ``timeouts["*"]`` (every type), else the type's default."""
        if type_name in self.timeouts:
            return self.timeouts[type_name]
        if "*" in self.timeouts:
            return self.timeouts["*"]
        return TYPE_TIMEOUTS.get(type_name, self.default_timeout)


@model
class ExecContext(ActionContext):
    """The driver context plus a look-up of other resources of the stack by physical id (used by the
    in-process software-config types to read configs they reference)."""

    lookup: Callable[[str], ResourceState | None] = lambda _pid: None


class StepFailed(Exception):
    """A step failed; ``message`` says why (the cloud's error)."""


DriverLookup = Callable[[str], Driver | None]
ResolverFactory = Callable[[StackState], Any]
#: a type's rule telling whether a failed resource must be replaced, given the cloud's record of its object
FailedReplaceRule = Callable[[Mapping[str, Any] | None], bool]


class StepEnv:
    """The services of one apply run that the step handlers share."""

    def __init__(
        self,
        *,
        stack_name: str,
        lineage: str,
        keeper: StateKeeper,
        desired: DesiredLike | None,
        drivers: DriverLookup,
        options: ExecOptions,
        make_resolver: ResolverFactory,
        info: Mapping[str, Any],
        sensitive: Mapping[str, tuple[str, ...]],
        cancel: threading.Event,
        failing: threading.Event,
        durations: Durations,
        throttle: Throttle,
        lookups: dict[Any, Any],
        cascaded: Mapping[str, str],
        on_log: Callable[[str, str], None] | None,
        failed_replace_rule: Callable[[str], FailedReplaceRule | None],
        release: Callable[[str], None] = lambda _key: None,
    ) -> None:
        self.stack_name = stack_name
        self.lineage = lineage
        self.keeper = keeper
        self.desired = desired
        self.drivers = drivers
        self.options = options
        self.make_resolver = make_resolver
        # address -> (type, depends_on, deletion_policy) of the desired stack, for the state records
        self.info = info
        # property paths the plan marks sensitive, per address (recorded again on every completed action)
        self.sensitive = sensitive
        self._cancel = cancel
        # set as soon as a driver call fails (before its failure is written to the state): scheduling stops
        self._failing = failing
        self.durations = durations
        self.throttle = throttle
        self.lookups = lookups
        # address -> the parent whose cascading delete removes it (hotc.apply.cascade)
        self.cascaded = cascaded
        self._on_log = on_log
        self.failed_replace_rule = failed_replace_rule
        # a step's key: the steps that need only its resource's id may start (hotc.apply.walker.Walker.release)
        self.release = release

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def failing(self) -> bool:
        """A step failed elsewhere: nothing new starts (a paused hook stops waiting, as Heat's does)."""
        return self._failing.is_set()

    def stop_scheduling(self) -> None:
        """A driver call failed: nothing new starts from now on, even before the failure is recorded."""
        self._failing.set()

    def driver(self, type_name: str) -> Driver:
        d = self.drivers(type_name)
        if d is None:
            raise StepFailed(f"hotc has no driver for resource type {type_name}")
        return d

    def ctx(
        self,
        address: str,
        type_name: str,
        on_id: Callable[[str], None],
        tag: str | None = None,
        action: str | None = None,
        on_ready: Callable[[], None] | None = None,
    ) -> ExecContext:
        """The driver context; ``tag`` is the address stamp of the instance (see :func:`instance_tag`);
        ``action`` (CREATE, UPDATE, DELETE) gives the driver the usual duration of that action of the type;
        ``on_ready`` is the driver's ``ready_for_dependents``."""
        lineage = self.lineage

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
            stack_name=self.stack_name,
            lineage=lineage,
            timeout=self.options.timeout_for(type_name),
            cloud=self.options.cloud,
            record_physical_id=on_id,
            tags={TAG_LINEAGE: lineage, TAG_ADDRESS: tag or address},
            log=self.logger(address),
            signals=self.options.signals,
            cancelled=self._cancel.is_set,
            lookup=lookup,
            recorded=lambda pid: lookup(pid) is not None,
            expected=self.durations.expected(type_name, action) if action else None,
            fastest=self.durations.fastest(type_name, action) if action == "CREATE" else None,
            on_call=self._call_watcher(address),
            lookups=self.lookups,
            update_policy=getattr(self.info.get(address), "update_policy", None) or {},
            generated_name=getattr(self.keeper.state.resources.get(address), "generated_name", None),
            ready_for_dependents=on_ready or (lambda: None),
        )

    def _call_watcher(self, address: str) -> Callable[[float, int | None], None]:
        """``ActionContext.on_call``: the cloud's busy signals (429, 503, 409, a much slower answer than usual)
        lower the number of actions in flight (:class:`~hotc.apply.throttle.Throttle`)."""
        log = self.logger(address)

        def watch(seconds: float, status: int | None) -> None:
            if status in (429, 503, 409):
                reason: str | None = f"the cloud answered HTTP {status}"
            elif status is None:
                reason = self.throttle.answered(seconds)
            else:
                reason = None
            if reason is not None and self.throttle.congested(reason):
                log(f"the cloud is busy ({self.throttle.signals[-1]})")

        return watch

    def timed(self, type_name: str, action: str, fn: Callable[[], Any]) -> Any:
        """``fn()``, its duration learned for ``(type_name, action)`` when it succeeds."""
        t0 = time.monotonic()
        result = fn()
        self.durations.observe(type_name, action, time.monotonic() - t0)
        return result

    def logger(self, address: str) -> Callable[[str], None]:
        on_log = self._on_log
        if on_log is None:
            return lambda _msg: None
        return lambda msg: on_log(address, msg)

    def desired_props(self, step: Step) -> dict[str, Any]:
        """The properties of the resource of ``step`` evaluated against the state now, checked against what
        the plan promised."""
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

    def record(self, step: Step) -> tuple[tuple[str, ...], str]:
        """Dependencies and deletion policy to record for the resource of ``step``."""
        info = self.info.get(step.address)
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

    def complete(
        self,
        addr: str,
        type_name: str,
        action: str,
        outcome: Outcome,
        props: Mapping[str, Any],
        reason: str = "state changed",
    ) -> None:
        """Record ``action`` (CREATE, UPDATE) of ``addr`` as complete with what the driver reported."""
        applied = dict(outcome.properties) if outcome.properties is not None else dict(props)
        status = f"{action}_COMPLETE"

        cur = self.keeper.state.resources.get(addr)
        pid = outcome.physical_id if outcome.physical_id is not None else (cur.physical_id if cur else None)
        sensitive_paths = self.sensitive.get(addr, cur.sensitive_paths if cur is not None else ())
        attributes = kept_secrets(outcome, cur)
        self.keeper.commit(
            lambda s: patch(
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
        # lazy: hotc check loads this module, not the schema registry (test_startup_imports)
        from hotc.providers.registry import get_schema
        from hotc.providers.validation import apply_defaults
    except ImportError:
        return dict(props)
    rtype = get_schema(type_name)
    if rtype is None:
        return dict(props)
    return dict(apply_defaults(rtype, props))


def as_deposed(base: ResourceState, type_name: str) -> DeposedInstance:
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


def patch(s: StackState, addr: str, **changes: Any) -> StackState:
    """``s`` with the record of ``addr`` changed (unchanged when the state no longer holds it)."""
    rs = s.resources.get(addr)
    if rs is None:
        return s
    return s.with_resource(replace(rs, **changes))


def kept_secrets(outcome: Outcome, cur: ResourceState | None) -> dict[str, Any]:
    """The outcome's attributes; a sensitive attribute the driver cannot read back (a RandomString's value
    after a read or a no-op update) keeps its recorded value."""
    attrs = dict(outcome.attributes)
    if cur is not None:
        for name in outcome.sensitive_attributes:
            if name not in attrs and name in cur.attributes:
                attrs[name] = cur.attributes[name]
    return attrs


def err(exc: BaseException) -> str:
    """The message of a driver's error (its class name when it has none)."""
    msg = exc.message if isinstance(exc, HotcError) else str(exc)
    return msg or type(exc).__name__
