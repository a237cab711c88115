"""Wait conditions on the real test cloud, with moto's S3 as the signal store.

The test plays the server: it reads the server's user_data back from Nova (microversion 2.3) and runs it with
bash, as cloud-init runs a ``#!`` user-data script; the curl in it is whatever the template made of the handle's
``curl_cli``. The same template is created in the cloud's Heat and its server's user_data run the same way, so
the ``data`` both give can be compared."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cloud import CloudTracker, SharedResources
from tests.fixtures.s3 import S3Bucket

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
  status: {type: string, default: SUCCESS}
  count: {type: number, default: 2}
  timeout: {type: number, default: 300}
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{network: {get_param: network}}]
      user_data_format: RAW
      user_data:
        str_replace:
          template: |
            #!/bin/bash
            set -e
            wc_notify --data-binary '{"status": "$status", "reason": "web up", "data": "10.0.0.5"}'
            wc_notify --data-binary '{"status": "SUCCESS", "id": "second", "data": {"port": 80}}'
          params:
            wc_notify: {get_attr: [handle, curl_cli]}
            $status: {get_param: status}
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      count: {get_param: count}
      timeout: {get_param: timeout}
outputs:
  data: {value: {get_attr: [wait, data]}}
"""


def _params(shared: SharedResources) -> dict[str, str]:
    return {"image": shared.image_name, "flavor": shared.flavor_name, "network": shared.private_network_name}


def _env(cloud_env: dict[str, str]) -> dict[str, str]:
    env = {**cloud_env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE"):
        env.pop(k, None)
    env["AWS_ENDPOINT_URL_S3"] = os.environ["AWS_ENDPOINT_URL_S3"]
    return env


def _apply(
    cwd: Path, env: dict[str, str], stack: str, store: str, params: dict[str, str]
) -> subprocess.Popen[str]:
    args = [
        sys.executable,
        "-m",
        "hotc",
        "apply",
        "-t",
        "t.yaml",
        stack,
        "--auto-approve",
        "--signal-store",
        store,
    ]
    for k, v in params.items():
        args += ["--parameter", f"{k}={v}"]
    return subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _user_data(cloud: Any, server_id: str) -> str:
    """The server's user_data as Nova holds it (what cloud-init would read from the metadata service)."""
    r = cloud.compute.get(f"/servers/{server_id}", microversion="2.3")
    r.raise_for_status()
    raw = r.json()["server"]["OS-EXT-SRV-ATTR:user_data"]
    return base64.b64decode(raw).decode()


def _server_of(cwd: Path, stack: str, deadline_s: float = 300) -> str:
    """The server's id once hotc recorded it (names are shortened to Nova's limit, so not found by name)."""
    from hotc.state import backend_from_config

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if (cwd / ".hotc" / f"{stack}.json").exists():
            state, _ = backend_from_config(None, cwd, env={}).read(stack)
            rs = state.resources.get("server") if state is not None else None
            if rs is not None and rs.physical_id and rs.status == "CREATE_COMPLETE":
                return str(rs.physical_id)
        time.sleep(1)
    raise AssertionError("hotc never created the server")


def _run_like_cloud_init(user_data: str) -> subprocess.CompletedProcess[str]:
    assert user_data.startswith("#!/bin/bash")
    return subprocess.run(["bash", "-c", user_data], capture_output=True, text=True, timeout=120)


def _hotc_outputs(cwd: Path, env: dict[str, str], stack: str) -> dict[str, Any]:
    r = subprocess.run(
        [sys.executable, "-m", "hotc", "output", stack, "--format", "json"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in doc.items()}


def _destroy(cwd: Path, env: dict[str, str], stack: str, store: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "hotc", "destroy", stack, "--auto-approve", "--signal-store", store],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


@pytest.fixture
def setup(
    tmp_path: Path,
    s3_bucket: S3Bucket,
    hotc_cloud_env: dict[str, str],
    cloud_shared: SharedResources,
    cloud_tracker: CloudTracker,
) -> tuple[Path, dict[str, str], str, str, dict[str, str]]:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    return (
        tmp_path,
        _env(hotc_cloud_env),
        cloud_tracker.name("wc"),
        f"s3://{s3_bucket.name}/sig",
        _params(cloud_shared),
    )


def test_server_user_data_curl_completes_a_count_2_wait_condition_as_heat_does(
    cloud: Any, setup: tuple[Path, dict[str, str], str, str, dict[str, str]], cloud_tracker: CloudTracker
) -> None:
    cwd, env, stack, store, params = setup
    proc = _apply(cwd, env, stack, store, params)
    try:
        user_data = _user_data(cloud, _server_of(cwd, stack))
        assert "X-Amz-Signature" in user_data and "curl -i -X PUT" in user_data
        ran = _run_like_cloud_init(user_data)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    assert "wait: 2 of 2 signals" in out
    hotc_data = json.loads(_hotc_outputs(cwd, env, stack)["data"])
    assert hotc_data == {"1": "10.0.0.5", "second": {"port": 80}}
    for f in (cwd / ".hotc").iterdir():  # the URL (in the server's user_data too) is never stored in clear
        assert "X-Amz-Signature" not in f.read_text(errors="replace"), f.name
    assert "X-Amz-Signature" not in out + err

    # the same template in Heat: its server's user_data runs the same way (POST with the stack user's token)
    orch = cloud.orchestration
    hname = cloud_tracker.name("wcheat")
    hstack = cloud_tracker.track(
        orch.create_stack(name=hname, template=TEMPLATE, parameters=params, timeout_mins=10)
    )
    try:
        hserver = None
        deadline = time.monotonic() + 300
        while hserver is None and time.monotonic() < deadline:
            for r in orch.resources(hstack.id):
                if r.name == "server" and r.status == "CREATE_COMPLETE":
                    hserver = r.physical_resource_id
            time.sleep(2)
        assert hserver, "Heat's server never completed"
        heat_ran = _run_like_cloud_init(_user_data(cloud, hserver))
        assert heat_ran.returncode == 0, heat_ran.stdout + heat_ran.stderr
        deadline = time.monotonic() + 300
        done = orch.get_stack(hstack.id)
        while done.status.endswith("IN_PROGRESS") and time.monotonic() < deadline:
            time.sleep(2)
            done = orch.get_stack(hstack.id)
        assert done.status == "CREATE_COMPLETE", done.status_reason
        heat_data = json.loads({o["output_key"]: o["output_value"] for o in done.outputs}["data"])
        assert hotc_data == heat_data
    finally:
        _destroy(cwd, env, stack, store)


def test_a_failure_signal_from_the_server_fails_the_apply_with_its_reason(
    cloud: Any, setup: tuple[Path, dict[str, str], str, str, dict[str, str]]
) -> None:
    cwd, env, stack, store, params = setup
    proc = _apply(cwd, env, stack, store, {**params, "status": "FAILURE"})
    try:
        _run_like_cloud_init(_user_data(cloud, _server_of(cwd, stack)))
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    try:
        assert proc.returncode == 1
        assert "error: create wait: WaitConditionFailure: resources.wait: web up" in err
    finally:
        _destroy(cwd, env, stack, store)


def test_a_missing_signal_times_out_clearly(
    cloud: Any, setup: tuple[Path, dict[str, str], str, str, dict[str, str]]
) -> None:
    cwd, env, stack, store, params = setup
    proc = _apply(cwd, env, stack, store, {**params, "timeout": "5"})
    out, err = proc.communicate(timeout=600)
    try:
        assert proc.returncode == 1
        assert "error: create wait: WaitConditionTimeout: resources.wait: 0 of 2 received" in err
    finally:
        _destroy(cwd, env, stack, store)
