"""A SoftwareConfig (group ``script``) deployed to a server on the real test cloud, end to end with the STOCK
agents (os-collect-config, os-refresh-config, os-apply-config from PyPI; the heat-config hooks and
heat-config-notify from the heat-agents sdist), unmodified, running on this machine in place of the server's
image (tests/fixtures/agents.py). The agents get the server's real user_data, read back from Nova; hotc's
metadata URL and signal URL are presigned URLs into moto's S3."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.agents import AgentImage, cfn_init_data
from tests.fixtures.cloud import CloudTracker, SharedResources
from tests.fixtures.s3 import S3Bucket

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
  greeting: {type: string, default: hello}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: greeting}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "$greeting from $deploy_action"
        echo "to stderr" >&2
        printf '%s' "$greeting-$deploy_action" > "$heat_outputs_path.result"
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{network: {get_param: network}}]
      user_data_format: SOFTWARE_CONFIG
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {greeting: {get_param: greeting}}
      actions: [CREATE, UPDATE, DELETE]
outputs:
  stdout: {value: {get_attr: [deployment, deploy_stdout]}}
  stderr: {value: {get_attr: [deployment, deploy_stderr]}}
  code: {value: {get_attr: [deployment, deploy_status_code]}}
  result: {value: {get_attr: [deployment, result]}}
"""


def _env(cloud_env: dict[str, str]) -> dict[str, str]:
    env = {**cloud_env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE"):
        env.pop(k, None)
    env["AWS_ENDPOINT_URL_S3"] = os.environ["AWS_ENDPOINT_URL_S3"]
    return env


def _hotc(cwd: Path, env: dict[str, str], *args: str, background: bool = False) -> Any:
    cmd = [sys.executable, "-m", "hotc", *args]
    if background:
        return subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _server_id(cwd: Path, stack: str, deadline_s: float = 300) -> str:
    """The server's id once hotc recorded it (names are shortened to Nova's limit, so not found by name)."""
    from hotc.state import backend_from_config

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if (cwd / ".hotc" / f"{stack}.json").exists():
            state, _ = backend_from_config(None, cwd, env={}).read(stack)
            rs = state.resources.get("server") if state is not None else None
            if rs is not None and rs.physical_id:
                return str(rs.physical_id)
        time.sleep(1)
    raise AssertionError("hotc never recorded the server")


def _user_data(cloud: Any, cwd: Path, stack: str, deadline_s: float = 300) -> str:
    sid = _server_id(cwd, stack)
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        s = cloud.compute.get_server(sid)
        if s.status == "ACTIVE":
            r = cloud.compute.get(f"/servers/{sid}", microversion="2.3")
            r.raise_for_status()
            return base64.b64decode(r.json()["server"]["OS-EXT-SRV-ATTR:user_data"]).decode()
        time.sleep(1)
    raise AssertionError("the server never became ACTIVE")


def _outputs(cwd: Path, env: dict[str, str], stack: str) -> dict[str, Any]:
    r = _hotc(cwd, env, "output", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in json.loads(r.stdout).items()}


def test_script_deployment_runs_with_the_stock_agents(
    cloud: Any,
    tmp_path: Path,
    s3_bucket: S3Bucket,
    hotc_cloud_env: dict[str, str],
    cloud_shared: SharedResources,
    cloud_tracker: CloudTracker,
    heat_agents: AgentImage,
) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    env = _env(hotc_cloud_env)
    stack = cloud_tracker.name("sd")
    store = f"s3://{s3_bucket.name}/sig"
    params = [
        "--parameter", f"image={cloud_shared.image_name}",
        "--parameter", f"flavor={cloud_shared.flavor_name}",
        "--parameter", f"network={cloud_shared.private_network_name}",
    ]  # fmt: skip
    apply = _hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve", "--signal-store", store,
                  *params, background=True)  # fmt: skip
    destroyed = False
    try:
        user_data = _user_data(cloud, tmp_path, stack)
        # Heat's SOFTWARE_CONFIG payload: the metadata with the request collector's URL is in cfn-init-data
        meta = json.loads(cfn_init_data(user_data) or "{}")
        assert meta["deployments"] == [] and "metadata_url" in meta["os-collect-config"]["request"]
        heat_agents.boot(user_data)
        out, err = apply.communicate(timeout=900)
        assert apply.returncode == 0, out[-3000:] + err[-3000:] + heat_agents.log()[-3000:]
        got = _outputs(tmp_path, env, stack)
        assert got["stdout"] == "hello from CREATE\n"
        assert got["stderr"] == "to stderr\n"
        assert got["code"] == 0
        assert got["result"] == "hello-CREATE"  # a declared output, written by the script hook

        # an update of input_values re-runs the config (a new derived config for UPDATE)
        upd = _hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve", "--signal-store", store,
                    *params, "--parameter", "greeting=hi")  # fmt: skip
        assert upd.returncode == 0, upd.stdout[-3000:] + upd.stderr[-3000:] + heat_agents.log()[-3000:]
        got = _outputs(tmp_path, env, stack)
        assert got["result"] == "hi-UPDATE" and got["stdout"] == "hi from UPDATE\n"

        # destroy runs the DELETE action on the server before deleting it
        gone = _hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--signal-store", store,
                  "--timeout", "OS::Heat::SoftwareDeployment=60")  # fmt: skip
        destroyed = gone.returncode == 0
        assert destroyed, gone.stdout[-3000:] + gone.stderr[-3000:]
        assert "hi from DELETE" in heat_agents.log()
        for f in (tmp_path / ".hotc").iterdir():  # no presigned URL in the state or events
            assert "X-Amz-Signature" not in f.read_text(errors="replace"), f.name
    finally:
        if apply.poll() is None:
            apply.kill()
        if not destroyed:
            _hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--signal-store", store,
                  "--timeout", "OS::Heat::SoftwareDeployment=60")  # fmt: skip


def _notified(image: AgentImage, name: str, deadline_s: float = 300) -> tuple[dict[str, Any], dict[str, Any]]:
    """What 55-heat-config handed heat-config-notify on that "server": (the derived config it ran, the signal
    body it sent), from the agents' own deployed/ directory."""
    deployed = image.work / name / "up" / "var" / "lib" / "heat-config" / "deployed"
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for f in sorted(deployed.glob("*.notify.json")) if deployed.is_dir() else []:
            config = json.loads((deployed / f.name.replace(".notify.json", ".json")).read_text())
            return config, json.loads(f.read_text())
        time.sleep(2)
    raise AssertionError(f"the agents never signalled: {image.log(name)[-3000:]}")


def heat_stack_outputs(orch: Any, stack_id: str, deadline_s: float = 300) -> dict[str, Any]:
    """The outputs of Heat's stack once it is CREATE_COMPLETE (fails on CREATE_FAILED with Heat's reason)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        st = orch.get_stack(stack_id)
        if st.status == "CREATE_COMPLETE":
            return {o["output_key"]: o.get("output_value") for o in st.outputs or []}
        assert st.status != "CREATE_FAILED", f"Heat's stack failed: {st.status_reason}"
        time.sleep(2)
    raise AssertionError("Heat's stack never completed")


def delete_heat_stack(orch: Any, stack_id: str, deadline_s: float = 300) -> None:
    """Delete Heat's stack and wait until it is gone (or the deletion failed)."""
    orch.delete_stack(stack_id)
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        st = orch.find_stack(stack_id, ignore_missing=True)
        if st is None or st.status in ("DELETE_COMPLETE", "DELETE_FAILED"):
            return
        time.sleep(2)


def test_deployment_outputs_match_heats(
    cloud: Any,
    tmp_path: Path,
    s3_bucket: S3Bucket,
    hotc_cloud_env: dict[str, str],
    cloud_shared: SharedResources,
    cloud_tracker: CloudTracker,
    heat_agents: AgentImage,
) -> None:
    """The same template in the cloud's Heat (its default transports: POLL_SERVER_CFN through heat-api-cfn, and
    CFN_SIGNAL), with the same stock agents booted from Heat's server's user_data. The agents' derived config
    and signal for Heat agree with hotc's (inputs but the transport-specific ones), Heat's stack completes on
    that signal, and its outputs (``openstack stack output show``) equal hotc's."""
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    env = _env(hotc_cloud_env)
    stack = cloud_tracker.name("sdh")
    store = f"s3://{s3_bucket.name}/sig"
    params = {
        "image": cloud_shared.image_name,
        "flavor": cloud_shared.flavor_name,
        "network": cloud_shared.private_network_name,
    }
    flags = [a for k, v in params.items() for a in ("--parameter", f"{k}={v}")]
    apply = _hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve", "--signal-store", store,
                  *flags, background=True)  # fmt: skip
    orch = cloud.orchestration
    hstack = None
    try:
        heat_agents.boot(_user_data(cloud, tmp_path, stack), name="hotc")
        out, err = apply.communicate(timeout=900)
        assert apply.returncode == 0, out[-3000:] + err[-3000:] + heat_agents.log("hotc")[-3000:]
        ours = _outputs(tmp_path, env, stack)
        our_config, our_signal = _notified(heat_agents, "hotc")

        hstack = cloud_tracker.track(orch.create_stack(name=cloud_tracker.name("sdheat"), template=TEMPLATE,
                                                        parameters=params, timeout_mins=5))  # fmt: skip
        deadline = time.monotonic() + 300
        hserver = None
        while hserver is None and time.monotonic() < deadline:
            for r in orch.resources(hstack.id):
                if r.name == "server" and r.status == "CREATE_COMPLETE":
                    hserver = r.physical_resource_id
            time.sleep(2)
        assert hserver, "Heat's server never completed"
        r = cloud.compute.get(f"/servers/{hserver}", microversion="2.3")
        heat_ud = base64.b64decode(r.json()["server"]["OS-EXT-SRV-ATTR:user_data"]).decode()
        assert json.loads(cfn_init_data(heat_ud) or "{}")["os-collect-config"].get("cfn")
        heat_agents.boot(heat_ud, name="heat")
        heat_config, heat_signal = _notified(heat_agents, "heat")
        heat_outputs = heat_stack_outputs(orch, hstack.id)
    finally:
        if apply.poll() is None:
            apply.kill()
        # destroyed while the agents still run (its DELETE action needs them), then the agents stop
        gone = _hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--signal-store", store,
                     "--timeout", "OS::Heat::SoftwareDeployment=120")  # fmt: skip
        # so is Heat's stack (its DELETE action waits for the same agents' signal, else the delete fails and
        # leaves the server behind)
        if hstack is not None:
            delete_heat_stack(orch, hstack.id)
        heat_agents.stop()
    assert gone.returncode == 0, gone.stdout[-2000:] + gone.stderr[-2000:]

    assert our_signal == heat_signal  # the same hook output for the same config
    assert ours == heat_outputs  # Heat's engine took its signal and shows the same outputs
    assert ours == {
        "stdout": "hello from CREATE\n",
        "stderr": "to stderr\n",
        "code": 0,
        "result": "hello-CREATE",
    }
    transport = {"deploy_signal_id", "deploy_signal_verb", "deploy_signal_transport", "deploy_server_id",
                 "deploy_stack_id"}  # fmt: skip
    mine = {i["name"]: i["value"] for i in our_config["inputs"] if i["name"] not in transport}
    theirs = {i["name"]: i["value"] for i in heat_config["inputs"] if i["name"] not in transport}
    assert mine == theirs
    assert [i["name"] for i in our_config["inputs"]] == [i["name"] for i in heat_config["inputs"]]
    for k in ("group", "config", "outputs", "options"):
        assert our_config[k] == heat_config[k], k
    assert our_config["inputs"][0] == heat_config["inputs"][0]  # a declared input, as Heat shapes it
    # named after the config resource's physical name, STACK-config-<12 characters>, as Heat does
    assert re.fullmatch(re.escape(stack) + r"-config-[a-z0-9]{12}", our_config["name"]), our_config["name"]
    assert re.fullmatch(r".*-sdheat-config-[a-z0-9]{12}", heat_config["name"]), heat_config["name"]
