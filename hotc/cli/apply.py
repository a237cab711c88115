"""``hotc apply``, ``destroy``, ``output``, ``resource list|show``, ``template show``, ``events``, ``check``,
``suspend``, ``resume`` (owned by the applier).

    hotc apply   (PLANFILE | -t T [-e E]... [--parameter K=V]... [STACK]) [--auto-approve] [--parallelism N]
    hotc destroy STACK [--auto-approve] [--missing-ok]
    hotc output  STACK [NAME] [--format text|json] [--show-sensitive]
    hotc resource list STACK | show STACK NAME   [--format text|json]
    hotc template show STACK
    hotc events  STACK [--follow] [--nested-depth N]
    hotc check | suspend | resume STACK

Every command takes ``--backend URL`` (else ``HOTC_BACKEND``, ``hotc.toml``, ``.hotc/``); the ones that
change the stack take ``--lock-timeout SECONDS`` and ``--os-cloud NAME``; apply (with ``-t``) and destroy take the
policy options of ``hotc plan`` (``--deny``, ``--warn``, ``--policy-file``), and a broken deny rule exits 3. Exit status 0 on success, 1 on error or a
failed/interrupted apply (the state then holds everything done so far).
"""

from __future__ import annotations

import functools
import io
import json
import shlex
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
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
    load_for_command,
    parse_parameter_files,
    parse_parameters,
    stack_name_for,
)
from hotc.cli.plan import (
    DenyOpt,
    ExcludeOpt,
    ExistingOpt,
    ImportOpt,
    MoveOpt,
    PolicyOpt,
    QuotaMaxSizeOpt,
    RefreshOnlyOpt,
    RefreshOpt,
    ReplaceOpt,
    TargetOpt,
    WarnOpt,
)
from hotc.errors import HotcError
from hotc.planner.api import DEFAULT_PARALLELISM

if TYPE_CHECKING:  # the parser is imported by the commands that load a template, not by check or destroy
    from hotc.errors import Diagnostic
    from hotc.ops.plan import Policy, Wiring
    from hotc.parser.api import LoadedStack

TemplateOpt = Annotated[
    Path | None, typer.Option("-t", "--template", help="HOT template file (plan and apply on the spot).")
]
LockTimeoutOpt = Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for the state lock.")]
HookTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--hook-timeout",
        help="Seconds a resource may stay paused at a hook of the environment (default: until cleared).",
    ),
]
AutoApproveOpt = Annotated[
    bool, typer.Option("--auto-approve", help="Apply without asking for approval (CI).")
]
ParallelOpt = Annotated[
    int,
    typer.Option(
        "--parallelism",
        min=1,
        help=f"Actions in flight at most (default {DEFAULT_PARALLELISM}; fewer while the cloud is busy).",
    ),
]
OsCloudOpt = Annotated[
    str | None,
    typer.Option("--os-cloud", help="Cloud name in clouds.yaml (default: OS_CLOUD / OS_* variables)."),
]
TimeoutOpt = Annotated[
    list[str] | None,
    typer.Option("--timeout", help="Per-type action timeout TYPE=SECONDS (repeatable; TYPE '*' for all)."),
]
FmtOpt = Annotated[str, typer.Option("--format", "-f", help="Output format: text or json.")]
StackArg = Annotated[str, typer.Argument(help="Stack name.")]


def _timeouts(values: list[str] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for raw in values or []:
        t, sep, secs = raw.rpartition("=")
        try:
            val = float(secs)
        except ValueError:
            val = -1
        if not sep or not t or val <= 0:
            raise HotcError(
                f"--timeout {raw!r}: expected TYPE=SECONDS with SECONDS > 0, e.g. OS::Nova::Server=1200"
            )
        out[t] = val
    return out


# apply, destroy and import: text, or json (the plan, progress and messages on stderr; the run's record on stdout)
RunFmtOpt = Annotated[
    str,
    typer.Option(
        "--format", "-f", help="text, or json: progress on stderr, what the run recorded on stdout."
    ),
]


def _progress() -> Any:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.progress import progress_for

    return progress_for(sys.stdout)


def _stdin_line() -> str:
    return sys.stdin.readline()


def _load_for_apply(
    template: Path,
    envs: list[Path],
    params: Mapping[str, str],
    pfiles: Mapping[str, Path],
    *,
    allow_outside_files: bool = False,
    warnings: list[Diagnostic] | None = None,
    max_size: int = DEFAULT_MAX_TEMPLATE_SIZE,
) -> LoadedStack:
    """The template with every value required, its problems reported exactly as ``hotc plan`` reports them."""
    return load_for_command(
        template,
        envs,
        dict(params),
        dict(pfiles),
        verb="applied",
        warnings=warnings,
        embeds_files=True,
        allow_outside_files=allow_outside_files,
        max_size=max_size,
    )


def apply_wiring(os_cloud: str | None, max_size: int = DEFAULT_MAX_TEMPLATE_SIZE) -> Wiring:
    """What an apply run is made of (the composition root's parts; see :mod:`hotc.cli.root`)."""
    # deliberate lazy imports in this module: the applier and the planner behind it cost about a second at
    # start-up, which the read-only commands (output, events, resource ...) never pay
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.plan import Wiring

    return Wiring(
        load=functools.partial(_load_for_apply, max_size=max_size),
        checks=root.type_checks(),
        rules=root.constraint_rules(),
        drivers=root.drivers(),
        cloud=root.cloud(os_cloud, prewarm=True),
    )


def _run(*, opts: Any, max_size: int = DEFAULT_MAX_TEMPLATE_SIZE, fmt: str = "text", **kw: Any) -> None:
    """Run an apply or destroy. ``fmt`` json: the plan and the progress go to stderr, and what the run
    recorded is printed on stdout as one JSON document (see docs/json-output.md)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.apply import run_apply

    check_format(fmt, ("text", "json"))
    out = root.sinks()
    wiring = apply_wiring(opts.os_cloud, max_size)
    if fmt == "text":
        code = run_apply(
            out=out.out,
            err=out.err,
            interactive=sys.stdin.isatty(),
            read_line=_stdin_line,
            progress=_progress,
            wiring=wiring,
            opts=opts,
            **kw,
        )
    else:
        if not opts.auto_approve and kw.get("plan_file") is None:
            raise HotcError(
                "--format json needs --auto-approve (or a saved PLANFILE): approval is interactive"
            )
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.apply.progress import progress_for

        stack = kw.get("stack") or ""
        if not stack and kw.get("plan_file") is not None:
            # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
            from hotc.planner.api import load_plan

            stack = load_plan(kw["plan_file"]).stack_name
        before = _last_event_id(stack, opts.backend) if stack else None
        code = run_apply(
            out=out.err,
            err=out.err,
            interactive=False,
            read_line=_stdin_line,
            progress=lambda: progress_for(sys.stderr),
            wiring=wiring,
            opts=opts,
            **kw,
        )
        doc = _run_doc(stack, opts.backend, before)
        sys.stdout.write(json.dumps({**doc, "exit_code": code}, indent=2) + "\n")
    if code:
        raise typer.Exit(code)


RollbackOpt = Annotated[
    bool | None,
    typer.Option(
        "--rollback/--no-rollback",
        help="If the apply fails, return the stack to its last good template (a stack being created: delete what "
        "it made), or leave it as it failed. Stored as the stack's default (Heat's disable_rollback); without "
        "either, the stored default, else no rollback.",
    ),
]


def apply_command(
    target: Annotated[
        str | None,
        typer.Argument(
            metavar="[PLANFILE | STACK]",
            help="A plan saved by 'hotc plan -o FILE'; with -t, the stack name (default: the template's stem).",
        ),
    ] = None,
    template: TemplateOpt = None,
    environment: EnvOpt = None,
    parameter: ParamOpt = None,
    parameter_file: ParamFileOpt = None,
    auto_approve: AutoApproveOpt = False,
    parallelism: ParallelOpt = DEFAULT_PARALLELISM,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
    timeout: TimeoutOpt = None,
    signal_store: SignalStoreOpt = None,
    hook_timeout: HookTimeoutOpt = None,
    refresh: RefreshOpt = False,
    refresh_only: RefreshOnlyOpt = False,
    target_: TargetOpt = None,
    exclude: ExcludeOpt = None,
    replace_: ReplaceOpt = None,
    import_: ImportOpt = None,
    existing: ExistingOpt = False,
    allow_outside_files: AllowOutsideOpt = False,
    max_template_size: MaxSizeOpt = DEFAULT_MAX_TEMPLATE_SIZE,
    fmt: RunFmtOpt = "text",
    deny: DenyOpt = None,
    warn: WarnOpt = None,
    policy_file: PolicyOpt = None,
    rollback: RollbackOpt = None,
    move: MoveOpt = None,
    quota_max_size: QuotaMaxSizeOpt = False,
) -> None:
    """Make the cloud match the plan: a saved PLANFILE, or a plan made now from -t/-e/--parameter (shown, then
    approved with 'yes' or --auto-approve). A plan made now takes plan's options (--refresh, --refresh-only,
    --target, --exclude, --replace, --import); --existing reuses the stack's stored template, environments
    and parameters, overriding only what is given. A plan made now is held to --deny, --warn and
    --policy-file as 'hotc plan' holds it: a broken deny rule refuses it (exit 3) before anything runs."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.cli.project import (
        load_project,
        merge_pinned,
        pinned,
        refuse_file_as_stack,
        template_identity,
    )
    from hotc.ops.apply import ApplyOptions
    from hotc.planner.api import parse_import, parse_move

    refuse_file_as_stack(target, template, "apply")
    timeouts = _timeouts(timeout)
    project = load_project()
    entry = (
        pinned(target, template, project)
        if target is not None and not existing and not refresh_only and not Path(target).is_file()
        else None
    )
    name_given = target is not None
    moves = [(text, "--move") for text in move or []]
    if entry is not None:  # a stack pinned in the project file: its template, environments and settings
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
    by_stack = existing or (refresh_only and template is None)
    planfile = Path(target) if target is not None and template is None and not by_stack else None
    stack = target if template is not None or by_stack else None
    if by_stack and not stack:
        raise HotcError(
            "give the STACK name: hotc apply STACK --existing (or --refresh-only) works from its state"
        )
    if refresh and refresh_only:
        raise HotcError(
            "--refresh and --refresh-only cannot be combined (--refresh-only already reads the cloud)"
        )
    if planfile is None and template is None and not by_stack:
        raise HotcError(
            "give a saved plan (hotc apply PLANFILE) or a template (hotc apply -t TEMPLATE [STACK])"
        )
    if planfile is not None and not planfile.exists():
        raise HotcError(
            f"{planfile}: no such plan file (make one with 'hotc plan -t TEMPLATE -o {planfile}'; "
            "to plan and apply at once use 'hotc apply -t TEMPLATE')"
        )
    if planfile is not None and planfile.suffix in (".yaml", ".yml", ".template", ".hot"):
        raise HotcError(
            f"{planfile} looks like a template: use 'hotc apply -t {planfile}' (a PLANFILE comes from "
            "'hotc plan -o FILE')"
        )
    if planfile is not None and (deny or warn or policy_file):
        raise HotcError(
            "a saved plan was held to its policy when it was made: give --deny, --warn and --policy-file to "
            "'hotc plan', or apply with -t TEMPLATE"
        )
    if planfile is not None and (environment or parameter_file):
        raise HotcError(
            "a saved plan already holds its environment and parameters; only hidden parameters may be "
            "given again with --parameter"
        )
    params = parse_parameters(parameter)
    pfiles = parse_parameter_files(parameter_file)
    name = "" if planfile is not None else stack or stack_name_for(stack, template)
    opts = ApplyOptions(
        parallelism=parallelism,
        auto_approve=auto_approve,
        lock_timeout=lock_timeout,
        backend=backend,
        os_cloud=os_cloud,
        timeouts=timeouts,
        signal_store=signal_store,
        targets=tuple(target_ or ()),
        excludes=tuple(exclude or ()),
        replace=tuple(replace_ or ()),
        imports=tuple(parse_import(i) for i in import_ or ()),
        refresh=refresh,
        refresh_only=refresh_only,
        allow_outside_files=allow_outside_files,
        hook_timeout=hook_timeout,
        policy=policy_of(deny, warn, policy_file),
        template_path=template_identity(template, project) if template is not None else None,
        name_given=name_given,
        rollback=rollback,
        moves=tuple(parse_move(text, where) for text, where in moves),
        quota_at_max_size=quota_max_size,
    )
    if existing:
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.apply.existing import existing_from_backend

        with existing_from_backend(
            backend, name, lock_timeout, template, list(environment or []), params, pfiles
        ) as inputs:
            _run(
                stack=name,
                opts=opts,
                max_size=max_template_size,
                fmt=fmt,
                template=inputs.template,
                envs=inputs.environments,
                params=inputs.parameters,
                pfiles=inputs.parameter_files,
            )
        return
    _run(
        stack=name,
        opts=opts,
        max_size=max_template_size,
        fmt=fmt,
        plan_file=planfile,
        template=template,
        envs=list(environment or []),
        params=params,
        pfiles=pfiles,
    )


def policy_of(deny: list[str] | None, warn: list[str] | None, policy_file: Path | None) -> Policy:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.plan import Policy

    return Policy(deny=tuple(deny or ()), warn=tuple(warn or ()), policy_file=policy_file)


MissingOkOpt = Annotated[
    bool,
    typer.Option("--missing-ok", help="A stack that does not exist is already destroyed: exit 0, not 1."),
]


def destroy_command(
    stack: StackArg,
    auto_approve: AutoApproveOpt = False,
    parallelism: ParallelOpt = DEFAULT_PARALLELISM,
    backend: BackendOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    os_cloud: OsCloudOpt = None,
    timeout: TimeoutOpt = None,
    signal_store: SignalStoreOpt = None,
    fmt: RunFmtOpt = "text",
    deny: DenyOpt = None,
    warn: WarnOpt = None,
    policy_file: PolicyOpt = None,
    missing_ok: MissingOkOpt = False,
) -> None:
    """Delete every resource of STACK (from its state alone); Retain resources are forgotten, not deleted.
    The destroy plan is held to --deny, --warn and --policy-file (a broken deny rule refuses it, exit 3). A
    STACK with no state is an error (exit 1, naming the stacks there are) unless --missing-ok."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.apply import ApplyOptions

    timeouts = _timeouts(timeout)
    opts = ApplyOptions(
        parallelism=parallelism,
        auto_approve=auto_approve,
        lock_timeout=lock_timeout,
        backend=backend,
        os_cloud=os_cloud,
        timeouts=timeouts,
        signal_store=signal_store,
        policy=policy_of(deny, warn, policy_file),
        missing_ok=missing_ok,
    )
    _run(stack=stack, opts=opts, destroy=True, fmt=fmt)


# ------------------------------------------------------------------------------------------ read commands


def _state(stack: str, backend: str | None) -> Any:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state import backend_from_config

    b: Any = backend_from_config(backend)
    state, _ = b.read(stack)
    if state is None:
        # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
        from hotc.cli.common import other_stacks

        raise HotcError(
            f"stack {stack!r} has no state in {b.describe()}: apply it first (hotc apply -t TEMPLATE)."
            + other_stacks(b, stack)
        )
    return state


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, indent=2, default=str)


def output_command(
    stack: StackArg,
    name: Annotated[str | None, typer.Argument(help="One output (default: all).")] = None,
    fmt: FmtOpt = "text",
    backend: BackendOpt = None,
    show_sensitive: Annotated[
        bool,
        typer.Option(
            "--show-sensitive",
            help="Print sensitive outputs (derived from hidden parameters or a RandomString) in clear; "
            "without it they show as (sensitive). The only command that reveals them.",
        ),
    ] = False,
) -> None:
    """Show the stack's outputs as of the last apply (sensitive ones masked unless --show-sensitive)."""
    check_format(fmt, ("text", "json"))
    state = _state(stack, backend)
    # each value's maps in key order, as Heat's API shows outputs (the state keeps the order they were built in)
    outs = {k: replace(o, value=_keys_sorted(o.value)) for k, o in state.outputs.items()}
    if name is not None:
        if name not in outs:
            have = ", ".join(sorted(outs)) or "none"
            raise HotcError(f"stack {stack!r} has no output {name!r} (outputs: {have})")
        o = outs[name]
        if o.error:
            raise HotcError(f"output {name!r} could not be resolved: {o.error}")
        if o.sensitive and not show_sensitive:
            raise HotcError(
                f"output {name!r} of stack {stack!r} is sensitive (derived from a hidden parameter or a "
                f"RandomString); pass --show-sensitive to print it: hotc output {stack} {name}"
                f"{_backend_flag(backend)} --show-sensitive"
            )
        value = _revealed(stack, name, o.value) if o.sensitive else o.value
        sys.stdout.write((json.dumps(value, default=str) if fmt == "json" else _value_text(value)) + "\n")
        return
    if fmt == "json":
        doc = {
            k: {
                # hidden: null with "sensitive": true beside it (JSON keeps the value's type)
                "value": (_revealed(stack, k, o.value) if show_sensitive else None)
                if o.sensitive and not o.error
                else o.value,
                "description": o.description,
                "sensitive": o.sensitive,
                **({"error": o.error} if o.error else {}),
            }
            for k, o in outs.items()  # the template's order
        }
        sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        return
    for k, o in outs.items():  # the template's order
        if o.error:
            shown = f"(error: {o.error})"
        elif o.sensitive:
            shown = json.dumps(_revealed(stack, k, o.value), default=str) if show_sensitive else SENSITIVE
        else:
            shown = json.dumps(o.value, default=str)
        sys.stdout.write(f"{k} = {shown}\n")
    if not show_sensitive and any(o.sensitive and not o.error for o in outs.values()):
        sys.stderr.write(
            f"(sensitive values are masked; see them with: hotc output {stack}{_backend_flag(backend)} "
            "--show-sensitive)\n"
        )


SENSITIVE = "(sensitive)"


def _keys_sorted(value: Any) -> Any:
    if isinstance(value, dict):
        try:
            return {k: _keys_sorted(value[k]) for k in sorted(value)}
        except TypeError:  # keys of mixed types: kept as they are
            return {k: _keys_sorted(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_keys_sorted(x) for x in value]
    return value


def _backend_flag(backend: str | None) -> str:
    """`` --backend URL`` when the command was given one: a command a hint names must reach the same state."""
    return f" --backend {shlex.quote(backend)}" if backend else ""


def _revealed(stack: str, name: str, value: Any) -> Any:
    """A sensitive output's clear value; an error when the state holds only its digest (no key to decrypt)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.secrets import KEY_ENV, is_masked

    if is_masked(value):
        raise HotcError(
            f"output {name!r} of stack {stack!r} is stored as a digest only: no state key to decrypt it "
            f"(set {KEY_ENV} to the key the state was written with)"
        )
    return value


def _pid(r: Any) -> str | None:
    """The physical id as shown: a secret one (a RandomString's id is the string itself) is masked."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.secrets import shown_physical_id

    return shown_physical_id(r.type, r.physical_id)


def _pid_of(type_name: str, physical_id: str | None) -> str | None:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.secrets import shown_physical_id

    return shown_physical_id(type_name, physical_id)


resource_app = typer.Typer(help="Resources of a stack, as recorded in its state.", no_args_is_help=True)
template_app = typer.Typer(help="The template of a stack as last applied.", no_args_is_help=True)


@resource_app.command("list")
def resource_list(stack: StackArg, fmt: FmtOpt = "text", backend: BackendOpt = None) -> None:
    """List the stack's resources: address, type, status, physical id."""
    check_format(fmt, ("text", "json"))
    state = _state(stack, backend)
    rows = sorted(state.resources.values(), key=lambda r: r.address)
    if fmt == "json":
        sys.stdout.write(
            json.dumps(
                [
                    {
                        "address": r.address,
                        "type": r.declared_type or r.type,
                        **({"provider_type": r.type} if r.declared_type else {}),
                        "status": r.status,
                        "physical_id": _pid(r),
                        "status_reason": r.status_reason,
                        "updated_at": r.updated_at,
                        "deposed": [_pid_of(r.type, d.physical_id) for d in r.deposed],
                    }
                    for r in rows
                ],
                indent=2,
            )
            + "\n"
        )
        return
    if not rows:
        sys.stdout.write(f"Stack {stack} has no resources.\n")
        return
    w_a = max(len("ADDRESS"), *(len(r.address) for r in rows))
    w_t = max(len("TYPE"), *(len(r.type) for r in rows))
    w_s = max(len("STATUS"), *(len(r.status) for r in rows))
    sys.stdout.write(f"{'ADDRESS':<{w_a}}  {'TYPE':<{w_t}}  {'STATUS':<{w_s}}  PHYSICAL ID\n")
    for r in rows:
        extra = f"  (+{len(r.deposed)} old instance(s) to delete)" if r.deposed else ""
        sys.stdout.write(f"{r.address:<{w_a}}  {r.type:<{w_t}}  {r.status:<{w_s}}  {_pid(r) or '-'}{extra}\n")


@resource_app.command("show")
def resource_show(
    stack: StackArg,
    name: Annotated[str, typer.Argument(help="Resource address.")],
    fmt: FmtOpt = "text",
    backend: BackendOpt = None,
) -> None:
    """Show one resource: status, physical id, properties as applied, attributes, dependencies."""
    check_format(fmt, ("text", "json"))
    state = _state(stack, backend)
    r = state.resources.get(name)
    if r is None:
        near = [
            a for a in state.resources if a.split("[")[0].split(".")[0] == name.split("[")[0].split(".")[0]
        ]
        hint = f" (did you mean {', '.join(sorted(near)[:5])}?)" if near else ""
        raise HotcError(f"stack {stack!r} has no resource {name!r}{hint}; see 'hotc resource list {stack}'")
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state.codec import resource_to_dict

    masked = resource_to_dict(r, None)
    doc = {
        "address": r.address,
        "type": r.declared_type or r.type,
        **({"provider_type": r.type} if r.declared_type else {}),
        "physical_id": _pid(r),
        "status": r.status,
        "status_reason": r.status_reason,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "deletion_policy": r.deletion_policy,
        "dependencies": list(r.dependencies),
        # sensitive properties and attributes (a RandomString's value) masked as stored
        "properties": masked["properties"],
        "attributes": masked["attributes"],
        "deposed": [
            {
                "physical_id": _pid_of(d.type or r.type, d.physical_id),
                "status": d.status,
                "type": d.type or r.type,
                "deletion_policy": d.deletion_policy,
            }
            for d in r.deposed
        ],
    }
    if fmt == "json":
        sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        return
    for k, v in doc.items():
        if isinstance(v, dict | list):
            if not v:
                continue
            text = json.dumps(v, indent=2, default=str).replace("\n", "\n  ")
            sys.stdout.write(f"{k}:\n  {text}\n")
        else:
            sys.stdout.write(f"{k}: {'' if v is None else v}\n")


@template_app.command("show")
def template_show(
    stack: StackArg,
    backend: BackendOpt = None,
    file: Annotated[
        str | None,
        typer.Option(
            "--file",
            help="Show this file of the stack (an environment, a get_file target) instead of the main template.",
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="text (the file), or json: {main, environments, files: {path: text}}."
        ),
    ] = "text",
) -> None:
    """Print the template as last applied (stored in the state)."""
    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    state = _state(stack, backend)
    t = state.template or {}
    files = t.get("files") or {}
    main = file or t.get("main")
    if not main or main not in files:
        if file:
            raise HotcError(
                f"stack {stack!r} has no stored file {file!r} (files: {', '.join(sorted(files)) or 'none'})"
            )
        raise HotcError(
            f"stack {stack!r} has no stored template (it was never applied successfully, or it was destroyed)"
        )
    if fmt == "json":
        doc = {"main": main, "environments": list(t.get("environments") or []), "files": dict(files)}
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return
    text = files[main]
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def events_seen_in_progress(events: list[Any]) -> bool:
    """Whether the newest stack event says a run is still in progress."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.events import STACK_TYPE

    stack_events = [e for e in events if e.type == STACK_TYPE]
    return bool(stack_events) and stack_events[-1].status.endswith("_IN_PROGRESS")


def events_command(
    stack: StackArg,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Keep printing new events until the run in progress ends (or Ctrl-C); ends at once when no "
            "run holds the stack's lock.",
        ),
    ] = False,
    nested_depth: Annotated[
        int | None,
        typer.Option(
            "--nested-depth",
            min=0,
            help="Show resources of nested stacks down to depth N (0: top level only; default: all).",
        ),
    ] = None,
    backend: BackendOpt = None,
    poll: Annotated[
        float, typer.Option("--poll", min=0.05, help="Seconds between reads with --follow.")
    ] = 1.0,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text, or json: one JSON object per event and line.")
    ] = "text",
) -> None:
    """The stack's events (resource transitions), oldest first; works while an apply runs elsewhere.
    ``--format json`` writes JSON lines (time, address, type, status, reason, physical_id, id), also with
    --follow."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.events import STACK_TYPE, format_event, nesting_depth
    from hotc.state import backend_from_config

    if fmt not in ("text", "json"):
        raise HotcError(f"--format {fmt!r}: choose one of text, json")
    b: Any = backend_from_config(backend)
    last: str | None = None

    def show(events: list[Any]) -> bool:
        ended = False
        for e in events:
            if e.type == STACK_TYPE:
                ended = not e.status.endswith("_IN_PROGRESS")
            elif nested_depth is not None and nesting_depth(e.address) > nested_depth:
                continue
            if fmt == "json":
                sys.stdout.write(json.dumps(e.to_dict(), sort_keys=True) + "\n")
            else:
                sys.stdout.write(format_event(e) + "\n")
        sys.stdout.flush()
        return ended

    def running() -> bool:
        """Whether a run holds the stack's lock (read without touching it; a dead holder's record does not
        count). Asked *before* reading events: a run that ends after the answer has its end event in the read."""
        lk = b.peek_lock(stack)
        return lk is not None and not lk.holder_gone() and not lk.expired_at()

    active = running() if follow else False
    events = b.read_events(stack, after=None)
    if not events and not follow:
        state, _ = b.read(stack)
        if state is None:
            # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
            from hotc.cli.common import other_stacks

            raise HotcError(
                f"stack {stack!r} has no state and no events in {b.describe()}.{other_stacks(b, stack)}"
            )
    # a run holding the lock after an earlier run's end event: a new run is starting, follow it
    ended = show(events) and not active
    if events:
        last = events[-1].id
    if not follow or ended:  # the run already ended before we looked: nothing more will come
        return
    # --follow ends when the run's stack event says it ended, or when no run holds the lock (none was going
    # on, or it ended before the first read, or it was killed): never waits for a run that is not there
    try:
        while active and not ended:
            time.sleep(poll)
            active = running()
            new = b.read_events(stack, after=last)
            if new:
                last = new[-1].id
                ended = show(new)
    except KeyboardInterrupt:
        return
    if not ended and events_seen_in_progress(b.read_events(stack, after=None)):
        sys.stderr.write(
            f"hotc: the run on stack {stack!r} ended without a final stack event (was it killed?); "
            "its state keeps what it did: run `hotc plan` to see what is left\n"
        )
        raise typer.Exit(1)


LifecycleFmtOpt = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        help="text, or json: {stack, status, resources: \\[{address, type, status, reason, physical_id}]}.",
    ),
]


def _last_event_id(stack: str, backend: str | None) -> str | None:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.state import backend_from_config

    events = backend_from_config(backend).read_events(stack)
    return events[-1].id if events else None


def _run_doc(stack: str, backend: str | None, before: str | None) -> dict[str, Any]:
    """What a run recorded, from its events: the stack's final status and one entry per resource
    transition that ended (the ``--format json`` document of apply, destroy, check, suspend, resume)."""
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.apply.events import STACK_TYPE
    from hotc.state import backend_from_config

    new = backend_from_config(backend).read_events(stack, after=before)
    final = [e for e in new if e.type == STACK_TYPE]
    return {
        "stack": stack,
        "status": final[-1].status if final else None,
        "status_reason": final[-1].reason if final else None,
        "resources": [
            {
                "address": e.address,
                "type": e.type,
                "status": e.status,
                "reason": e.reason,
                "physical_id": e.physical_id,
            }
            for e in new
            if e.type != STACK_TYPE and not e.status.endswith("_IN_PROGRESS")
        ],
    }


def _lifecycle(fmt: str, stack: str, backend: str | None, run: Any) -> None:
    """Run a lifecycle operation (check, suspend, resume); with ``--format json`` print what it recorded
    (its events: one per resource transition and the stack's outcome) instead of the text lines."""
    check_format(fmt, ("text", "json"))
    if fmt == "text":
        code = run(sys.stdout)
    else:
        before = _last_event_id(stack, backend)
        code = run(io.StringIO())
        sys.stdout.write(json.dumps(_run_doc(stack, backend, before), indent=2) + "\n")
    if code:
        raise typer.Exit(code)


def check_command(
    stack: StackArg, backend: BackendOpt = None, os_cloud: OsCloudOpt = None, fmt: LifecycleFmtOpt = "text"
) -> None:
    """Check that every resource of the stack still exists (read through its driver); exit 1 if any is missing."""
    _lifecycle_op("check", stack, backend, os_cloud, 0.0, fmt)


def _lifecycle_op(
    action: str, stack: str, backend: str | None, os_cloud: str | None, lock_timeout: float, fmt: str
) -> None:
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.lifecycle import LifecycleRequest, run_lifecycle

    request = LifecycleRequest(action=action, stack=stack, backend=backend, lock_timeout=lock_timeout)
    _lifecycle(
        fmt,
        stack,
        backend,
        lambda out: run_lifecycle(
            request, cloud=root.cloud(os_cloud, prewarm=True), drivers=root.drivers(), out=out, err=sys.stderr
        ),
    )


def suspend_command(
    stack: StackArg,
    backend: BackendOpt = None,
    os_cloud: OsCloudOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    fmt: LifecycleFmtOpt = "text",
) -> None:
    """Suspend the stack's resources that can be suspended (servers…), in reverse dependency order."""
    _lifecycle_op("suspend", stack, backend, os_cloud, lock_timeout, fmt)


def resume_command(
    stack: StackArg,
    backend: BackendOpt = None,
    os_cloud: OsCloudOpt = None,
    lock_timeout: LockTimeoutOpt = 0.0,
    fmt: LifecycleFmtOpt = "text",
) -> None:
    """Resume the stack's suspended resources, in dependency order."""
    _lifecycle_op("resume", stack, backend, os_cloud, lock_timeout, fmt)


def register(app: typer.Typer) -> None:
    app.command("apply")(apply_command)
    app.command("destroy")(destroy_command)
    app.command("output")(output_command)
    app.command("events")(events_command)
    app.command("check")(check_command)
    app.command("suspend")(suspend_command)
    app.command("resume")(resume_command)
    app.add_typer(resource_app, name="resource")
    app.add_typer(template_app, name="template")
