"""Usage errors exit 1 (2 is "changes present" under --detailed-exitcode), -h works everywhere, global options
follow the command, unknown commands get "did you mean", and every command's help is in one plain style with
an example and no Python types."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click import Context

from hotc.cli.app import COMMANDS, app, global_options_first
from hotc.cli.helpstyle import EXAMPLES
from tests.clirun import run_hotc

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLES_DIR / "quickstart.yaml", tmp_path / "quickstart.yaml")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--detailed-exitcode", "--paralelism", "4", "-t", "quickstart.yaml"),
        ("plan", "--detailed-exitcode", "--parallelism", "abc", "-t", "quickstart.yaml"),
        ("plan", "--detailed-exitcode", "-t", "quickstart.yaml", "one", "two"),
        ("plan", "--detailed-exitcode", "--nope"),
        ("state", "list"),  # a missing argument
        ("plna",),
        ("state", "rmm", "web"),
        ("--bogus",),
    ],
)
def test_usage_errors_exit_1_not_2(work: Path, args: tuple[str, ...]) -> None:
    res = run_hotc(work, *args)
    assert res.returncode == 1, (args, res.returncode, res.stderr)
    assert "Traceback" not in res.stderr
    assert "Error:" in res.stderr


def test_detailed_exitcode_keeps_2_for_changes(work: Path) -> None:
    res = run_hotc(work, "plan", "--detailed-exitcode", "-t", "quickstart.yaml")
    assert res.returncode == 2, res.stderr
    res = run_hotc(work, "plan", "--detailed-exitcode", "--no-color", "-t", "quickstart.yaml")
    assert res.returncode == 2, res.stderr


def test_typo_in_an_option_names_the_close_one(work: Path) -> None:
    res = run_hotc(work, "plan", "--paralelism", "4", "-t", "quickstart.yaml")
    assert "--parallelism" in res.stderr


def test_unknown_command_suggests_the_close_one(work: Path) -> None:
    res = run_hotc(work, "plna")
    assert res.returncode == 1 and "Did you mean 'plan'?" in res.stderr
    res = run_hotc(work, "state", "histroy", "web")
    assert res.returncode == 1 and "Did you mean 'history'?" in res.stderr


def test_no_color_after_the_command(work: Path) -> None:
    res = run_hotc(work, "plan", "-t", "quickstart.yaml", "--no-color")
    assert res.returncode == 0, res.stderr
    assert "\x1b[" not in res.stdout


def test_global_flags_move_only_before_a_double_dash() -> None:
    assert global_options_first(["plan", "-t", "x", "--no-color"]) == ["--no-color", "plan", "-t", "x"]
    assert global_options_first(["eval", "--", "--no-color"]) == ["eval", "--", "--no-color"]


@pytest.mark.parametrize("args", [("-h",), ("plan", "-h"), ("state", "-h"), ("state", "push", "-h")])
def test_dash_h_is_help(work: Path, args: tuple[str, ...]) -> None:
    res = run_hotc(work, *args)
    assert res.returncode == 0 and res.stdout.startswith("Usage: hotc"), res.stderr


def _commands(group: Any, ctx: Context, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        yield (*path, name)
        if hasattr(cmd, "list_commands"):
            yield from _commands(cmd, Context(cmd, parent=ctx), (*path, name))


def _all_paths() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    for module_name, _ in COMMANDS.values():
        root._load(module_name)  # type: ignore[attr-defined]
    return list(_commands(root, Context(root), ()))


def test_every_command_has_an_example_and_no_python_types(work: Path) -> None:
    paths = _all_paths()
    assert len(paths) > 30
    for path in paths:
        assert " ".join(path) in EXAMPLES, f"hotc {' '.join(path)} has no example"
        res = run_hotc(work, *path, "--help")
        assert res.returncode == 0, (path, res.stderr)
        text = res.stdout
        assert "Example:" in text and f"hotc {' '.join(path)}" in text.split("Example:")[1], path
        types = re.findall(r"<(?:list\[\w+\]|str|int|float|path|bool|Path)>", text)
        assert not types, f"hotc {' '.join(path)} --help shows Python types {types}"
        assert "╭" not in text, f"hotc {' '.join(path)} --help is not in the plain style"
        assert "{" not in text.split("\n", 1)[0], f"hotc {' '.join(path)}: usage line {text.splitlines()[0]}"


def test_validate_help_names_sarif(work: Path) -> None:
    res = run_hotc(work, "validate", "--help")
    assert "sarif" in res.stdout.split("Example:")[0]


def test_examples_name_real_commands() -> None:
    paths = {" ".join(p) for p in _all_paths()}
    assert set(EXAMPLES) <= paths


def _complete(cwd: Path, line: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    res = run_hotc(
        cwd,
        env={
            "_HOTC_COMPLETE": "complete_bash",
            "COMP_WORDS": line,
            "COMP_CWORD": str(len(line.split(" ")) - 1),
        },
    )
    return res.stdout.split()


def test_completion_offers_formats_and_stack_names(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _complete(work, "hotc plan --format ", monkeypatch) == ["text", "json", "markdown", "sarif"]
    assert _complete(work, "hotc validate --format s", monkeypatch) == ["sarif"]
    from hotc.state import backend_from_config
    from hotc.state.document import StackState

    b = backend_from_config(str(work / ".hotc"))
    for name in ("web", "db"):
        with b.lock(name, "apply") as lk:
            b.write(name, StackState.new(name), lk)
    monkeypatch.chdir(work)
    assert _complete(work, "hotc state list ", monkeypatch) == ["db", "web"]
    assert _complete(work, "hotc output w", monkeypatch) == ["web"]
