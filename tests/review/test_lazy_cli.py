"""The command line imports a command's module only when that command runs; the table of commands in
hotc/cli/app.py is checked against what every module registers."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import typer
from typer.testing import CliRunner

import hotc.cli as cli_pkg
from hotc.cli.app import COMMANDS, app


def _registered() -> dict[str, str]:
    out: dict[str, str] = {}
    for info in pkgutil.iter_modules(cli_pkg.__path__):
        module = importlib.import_module(f"hotc.cli.{info.name}")
        register = getattr(module, "register", None)
        if not callable(register):
            continue
        sub = typer.Typer()
        register(sub)
        group = typer.main.get_group(sub)
        for name in group.commands:  # type: ignore[attr-defined]
            out[name] = info.name
    return out


def test_the_table_names_every_registered_command_and_its_module() -> None:
    registered = _registered()
    assert {n: COMMANDS[n][0] for n in COMMANDS} == registered, (
        "hotc/cli/app.py COMMANDS must list each command a hotc.cli module registers, with that module"
    )


def test_start_up_imports_no_command_module() -> None:
    code = (
        "import sys, hotc.cli.app\n"
        "heavy = [m for m in sys.modules if m.startswith(('hotc.parser', 'hotc.state', 'hotc.planner',"
        " 'hotc.providers', 'hotc.apply', 'openstack', 'yaml', 'networkx', 'deepdiff', 'lark', 'boto'))]\n"
        "print(','.join(sorted(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def test_help_lists_every_command_without_loading_them() -> None:
    res = CliRunner().invoke(app, ["--help"])
    assert res.exit_code == 0
    for name in COMMANDS:
        assert name in res.output
