"""The CLI round-trips the cloud tests of admin types share: hotc run as a process against the test cloud,
and one stack's apply / plan / no-change check / resource ids, with the test's template and parameters."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


def changes(out: str) -> dict[str, Any]:
    """The changes of a plan's JSON that do something, by address."""
    return {c["address"]: c for c in json.loads(out)["resource_changes"] if c["actions"] != ["no-op"]}


def named(items: Any, name: str) -> list[Any]:
    return [i for i in items if i.name == name]


@dataclass(frozen=True)
class CliStack:
    """One stack of ``t.yaml`` in ``cwd``, planned and applied with ``params`` plus each call's extras."""

    cwd: Path
    env: dict[str, str]
    stack: str
    params: list[str]

    def _run(self, verb: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return hotc(self.cwd, self.env, verb, "-t", "t.yaml", *self.params, *extra, self.stack)

    def apply(self, *extra: str) -> None:
        r = self._run("apply", *extra, "--auto-approve")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]

    def plan(self, *extra: str) -> dict[str, Any]:
        r = self._run("plan", *extra, "--refresh", "--format", "json")
        assert r.returncode == 0, r.stderr
        return changes(r.stdout)

    def no_change(self, *extra: str) -> None:
        r = self._run("plan", *extra, "--refresh", "--detailed-exitcode")
        assert r.returncode == 0, r.stdout + r.stderr

    def ids(self) -> dict[str, str]:
        """Physical id by address, as ``hotc resource list`` gives them."""
        r = hotc(self.cwd, self.env, "resource", "list", self.stack, "--format", "json")
        assert r.returncode == 0, r.stderr
        rows = json.loads(r.stdout)
        rows = rows.get("resources", rows) if isinstance(rows, dict) else rows
        return {row["address"]: row["physical_id"] for row in rows}
