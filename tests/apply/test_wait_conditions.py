"""Wait conditions over the signal store, offline: moto's S3 server is the store, ``hotc apply`` runs as a
process, and the test plays the server: it reads the rendered script (what a server's user_data would hold)
from the state and runs it with bash, so the exact ``curl_cli`` command hotc made is what signals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.s3 import S3Bucket, S3Server

REPO = Path(__file__).resolve().parents[2]

SCRIPT_WAIT = """heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 2}
  timeout: {type: number, default: 60}
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
  script:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: |
            #!/bin/bash
            set -e
            wc_notify --data-binary '{"status": "SUCCESS", "reason": "first up", "data": "one"}'
            wc_notify --data-binary '{"status": "SUCCESS", "id": "web2", "data": {"k": 2}}'
          params:
            wc_notify: {get_attr: [handle, curl_cli]}
  wait:
    type: OS::Heat::WaitCondition
    depends_on: script
    properties:
      handle: {get_resource: handle}
      count: {get_param: count}
      timeout: {get_param: timeout}
outputs:
  data: {value: {get_attr: [wait, data]}}
  notify: {value: {get_attr: [handle, curl_cli]}}
"""


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE", "HOTC_STATE_KEY"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def _hotc(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _start_apply(cwd: Path, store: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hotc",
            "apply",
            "-t",
            "t.yaml",
            "--auto-approve",
            "--signal-store",
            store,
            *extra,
        ],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _resource(cwd: Path, stack: str, address: str, deadline_s: float = 60) -> Any:
    """The resource once it is CREATE_COMPLETE in the state (read as hotc reads it, with the local key)."""
    from hotc.state import backend_from_config

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if (cwd / ".hotc" / f"{stack}.json").exists():
            state, _ = backend_from_config(None, cwd, env={}).read(stack)
            rs = state.resources.get(address) if state is not None else None
            if rs is not None and rs.status == "CREATE_COMPLETE":
                return rs
        time.sleep(0.2)
    raise AssertionError(f"{address} never completed")


def _play_server(cwd: Path, stack: str) -> subprocess.CompletedProcess[str]:
    script = _resource(cwd, stack, "script").attributes["value"]
    assert script.startswith("#!/bin/bash") and "curl -i -X PUT" in script
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


@pytest.fixture
def work(tmp_path: Path, s3_bucket: S3Bucket) -> tuple[Path, str]:
    (tmp_path / "t.yaml").write_text(SCRIPT_WAIT)
    return tmp_path, f"s3://{s3_bucket.name}/sig"


def test_two_curl_signals_complete_a_count_2_wait_condition(work: tuple[Path, str]) -> None:
    cwd, store = work
    proc = _start_apply(cwd, store)
    served = _play_server(cwd, "t")
    assert served.returncode == 0, served.stderr
    assert served.stdout.count("HTTP/1.1 200") == 2  # curl -i shows the store's answers
    rc, out, err = _finish(proc)
    assert rc == 0, out + err
    assert "wait: 1 of 2 signals," in out or "wait: 0 of 2 signals," in out  # progress while it waited
    assert "wait: 2 of 2 signals," in out
    shown = _hotc(cwd, "output", "t", "--format", "json")
    outputs = json.loads(shown.stdout)
    data = outputs["data"] if not isinstance(outputs["data"], dict) else outputs["data"].get("value")
    assert json.loads(data) == {"1": "one", "web2": {"k": 2}}  # Heat's data: id -> data, default id N
    text = _hotc(cwd, "output", "t")
    assert "notify = (sensitive)" in text.stdout and "X-Amz-Signature" not in text.stdout
    # the presigned URL is a credential: nowhere in clear in the state, its backup or the events
    for f in (cwd / ".hotc").iterdir():
        assert "X-Amz-Signature" not in f.read_text(errors="replace"), f.name
    assert "X-Amz-Signature" not in out + err


def test_a_failure_signal_fails_the_apply_with_its_reason(work: tuple[Path, str]) -> None:
    cwd, store = work
    proc = _start_apply(cwd, store)
    script = _resource(cwd, "t", "script").attributes["value"]
    first_line = next(ln for ln in script.splitlines() if ln.startswith("curl"))
    failing = first_line.replace(
        '"status": "SUCCESS", "reason": "first up"', '"status": "FAILURE", "reason": "disk full"'
    )
    assert failing != first_line
    subprocess.run(["bash", "-c", failing], check=True, capture_output=True, timeout=60)
    rc, out, err = _finish(proc)
    assert rc == 1
    assert "error: create wait: WaitConditionFailure: resources.wait: disk full" in err


def test_a_missing_signal_times_out_with_a_clear_message(work: tuple[Path, str]) -> None:
    cwd, store = work
    rc, out, err = _finish(_start_apply(cwd, store, "--parameter", "timeout=2", "--parameter", "count=1"))
    assert rc == 1
    assert "error: create wait: WaitConditionTimeout: resources.wait: 0 of 1 received" in err


def test_hotc_signal_completes_a_waiting_condition(work: tuple[Path, str]) -> None:
    cwd, store = work
    proc = _start_apply(cwd, store, "--parameter", "count=1")
    _resource(cwd, "t", "handle")
    r = _hotc(
        cwd, "signal", "t", "wait", "--signal-store", store, "--data", '{"reason": "by hand", "data": 7}'
    )
    assert r.returncode == 0, r.stderr
    rc, out, err = _finish(proc)
    assert rc == 0, out + err
    assert json.loads(_resource(cwd, "t", "wait").attributes["data"]) == {"1": 7}
    bad = _hotc(cwd, "signal", "t", "script", "--signal-store", store)
    assert bad.returncode == 1 and "hotc signal sends to a wait-condition handle" in bad.stderr


SWIFT = """heat_template_version: 2018-08-31
resources:
  handle: {type: OS::Heat::SwiftSignalHandle}
  script:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: |
            #!/bin/bash
            set -e
            notify --data-binary ''
            notify --data-binary '{"data": "x", "extra": "allowed"}'
          params:
            notify: {get_attr: [handle, curl_cli]}
  wait:
    type: OS::Heat::SwiftSignal
    depends_on: script
    properties: {handle: {get_resource: handle}, count: 2, timeout: 60}
"""


def test_swift_signal_over_the_store(tmp_path: Path, s3_bucket: S3Bucket) -> None:
    (tmp_path / "t.yaml").write_text(SWIFT)
    proc = _start_apply(tmp_path, f"s3://{s3_bucket.name}/sig")
    served = _play_server(tmp_path, "t")
    assert served.returncode == 0, served.stderr
    rc, out, err = _finish(proc)
    assert rc == 0, out + err
    # Heat's SwiftSignal: an empty body is a success with no data, ids by position, extra keys allowed
    assert json.loads(_resource(tmp_path, "t", "wait").attributes["data"]) == {"1": None, "2": "x"}


def test_count_2_on_a_store_without_versioning_is_a_plan_error(tmp_path: Path, moto_s3: S3Server) -> None:
    (tmp_path / "t.yaml").write_text(SCRIPT_WAIT)
    bucket = moto_s3.make_bucket(versioning=False)
    env_ok = dict(os.environ)
    assert env_ok.get("AWS_ACCESS_KEY_ID")
    r = subprocess.run(
        [sys.executable, "-m", "hotc", "plan", "-t", "t.yaml", "--signal-store", f"s3://{bucket}/sig"],
        cwd=tmp_path,
        env=_env({"AWS_ENDPOINT_URL_S3": moto_s3.endpoint}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1
    assert "does not keep object versions" in r.stderr and "put-bucket-versioning" in r.stderr
    one = subprocess.run(
        [sys.executable, "-m", "hotc", "plan", "-t", "t.yaml", "--signal-store", f"s3://{bucket}/sig"]
        + ["--parameter", "count=1"],
        cwd=tmp_path,
        env=_env({"AWS_ENDPOINT_URL_S3": moto_s3.endpoint}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert one.returncode == 0, one.stderr  # one signal needs no versions


def test_handles_on_a_state_without_an_encryption_key_are_a_plan_error(
    work: tuple[Path, str], s3_bucket: S3Bucket
) -> None:
    cwd, store = work
    r = _hotc(cwd, "plan", "-t", "t.yaml", "--backend", s3_bucket.url, "--signal-store", store)
    assert r.returncode == 1
    assert "error: handle: a signal handle's URL is a secret kept encrypted in the state" in r.stderr
    assert "set HOTC_STATE_KEY" in r.stderr
