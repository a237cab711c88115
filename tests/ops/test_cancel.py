"""``hotc cancel STACK`` from another process: the running apply starts nothing new, lets the steps in flight
finish and records them, rolls the stack back (unless --no-rollback) and exits non-zero saying who cancelled and
when; the request is in the event log. Local and S3 state."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import run_hotc as hotc

REPO = Path(__file__).resolve().parents[2]

SLOW = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: a, action_wait_secs: {create: 10}}
  c:
    type: OS::Heat::TestResource
    properties: {value: c, action_wait_secs: {create: 10}}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [a, output]}}
"""


def _popen(cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    return subprocess.Popen(
        [sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )


def _state(cwd: Path, b: tuple[str, ...]) -> Any:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(b[1] if b else None, cwd).read("slow")
    return st


@pytest.fixture(params=["local", "s3"])
def backend(request: Any) -> tuple[str, ...]:
    if request.param == "local":
        return ()
    bucket = request.getfixturevalue("s3_bucket")
    request.getfixturevalue("monkeypatch").setenv("HOTC_STATE_KEY", "cancel test key")
    return ("--backend", bucket.url)


def _start_slow(tmp_path: Path, b: tuple[str, ...], template: str = "slow.yaml") -> subprocess.Popen[str]:
    """An apply of ``template`` as stack slow, once both slow actions (a, c) are in flight."""
    p = _popen(tmp_path, "apply", "-t", template, "slow", "--auto-approve", *b)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = _state(tmp_path, b)
        if st is not None and all(
            x in st.resources and st.resources[x].physical_id and st.resources[x].in_progress for x in "ac"
        ):
            return p
        time.sleep(0.1)
    p.kill()
    raise AssertionError("the apply never started: " + p.communicate()[1])


def test_cancel_from_another_process_rolls_the_apply_back(tmp_path: Path, backend: tuple[str, ...]) -> None:
    """A create cancelled: the steps in flight finish, then (Heat's stack cancel) the stack is rolled back: what
    the apply created is deleted. Both ends say who cancelled and when."""
    b = backend
    (tmp_path / "slow.yaml").write_text(SLOW)
    p = _start_slow(tmp_path, b)
    r = hotc(tmp_path, "cancel", "slow", "--timeout", "60", *b)
    out, err = p.communicate(timeout=60)
    assert r.returncode == 0, r.stderr
    assert "It stopped and rolled back" in r.stdout and "ROLLBACK_COMPLETE" in r.stdout
    assert "cancelled by" in r.stdout
    assert p.returncode == 1, (out, err)
    assert "cancelled by" in err and "Traceback" not in err
    assert "Rolling back: stack 'slow' was being created" in out
    st = _state(tmp_path, b)
    assert not st.resources  # a and c finished, then were deleted; b never started
    assert st.status == "ROLLBACK_COMPLETE" and "cancelled by " in st.status_reason
    events = hotc(tmp_path, "events", "slow", *b).stdout
    assert "CANCEL_REQUESTED" in events and "ROLLBACK_IN_PROGRESS" in events
    assert "[a]: DELETE_COMPLETE" in events and "[c]: DELETE_COMPLETE" in events
    # the lock is free: the next apply makes the stack
    r = hotc(tmp_path, "apply", "-t", "slow.yaml", "slow", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    assert set(_state(tmp_path, b).resources) == {"a", "b", "c"}


def test_cancel_no_rollback_stops_the_apply(tmp_path: Path) -> None:
    """--no-rollback: the stack is left as the cancel found it."""
    (tmp_path / "slow.yaml").write_text(SLOW)
    p = _start_slow(tmp_path, ())
    r = hotc(tmp_path, "cancel", "slow", "--no-rollback", "--timeout", "60")
    out, err = p.communicate(timeout=60)
    assert r.returncode == 0, r.stderr
    assert "It stopped:" in r.stdout and "CREATE_FAILED" in r.stdout and "cancelled by" in r.stdout
    assert "not rolled back (as asked: --no-rollback)" in r.stdout
    assert p.returncode == 1, (out, err)
    assert "cancelled by" in err and "Rolling back" not in out
    st = _state(tmp_path, ())
    # the steps in flight finished and were recorded; what depended on them never started
    assert st.resources["a"].status == "CREATE_COMPLETE" and st.resources["c"].status == "CREATE_COMPLETE"
    assert "b" not in st.resources
    assert st.status == "CREATE_FAILED" and st.status_reason.startswith("cancelled by ")
    assert "(no rollback)" in hotc(tmp_path, "events", "slow").stdout
    r = hotc(tmp_path, "apply", "-t", "slow.yaml", "slow", "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert set(_state(tmp_path, ()).resources) == {"a", "b", "c"}


def test_cancelled_update_returns_to_the_last_good_template(tmp_path: Path) -> None:
    """An update cancelled while a and c are being updated: both go back to their last good values, d (made by
    the cancelled update) is deleted."""
    (tmp_path / "fast.yaml").write_text(SLOW.replace("10}", "0}"))
    assert hotc(tmp_path, "apply", "-t", "fast.yaml", "slow", "--auto-approve").returncode == 0
    good = _state(tmp_path, ())
    (tmp_path / "slow.yaml").write_text(
        SLOW.replace("value: a,", "value: a2,")
        .replace("value: c,", "value: c2,")
        .replace("{create: 10}", "{update: 10}")
        + "  d:\n    type: OS::Heat::TestResource\n"
    )
    p = _start_slow(tmp_path, (), "slow.yaml")
    r = hotc(tmp_path, "cancel", "slow", "--timeout", "60")
    out, err = p.communicate(timeout=60)
    assert r.returncode == 0 and "It stopped and rolled back" in r.stdout, r.stdout + r.stderr
    assert p.returncode == 1 and "cancelled by" in err, (out, err)
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_COMPLETE"
    assert {a: x.physical_id for a, x in st.resources.items()} == {
        a: x.physical_id for a, x in good.resources.items()
    }
    assert st.resources["a"].properties["value"] == "a" and st.resources["c"].properties["value"] == "c"
    assert st.template == good.template


def test_cancel_with_nothing_running(tmp_path: Path) -> None:
    r = hotc(tmp_path, "cancel", "nope")
    assert r.returncode == 1 and "not found" in r.stderr
    (tmp_path / "slow.yaml").write_text(SLOW.replace("10}", "0}"))
    assert hotc(tmp_path, "apply", "-t", "slow.yaml", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "cancel", "slow")
    assert r.returncode == 1 and "no operation in progress" in r.stderr


def test_a_rollback_in_progress_cannot_be_cancelled(tmp_path: Path) -> None:
    """As Heat's ``stack cancel``, which refuses a stack in ROLLBACK_IN_PROGRESS: the cancel exits 1 at once
    saying why, and writes no request the rollback would see."""
    from dataclasses import replace

    from hotc.state import backend_from_config

    (tmp_path / "slow.yaml").write_text(SLOW.replace("10}", "0}"))
    assert hotc(tmp_path, "apply", "-t", "slow.yaml", "--auto-approve").returncode == 0
    backend = backend_from_config(None, tmp_path)
    with backend.lock("slow", "apply") as lock:
        st, _ = backend.read("slow")
        assert st is not None
        backend.write("slow", replace(st, status="ROLLBACK_IN_PROGRESS", status_reason="rolling back"), lock)
        before = len(backend.read_events("slow"))
        r = hotc(tmp_path, "cancel", "slow")
        assert r.returncode == 1
        assert "ROLLBACK_IN_PROGRESS" in r.stderr and "a rollback cannot be cancelled" in r.stderr
        assert "hotc events slow" in r.stderr
        assert len(backend.read_events("slow")) == before
