"""One apply run from the command line's point of view: load (or plan on the spot), lock, check freshness,
ask for approval, execute under signal handlers, record the template, report. Everything it needs from the
outside is handed in by the CLI's composition root (:class:`ApplyWiring`: how to load a template, the type
checks, the constraint rules, the drivers, the cloud connection), and it writes only to the ``out``/``err``
streams it is given; the executor itself only talks to drivers and a state sink."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import field, replace
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

from hotc.apply.durations import learned
from hotc.apply.events import resource_event
from hotc.apply.executor import ApplyReport, ExecOptions, Executor
from hotc.apply.resolve import SENSITIVE_MARK, StateResolver
from hotc.apply.scaling import (
    ScalingRun,
    acknowledge,
    decide_signals,
    decision_event,
    decision_line,
    group_states,
    has_policies,
    pending_signals,
    policy_types,
    with_decisions,
)
from hotc.errors import Diagnostic, HotcError, Severity
from hotc.model import model
from hotc.parser.api import LoadedStack, TypeChecks
from hotc.planner.api import (
    Action,
    ConstraintRules,
    DesiredStack,
    Plan,
    PlanOptions,
    build_desired,
    check_plan_fresh,
    driver_reader,
    enforce_constraints,
    environment_paths,
    hidden_names,
    load_plan,
    loaded_stack_from_plan,
    make_plan,
    plan_inputs,
    read_again,
    refresh_resources,
    relative_sources,
    render_text,
    template_digest,
)
from hotc.planner.options import DEFAULT_PARALLELISM
from hotc.planner.signals import enforce_plan_support
from hotc.state import ResourceState, StackState, backend_from_config, hide_parameter
from hotc.state.codec import stored_template
from hotc.state.events import Event, utc_now
from hotc.state.hidden_env import hidden_count
from hotc.state.hooks import hook_store_for
from hotc.state.signal_store import backend_encrypts, store_for


class Loader(Protocol):
    """Loads a template for a command (template, environments, --parameter values, --parameter-file paths),
    every value required: problems reported as every command reports them, errors raised as HotcError. A
    get_file target outside the template's tree is refused unless ``allow_outside_files``."""

    def __call__(
        self,
        template: Path,
        envs: list[Path],
        params: Mapping[str, str],
        pfiles: Mapping[str, Path],
        *,
        allow_outside_files: bool = False,
    ) -> LoadedStack: ...


@model
class ApplyWiring:
    """What a run needs from the other layers, handed in by the CLI's composition root (``hotc.cli.root``)."""

    load: Loader
    checks: TypeChecks  # the type checks a saved plan's template is loaded with again
    rules: ConstraintRules  # the custom constraints an apply that plans on the spot checks, as `hotc plan`
    drivers: Callable[[str], Any]
    cloud: Callable[[], Any]  # the run's one lazily made cloud connection


class BackendSink:
    """The executor's state sink on a backend, under the lock held for the run."""

    def __init__(self, backend: Any, stack: str, lock: Any) -> None:
        self.backend = backend
        self.stack = stack
        self.lock = lock

    def write(self, state: StackState) -> StackState:
        written: StackState = self.backend.write(self.stack, state, self.lock)
        return written

    def append_events(self, events: list[Event]) -> None:
        self.backend.append_events(self.stack, events)


@model
class ApplyOptions:
    parallelism: int = DEFAULT_PARALLELISM
    auto_approve: bool = False
    lock_timeout: float = 0.0
    backend: str | None = None
    os_cloud: str | None = None
    timeouts: Mapping[str, float] = field(default_factory=dict)
    signal_store: str | None = None  # --signal-store (else HOTC_SIGNAL_STORE, hotc.toml, the S3 backend)
    # planning options of an apply that plans on the spot (as `hotc plan` takes them)
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    imports: tuple[tuple[str, str], ...] = ()
    refresh: bool = False  # read the recorded resources from the cloud first and plan against them
    refresh_only: bool = False  # only record the drift in the state
    allow_outside_files: bool = False  # get_file may read beyond the template's directory tree
    hook_timeout: float | None = None  # --hook-timeout: how long a pause at a hook may last

    @property
    def plans_with_options(self) -> bool:
        return bool(
            self.targets or self.excludes or self.replace or self.imports or self.refresh or self.refresh_only
        )


def describe_plan(plan: Plan, color: bool = False) -> str:
    return render_text(plan, color=color)


def hook_prompt(prompt_out: IO[str], read_line: Callable[[], str], stack: str) -> Callable[[str, str], bool]:
    """On a terminal: offer to clear a hook the apply reached (one question at a time)."""
    asking = threading.Lock()

    def ask(address: str, hook: str) -> bool:
        with asking:
            prompt_out.write(
                f"\n{address} is paused until Hook {hook} is cleared (or: hotc hook clear {stack} {address} "
                f"--{hook}).\n  Clear it now? Only 'yes' will be accepted: "
            )
            prompt_out.flush()
            try:
                return read_line().strip() == "yes"
            except (EOFError, KeyboardInterrupt):
                return False

    return ask


def approve(prompt_out: IO[str], read_line: Callable[[], str], interactive: bool, what: str) -> bool:
    if not interactive:
        raise HotcError(
            f"{what} needs approval but the input is not a terminal: review the plan and run again with "
            "--auto-approve (or apply a saved plan file)"
        )
    prompt_out.write(
        f"\nDo you want to {what}?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: "
    )
    prompt_out.flush()
    try:
        answer = read_line().strip()
    except EOFError:
        answer = ""
    except KeyboardInterrupt:  # Ctrl-C at the prompt: a "no", which the caller reports as cancelled
        prompt_out.write("\n")
        answer = ""
    return answer == "yes"


@contextmanager
def interrupt_handlers(executor: Executor, err: IO[str]) -> Iterator[None]:
    """SIGINT/SIGTERM: the first stops scheduling (steps in flight finish, state saved, lock released); a
    second SIGINT stops waiting for the steps in flight."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    count = [0]
    old: dict[int, Any] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        count[0] += 1
        chained = old.get(signum)
        if callable(chained) and chained is not signal.default_int_handler:
            chained(signum, frame)  # a long-running caller's own handler (hotc watch: stop after this run)
        if count[0] == 1:
            err.write(
                f"\n{name}: stopping: no new actions are started; waiting for the ones in flight to finish "
                "(press Ctrl-C again to stop waiting)\n"
            )
            err.flush()
            executor.cancel(f"interrupted by {name}")
        else:
            raise KeyboardInterrupt

    old.update({s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)})
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def parameter_records(loaded: Any, key: bytes | None) -> dict[str, Any]:
    hidden = set(getattr(loaded, "hidden_parameters", ()) or ()) | {
        n for n, p in loaded.template.parameters.items() if p.hidden
    }
    return {k: hide_parameter(v, k in hidden, key) for k, v in (loaded.parameter_values or {}).items()}


def reseal_hidden_values(backend: Any, stack: str, state: StackState, lk: Any, err: IO[str]) -> StackState:
    """A state written before hidden values were taken out of the environment files it keeps is written again
    now with them taken out (each kept as hidden parameters are), with a note that says so."""
    names = {n for n, p in state.parameters.items() if p.hidden} | set(
        state.template.get("hidden_parameters") or ()
    )
    count = hidden_count(state.template, names)
    if not count:
        return state
    key = getattr(backend, "key", None)
    written: StackState = backend.write(stack, replace(state, template=stored_template(state, key)), lk)
    # once more, so that the version the write kept as its backup (a local state's .backup) is sealed too
    written = backend.write(stack, replace(written, serial=written.serial + 1), lk, exact=True)
    err.write(
        f"note: the state of stack {stack!r} kept {count} hidden parameter value(s) in clear in its copy of the "
        "environment files; they are now stored "
        + ("encrypted with the state key" if key is not None else "as digests only")
        + ", as values given with --parameter are (a versioned S3 bucket still holds them in the versions "
        "written before: delete those from its history)\n"
    )
    return written


def template_record(loaded: Any, plan: Plan) -> dict[str, Any]:
    """The template as applied, for ``hotc template show`` and ``--existing``: main path, files (relative path
    -> text), environments, and the names of the hidden parameters (the state's writer takes their values out
    of the environment files it keeps: :func:`hotc.state.codec.stored_template`)."""
    inputs = plan.inputs or {}
    if inputs.get("sources") and inputs.get("template"):
        files = dict(inputs["sources"])
        environments = list(inputs.get("environments") or [])
        # the plan's copies lack the hidden values: the record takes the files as they were loaded
        for rel, path in zip(environments, environment_paths(loaded), strict=False):
            if rel in files and path in loaded.sources:
                files[rel] = loaded.sources[path]
        return {
            "main": inputs["template"],
            "files": files,
            "environments": environments,
            "hidden_parameters": sorted(hidden_names(loaded)),
        }
    root, rel = relative_sources(loaded.sources)
    main = (
        os.path.relpath(os.path.abspath(loaded.template.path), root).replace(os.sep, "/")
        if root
        else loaded.template.path
    )
    env_files = [
        os.path.relpath(p, root).replace(os.sep, "/") for p in environment_paths(loaded) if root
    ] or [p for p in rel if p != main]
    return {
        "main": main,
        "files": rel,
        "environments": env_files,
        "hidden_parameters": sorted(hidden_names(loaded)),
    }


def print_report(rep: ApplyReport, plan: Plan, out: IO[str], err: IO[str]) -> None:
    counts = {"create": 0, "update": 0, "replace": 0, "delete": 0, "forget": 0, "adopt": 0}
    same = 0
    for d in rep.done:
        verb = d.label.split(" ", 1)[0]
        if getattr(d, "unchanged", False):
            same += 1  # planned with values known after apply that turned out the recorded ones
        elif verb in counts and not d.label.startswith("delete old"):
            counts[verb] += 1
    summary = (
        f"{counts['create']} created, {counts['update']} updated, {counts['replace']} replaced, "
        f"{counts['delete']} deleted"
        + (f", {counts['forget']} forgotten" if counts["forget"] else "")
        + (f", {counts['adopt']} existing adopted" if counts["adopt"] else "")
        + (f", {same} unchanged after all (their inputs known after apply kept their values)" if same else "")
    )
    word = "Destroy" if plan.mode == "destroy" else "Apply"
    if rep.ok:
        out.write(f"\n{word} complete! Resources: {summary}.\n")
        out.write(batch_lines(rep))
        for e in rep.output_errors:
            err.write(f"warning: {e}\n")
        return
    out.write(
        f"\n{word} {'INTERRUPTED' if rep.interrupted and not rep.failed else 'FAILED'}. Done: {summary}.\n"
    )
    out.write(batch_lines(rep))
    for f in rep.failed:
        err.write(f"error: {f.label}: {f.error}\n")
    if rep.not_started:
        err.write(
            f"never started ({len(rep.not_started)}): "
            + ", ".join(rep.not_started[:20])
            + (" …" if len(rep.not_started) > 20 else "")
            + "\n"
        )
    err.write(
        "The state holds everything done so far; run 'hotc plan' / 'hotc apply' again to continue "
        "(failed resources are replaced or retried).\n"
    )


def batch_lines(rep: ApplyReport) -> str:
    """One line per group whose update ran in batches: each batch's outcome, in order."""
    groups: dict[str, list[str]] = {}
    for b in rep.batches:
        groups.setdefault(b.group, []).append(f"{b.number} {b.status}")
    return "".join(f"Batches of {g}: {', '.join(parts)}.\n" for g, parts in groups.items())


def print_outputs(state: StackState, out: IO[str]) -> None:
    if not state.outputs:
        return
    out.write("\nOutputs:\n\n")
    for name in sorted(state.outputs):
        o = state.outputs[name]
        if o.sensitive:
            shown = "(sensitive)"
        elif o.error:
            shown = f"(error: {o.error})"
        else:
            shown = json.dumps(o.value, default=str)
        out.write(f"{name} = {shown}\n")


def warn(diags: list[Diagnostic], err: IO[str]) -> None:
    for d in diags:
        if d.severity is not Severity.ERROR:
            err.write(str(d) + "\n")


def unsupported_types(plan: Plan, drivers: Callable[[str], Any]) -> dict[str, list[str]]:
    """Types (with their addresses) that the plan creates, updates or replaces but no driver implements:
    refused before anything runs rather than failing half-way through an apply."""
    out: dict[str, list[str]] = {}
    for c in plan.changes:
        if c.action in (Action.CREATE, Action.UPDATE, Action.REPLACE) and drivers(c.type) is None:
            out.setdefault(c.type, []).append(c.address)
    return out


def empty_desired(stack: str, lineage: str | None) -> DesiredStack:
    return DesiredStack(stack, lineage)


def run_apply(
    *,
    stack: str,
    opts: ApplyOptions,
    out: IO[str],
    err: IO[str],
    interactive: bool,
    read_line: Callable[[], str],
    progress: Callable[[], Any],
    wiring: ApplyWiring,
    plan_file: Path | None = None,
    template: Path | None = None,
    envs: list[Path] | None = None,
    params: Mapping[str, str] | None = None,
    pfiles: Mapping[str, Path] | None = None,
    destroy: bool = False,
    cwd: Path | None = None,
) -> int:
    """Apply a saved plan, or plan and apply (``destroy``: a destroy plan from the state alone).
    Returns the exit code (0 success, 1 failure); raises HotcError for errors before anything ran."""
    drivers = wiring.drivers
    saved: Plan | None = None
    loaded: Any = None
    if plan_file is not None:
        saved = load_plan(plan_file)
        stack = saved.stack_name
        if saved.mode == "refresh-only":
            pass  # applies the drift to the state alone: no template needed
        elif saved.inputs.get("sources"):
            loaded = loaded_stack_from_plan(saved, parameters=params or {}, checks=wiring.checks)
        elif saved.mode != "destroy":
            raise HotcError(
                f"{plan_file}: the plan holds no template; make it again with 'hotc plan -o FILE'"
            )
    elif template is not None and not destroy:
        loaded = wiring.load(
            template,
            list(envs or []),
            params or {},
            pfiles or {},
            allow_outside_files=opts.allow_outside_files,
        )
    elif not destroy and not opts.refresh_only:  # --refresh-only works from the stack's state alone
        raise HotcError("give a saved plan (hotc apply PLANFILE) or a template (hotc apply -t TEMPLATE)")

    backend: Any = backend_from_config(opts.backend, cwd)
    signals = store_for(opts.signal_store, opts.backend, cwd)
    if saved is not None and saved.mode == "refresh-only":
        return apply_refresh_only(saved, backend, opts, out, drivers, wiring.cloud, signals)
    if saved is not None and opts.plans_with_options:
        raise HotcError(
            "a saved plan is applied as it was made: give --refresh, --refresh-only, --target, --exclude, "
            "--replace and --import to 'hotc plan' instead"
        )
    if opts.refresh_only and saved is None:
        return refresh_only_now(
            stack, backend, opts, out, err, read_line, interactive, drivers, wiring.cloud, signals
        )
    operation = "destroy" if destroy else "apply"
    with backend.lock(stack, operation, timeout=opts.lock_timeout) as lk:
        state, _token = backend.read(stack)
        if state is not None:
            state = reseal_hidden_values(backend, stack, state, lk, err)
        if saved is not None:
            check_plan_fresh(saved, state, template_digest(loaded) if loaded is not None else None)
        if state is None:
            if destroy or (saved is not None and saved.mode == "destroy"):
                out.write(f"Stack {stack!r} has no state: nothing to destroy.\n")
                return 0
            state = StackState.new(stack)
        if saved is not None and saved.refreshed_attributes:
            # the plan resolved what its refresh read: read again, and go on only if the cloud still says so
            reader = driver_reader(state, wiring.cloud, drivers, signals=signals)
            state = read_again(state, saved.refreshed_attributes, reader)
        desired = None
        scaling: ScalingRun | None = None
        if loaded is not None and (saved is None or saved.mode != "destroy"):
            desired = build_desired(loaded, stack, state.lineage, state=state)
            if saved is None and not destroy and has_policies(state):
                # pending ScalingPolicy signals: decided now, their resizes part of this plan
                scaling, desired = decide_pending_signals(state, desired, loaded, stack, signals, err)
        if saved is not None:
            plan = saved
        else:
            popts = PlanOptions(
                mode="destroy" if destroy else "normal",
                parallelism=opts.parallelism,
                targets=opts.targets,
                excludes=opts.excludes,
                replace=opts.replace,
                imports=opts.imports,
            )
            refreshed = (
                live_state(state, wiring.cloud, drivers, err, signals)
                if opts.refresh and state.resources
                else None
            )
            plan = make_plan(
                desired if desired is not None else empty_desired(stack, state.lineage),
                state if state.serial > 0 or state.resources else None,
                popts,
                refreshed,
            )
            if refreshed:  # apply resolves get_attr from what the plan saw: the attributes read live
                state = with_live_attributes(state, refreshed)
            if desired is not None:  # the same custom-constraint and support checks as `hotc plan`
                for note in enforce_constraints(
                    desired, plan, opts.os_cloud, rules=wiring.rules, cloud=wiring.cloud
                ):
                    err.write(note + "\n")
                enforce_plan_support(desired, plan, signals, state_key=backend_encrypts(backend))
            if loaded is not None and template is not None:
                plan = replace(
                    plan,
                    template_digest=template_digest(loaded),
                    inputs=plan_inputs(
                        loaded, template, list(envs or []), dict(params or {}), dict(pfiles or {})
                    ),
                )
            out.write(
                describe_plan(plan, color=interactive and out.isatty() and not os.environ.get("NO_COLOR"))
            )
            if not plan.has_changes:
                out.write("\nNo changes. The stack matches the template.\n")
                if scaling is not None:  # every signal refused: recorded all the same
                    record_decisions(scaling, state, stack, backend, lk, signals)
                return 0
            if not opts.auto_approve:
                what = (
                    "destroy every resource of stack " + repr(stack) if destroy else "perform these actions"
                )
                if not approve(out, read_line, interactive, what):
                    out.write("\nApply cancelled.\n")
                    return 1
        if scaling is not None:  # approved: the decisions are recorded and the signals consumed
            state = record_decisions(scaling, state, stack, backend, lk, signals)
        unsupported = unsupported_types(plan, drivers)
        if unsupported:
            listed = "; ".join(f"{t} ({', '.join(a)})" for t, a in sorted(unsupported.items()))
            raise HotcError(
                f"hotc has no driver to create or update {listed}; nothing was applied. Map the type to "
                "a supported one (or OS::Heat::None) in an environment's resource_registry, or remove it"
            )
        parallelism = (
            opts.parallelism
            if saved is None or opts.parallelism != DEFAULT_PARALLELISM
            else saved.parallelism
        )
        ex_opts = ExecOptions(
            parallelism=parallelism,
            timeouts=dict(opts.timeouts),
            cloud=wiring.cloud,
            signals=signals,
            expected=history_durations(backend, stack),
            hooks=hook_store_for(backend, stack),
            hook_timeout=opts.hook_timeout,
            hook_prompt=hook_prompt(err, read_line, stack) if interactive else None,
        )
        sink = BackendSink(backend, stack, lk)
        with progress() as show:
            getattr(show, "expect", int)(
                len({c.address for c in plan.changes if c.action is not Action.NOOP})
            )
            executor = Executor(
                plan,
                state,
                desired,
                drivers,
                sink,
                ex_opts,
                make_resolver=StateResolver,
                on_event=show,
                desired_info=desired.resources if desired is not None else {},
                on_log=getattr(show, "log", None),
            )
            with interrupt_handlers(executor, err):
                rep = executor.run()
        final = rep.state
        if desired is not None and plan.mode == "normal":
            # each AutoScalingGroup's size, properties and cooldown (hotc.apply.scaling)
            final = group_states(final, desired, scaling, utc_datetime(), rep.ok)
        if loaded is not None and plan.mode != "destroy" and rep.ok:
            final = backend.write(
                stack,
                replace(
                    final,
                    template=template_record(loaded, plan),
                    template_digest=plan.template_digest or template_digest(loaded),
                    parameters=parameter_records(loaded, getattr(backend, "key", None)),
                ),
                lk,
            )
        elif plan.mode == "destroy" and rep.ok:
            final = backend.write(
                stack, replace(final, template={}, template_digest=None, parameters={}, groups={}), lk
            )
        elif final is not rep.state:
            final = backend.write(stack, final, lk)
    print_report(rep, plan, out, err)
    if rep.ok and plan.mode != "destroy":
        print_outputs(final, out)
    warn_unrecoverable_secrets(final, getattr(backend, "key", None), err)
    return 0 if rep.ok else 1


def history_durations(backend: Any, stack: str) -> dict[str, float]:
    """How long each type's actions took on this stack before (its events), for the waits to poll around; empty
    when the events cannot be read (they only tune polling)."""
    try:
        return learned(backend.read_events(stack))
    except HotcError:
        return {}


def utc_datetime() -> datetime:
    return datetime.now(UTC)


def decide_pending_signals(
    state: StackState,
    desired: DesiredStack,
    loaded: Any,
    stack: str,
    signals: Callable[[], Any],
    err: IO[str],
) -> tuple[ScalingRun | None, DesiredStack]:
    """Decide the signals waiting for the stack's ScalingPolicies (:mod:`hotc.apply.scaling`), under the lock,
    one line each on ``err``: the accepted ones resize their groups in the desired stack (so the plan shows
    it). Nothing is written until :func:`record_decisions` (an apply that is not approved leaves the signals
    pending)."""
    pending = pending_signals(state, signals())
    if not pending:
        return None, desired
    run = decide_signals(state, desired, pending, utc_datetime())
    for d in run.decisions:
        err.write(decision_line(d) + "\n")
    if run.sizes:
        desired = build_desired(loaded, stack, state.lineage, state=state, sizes=run.sizes)
    return run, desired


def record_decisions(
    run: ScalingRun, state: StackState, stack: str, backend: Any, lock: Any, signals: Callable[[], Any]
) -> StackState:
    """Record ``run``'s decisions before the resize runs: in the state (written now), as events, and the
    signals acknowledged in the store, so each is executed once."""
    types = policy_types(state)
    state = backend.write(stack, with_decisions(state, run.decisions, utc_now()), lock)
    backend.append_events(stack, [decision_event(d, types(d.policy)) for d in run.decisions])
    acknowledge(signals(), run)
    return state


def warn_unrecoverable_secrets(state: StackState, key: bytes | None, err: IO[str]) -> None:
    """Without a state key, sensitive attributes (a RandomString's value) are stored as digests only: say so,
    since later plans cannot give them to get_resource/get_attr."""
    if key is not None:
        return
    names = sorted(a for a, rs in state.resources.items() if rs.sensitive_attributes)
    if names:
        err.write(
            f"warning: no state encryption key (HOTC_STATE_KEY) is set for this backend, so the secret values "
            f"of {', '.join(names)} are stored as digests only: later plans cannot read them back for "
            "get_resource/get_attr. Set HOTC_STATE_KEY to keep them encrypted in the state.\n"
        )


# ------------------------------------------------------------------------------------------ refresh-only


def _is_masked_or_marked(v: Any) -> bool:
    return v == SENSITIVE_MARK or (isinstance(v, Mapping) and "__sensitive__" in v)


def state_with_drift(
    state: StackState, plan: Plan, live: Mapping[str, ResourceState | None], now: str
) -> tuple[StackState, list[Event], list[str], list[str]]:
    """``state`` with a refresh-only plan's drift accepted: a resource found gone is dropped from the state,
    a changed one takes the live properties the plan showed (sensitive ones stay as recorded) and the
    attributes read again now (``live``). Returns the new state, the events, and the addresses updated and
    removed. Raises HotcError, before anything is written, when the cloud moved again since the plan."""
    updated: list[str] = []
    removed: list[str] = []
    events: list[Event] = []
    for c in plan.resource_drift:
        rs = state.resources.get(c.address)
        if rs is None:
            raise HotcError(
                f"{c.address}: in the refresh-only plan but not in the state any more; "
                "make a new plan with 'hotc plan --refresh-only'"
            )
        if c.action is Action.DELETE:
            state = state.without_resource(c.address)
            removed.append(c.address)
            events.append(
                resource_event(
                    c.address,
                    rs.type,
                    "DELETE_COMPLETE",
                    "refresh-only apply: the object no longer exists; removed from the state",
                )
            )
            continue
        fresh = live.get(c.address)
        if fresh is None:
            raise HotcError(
                f"{c.address}: the plan found it changed, but it is now gone from the cloud; make a "
                "new plan with 'hotc plan --refresh-only'; nothing was written"
            )
        props = dict(c.after or {})
        sensitive_tops = {p.split(".", 1)[0].split("[", 1)[0] for p in rs.sensitive_paths}
        for k in list(props):
            if k in sensitive_tops or _is_masked_or_marked(props[k]):
                if k in rs.properties:
                    props[k] = rs.properties[k]
                else:
                    del props[k]
        state = state.with_resource(
            replace(
                rs,
                properties=props,
                attributes=dict(fresh.attributes),
                physical_id=fresh.physical_id or rs.physical_id,
                updated_at=now,
                status_reason="refreshed: changed outside hotc",
            )
        )
        updated.append(c.address)
        events.append(
            resource_event(
                c.address,
                rs.type,
                "CHECK_COMPLETE",
                "refresh-only apply: changed outside hotc; the state now records the live values",
                fresh.physical_id or rs.physical_id,
            )
        )
    return state, events, updated, removed


def apply_refresh_only(
    plan: Plan,
    backend: Any,
    opts: ApplyOptions,
    out: IO[str],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    signals: Callable[[], Any] | None = None,
) -> int:
    """Apply a refresh-only plan: write the drift it found into the state; nothing in the cloud changes."""
    stack = plan.stack_name
    with backend.lock(stack, "apply", timeout=opts.lock_timeout) as lk:
        state, _token = backend.read(stack)
        check_plan_fresh(plan, state, None)
        if state is None or not plan.resource_drift:
            out.write(
                "Refresh-only plan: no drift to record; the state was left as it is and nothing in the "
                "cloud was changed.\n"
            )
            return 0
        reader = driver_reader(state, cloud, drivers, signals=signals)
        live = {
            c.address: reader(state.resources[c.address])
            for c in plan.resource_drift
            if c.action is not Action.DELETE and c.address in state.resources
        }
        new, events, updated, removed = state_with_drift(state, plan, live, utc_now())
        backend.write(stack, new, lk)
        backend.append_events(stack, events)
    out.write(
        f"Refresh applied: the state now records the cloud as it is. {len(updated)} resource(s) updated from "
        f"the cloud{': ' + ', '.join(updated) if updated else ''}; {len(removed)} found gone and removed from "
        f"the state{': ' + ', '.join(removed) if removed else ''}. Nothing in the cloud was changed.\n"
    )
    return 0


def with_live_attributes(state: StackState, refreshed: Mapping[str, ResourceState | None]) -> StackState:
    """``state`` with the attributes a refresh read for each resource still there (its properties stay as
    recorded: the plan's drift changes carry the live ones), so that apply resolves ``get_attr`` from the values
    its plan was made from and records them (a QoS policy's ``rules``, a network's ``subnets``)."""
    out = state
    for addr, live in refreshed.items():
        rs = state.resources.get(addr)
        if rs is not None and live is not None and live.attributes != rs.attributes:
            out = out.with_resource(replace(rs, attributes=dict(live.attributes)))
    return out


def live_state(
    state: StackState,
    cloud: Callable[[], Any],
    drivers: Callable[[str], Any],
    err: IO[str],
    signals: Callable[[], Any] | None = None,
) -> Mapping[str, ResourceState | None] | None:
    """Every recorded resource read from the cloud (``--refresh``), or None (with a note) when it cannot be.
    ``signals``: the signal store's getter (the types read from it)."""
    try:
        reader = driver_reader(state, cloud, drivers, signals=signals)
    except HotcError as exc:
        err.write(f"note: {exc.message}; no live data was read and no drift can be reported\n")
        return None
    return refresh_resources(state, reader)


def refresh_only_now(
    stack: str,
    backend: Any,
    opts: ApplyOptions,
    out: IO[str],
    err: IO[str],
    read_line: Callable[[], str],
    interactive: bool,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    signals: Callable[[], Any] | None = None,
) -> int:
    """``hotc apply --refresh-only``: plan the drift now, show it, and once approved record it in the state
    (the plan's freshness is checked again under the lock, so a state moved meanwhile is refused)."""
    with backend.lock(stack, "plan", timeout=opts.lock_timeout):
        state, _token = backend.read(stack)
    if state is None:
        raise HotcError(f"stack {stack!r} has no state: there is nothing to refresh")
    refreshed = live_state(state, cloud, drivers, err, signals) if state.resources else None
    plan = make_plan(
        empty_desired(stack, state.lineage), state, PlanOptions(mode="refresh-only"), refreshed or {}
    )
    out.write(describe_plan(plan, color=interactive and out.isatty()))
    if not plan.resource_drift:
        return 0
    if not opts.auto_approve and not approve(
        out, read_line, interactive, "record these changes made outside hotc in the state"
    ):
        out.write("\nApply cancelled.\n")
        return 1
    return apply_refresh_only(plan, backend, opts, out, drivers, cloud, signals)
