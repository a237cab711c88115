"""The ``hotc`` command line: one typer app; each command group lives in its own module with
``register(app)``, imported only when one of its commands runs (:data:`COMMANDS`). Errors
(:class:`hotc.errors.HotcError`) are printed plainly, never as a traceback."""

from __future__ import annotations

import codecs
import importlib
import os
import sys
from typing import Any

import typer
from typer._click.exceptions import ClickException, UsageError
from typer.core import TyperCommand, TyperGroup
from typer.exceptions import Abort

from hotc import __version__
from hotc.cli.common import WARNED_AT, WARNINGS, did_you_mean, display_diagnostics, display_message
from hotc.cli.helpstyle import tidy
from hotc.cli.params import lighten
from hotc.cli.process_end import OwnProcess
from hotc.errors import HotcError

# Every top-level command: name -> (the module of hotc.cli whose ``register(app)`` adds it, its one-line
# help). Modules are imported only when their command runs, so start-up pays for typer and this table, not
# for the parser, the state backends or openstacksdk (so ``hotc --help`` and ``validate`` start fast).
# tests/review/test_lazy_cli.py checks the table against what each module registers.
COMMANDS: dict[str, tuple[str, str]] = {
    "apply": ("apply", "Make the cloud match a plan (a saved PLANFILE, or one made now from -t)."),
    "cancel": ("cancel_cmd", "Cancel the apply or destroy running on a stack, from anywhere."),
    "check": ("apply", "Check that every resource of the stack still exists."),
    "destroy": ("apply", "Delete every resource of the stack."),
    "drift": (
        "drift_cmd",
        "Report what changed in the cloud outside hotc (read-only; --all for every stack).",
    ),
    "eval": ("eval_cmd", "Evaluate one expression against a template's parameters."),
    "events": ("apply", "The stack's events (resource transitions), oldest first."),
    "force-unlock": ("state", "Remove the lock of STACK left behind by an operation that died."),
    "graph": ("graph", "Draw the dependency graph of a plan or a stack."),
    "hook": ("hook_cmd", "The hooks (breakpoints) a running apply is paused at (poll, clear)."),
    "import": ("import_cmd", "Bring existing cloud objects (or a Heat stack) under hotc's state."),
    "init": ("init_cmd", "Pin a stack's template, environments and settings in hotc.toml."),
    "lint": ("lint_cmd", "Check a template against hotc's security rules."),
    "output": ("apply", "The stack's outputs as of the last apply."),
    "plan": ("plan", "Show exactly what apply would do: every action, every changed property, and why."),
    "plan-store": (
        "plan_store_cmd",
        "Reviewed plans kept beside the stack's state for CI (put, get, drop, list).",
    ),
    "protect": ("protect_cmd", "Protect a stack or its resources from destroy, delete and replace."),
    "resource": ("apply", "The stack's recorded resources (list, show)."),
    "resume": ("apply", "Resume the stack's suspended resources."),
    "show": ("plan", "Render a saved plan or a stack's recorded state."),
    "signal": ("signal_cmd", "Signal a resource (a wait-condition handle, a deployment, a policy)."),
    "snapshot": (
        "snapshot_cmd",
        "Stack snapshots: create, list, show, delete, restore (as 'openstack stack snapshot').",
    ),
    "stack": ("state", "The stacks in the backend (list)."),
    "state": ("state", "State maintenance (list, show, rm, mv, pull, push, history, restore)."),
    "suspend": ("apply", "Suspend the stack's resources that can be suspended."),
    "template": ("apply", "The template as last applied (show)."),
    "types": ("types_cmd", "The resource types hotc knows (list, show), built-in and from plugins."),
    "unprotect": ("protect_cmd", "Lift protection marks set by 'hotc protect'."),
    "validate": ("validate", "Check a template the way Heat's template validate does."),
    "watch": ("watch_cmd", "Execute a stack's scaling signals as they arrive (a long-running reconciler)."),
}


# Options of the root that are also accepted after the command (``hotc plan --no-color``)
GLOBAL_FLAGS = ("--no-color",)


def global_options_first(args: list[str]) -> list[str]:
    """``args`` with the :data:`GLOBAL_FLAGS` given anywhere before a ``--`` moved to the front, where the root
    reads them."""
    end = args.index("--") if "--" in args else len(args)
    moved = [a for a in args[:end] if a in GLOBAL_FLAGS]
    if not moved:
        return args
    return [*dict.fromkeys(moved), *(a for a in args[:end] if a not in GLOBAL_FLAGS), *args[end:]]


def error_lines(exc: HotcError) -> tuple[list[str], str]:
    """What an error prints: its diagnostics (``FILE:LINE:COL: error: ...``, paths as given, each once) and
    its message, without the text a diagnostic already says (``...: MESSAGE``): each problem is printed
    once, with its position."""
    message = exc.message
    diags = display_diagnostics(exc.diagnostics)
    for d in exc.diagnostics:
        if d.message and f": {d.message}" in message:
            message = message.replace(f": {d.message}", "")
    return [str(d) for d in diags], display_message(message)


def once_with_warnings(invoke: Any) -> Any:
    """A command's error about a spot its warnings already described (an undeclared ``get_param``: a
    warning at load, then the planner's error at the same position) keeps its position and says "see the
    warning above" instead of printing the same fact again."""

    def run(ctx: Any) -> Any:
        try:
            return invoke(ctx)
        except HotcError as exc:
            warned = ctx.meta.get(WARNED_AT) or set()
            repeated = [d for d in display_diagnostics(exc.diagnostics) if str(d.pos) in warned]
            if repeated:
                exc.diagnostics = tuple(
                    d
                    for d, shown in zip(exc.diagnostics, display_diagnostics(exc.diagnostics), strict=False)
                    if str(shown.pos) not in warned
                )
                for d in repeated:
                    exc.message = exc.message.replace(f": {d.message}", "")
                exc.message += " (see the warning above)"
            raise

    return run


def comment_on_failure(invoke: Any) -> Any:
    """``plan --format markdown`` that fails still writes a comment (showing the error) on stdout: a bot that
    posts what plan wrote posts the failure, not an empty comment, and replaces the last plan's."""

    def run(ctx: Any) -> Any:
        try:
            return invoke(ctx)
        except HotcError as exc:
            if ctx.params.get("fmt") == "markdown":
                # lazy: hotc --help does not load the planner
                from hotc.planner.api import render_error_markdown

                template = ctx.params.get("template")
                stack = ctx.params.get("stack") or (
                    os.path.splitext(os.path.basename(template))[0] if template else ""
                )
                diags, message = error_lines(exc)
                shown = [*(ctx.meta.get(WARNINGS) or []), *diags]
                sys.stdout.write(render_error_markdown(stack or "-", message, shown))
                sys.stdout.flush()
            raise

    return run


class LazyGroup(TyperGroup):
    """The root group: lists the commands of :data:`COMMANDS` from the table and imports a command's module
    when the command is resolved (run, or completed); ``--help`` shows the table's one-line help."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._loaded: set[str] = set()

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def _load(self, module_name: str) -> None:
        if module_name in self._loaded:
            return
        self._loaded.add(module_name)
        module = importlib.import_module(f"hotc.cli.{module_name}")
        sub = typer.Typer(rich_markup_mode=None)
        module.register(sub)
        group = typer.main.get_group(sub)
        assert isinstance(group, TyperGroup)
        for name, cmd in group.commands.items():
            if name in ("plan", "apply"):
                cmd.invoke = once_with_warnings(cmd.invoke)  # type: ignore[method-assign]
            if name == "plan":
                cmd.invoke = comment_on_failure(cmd.invoke)  # type: ignore[method-assign]
            tidy(name, cmd)  # the house help style, metavars, examples, completion (hotc/cli/helpstyle.py)
            self.commands[name] = cmd

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = self.commands.get(cmd_name)
        if cmd is not None:
            return cmd
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        return TyperCommand(name=cmd_name, help=entry[1], short_help=entry[1])  # for the listing only

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        lighten(self, ctx, deep=False)  # no pydantic on the way to a command (hotc/cli/params.py)
        result: list[str] = super().parse_args(ctx, global_options_first(args))
        return result

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] in COMMANDS:
            self._load(COMMANDS[args[0]][0])
        elif args and args[0] not in self.commands and not args[0].startswith("-"):
            # the listing, not only the loaded commands: ``hotc plna`` suggests ``plan``
            raise UsageError(
                f"No such command '{args[0]}'.{did_you_mean(args[0], self.list_commands(ctx))}", ctx
            )
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None:
            lighten(cmd, ctx)
        return name, cmd, rest


app = typer.Typer(
    name="hotc",
    help="Plan/apply compiler for OpenStack Heat Orchestration Templates.",
    epilog="--no-color may also follow the command (hotc plan --no-color ...). Every command's help: "
    "hotc COMMAND -h.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every command's context
    # plain help text: rich's help formatter costs about 0.1 s of start-up (typer.rich_utils, rich.markdown)
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"hotc {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print hotc's version and exit.", callback=_version, is_eager=True
    ),
    no_color: bool = typer.Option(
        False, "--no-color", help="No colours in any output (also: the NO_COLOR environment variable)."
    ),
) -> None:
    """Plan/apply compiler for OpenStack Heat Orchestration Templates."""
    if no_color:
        os.environ["NO_COLOR"] = "1"  # the process's own setting, read where output is coloured
    # (a callback keeps typer in sub-command mode; the commands come from LazyGroup)


# What a character the terminal's encoding cannot show is written as (``PYTHONIOENCODING=cp1252``, a Windows
# console, LANG=C): the nearest ASCII, never a UnicodeEncodeError halfway through a plan
ASCII_FALLBACK = {
    "→": "->",
    "←": "<-",
    "…": "...",
    "−": "-",
    "–": "-",
    "—": "-",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "ʼ": "'",
    "·": ".",
    "➕": "+",
    "🔧": "~",
    "♻": "-/+",
    "🗑": "-",
    "⚠": "!",
    "📤": "x",
    "⛔": "X",
    "👥": "*",
    "✓": "ok",
    "✗": "x",
    "\ufe0f": "",
}
ERRORS_HANDLER = "hotc-ascii"


def _ascii_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    # lazy: only when a stream cannot encode a character (hotc --help does not load it)
    import unicodedata

    out = []
    for ch in exc.object[exc.start : exc.end]:
        near = ASCII_FALLBACK.get(ch)
        if near is None:
            near = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"
        out.append(near)
    return "".join(out), exc.end


def use_ascii_fallback(*streams: Any) -> None:
    """Streams whose encoding is not UTF-8 write what they cannot encode as :data:`ASCII_FALLBACK`."""
    try:
        codecs.lookup_error(ERRORS_HANDLER)
    except LookupError:
        codecs.register_error(ERRORS_HANDLER, _ascii_fallback)
    for stream in streams:
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None:
            continue
        try:
            if codecs.lookup(encoding).name != "utf-8":
                reconfigure(errors=ERRORS_HANDLER)
        except (LookupError, ValueError, OSError):
            continue


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Without ``argv`` (the console script, ``python -m hotc``) the process is
    hotc's own: a command may end it without the interpreter's teardown once it has written everything
    (:mod:`hotc.cli.process_end`); with ``argv`` (a caller's process) every command returns.

    Exit codes: a usage error (an unknown option or command, a value that does not convert, a missing or
    extra argument) exits 1 like every other error, never click's 2: with ``--detailed-exitcode`` 2 means
    "changes present" and nothing else."""
    use_ascii_fallback(sys.stdout, sys.stderr)
    try:
        code = app(
            args=argv, prog_name="hotc", standalone_mode=False, obj=OwnProcess() if argv is None else None
        )
    except HotcError as exc:
        diags, message = error_lines(exc)
        for line in diags:
            print(line, file=sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except ClickException as exc:  # UsageError, BadParameter, NoSuchOption, MissingParameter, FileError ...
        exc.show()
        sys.exit(1)
    except Abort:  # end of input at a prompt
        print("Aborted.", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    # standalone_mode=False: a command's typer.Exit(N) comes back as N; a command that returns gives None
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)
