"""``hotc events --follow``: it follows the run that holds the stack's lock until its final stack event, and
never waits for a run that is not there (already ended before the first read, never started, or killed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hotc.apply.events import resource_event, stack_event
from hotc.state import backend_from_config
from hotc.state.backend import Lock
from tests.apply.test_cli_apply import QUICKSTART, hotc, popen


def _follow(cwd: Path) -> subprocess.CompletedProcess[str]:
    """``hotc events quickstart --follow`` in its own process, bounded (a hang fails the test)."""
    p = popen(cwd, "events", "quickstart", "--follow", "--poll", "0.1")
    out, err = p.communicate(timeout=60)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_follow_after_the_run_ended_prints_the_events_and_returns(tmp_path: Path) -> None:
    """The run ended before the follower's first read: today's hang (the end event was in the first read and
    was ignored). Now it prints everything and returns."""
    assert hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve").returncode == 0
    r = _follow(tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any("[web]: CREATE_COMPLETE" in x for x in lines)
    assert lines[-1].endswith("CREATE_COMPLETE: Stack create completed successfully")


def test_follow_of_a_killed_run_returns_and_says_so(tmp_path: Path) -> None:
    """A run killed mid-way: its stack event stays IN_PROGRESS and its lock record names a dead process."""
    assert hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve").returncode == 0
    b = backend_from_config(None, tmp_path)
    b.append_events("quickstart", [stack_event("quickstart", "UPDATE_IN_PROGRESS", "Stack UPDATE started")])
    dead = Lock.new("quickstart", "apply")
    dead = Lock(**{**dead.__dict__, "pid": _dead_pid()})
    (tmp_path / ".hotc" / "quickstart.lock").write_text(json.dumps(dead.to_dict()))
    assert dead.holder_gone()
    r = _follow(tmp_path)
    assert r.returncode == 1
    assert r.stdout.splitlines()[-1].endswith("UPDATE_IN_PROGRESS: Stack UPDATE started")
    assert "ended without a final stack event" in r.stderr and "Traceback" not in r.stderr


def test_follow_keeps_following_while_a_run_holds_the_lock(tmp_path: Path) -> None:
    """While the lock is held the follower waits for the end event, even after an earlier run's end."""
    assert hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve").returncode == 0
    b = backend_from_config(None, tmp_path)
    with b.lock("quickstart", "apply"):
        b.append_events(
            "quickstart", [stack_event("quickstart", "UPDATE_IN_PROGRESS", "Stack UPDATE started")]
        )
        p = popen(tmp_path, "events", "quickstart", "--follow", "--poll", "0.05")
        assert p.stdout is not None
        seen = []
        while not seen or "UPDATE_IN_PROGRESS" not in seen[-1]:  # the follower has read the run's start
            line = p.stdout.readline()
            assert line, p.communicate(timeout=30)
            seen.append(line)
        b.append_events(
            "quickstart",
            [
                resource_event("web", "OS::Heat::TestResource", "UPDATE_COMPLETE", "state changed"),
                stack_event("quickstart", "UPDATE_COMPLETE", "Stack UPDATE completed successfully"),
            ],
        )
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    lines = (("".join(seen)) + out).splitlines()
    assert any("[web]: UPDATE_COMPLETE" in x for x in lines)
    assert lines[-1].endswith("UPDATE_COMPLETE: Stack UPDATE completed successfully")
