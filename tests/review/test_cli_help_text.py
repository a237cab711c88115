"""Every command's --help shows its options' help texts whole: brackets in a help text (``group[i]``,
``[signals]``, ``TYPE_GLOB[@ADDRESS_GLOB]``) are not taken for rich markup and dropped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import typer
from typer._click import Command, Context
from typer.testing import CliRunner

from hotc.cli.app import COMMANDS, app


def _commands(group: Any, ctx: Context, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Command]]:
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        yield (*path, name), cmd
        if hasattr(cmd, "list_commands"):
            yield from _commands(cmd, Context(cmd, parent=ctx), (*path, name))


def test_help_texts_with_brackets_are_shown_whole() -> None:
    root = typer.main.get_command(app)
    assert hasattr(root, "list_commands")
    for module_name, _ in COMMANDS.values():
        root._load(module_name)  # the real commands, not the listing's placeholders
    runner = CliRunner()
    checked = 0
    for path, cmd in _commands(root, Context(root), ()):
        wanted = [
            frag
            for p in cmd.params
            for frag in re.findall(r"\S*\[\S*", (getattr(p, "help", None) or "").replace("\\[", "["))
        ]
        if not wanted:
            continue
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"}).stdout
        for frag in wanted:
            assert frag in shown, f"hotc {' '.join(path)} --help drops {frag!r}"
        checked += 1
    assert checked >= 4  # the state address, the signal store, the policy globs, the status format
