"""``hotc watch`` as a process, offline: moto's S3 server is the signal store, the group's members are
OS::Heat::TestResource. The test plays Aodh: it POSTs an alarm (JSON, no credential) to the policy's
``alarm_url``, which points at the watcher's receiver. It waits for the watcher's log lines (each an order
gate), never for a number of seconds: the deadline only keeps a broken watcher from hanging the suite."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import requests

from hotc.state import backend_from_config
from tests.apply.test_scaling import TEMPLATE
from tests.clirun import run_hotc
from tests.fixtures.s3 import S3Bucket, free_port

REPO = Path(__file__).resolve().parents[2]
GUARD = 120.0  # seconds: only so that a broken watcher fails the test instead of hanging it


class Watcher:
    """``hotc watch STACK`` as a process; its output lines (stderr and stdout) in order through a queue."""

    def __init__(
        self, cwd: Path, store: str, port: int, stack: str = "t", env: dict[str, str] | None = None
    ) -> None:
        env = {**(env if env is not None else os.environ), "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
        for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE"):
            env.pop(k, None)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hotc",
                "watch",
                stack,
                "--interval",
                "0.2",
                "--listen",
                f"127.0.0.1:{port}",
                "--signal-store",
                store,
            ],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.ended = 0
        threading.Thread(target=self._read, args=(self.proc.stderr,), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, text: str) -> str:
        while True:
            try:
                line = self.lines.get(timeout=GUARD)
            except queue.Empty:
                raise AssertionError(f"the watcher never logged {text!r}; it logged: {self.seen}") from None
            if line is None:
                self.ended += 1
                if self.ended == 2:
                    raise AssertionError(f"the watcher ended before logging {text!r}; it logged: {self.seen}")
                continue
            self.seen.append(line)
            assert "Traceback" not in line, self.seen
            if text in line:
                return line

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=GUARD)


def aodh_post(url: str, state: str = "alarm") -> requests.Response:
    """What Aodh's REST notifier sends for an alarm action: a POST of the alarm as JSON."""
    body = {
        "alarm_name": "cpu_high",
        "alarm_id": str(uuid.uuid4()),
        "severity": "low",
        "previous": "ok",
        "current": state,
        "reason": "Transition to alarm due to 1 samples outside threshold",
        "reason_data": {"type": "threshold", "disposition": "outside", "count": 1, "most_recent": 90.0},
    }
    headers = {"Content-Type": "application/json", "x-openstack-request-id": f"req-{uuid.uuid4()}"}
    return requests.post(url, data=json.dumps(body), headers=headers, timeout=30)


def test_watch_executes_alarms_with_cooldown_and_stops_on_sigterm(
    tmp_path: Path, s3_bucket: S3Bucket
) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = f"s3://{s3_bucket.name}/sig"
    port = free_port()
    receiver = f"http://127.0.0.1:{port}"
    r = run_hotc(
        tmp_path,
        "apply",
        "-t",
        "t.yaml",
        "--auto-approve",
        "--signal-store",
        store,
        "--parameter",
        "cooldown=3600",
        env={"HOTC_SIGNAL_RECEIVER": receiver},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    out = run_hotc(tmp_path, "output", "t", "alarm_url", "--show-sensitive")
    alarm_url = out.stdout.strip().strip('"')
    assert alarm_url.startswith(receiver + "/v1/signal/"), out.stdout

    w = Watcher(tmp_path, store, port)
    try:
        w.wait_for("receiving alarms on")
        w.wait_for("watching stack 't'")
        # a wrong token is refused, and stores nothing
        assert requests.post(alarm_url[:-4] + "AAAA", data="{}", timeout=30).status_code == 404
        resp = aodh_post(alarm_url)
        assert resp.status_code == 202, resp.text
        line = w.wait_for("scaling:")
        assert "up:" in line and "asg 2 → 3 members" in line
        # a second alarm inside the cooldown is refused, and recorded
        assert aodh_post(alarm_url).status_code == 202
        line = w.wait_for("scaling:")
        assert "refused: due to cooldown, cooldown 3600" in line
    finally:
        code = w.stop()
    assert code == 0, w.seen
    w.wait_for("stopped")
    st, _ = backend_from_config(str(tmp_path / ".hotc")).read("t")
    assert st is not None
    assert sorted(a for a in st.resources if a.startswith("asg[")) == ["asg[0]", "asg[1]", "asg[2]"]
    assert [(d.accepted, d.before, d.after) for d in st.groups["asg"].decisions] == [
        (True, 2, 3),
        (False, 3, 3),
    ]
    # nothing is left pending, and the lock was released: a plain apply runs and changes nothing
    r = run_hotc(
        tmp_path,
        "apply",
        "-t",
        "t.yaml",
        "--auto-approve",
        "--signal-store",
        store,
        "--parameter",
        "cooldown=3600",
    )
    assert r.returncode == 0 and "scaling:" not in r.stderr and "No changes" in r.stdout, r.stdout + r.stderr


def test_sigterm_while_idle_stops_at_once(tmp_path: Path, s3_bucket: S3Bucket) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = f"s3://{s3_bucket.name}/sig"
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve", "--signal-store", store)
    assert r.returncode == 0, r.stderr
    w = Watcher(tmp_path, store, free_port())
    w.wait_for("watching stack 't'")
    assert w.stop() == 0
    w.wait_for("SIGTERM: stopping")
    w.wait_for("stopped")
