"""``hotc cancel STACK`` from another process: the running apply starts nothing new, lets the steps in flight
finish and records them, and exits non-zero saying who cancelled and when; the request is in the event log.
Local and S3 state."""

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


def test_cancel_from_another_process_stops_the_apply(tmp_path: Path, backend: tuple[str, ...]) -> None:
    b = backend
    (tmp_path / "slow.yaml").write_text(SLOW)
    p = _popen(tmp_path, "apply", "-t", "slow.yaml", "--auto-approve", *b)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # both slow creates in flight
        st = _state(tmp_path, b)
        if st is not None and all(x in st.resources and st.resources[x].physical_id for x in "ac"):
            break
        time.sleep(0.1)
    else:
        p.kill()
        raise AssertionError("the apply never started: " + p.communicate()[1])
    r = hotc(tmp_path, "cancel", "slow", "--timeout", "60", *b)
    out, err = p.communicate(timeout=60)
    assert r.returncode == 0, r.stderr
    assert "It stopped" in r.stdout and "CREATE_FAILED" in r.stdout and "cancelled by" in r.stdout
    assert p.returncode == 1, (out, err)
    assert "cancelled by" in err and "Traceback" not in err
    st = _state(tmp_path, b)
    # the steps in flight finished and were recorded; what depended on them never started
    assert st.resources["a"].status == "CREATE_COMPLETE" and st.resources["c"].status == "CREATE_COMPLETE"
    assert "b" not in st.resources
    assert st.status == "CREATE_FAILED" and st.status_reason.startswith("cancelled by ")
    events = hotc(tmp_path, "events", "slow", *b).stdout
    assert "CANCEL_REQUESTED" in events
    # the lock is free: the next apply finishes the stack
    r = hotc(tmp_path, "apply", "-t", "slow.yaml", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    assert set(_state(tmp_path, b).resources) == {"a", "b", "c"}


def test_cancel_with_nothing_running(tmp_path: Path) -> None:
    r = hotc(tmp_path, "cancel", "nope")
    assert r.returncode == 1 and "not found" in r.stderr
    (tmp_path / "slow.yaml").write_text(SLOW.replace("10}", "0}"))
    assert hotc(tmp_path, "apply", "-t", "slow.yaml", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "cancel", "slow")
    assert r.returncode == 1 and "no operation in progress" in r.stderr
