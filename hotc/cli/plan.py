"""``hotc plan`` and ``hotc show`` (owned by the planner): the options become a
:class:`hotc.ops.plan.PlanRequest`, :func:`hotc.ops.plan.plan` makes the plan, and this module's view prints it.

    hotc plan -t T [-e E]... [--parameter K=V]... [--parameter-file K=F] [STACK] [-o FILE]
              [--format text|json|markdown] [--detailed-exitcode] [--destroy] [--refresh-only]
              [--target ADDR]... [--replace ADDR]... [--deny ACTION:TYPE_GLOB]... [--policy-file F]
              [--parallelism N] [--backend URL] [--lock-timeout S]
    hotc show (PLANFILE | STACK) [--format text|json|markdown] [--backend URL]

Exit codes of ``hotc plan``: 0 success (with ``--detailed-exitcode``: no changes); 1 error; 2 changes present
(only with ``--detailed-exitcode``); 3 a ``--deny``/``--policy-file`` rule is violated (the plan is still
printed, the violations are listed on stderr, and no plan file is written).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hotc.cli import root
from hotc.cli.common import (
    DEFAULT_MAX_TEMPLATE_SIZE,
    AllowOutsideOpt,
    BackendOpt,
    EnvOpt,
    MaxSizeOpt,
    ParamFileOpt,
    ParamOpt,
    SignalStoreOpt,
    check_format,
    display_diagnostics,
    load_for_command,
    parse_parameter_files,
    parse_parameters,
    stack_name_for,
)
from hotc.errors import Diagnostic, HotcError
from hotc.planner.api import DEFAULT_PARALLELISM
from hotc.state import backend_from_config

if TYPE_CHECKING:  # the planner and the parser are imported by the commands that plan, when they run
    from hotc.ops.plan import Wiring
    from hotc.parser.api import LoadedStack

PLAN_FORMATS = ("text", "json", "markdown")  # and, for `hotc plan` only, sarif

TemplateOptional = Annotated[Path | None, typer.Option("-t", "--template", help="HOT template file.")]
StackArg = Annotated[str | None, typer.Argument(help="Stack name (default: the template file's stem).")]
OutOpt = Annotated[
    Path | None, typer.Option("-o", "--out", help="Save the plan to FILE (apply it with 'hotc apply FILE').")
]
FmtOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: text, json or markdown.")]
PlanFmtOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: text, json, markdown or sarif (code scanning)."),
]
DetailedOpt = Annotated[
    bool, typer.Option("--detailed-exitcode", help="Exit 0 without changes, 2 with changes, 1 on error.")
]
DestroyOpt = Annotated[bool, typer.Option("--destroy", help="Plan to delete every resource of the stack.")]
RefreshOnlyOpt = Annotated[
    bool, typer.Option("--refresh-only", help="Only compare the state with the cloud (drift).")
]
TargetOpt = Annotated[
    list[str] | None, typer.Option("--target", help="Plan only ADDR and what it needs (repeatable).")
]
ReplaceOpt = Annotated[
    list[str] | None, typer.Option("--replace", help="Replace ADDR even if it could be kept (repeatable).")
]
DenyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--deny", help="Fail (exit 3) if an ACTION:TYPE_GLOB change is planned, e.g. 'replace:OS::Cinder::*'."
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices", help="Price table (YAML/JSON: flavors, volume_gb, floating_ip) for a monthly cost delta."
    ),
]
WarnOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--warn",
        help="Report (without failing) an ACTION:TYPE_GLOB\\[@ADDRESS_GLOB] change, e.g. 'delete:*@db*'.",
    ),
]
PolicyOpt = Annotated[
    Path | None, typer.Option("--policy-file", help="YAML/JSON list of deny rules (same syntax as --deny).")
]
ParallelOpt = Annotated[
    int, typer.Option("--parallelism", help="Concurrent operations at apply (stored in the plan).")
]
RefreshOpt = Annotated[
    bool,
    typer.Option(
        "--refresh",
        help="Read every recorded resource from the cloud first (drift is shown and planned against).",
    ),
]
OsCloudOpt = Annotated[
    str | None,
    typer.Option(
        "--os-cloud",
        help="Cloud name in clouds.yaml (default: OS_CLOUD / OS_* variables): custom constraints "
        "(glance.image, nova.flavor, ...) are checked against it, and --refresh reads from it.",
    ),
]
LockTimeoutOpt = Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock.")]
QuotaMaxSizeOpt = Annotated[
    bool,
    typer.Option(
        "--quota-max-size",
        help="Count every AutoScalingGroup at its max_size in the quota check (what scaling may reach later).",
    ),
]
ImportOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--import",
        help="Take over the existing object ID as ADDRESS (ADDRESS=ID, repeatable): planned, executed by apply.",
    ),
]
ExcludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude", help="Leave ADDR and everything that depends on it out of the plan (repeatable)."
    ),
]
MoveOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--move",
        metavar="OLD=NEW",
        help="The resource recorded at OLD is the template's NEW (renamed, into or out of a group or nested "
        "template): its record moves, the object is kept (repeatable; see also TEMPLATE_STEM.moves.yaml).",
    ),
]
ExistingOpt = Annotated[
    bool,
    typer.Option(
        "--existing",
        help="Reuse the stack's stored template, environments and parameters; override only what is given.",
    ),
]


_display = display_diagnostics


def _want_color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def render(plan: Any, fmt: str, *, hint: str = "hotc show PLANFILE", saved_as: str | None = None) -> str:
    # deliberate lazy imports of the planner's renderings, only the one asked for (start-up speed, as above)
    if fmt == "json":
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.planner.api import render_json

        return render_json(plan)
    if fmt == "markdown":
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.planner.api import render_markdown
        from hotc.state.config import project_dir, project_relative

        if saved_as:  # the comment names the plan file as from the project root, the same on every runner
            saved_as = project_relative(saved_as, project_dir(Path.cwd()))
        return render_markdown(plan, plan_hint=hint, saved_as=saved_as)
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import render_text

    return render_text(plan, color=_want_color())


def plan_command(
    stack: StackArg = None,
    template: TemplateOptional = None,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    out: OutOpt = None,
    fmt: PlanFmtOpt = "text",
    detailed_exitcode: DetailedOpt = False,
    destroy: DestroyOpt = False,
    refresh_only: RefreshOnlyOpt = False,
    target: TargetOpt = None,
    replace_: ReplaceOpt = None,
    deny: DenyOpt = None,
    policy_file: PolicyOpt = None,
    parallelism: ParallelOpt = DEFAULT_PARALLELISM,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    refresh: RefreshOpt = False,
    os_cloud: OsCloudOpt = None,
    warn: WarnOpt = None,
    prices: PricesOpt = None,
    signal_store: SignalStoreOpt = None,
    import_: ImportOpt = None,
    exclude: ExcludeOpt = None,
    existing: ExistingOpt = False,
    allow_outside_files: AllowOutsideOpt = False,
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
    quota_max_size: QuotaMaxSizeOpt = False,
    move: MoveOpt = None,
) -> None:
    """Show exactly what apply would do: every action, every changed property, and why. In a project
    (hotc.toml with [stacks.NAME] tables), 'hotc plan NAME' plans a pinned stack, and 'hotc plan' every one.

    Exit codes: 0 success (with --detailed-exitcode: no changes), 1 error, 2 changes present (only with
    --detailed-exitcode), 3 a --deny / --policy-file rule is violated (the plan is printed, not saved)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.project import load_project, merge_pinned, pinned, refuse_file_as_stack

    refuse_file_as_stack(stack, template, "plan")
    plain = not existing and not destroy and not refresh_only and template is None
    project = load_project() if plain else None
    if plain and stack is None and project is not None and project.stacks:
        if out is not None:
            raise HotcError("-o saves one plan: name the stack ('hotc plan NAME -o FILE')")
        _plan_every_stack(project, fmt, detailed_exitcode, max_template_size)
        return
    entry = pinned(stack, template, project)
    moves = [(text, "--move") for text in move or []]
    if entry is not None:
        m = merge_pinned(
            entry,
            environment=environment,
            parameter=parameter,
            parameter_file=parameter_file,
            backend=backend,
            deny=deny,
            warn=warn,
            policy_file=policy_file,
            parallelism=parallelism,
            default_parallelism=DEFAULT_PARALLELISM,
            move=move,
        )
        moves = m.moves
        template, environment, parameter, parameter_file = (
            m.template,
            m.environment,
            m.parameter,
            m.parameter_file,
        )
        backend, deny, warn, policy_file, parallelism = (
            m.backend,
            m.deny,
            m.warn,
            m.policy_file,
            m.parallelism,
        )

    def run(
        tpl: Path | None,
        envs: list[Path] | None,
        given: tuple[dict[str, str], dict[str, Path]] | None = None,
    ) -> None:
        _plan(
            stack,
            tpl,
            envs,
            None if given else parameter,
            None if given else parameter_file,
            out,
            fmt,
            detailed_exitcode,
            destroy,
            refresh_only,
            target,
            replace_,
            deny,
            policy_file,
            parallelism,
            backend,
            lock_timeout,
            refresh,
            os_cloud,
            warn,
            prices,
            signal_store,
            imports=import_,
            exclude=exclude,
            given=given,
            allow_outside_files=allow_outside_files,
            max_size=max_template_size,
            identity=identity,
            quota_at_max_size=quota_max_size,
            moves=moves,
        )

    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.project import template_identity

    identity = template_identity(template, project or load_project()) if template is not None else None
    try:
        if existing:
            # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
            from hotc.apply.existing import existing_from_backend

            with existing_from_backend(
                backend,
                stack,
                lock_timeout,
                template,
                list(environment or []),
                parse_parameters(parameter),
                parse_parameter_files(parameter_file),
            ) as inputs:
                run(inputs.template, inputs.environments, (inputs.parameters, inputs.parameter_files))
        else:
            run(template, environment)
    except HotcError as exc:
        if not exc.diagnostics:
            raise
        if fmt == "sarif":  # a template that cannot be planned still annotates the pull request
            # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
            from hotc.planner.api import diagnostic_results, render_sarif

            sys.stdout.write(render_sarif(diagnostic_results(_display(exc.diagnostics))))
        raise HotcError(
            exc.message, exit_code=exc.exit_code, diagnostics=tuple(_display(exc.diagnostics))
        ) from exc


def _plan_every_stack(project: Any, fmt: str, detailed_exitcode: bool, max_size: int) -> None:
    """``hotc plan`` in a project: every pinned stack in turn. The exit code is the worst of theirs: an error
    (1), then a policy refusal (3), then changes present (2, with --detailed-exitcode)."""
    rank = {0: 0, 2: 1, 3: 2, 1: 3}
    worst = 0
    for name in sorted(project.stacks):
        print(f"==> {name}", file=sys.stderr)
        code = 0
        try:
            plan_command(
                stack=name,
                fmt=fmt,
                detailed_exitcode=detailed_exitcode,
                max_template_size=max_size,
                environment=None,
                parameter=None,
                parameter_file=None,
            )
        except typer.Exit as exc:
            code = exc.exit_code
        except HotcError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            code = exc.exit_code or 1
        if rank.get(code, 3) > rank.get(worst, 3):
            worst = code
    if worst:
        raise typer.Exit(worst)


def plan_wiring(
    os_cloud: str | None, verb: str, max_size: int = DEFAULT_MAX_TEMPLATE_SIZE, *, embeds_files: bool = True
) -> Wiring:
    """What a command that plans is made of (the composition root's parts; see :mod:`hotc.cli.root`): its
    loader says that nothing was ``verb`` when the template has errors (``embeds_files``: see
    :func:`hotc.cli.common.load_for_command`). The drivers are looked up only when
    used (a plan reads the cloud only with --refresh)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.plan import Wiring  # deliberate lazy import: the operations load when a command plans

    def load(
        template: Path,
        envs: list[Path],
        params: Mapping[str, str],
        pfiles: Mapping[str, Path],
        *,
        allow_outside_files: bool = False,
        warnings: list[Diagnostic] | None = None,
    ) -> LoadedStack:
        return load_for_command(
            template,
            envs,
            dict(params),
            dict(pfiles),
            verb=verb,
            warnings=warnings,
            embeds_files=embeds_files,
            allow_outside_files=allow_outside_files,
            max_size=max_size,
        )

    def drivers(type_name: str) -> Any:
        return root.drivers()(type_name)

    return Wiring(
        load=load,
        checks=root.type_checks(),
        rules=root.constraint_rules(),
        drivers=drivers,
        cloud=root.cloud(os_cloud),
    )


def _plan(
    stack: str | None,
    template: Path | None,
    environment: list[Path] | None,
    parameter: list[str] | None,
    parameter_file: list[str] | None,
    out: Path | None,
    fmt: str,
    detailed_exitcode: bool,
    destroy: bool,
    refresh_only: bool,
    target: list[str] | None,
    replace_: list[str] | None,
    deny: list[str] | None,
    policy_file: Path | None,
    parallelism: int,
    backend: str | None,
    lock_timeout: float,
    refresh: bool,
    os_cloud: str | None,
    warn: list[str] | None = None,
    prices: Path | None = None,
    signal_store: str | None = None,
    *,
    imports: list[str] | None = None,
    exclude: list[str] | None = None,
    given: tuple[dict[str, str], dict[str, Path]] | None = None,
    allow_outside_files: bool = False,
    max_size: int = DEFAULT_MAX_TEMPLATE_SIZE,
    identity: str | None = None,
    quota_at_max_size: bool = False,
    moves: list[tuple[str, str]] | None = None,
) -> None:
    """The options -> a plan request -> :func:`hotc.ops.plan.plan` -> the view. ``given``: parameters and
    parameter files already parsed (``--existing``); ``identity``: the template's path as the state records
    it (None: the template is the stack's stored copy)."""
    # deliberate lazy import: the planner costs about a second at start-up (networkx, deepdiff), which the
    # commands that do not plan never pay
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.drift_view import note_accepted
    from hotc.ops.plan import PlanRequest, Policy, plan, policy_lines
    from hotc.planner.api import DENY_EXIT_CODE, parse_import, parse_move, save_plan

    check_format(fmt, (*PLAN_FORMATS, "sarif"))
    if destroy and refresh_only:
        raise HotcError("--destroy and --refresh-only cannot be combined")
    request = PlanRequest(
        stack=stack_name_for(stack, template),
        template_path=identity,
        name_given=stack is not None,
        template=template,
        environments=tuple(environment or ()),
        parameters=parse_parameters(parameter) if given is None else given[0],
        parameter_files=parse_parameter_files(parameter_file) if given is None else given[1],
        mode="destroy" if destroy else "refresh-only" if refresh_only else "normal",
        targets=tuple(target or ()),
        replace=tuple(replace_ or ()),
        excludes=tuple(exclude or ()),
        imports=tuple(parse_import(i) for i in imports or ()),
        parallelism=parallelism,
        refresh=refresh,
        policy=Policy(deny=tuple(deny or ()), warn=tuple(warn or ()), policy_file=policy_file),
        backend=backend,
        lock_timeout=lock_timeout,
        os_cloud=os_cloud,
        signal_store=signal_store,
        allow_outside_files=allow_outside_files,
        review=True,
        prices=prices,
        quota_at_max_size=quota_at_max_size,
        moves=tuple(parse_move(text, where) for text, where in moves or ()),
    )
    result = plan(request, plan_wiring(os_cloud, "planned", max_size))
    for note in result.notes:
        print(note, file=sys.stderr)
    made = result.plan
    violations = result.violations
    if fmt == "sarif":
        sys.stdout.write(_render_sarif(made, result.desired, list(result.warnings)))
    else:
        sys.stdout.write(
            render(
                made,
                fmt,
                hint=f"hotc show {out}" if out else "hotc plan",
                saved_as=str(out) if out and not violations else None,
            )
        )
    sys.stdout.flush()
    note_accepted(made, result.state)  # refresh-only: the drift accepted-drift entries cover, apart
    for line in policy_lines(result, refused="; the plan was not saved" if out else ""):
        print(line, file=sys.stderr)
    if violations:
        _end(DENY_EXIT_CODE, own=given is None)
        raise typer.Exit(DENY_EXIT_CODE)
    if out is not None:
        save_plan(made, out)
        print(f"Saved the plan to {out}; apply it with: hotc apply {out}", file=sys.stderr)
    code = 2 if detailed_exitcode and (made.has_changes or made.resource_drift) else 0
    _end(code, own=given is None)
    if code:
        raise typer.Exit(code)


def _end(code: int, *, own: bool) -> None:
    """The plan is written: end hotc's own process here with exit status CODE, before the interpreter frees
    the template, the desired state and the plan object by object (:mod:`hotc.cli.process_end`); elsewhere
    return (the caller exits as usual). ``own``: nothing is left to clean up (``--existing`` plans from files
    its context manager removes afterwards)."""
    if own:
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.cli.process_end import end_process

        end_process(code)


def _render_sarif(plan: Any, desired: Any, warnings: list[Diagnostic]) -> str:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import diagnostic_results, disruptions, plan_results, render_sarif

    positions = {a: r.pos for a, r in desired.resources.items() if r.pos is not None}
    disruptive = frozenset(d.address for d in disruptions(plan) if d.kind == "reboot")
    policy = [(f.level, f.address, f.describe()) for f in plan.policy_findings]
    return render_sarif(
        diagnostic_results(warnings) + plan_results(plan, positions, disruptive=disruptive, policy=policy)
    )


def _render_state(state: Any, fmt: str) -> str:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.planner.api import SENSITIVE
    from hotc.planner.api import format_value as fmt_value
    from hotc.state.secrets import shown_physical_id

    if fmt == "json":
        doc = {
            "stack_name": state.stack_name,
            "status": state.status,
            "status_reason": state.status_reason,
            "lineage": state.lineage,
            "serial": state.serial,
            "resources": [
                {
                    "address": r.address,
                    "type": r.type,
                    "status": r.status,
                    "physical_id": shown_physical_id(r.type, r.physical_id),
                }
                for r in sorted(state.resources.values(), key=lambda r: r.address)
            ],
            "outputs": {
                k: {"value": None if o.sensitive else o.value, "sensitive": o.sensitive}  # hidden: null
                for k, o in state.outputs.items()
            },
        }
        return json.dumps(doc, indent=2, default=str) + "\n"
    lines = [
        f"Stack {state.stack_name}: {state.status}"
        + (f" ({state.status_reason})" if state.status_reason else ""),
        f"  lineage {state.lineage}, serial {state.serial}",
        "",
    ]
    rows = sorted(state.resources.values(), key=lambda r: r.address)
    if rows:
        w1 = max(len(r.address) for r in rows)
        w2 = max(len(r.type) for r in rows)
        w3 = max(len(r.status) for r in rows)
        lines.append(f"  {'RESOURCE':<{w1}}  {'TYPE':<{w2}}  {'STATUS':<{w3}}  PHYSICAL ID")
        for r in rows:
            pid = shown_physical_id(r.type, r.physical_id) or "-"
            lines.append(f"  {r.address:<{w1}}  {r.type:<{w2}}  {r.status:<{w3}}  {pid}")
    else:
        lines.append("  (no resources)")
    if state.outputs:
        lines.append("")
        lines.append("Outputs:")
        for k, o in state.outputs.items():  # the template's order
            lines.append(f"  {k} = {SENSITIVE if o.sensitive else fmt_value(o.value)}")
    return "\n".join(lines) + "\n"


def show_command(
    what: Annotated[str, typer.Argument(help="A saved plan file, or a stack name.")],
    fmt: FmtOpt = "text",
    backend: BackendOpt = None,
) -> None:
    """Render a saved plan (any format) or a stack's recorded state."""
    path = Path(what)
    if path.is_file():
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.planner.api import load_plan

        check_format(fmt, PLAN_FORMATS)
        plan = load_plan(path)
        sys.stdout.write(render(plan, fmt, hint=f"hotc show {what}", saved_as=what))
        return
    check_format(fmt, ("text", "json"))
    if os.sep in what or what.endswith(".json"):
        raise HotcError(f"{what}: no such plan file")
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.common import other_stacks

    b = backend_from_config(backend)
    state, _ = b.read(what)
    if state is None:
        raise HotcError(
            f"{what}: neither a plan file nor a stack with state in {b.describe()}.{other_stacks(b, what)}"
        )
    sys.stdout.write(_render_state(state, fmt))


def register(app: typer.Typer) -> None:
    app.command("plan")(plan_command)
    app.command("show")(show_command)
