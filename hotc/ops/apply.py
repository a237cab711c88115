"""The apply operation (``hotc apply`` and ``hotc destroy``): load (or plan on the spot through
:func:`hotc.ops.plan.plan`), lock, check freshness, hold the plan to the policy, ask for approval, execute under
signal handlers, record the template, report. Everything it needs from the outside is handed in by the CLI's
composition root (:class:`hotc.ops.plan.Wiring`), and it writes only to the ``out``/``err`` streams it is given;
the executor itself only talks to drivers and a state sink."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import IO, Any

from hotc.apply.cancel import watch_for_cancel
from hotc.apply.events import stack_event
from hotc.apply.executor import ExecOptions, Executor, stack_is_new
from hotc.apply.moves import moved, record_moves
from hotc.apply.progress import plan_steps
from hotc.apply.resolve import StateResolver
from hotc.apply.scaling import group_states
from hotc.apply.session import (
    BackendSink,
    apply_refresh_only,
    approve,
    describe_plan,
    history_durations,
    interrupt_handlers,
    parameter_records,
    print_outputs,
    print_report,
    record_decisions,
    reseal_hidden_values,
    template_record,
    unsupported_types,
    utc_datetime,
    warn_unrecoverable_secrets,
    with_live_attributes,
)
from hotc.apply.steps.hook import terminal_prompt
from hotc.errors import Diagnostic, HotcError
from hotc.model import model
from hotc.ops.plan import PlanRequest, PlanResult, Policy, Recorded, Wiring, desired_for, plan, policy_lines
from hotc.ops.preflight import preflight
from hotc.ops.rollback import RollbackRequest, report_before_rollback, roll_back, rollback_enabled
from hotc.ops.stacks import require_stack, stack_not_found
from hotc.planner.api import (
    DEFAULT_PARALLELISM,
    DENY_EXIT_CODE,
    Action,
    Plan,
    best_existing,
    check_plan_fresh,
    driver_reader,
    load_plan,
    loaded_stack_from_plan,
    read_again,
    template_digest,
)
from hotc.state import StackState, backend_from_config
from hotc.state.hooks import hook_store_for
from hotc.state.signal_store import store_for
from hotc.state.snapshots import snapshots_kept


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
    policy: Policy = field(
        default_factory=Policy
    )  # --deny, --warn, --policy-file: a plan they refuse never runs
    missing_ok: bool = False  # destroy: a stack with no state is nothing to destroy, not an error
    # the template's identity (relative to the project root) and whether the stack's name was given
    template_path: str | None = None
    name_given: bool = True
    hook_timeout: float | None = None  # --hook-timeout: how long a pause at a hook may last
    # --rollback / --no-rollback (None: as the stack's stored disable_rollback says; hotc.ops.rollback)
    rollback: bool | None = None
    moves: tuple[Any, ...] = ()  # --move OLD=NEW (hotc.planner.api.Move), planned on the spot
    # --quota-max-size: the quota check counts every AutoScalingGroup at its max_size
    quota_at_max_size: bool = False

    @property
    def plans_with_options(self) -> bool:
        return bool(
            self.targets
            or self.excludes
            or self.replace
            or self.imports
            or self.refresh
            or self.refresh_only
            or self.moves
        )


def run_apply(
    *,
    stack: str,
    opts: ApplyOptions,
    out: IO[str],
    err: IO[str],
    interactive: bool,
    read_line: Callable[[], str],
    progress: Callable[[], Any],
    wiring: Wiring,
    plan_file: Path | None = None,
    template: Path | None = None,
    envs: list[Path] | None = None,
    params: Mapping[str, str] | None = None,
    pfiles: Mapping[str, Path] | None = None,
    destroy: bool = False,
    cwd: Path | None = None,
    adjust_desired: Callable[[Any], Any] | None = None,
) -> int:
    """Apply a saved plan, or plan and apply (``destroy``: a destroy plan from the state alone).
    Returns the exit code (0 success, 1 failure, 3 a deny rule refused the plan); raises HotcError for errors
    before anything ran. ``adjust_desired``: a change made to the desired stack before it is planned (a
    snapshot's restore: :mod:`hotc.ops.snapshot`)."""
    drivers = wiring.drivers
    saved: Plan | None = None
    loaded: Any = None
    warnings: list[Diagnostic] = []  # the template's, for the plan made now (as `hotc plan` records them)
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
            warnings=warnings,
        )
    elif not destroy and not opts.refresh_only:  # --refresh-only works from the stack's state alone
        raise HotcError("give a saved plan (hotc apply PLANFILE) or a template (hotc apply -t TEMPLATE)")
    if saved is None:
        opts.policy.rules()  # a bad rule fails before anything is locked
    backend: Any = backend_from_config(opts.backend, cwd)
    signals = store_for(opts.signal_store, opts.backend, cwd)
    if saved is not None and saved.mode == "refresh-only":
        return apply_refresh_only(saved, backend, opts, out, drivers, wiring.cloud, signals)
    if saved is not None and opts.plans_with_options:
        raise HotcError(
            "a saved plan is applied as it was made: give --refresh, --refresh-only, --target, --exclude, "
            "--replace, --import and --move to 'hotc plan' instead"
        )
    if opts.refresh_only and saved is None:
        return refresh_only_now(stack, backend, opts, out, err, read_line, interactive, wiring, cwd)
    if destroy and backend.read(stack)[0] is None:
        # asked before taking the lock, so that a stack name given by mistake leaves nothing behind
        if opts.missing_ok:
            out.write(f"Stack {stack!r} has no state: nothing to destroy.\n")
            return 0
        raise HotcError(
            stack_not_found(
                stack,
                backend,
                hint="; give --missing-ok to treat a stack that does not exist as already destroyed",
            )
        )
    operation = "destroy" if destroy else "apply"
    with backend.lock(stack, operation, timeout=opts.lock_timeout) as lk:
        state, _token = backend.read(stack)
        if state is not None:
            state = reseal_hidden_values(backend, stack, state, lk, err)
            # a replacement that failed before it was made leaves the original current (as the plan sees it)
            state = best_existing(state)
        if saved is not None:
            check_plan_fresh(saved, state, template_digest(loaded) if loaded is not None else None)
        if state is None:
            if destroy or (saved is not None and saved.mode == "destroy"):
                out.write(f"Stack {stack!r} has no state: nothing to destroy.\n")
                return 0
            state = StackState.new(stack)
        before = state  # the last good template, environments and parameters: what a rollback returns to
        if saved is not None:
            state = moved(saved, state)  # the state as the plan saw it (written once the apply starts)
        if opts.rollback is not None:  # stored as Heat's disable_rollback: the stack's default from now on
            state = replace(state, disable_rollback=not opts.rollback)
        if saved is not None and saved.refreshed_attributes:
            # the plan resolved what its refresh read: read again, and go on only if the cloud still says so
            reader = driver_reader(state, wiring.cloud, drivers, signals=signals)
            state = read_again(state, saved.refreshed_attributes, reader)
        result: PlanResult | None = None
        if saved is not None:
            plan_ = saved
            desired = (
                desired_for(loaded, stack, state) if loaded is not None and saved.mode != "destroy" else None
            )
        else:
            request = PlanRequest(
                stack=stack,
                template=template if loaded is not None else None,
                environments=tuple(envs or ()),
                parameters=dict(params or {}),
                parameter_files=dict(pfiles or {}),
                mode="destroy" if destroy else "normal",
                targets=opts.targets,
                excludes=opts.excludes,
                replace=opts.replace,
                imports=opts.imports,
                parallelism=opts.parallelism,
                refresh=opts.refresh,
                policy=opts.policy,
                backend=opts.backend,
                lock_timeout=opts.lock_timeout,
                os_cloud=opts.os_cloud,
                signal_store=opts.signal_store,
                allow_outside_files=opts.allow_outside_files,
                template_path=opts.template_path,
                name_given=opts.name_given,
                decide_signals=not destroy and adjust_desired is None,
                cwd=cwd,
                moves=opts.moves,
                quota_at_max_size=opts.quota_at_max_size,
            )
            adjusted = (
                adjust_desired(desired_for(loaded, stack, state))
                if adjust_desired is not None and loaded is not None
                else None
            )
            result = plan(
                request,
                wiring,
                recorded=Recorded(state, backend),
                loaded=loaded,
                desired=adjusted,
                warnings=tuple(warnings),
            )
            for note in result.notes:
                err.write(note + "\n")
            plan_ = result.plan
            state = moved(plan_, state)
            desired = result.desired if loaded is not None else None
            if result.refreshed:  # apply resolves get_attr from what the plan saw: the attributes read live
                state = with_live_attributes(state, result.refreshed)
            out.write(
                describe_plan(plan_, color=interactive and out.isatty() and not os.environ.get("NO_COLOR"))
            )
            for line in policy_lines(result, refused="; nothing was applied"):
                err.write(line + "\n")
            if destroy:
                for line in snapshots_kept(backend, stack):
                    err.write(line + "\n")
            if result.refused:
                return DENY_EXIT_CODE
            # the plan's text above already says "No changes" (or "No drift"); an update that changes nothing
            # still pauses where the environment's pre-update hooks say, as Heat's does
            if not plan_.has_changes and not any(c.hooks for c in plan_.changes):
                recorded = state
                if loaded is not None and not destroy and plan_.mode == "normal":
                    state = record_unchanged_apply(backend, stack, lk, state, loaded, plan_)
                if (
                    state is recorded
                    and state.disable_rollback != before.disable_rollback
                    and state.serial > 0
                ):
                    state = backend.write(stack, state, lk)
                if result.scaling is not None:  # every signal refused: recorded all the same
                    record_decisions(result.scaling, state, stack, backend, lk, signals)
                return 0
            if not opts.auto_approve:
                what = (
                    "destroy every resource of stack " + repr(stack) if destroy else "perform these actions"
                )
                if not approve(out, read_line, interactive, what):
                    out.write("\nApply cancelled.\n")
                    return 1
        scaling = result.scaling if result is not None else None
        if scaling is not None:  # approved: the decisions are recorded and the signals consumed
            state = record_decisions(scaling, state, stack, backend, lk, signals)
        unsupported = unsupported_types(plan_, drivers)
        if unsupported:
            listed = "; ".join(f"{t} ({', '.join(a)})" for t, a in sorted(unsupported.items()))
            raise HotcError(
                f"hotc has no driver to create or update {listed}; nothing was applied. Map the type to "
                "a supported one (or OS::Heat::None) in an environment's resource_registry, or remove it"
            )
        preflight(plan_, drivers, wiring.cloud)  # the cloud and its services, before anything runs
        state = record_moves(plan_, state, backend, stack, lk)  # state only: no cloud call
        for m in plan_.moves:
            out.write("".join(f"Moved {a} -> {b} (state only)\n" for a, b in m.leaves))
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
            hook_prompt=terminal_prompt(err, read_line, stack) if interactive else None,
        )
        sink = BackendSink(backend, stack, lk)
        with progress() as show:
            getattr(show, "expect", int)(
                len({c.address for c in plan_.changes if c.action is not Action.NOOP})
            )
            if hasattr(show, "expect_steps"):  # the status line's time left, from the stack's history
                show.expect_steps(plan_steps(plan_, ex_opts.expected), parallelism)
            executor = Executor(
                plan_,
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
            with (
                interrupt_handlers(executor, err),
                watch_for_cancel(backend, stack, executor, err) as cancel,
            ):
                rep = executor.run()
        final = rep.state
        if desired is not None and plan_.mode == "normal":
            # each AutoScalingGroup's size, properties and cooldown (hotc.apply.scaling)
            final = group_states(final, desired, scaling, utc_datetime(), rep.ok)
        if loaded is not None and plan_.mode != "destroy" and (rep.ok or rep.failed):
            # a failed apply's template is the stack's too, as Heat keeps a failed update's template (a later
            # --existing starts from it); a rollback writes back the last good one
            final = backend.write(
                stack,
                replace(
                    final,
                    template=template_record(loaded, plan_),
                    template_digest=plan_.template_digest or template_digest(loaded),
                    parameters=parameter_records(loaded, getattr(backend, "key", None)),
                ),
                lk,
            )
        elif plan_.mode == "destroy" and rep.ok:
            final = backend.write(
                stack, replace(final, template={}, template_digest=None, parameters={}, groups={}), lk
            )
        elif final is not rep.state:
            final = backend.write(stack, final, lk)
        reported = False
        if not rep.ok and plan_.mode == "normal":
            # a cancel rolls back unless it says --no-rollback; a failure as --rollback or the stack's default
            # says; an interrupt (Ctrl-C, SIGTERM) only stops
            wanted = (
                cancel.rollback
                if cancel.request is not None
                else bool(rep.failed) and rollback_enabled(state, opts.rollback)
            )
            if wanted:
                report_before_rollback(rep, plan_, out, err)
                reported = True
                final = roll_back(
                    RollbackRequest(
                        stack=stack,
                        before=before,
                        failed_plan=plan_,
                        why=cancel.reason or "the apply failed: " + rep.state.status_reason,
                        backend=backend,
                        lock=lk,
                        wiring=wiring,
                        exec_options=ex_opts,
                        policy=opts.policy,
                        parallelism=parallelism,
                        backend_url=opts.backend,
                        os_cloud=opts.os_cloud,
                        signal_store=opts.signal_store,
                        allow_outside_files=opts.allow_outside_files,
                        cwd=cwd,
                    ),
                    final,
                    out=out,
                    err=err,
                    progress=progress,
                ).state
    if not reported:
        print_report(rep, plan_, out, err)
    if rep.ok and plan_.mode != "destroy":
        print_outputs(final, out)
    warn_unrecoverable_secrets(final, getattr(backend, "key", None), err)
    return 0 if rep.ok else 1


def refresh_only_now(
    stack: str,
    backend: Any,
    opts: ApplyOptions,
    out: IO[str],
    err: IO[str],
    read_line: Callable[[], str],
    interactive: bool,
    wiring: Wiring,
    cwd: Path | None = None,
) -> int:
    """``hotc apply --refresh-only``: plan the drift now, show it, and once approved record it in the state
    (the plan's freshness is checked again under the lock, so a state moved meanwhile is refused)."""
    require_stack(stack, backend, hint=": there is nothing to refresh")
    with backend.lock(stack, "plan", timeout=opts.lock_timeout):
        state, _token = backend.read(stack)
    if state is None:
        raise HotcError(f"stack {stack!r} has no state: there is nothing to refresh")
    request = PlanRequest(
        stack=stack,
        mode="refresh-only",
        policy=opts.policy,
        backend=opts.backend,
        os_cloud=opts.os_cloud,
        signal_store=opts.signal_store,
        cwd=cwd,
    )
    result = plan(request, wiring, recorded=Recorded(state, backend))
    for note in result.notes:
        err.write(note + "\n")
    out.write(describe_plan(result.plan, color=interactive and out.isatty()))
    if not result.plan.resource_drift:
        return 0
    if not opts.auto_approve and not approve(
        out, read_line, interactive, "record these changes made outside hotc in the state"
    ):
        out.write("\nApply cancelled.\n")
        return 1
    signals = store_for(opts.signal_store, opts.backend, cwd)
    return apply_refresh_only(result.plan, backend, opts, out, wiring.drivers, wiring.cloud, signals)


def record_unchanged_apply(
    backend: Any, stack: str, lk: Any, state: StackState, loaded: Any, plan_: Plan
) -> StackState:
    """An apply with nothing to change is still Heat's stack create or update: the stack's status says
    CREATE_COMPLETE (a stack with no resources made for the first time) or UPDATE_COMPLETE, and the template,
    environments and parameters given are the stack's from now on. Written only when one of these differs
    from the state, so that applying the same template again writes nothing."""
    action = "CREATE" if stack_is_new(state) else "UPDATE"
    status = f"{action}_COMPLETE"
    params = parameter_records(loaded, getattr(backend, "key", None))
    digest = plan_.template_digest or template_digest(loaded)
    if status == state.status and digest == state.template_digest and params == state.parameters:
        return state
    reason = f"Stack {action.lower()} completed successfully"
    backend.append_events(stack, [stack_event(stack, status, reason)])
    written: StackState = backend.write(
        stack,
        replace(
            state,
            status=status,
            status_reason=reason,
            template=template_record(loaded, plan_),
            template_digest=digest,
            parameters=params,
        ),
        lk,
    )
    return written
