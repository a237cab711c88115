"""The plan operation: the one place where a plan is made.

    plan(request, wiring) -> PlanResult

Every command that plans (``plan``, ``apply -t``, ``apply --existing``, ``destroy``, ``import``, ``graph``,
``import --from-heat``) comes here; nothing else calls the planner's ``build_desired`` or ``make_plan``. The
pipeline, in order:

1. the policy rules are read (``--deny``, ``--warn``, ``--policy-file``): a bad rule fails before anything else;
2. the stack's state is read (under a short lock), unless the caller holds the lock and hands it in
   (:class:`Recorded`);
3. the template is loaded (through the wiring's loader) and expanded into the desired stack
   (``build_desired``); without a template (``destroy``, ``--refresh-only``) the desired stack is empty;
4. ScalingPolicy signals waiting in the signal store: decided now when the request says so (an apply that plans
   on the spot: their resizes become part of the plan), else only noted;
5. ``--refresh``/``--refresh-only``: the recorded resources are read from the cloud;
6. ``make_plan``;
7. the plan-time checks, an ordered list of named checks (:data:`CHECKS`): the custom constraints, what apply
   supports, the policy, and the project's quotas;
8. the plan is stamped with its inputs (the template's digest, the files and parameters it was made from);
9. the review (estimate, cost, blast radius) when asked for.

It prints nothing: what the user should read comes back in :class:`PlanResult` (``notes`` in order, the deny
and warn findings), and the command's view shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from hotc.apply.scaling import (
    ScalingRun,
    decide_signals,
    decision_line,
    has_policies,
    pending_signals,
)
from hotc.errors import Diagnostic, HotcError
from hotc.model import model
from hotc.ops.stacks import require_stack
from hotc.parser.api import LoadedStack, Template, TypeChecks, stored_registry, version_named
from hotc.planner.api import (
    DEFAULT_PARALLELISM,
    ConstraintRules,
    DenyRule,
    DenyViolation,
    DesiredStack,
    Move,
    Plan,
    PlanOptions,
    annotate_moves,
    best_existing,
    build_desired,
    changed_immutable_parameters,
    check_move_types,
    cloud_configured,
    driver_reader,
    enforce_constraints,
    enforce_plan_support,
    enforce_quotas,
    evaluate_policy,
    findings,
    load_moves_file,
    load_policy_file,
    load_prices,
    make_plan,
    move_state,
    moves_file_for,
    parse_deny_rule,
    plan_inputs,
    refresh_resources,
    resolve_moves,
    suggest_moves,
    template_digest,
    with_review,
)
from hotc.state import StackState, backend_from_config
from hotc.state.backend import StateNotWritableError
from hotc.state.config import project_dir, project_paths
from hotc.state.signal_store import backend_encrypts, store_for


class Loader(Protocol):
    """Loads a template for a command (template, environments, --parameter values, --parameter-file paths),
    every value required: problems reported as every command reports them (the warnings also appended to
    ``warnings`` when given), errors raised as HotcError. A get_file target outside the template's tree is
    refused unless ``allow_outside_files``."""

    def __call__(
        self,
        template: Path,
        envs: list[Path],
        params: Mapping[str, str],
        pfiles: Mapping[str, Path],
        *,
        allow_outside_files: bool = False,
        warnings: list[Diagnostic] | None = None,
    ) -> LoadedStack: ...


@model
class Wiring:
    """What an operation needs from the other layers, handed in by the CLI's composition root
    (``hotc.cli.root``)."""

    load: Loader
    checks: TypeChecks  # the type checks a saved plan's template is loaded with again
    rules: ConstraintRules  # the custom constraints a normal plan is checked against
    drivers: Callable[[str], Any]
    cloud: Callable[[], Any]  # the run's one lazily made cloud connection
    # reads the project's quotas: (connection, quota keys, flavors) -> (limits and usage, flavor sizes, unread);
    # None: hotc.providers.openstack.quota.read_quotas
    quotas: Callable[[Any, frozenset[str], frozenset[str]], Any] | None = None


@model
class Policy:
    """The policy a plan is held to: ``--deny`` and ``--warn`` rules (``ACTION:TYPE_GLOB[@ADDRESS_GLOB]``)
    and a policy file (see :func:`hotc.planner.api.load_policy_file`)."""

    deny: tuple[str, ...] = ()
    warn: tuple[str, ...] = ()
    policy_file: Path | None = None

    def rules(self) -> tuple[DenyRule, ...]:
        """The rules, parsed (HotcError naming the bad one)."""
        rules = tuple(parse_deny_rule(r) for r in self.deny)
        rules += tuple(parse_deny_rule(r, "--warn", "warn") for r in self.warn)
        if self.policy_file is not None:
            rules += load_policy_file(self.policy_file)
        return rules


@model
class PlanRequest:
    """What to plan. ``template`` None: plan from the state alone (``destroy`` or ``refresh-only`` mode).
    ``decide_signals``: decide the ScalingPolicy signals waiting in the store now (an apply that plans on the
    spot) instead of only noting them. ``policy_addresses``: when given, only the changes at these addresses
    are held to the policy (an import records only the objects it takes over). ``review``: add the review
    (estimate, cost with ``prices``, blast radius) to the plan. ``checks``: the names of the plan-time checks to
    run (default: every one of :data:`CHECKS`). ``lock_state``: read the state under a short lock (a drawing of
    the graph reads it without one)."""

    stack: str
    template: Path | None = None
    environments: tuple[Path, ...] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)
    parameter_files: Mapping[str, Path] = field(default_factory=dict)
    mode: str = "normal"
    targets: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    imports: tuple[tuple[str, str], ...] = ()
    parallelism: int = DEFAULT_PARALLELISM
    refresh: bool = False
    policy: Policy = field(default_factory=Policy)
    policy_addresses: tuple[str, ...] | None = None
    backend: str | None = None
    lock_timeout: float = 0.0
    os_cloud: str | None = None
    signal_store: str | None = None
    allow_outside_files: bool = False
    decide_signals: bool = False
    review: bool = False
    prices: Path | None = None
    cwd: Path | None = None
    checks: tuple[str, ...] | None = None
    lock_state: bool = True
    # the template's identity as the state records it (relative to the project root; None: its absolute
    # path), and whether the stack's name was given (else it came from the template's file name)
    template_path: str | None = None
    name_given: bool = True
    # the quota check counts every AutoScalingGroup at its max_size (what scaling may make of it later)
    quota_at_max_size: bool = False
    # moves OLD=NEW to plan (``--move``, hotc.toml); the moves file beside the template adds its own
    moves: tuple[Move, ...] = ()
    # a destroy pauses at the delete hooks the environments stored with the stack set (Heat's stack delete);
    # the rollback of a first create, a destroy plan too, does not (Heat's stack action is then ROLLBACK)
    stored_hooks: bool = True


@model
class Recorded:
    """The recorded side of a plan, read by a caller that holds the stack's lock: the state (None: the stack
    has none yet) and the backend it came from. ``lineage``: the lineage of a stack that has no state yet."""

    state: StackState | None
    backend: Any
    lineage: str | None = None


@model
class PlanResult:
    """A plan and what was learnt making it. ``notes``: what to tell the user, in order (one line each);
    ``violations``: the deny rules the plan breaks (the plan must not be applied or saved); ``warned``: the
    warn rules it matches; ``warnings``: the template's warnings (diagnostics)."""

    plan: Plan
    desired: DesiredStack
    loaded: LoadedStack | None
    state: StackState | None
    backend: Any
    refreshed: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = ()
    warnings: tuple[Diagnostic, ...] = ()
    violations: tuple[DenyViolation, ...] = ()
    warned: tuple[DenyViolation, ...] = ()
    scaling: ScalingRun | None = None
    events: tuple[Any, ...] = ()

    @property
    def refused(self) -> bool:
        """Whether a deny rule refuses the plan."""
        return bool(self.violations)


# ------------------------------------------------------------------------------------------- the checks


@model
class CheckSubject:
    """What a plan-time check looks at."""

    request: PlanRequest
    wiring: Wiring
    desired: DesiredStack
    loaded: LoadedStack | None
    state: StackState | None
    backend: Any
    signals: Callable[[], Any]
    rules: tuple[DenyRule, ...]


@model
class Checked:
    """The plan as the checks so far left it, with what they found."""

    plan: Plan
    notes: tuple[str, ...] = ()
    violations: tuple[DenyViolation, ...] = ()
    warned: tuple[DenyViolation, ...] = ()


@model
class PlanCheck:
    """A named plan-time check: ``run`` returns the plan as it leaves it (with its notes and findings), or
    raises HotcError (with positioned diagnostics) when the plan cannot go on."""

    name: str
    run: Callable[[CheckSubject, Checked], Checked]


def _normal_with_template(s: CheckSubject, done: Checked) -> bool:
    return s.loaded is not None and done.plan.mode == "normal"


def check_constraints(s: CheckSubject, done: Checked) -> Checked:
    """The custom constraints of the parameters and of what the plan creates or changes (the cloud-backed
    ones when a cloud is configured)."""
    if not _normal_with_template(s, done):
        return done
    notes = enforce_constraints(
        s.desired, done.plan, s.request.os_cloud, rules=s.wiring.rules, cloud=s.wiring.cloud
    )
    return replace(done, notes=done.notes + tuple(notes))


def check_support(s: CheckSubject, done: Checked) -> Checked:
    """What apply could not do as planned: unsupported types or options, signals without a usable store."""
    if _normal_with_template(s, done):
        enforce_plan_support(s.desired, done.plan, s.signals, state_key=backend_encrypts(s.backend))
    return done


def check_policy(s: CheckSubject, done: Checked) -> Checked:
    """The deny and warn rules: the findings travel with the plan (JSON ``policy``, Markdown, SARIF); a deny
    finding refuses the plan."""
    plan = done.plan
    held = plan
    if s.request.policy_addresses is not None:
        wanted = set(s.request.policy_addresses)
        held = replace(plan, changes=tuple(c for c in plan.changes if c.address in wanted))
    matched = evaluate_policy(held, s.rules)
    return replace(
        done,
        plan=replace(plan, policy_findings=findings(matched)),
        violations=tuple(v for v in matched if v.rule.level == "deny"),
        warned=tuple(v for v in matched if v.rule.level == "warn"),
    )


def check_immutable_parameters(s: CheckSubject, done: Checked) -> Checked:
    """An update may not change a parameter declared ``immutable: true`` (Heat: ImmutableParameterModified)."""
    if not _normal_with_template(s, done) or s.loaded is None or s.state is None:
        return done
    changed = changed_immutable_parameters(
        s.loaded.template.parameters, s.loaded.parameter_values, s.state.parameters
    )
    if changed:
        raise HotcError(
            "The following parameters are immutable and may not be updated: "
            + ", ".join(changed)
            + " (give them the value the stack has, or remove immutable: true from their definitions)"
        )
    return done


def check_quota(s: CheckSubject, done: Checked) -> Checked:
    """The project's quotas against what the apply needs at its peak (:mod:`hotc.planner.quota`), read from
    the cloud when one is configured: a quota the plan would exceed refuses it; the figures travel with it."""
    if not _normal_with_template(s, done):
        return done
    read = None
    if cloud_configured(s.request.os_cloud):
        reader: Callable[[Any, frozenset[str], frozenset[str]], Any]
        if s.wiring.quotas is not None:
            reader = s.wiring.quotas
        else:
            # lazy: the OpenStack provider's quota reader only when a plan checks the cloud's quotas
            from hotc.providers.openstack.quota import read_quotas as reader

        def read(keys: frozenset[str], flavors: frozenset[str]) -> Any:
            return reader(s.wiring.cloud(), keys, flavors)

    plan, notes = enforce_quotas(
        done.plan,
        s.desired,
        read,
        why_not="no cloud is configured (set OS_CLOUD or pass --os-cloud NAME to check them at plan time)",
        at_max_size=s.request.quota_at_max_size,
    )
    return replace(done, plan=plan, notes=done.notes + notes)


# The plan-time checks, in the order they run.
CHECKS: tuple[PlanCheck, ...] = (
    PlanCheck("immutable-parameters", check_immutable_parameters),
    PlanCheck("constraints", check_constraints),
    PlanCheck("support", check_support),
    PlanCheck("policy", check_policy),
    PlanCheck("quota", check_quota),
)


# ------------------------------------------------------------------------------------------- identity


def template_path(request: PlanRequest) -> str | None:
    """Where the stack's template is, as the state records it: the identity the command gave (relative to
    the project root, else absolute), or None where the template is a copy (``--existing``'s stored files, a
    reloaded saved plan), which records nothing new."""
    return request.template_path


def _same_template(recorded: str, request: PlanRequest, now: str) -> bool:
    absolute = Path(request.template or "").resolve().as_posix()
    if recorded in (now, absolute):
        return True
    return not recorded.startswith("/") and absolute.endswith("/" + recorded)


def check_identity(request: PlanRequest, state: StackState | None) -> tuple[str, ...]:
    """A stack applied from one template and now planned from another: two files with the same name (every
    ``template.yaml`` gives stack ``template``) would plan the first one's resources away. Refused when the
    stack's name was derived from the file name; a warning when it was given."""
    recorded = (state.template or {}).get("path") if state is not None else None
    now = template_path(request)
    if now is None or not isinstance(recorded, str) or not recorded or _same_template(recorded, request, now):
        return ()
    if not request.name_given:
        raise HotcError(
            f"stack {request.stack!r} was applied from {recorded}, and this template is {now}: its name comes "
            f"from the file name, so the two would be taken for one stack. Name the stack: 'hotc plan -t {now} "
            f"NAME' for a new stack, or 'hotc plan -t {now} {request.stack}' to put this template in the "
            "place of the other one"
        )
    return (
        f"warning: stack {request.stack!r} was applied from {recorded}; this plan puts {now} in its place",
    )


# ------------------------------------------------------------------------------------------- the pipeline


def read_recorded(request: PlanRequest) -> tuple[Recorded, tuple[Any, ...], tuple[str, ...]]:
    """The stack's state read under a short ``plan`` lock (without it where the state is read-only: a plan
    writes nothing, and a saved plan records the serial it was made from), its events (for the review's
    duration estimates; empty when they cannot be read) and the notes to show."""
    backend: Any = backend_from_config(request.backend, request.cwd)
    notes: tuple[str, ...] = ()
    try:
        if request.lock_state:
            with backend.lock(request.stack, "plan", timeout=request.lock_timeout):
                state, _token = backend.read(request.stack)
        else:
            state, _token = backend.read(request.stack)
    except StateNotWritableError as exc:
        notes = (
            f"note: the state in {exc.where} is read-only ({exc.reason}): planned without taking the state "
            "lock (an apply elsewhere may change the state meanwhile; `hotc apply PLANFILE` checks that it "
            "did not)",
        )
        state, _token = backend.read(request.stack)
    events: tuple[Any, ...] = ()
    if state is not None and request.review:
        try:
            events = tuple(backend.read_events(request.stack))
        except HotcError:
            events = ()  # an unreadable history only loses the measured durations
    return Recorded(state, backend), events, notes


def _empty_loaded() -> LoadedStack:
    return LoadedStack(template=Template(path="(none)", version=version_named("2018-08-31")))


def plan(
    request: PlanRequest,
    wiring: Wiring,
    *,
    recorded: Recorded | None = None,
    loaded: LoadedStack | None = None,
    desired: DesiredStack | None = None,
    warnings: tuple[Diagnostic, ...] = (),
) -> PlanResult:
    """Make the plan ``request`` asks for (see the module docstring). ``recorded``: the state, read by a
    caller that holds the stack's lock (else read here). ``loaded``: the template already loaded (else loaded
    here from ``request.template`` through ``wiring.load``); ``desired``: its expansion, made already by
    :func:`desired_for`; ``warnings``: the template's warnings from that load. Raises HotcError when no plan
    can be made."""
    rules = request.policy.rules()
    price_table = load_prices(request.prices) if request.prices is not None else None
    has_template = loaded is not None or request.template is not None
    if not has_template and request.mode == "normal":
        raise HotcError(
            "give the template with -t TEMPLATE (only --destroy and --refresh-only work without one)"
        )
    notes: tuple[str, ...] = ()
    events: tuple[Any, ...] = ()
    if recorded is None and not has_template:
        # a plan from the state alone of a stack that has none: said before any lock is taken (no lock file)
        require_stack(
            request.stack,
            backend_from_config(request.backend, request.cwd),
            hint=": there is nothing to destroy or refresh",
        )
    if recorded is None:
        recorded, events, notes = read_recorded(request)
    state = best_existing(recorded.state) if recorded.state is not None else None
    if not has_template and state is None:
        raise HotcError(f"stack {request.stack!r} has no state: there is nothing to destroy or refresh")
    warned_by_template: list[Diagnostic] = list(warnings)
    if loaded is None and request.template is not None:
        loaded = wiring.load(
            request.template,
            list(request.environments),
            request.parameters,
            request.parameter_files,
            allow_outside_files=request.allow_outside_files,
            warnings=warned_by_template,
        )
    lineage = state.lineage if state is not None else recorded.lineage
    moves, moved = _moves(request, state)
    notes += moved
    if moves and state is not None:
        state = move_state(state, moves)  # planned at the new addresses; the apply records the move
    if desired is None:
        desired = build_desired(loaded or _empty_loaded(), request.stack, lineage, state=state)
        if loaded is None and request.mode == "destroy" and request.stored_hooks and state is not None:
            record = state.template or {}
            desired.registry = stored_registry(
                record.get("files") or {}, list(record.get("environments") or ())
            )
    if moves and recorded.state is not None:
        check_move_types(moves, recorded.state, {a: r.type for a, r in desired.resources.items()})
    signals = store_for(request.signal_store, request.backend, request.cwd)
    scaling: ScalingRun | None = None
    if loaded is not None and request.mode == "normal":
        if request.decide_signals:
            scaling, desired, decided = _decide_signals(state, desired, loaded, request.stack, signals)
            notes += decided
        else:
            notes += _pending_signals_note(state, signals)
    refreshed = None
    if (request.mode == "refresh-only" or request.refresh) and state is not None and state.resources:
        try:
            reader = driver_reader(state, wiring.cloud, wiring.drivers, signals=signals)
        except HotcError as exc:
            notes += (f"note: {exc.message}; no live data was read and no drift can be reported",)
        else:
            refreshed = refresh_resources(state, reader)
    options = PlanOptions(
        mode=request.mode,
        targets=request.targets,
        replace=request.replace,
        parallelism=request.parallelism,
        deny=rules,
        excludes=request.excludes,
        imports=request.imports,
    )
    against = state if state is not None and (state.serial > 0 or state.resources) else None
    if request.template is not None and request.mode == "normal":
        notes += check_identity(request, against)
    made = annotate_moves(make_plan(desired, against, options, refreshed), moves)
    if request.mode == "normal":
        notes += suggest_moves(made)
    subject = CheckSubject(request, wiring, desired, loaded, state, recorded.backend, signals, rules)
    checked = Checked(made, notes)
    for check in CHECKS:
        if request.checks is not None and check.name not in request.checks:
            continue
        checked = check.run(subject, checked)
    result = checked.plan
    if loaded is not None and request.template is not None:
        result = replace(
            result,
            template_digest=template_digest(loaded),
            inputs={
                **plan_inputs(
                    loaded,
                    request.template,
                    list(request.environments),
                    dict(request.parameters),
                    dict(request.parameter_files),
                ),
                **({"template_path": request.template_path} if request.template_path else {}),
                "project_paths": project_paths(
                    project_dir(request.cwd or Path.cwd()),
                    request.template,
                    request.environments,
                    dict(request.parameter_files),
                    recorded.backend,
                ),
            },
        )
    result = replace(
        result, warnings=tuple(str(w) for w in warned_by_template), backend=recorded.backend.describe()
    )
    if request.review:
        result = with_review(result, events, price_table)
    return PlanResult(
        plan=result,
        desired=desired,
        loaded=loaded,
        state=state,
        backend=recorded.backend,
        refreshed=refreshed,
        notes=checked.notes,
        warnings=tuple(warned_by_template),
        violations=checked.violations,
        warned=checked.warned,
        scaling=scaling,
        events=events,
    )


def _moves(request: PlanRequest, state: StackState | None) -> tuple[tuple[Move, ...], tuple[str, ...]]:
    """The moves to plan: the request's, then the moves file's beside the template, checked against the
    recorded state (HotcError naming each bad one), and the notes about them."""
    given = tuple(request.moves)
    if request.mode != "normal":
        if given:
            raise HotcError(
                f"--move cannot be combined with --{request.mode}: a move is planned with the template"
            )
        return (), ()
    if request.template is not None:
        given += load_moves_file(moves_file_for(request.template))
    if not given:
        return (), ()
    return resolve_moves(state, given, request.stack)


def _decide_signals(
    state: StackState | None,
    desired: DesiredStack,
    loaded: LoadedStack,
    stack: str,
    signals: Callable[[], Any],
) -> tuple[ScalingRun | None, DesiredStack, tuple[str, ...]]:
    """Decide the signals waiting for the stack's ScalingPolicies (:mod:`hotc.apply.scaling`), one note each:
    the accepted ones resize their groups in the desired stack (so the plan shows it). Nothing is written
    here: the apply records the decisions once approved (an apply that is not approved leaves the signals
    pending)."""
    if state is None or not has_policies(state):
        return None, desired, ()
    pending = pending_signals(state, signals())
    if not pending:
        return None, desired, ()
    run = decide_signals(state, desired, pending, datetime.now(UTC))
    lines = tuple(decision_line(d) for d in run.decisions)
    if run.sizes:
        desired = build_desired(loaded, stack, state.lineage, state=state, sizes=run.sizes)
    return run, desired, lines


def _pending_signals_note(state: StackState | None, signals: Callable[[], Any]) -> tuple[str, ...]:
    """A note when ScalingPolicy signals wait in the store: ``hotc apply -t`` (or ``hotc watch``) executes
    them and its plan shows the resize; this plan (and a plan file saved from it) does not."""
    if not has_policies(state):
        return ()
    assert state is not None
    try:
        pending = pending_signals(state, signals())
    except HotcError:
        return ()
    if not pending:
        return ()
    names = ", ".join(sorted({p.policy for p in pending}))
    return (
        f"note: {len(pending)} scaling signal(s) pending for {names}: this plan does not include them; "
        "'hotc apply -t ...' (or 'hotc watch') executes them and its plan shows the resize",
    )


def desired_for(
    loaded: LoadedStack, stack: str, state: StackState | None, lineage: str | None = None
) -> DesiredStack:
    """The template expanded against ``state`` (``lineage``: of a stack with no state yet): what a saved plan
    executes against (the executor resolves the values the plan left Unknown from it), or what a migration
    looks at before it plans."""
    return build_desired(loaded, stack, state.lineage if state is not None else lineage, state=state)


def policy_lines(result: PlanResult, *, refused: str = "") -> list[str]:
    """The policy's findings as the views print them: each warn rule matched, each deny rule broken, and the
    count of broken deny rules (``refused``: what that meant, appended to the count's line)."""
    lines = [f"warning: {v.describe()}" for v in result.warned]
    lines += [f"error: {v.describe()}" for v in result.violations]
    if result.violations:
        lines.append(f"error: {len(result.violations)} deny rule(s) violated{refused}")
    return lines
