"""OS::Heat::DeployedServer with a SoftwareDeploymentGroup over two of them, end to end with the STOCK agents
(os-collect-config, os-refresh-config, os-apply-config, the heat-config hooks and heat-config-notify,
unmodified: tests/fixtures/agents.py), the way an operator runs it: apply the deployed servers first
(``--target``), write each one's ``os_collect_config`` (``hotc output ... --show-sensitive``) into the
server's ``/etc/os-collect-config.conf``, start the agents, apply the rest. No Nova: a deployed server is a
machine the stack did not make. The same template in the test cloud's Heat is compared in
``test_deployed_servers_match_heat``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.agents import AgentImage
from tests.fixtures.s3 import S3Bucket

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
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
        echo "$greeting from $deploy_resource_name $deploy_action"
        printf '%s' "$greeting-$deploy_action" > "$heat_outputs_path.result"
  bm1: {type: OS::Heat::DeployedServer}
  bm2: {type: OS::Heat::DeployedServer}
  deployments:
    type: OS::Heat::SoftwareDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {one: {get_resource: bm1}, two: {get_resource: bm2}}
      input_values: {greeting: {get_param: greeting}}
      actions: [CREATE, UPDATE, DELETE]
outputs:
  stdouts: {value: {get_attr: [deployments, deploy_stdouts]}}
  codes: {value: {get_attr: [deployments, deploy_status_codes]}}
  results: {value: {get_attr: [deployments, result]}}
  two_result: {value: {get_attr: [deployments, result, two]}}
  occ1: {value: {get_attr: [bm1, os_collect_config]}}
  occ2: {value: {get_attr: [bm2, os_collect_config]}}
"""

DEPLOYMENT_OUTPUTS = ("stdouts", "codes", "results", "two_result")


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    for k in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE", "OS_CLOUD"):
        env.pop(k, None)
    return env


def _hotc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hotc", *args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=900)  # fmt: skip


def _output(cwd: Path, stack: str, name: str) -> Any:
    r = _hotc(cwd, "output", stack, name, "--format", "json", "--show-sensitive")
    assert r.returncode == 0, r.stdout + r.stderr
    value = json.loads(r.stdout)
    return (
        value.get("value", value)
        if isinstance(value, dict) and set(value) <= {"value", "sensitive"}
        else value
    )


def _outputs(cwd: Path, stack: str) -> dict[str, Any]:
    r = _hotc(cwd, "output", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in json.loads(r.stdout).items()}


def test_a_group_on_deployed_servers_runs_with_the_stock_agents(
    tmp_path: Path, s3_bucket: S3Bucket, heat_agents: AgentImage
) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    stack = "ds"
    r = _hotc(tmp_path, "apply", "-t", "t.yaml", stack, "--auto-approve", *store, "--target", "bm1",
              "--target", "bm2")  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = _hotc(tmp_path, "output", stack, "occ1")
    assert "metadata_url" not in r.stdout + r.stderr  # a presigned URL: masked unless asked for
    for name in ("occ1", "occ2"):
        occ = _output(tmp_path, stack, name)
        assert occ["collectors"] == ["request", "local"] and occ["request"]["metadata_url"].startswith("http")
        heat_agents.boot("", name=name, occ=occ)
    try:
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", stack, "--auto-approve", *store)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:] + heat_agents.log("occ1")[-3000:]
        got = _outputs(tmp_path, stack)
        assert got["stdouts"] == {"one": "hello from one CREATE\n", "two": "hello from two CREATE\n"}
        assert got["codes"] == {"one": 0, "two": 0}
        assert got["results"] == {"one": "hello-CREATE", "two": "hello-CREATE"}
        assert got["two_result"] == "hello-CREATE"

        r = _hotc(
            tmp_path, "apply", "-t", "t.yaml", stack, "--auto-approve", *store, "--parameter", "greeting=hi"
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        got = _outputs(tmp_path, stack)
        assert got["stdouts"] == {"one": "hi from one UPDATE\n", "two": "hi from two UPDATE\n"}

        r = _hotc(tmp_path, "destroy", stack, "--auto-approve", *store,
                  "--timeout", "OS::Heat::SoftwareDeploymentGroup=120")  # fmt: skip
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        deadline = time.monotonic() + 30
        while "hi from two DELETE" not in heat_agents.log("occ2") and time.monotonic() < deadline:
            time.sleep(1)
        assert "hi from one DELETE" in heat_agents.log("occ1")
        assert "hi from two DELETE" in heat_agents.log("occ2")
        for f in (tmp_path / ".hotc").iterdir():  # no presigned URL in clear in the state or events
            assert "X-Amz-Signature" not in f.read_text(errors="replace"), f.name
    finally:
        heat_agents.stop()


@pytest.mark.cloud
def test_deployed_servers_match_heat(
    cloud: Any, tmp_path: Path, s3_bucket: S3Bucket, heat_agents: AgentImage, cloud_tracker: Any
) -> None:
    """The same template in the test cloud's Heat (its defaults: POLL_SERVER_CFN through heat-api-cfn and
    CFN_SIGNAL), each deployed server's agents configured from Heat's own ``os_collect_config`` attribute, and
    through hotc: the deployment outputs of both stacks are equal."""
    orch = cloud.orchestration
    hstack = cloud_tracker.track(orch.create_stack(name=cloud_tracker.name("dsheat"), template=TEMPLATE,
                                                    timeout_mins=5))  # fmt: skip
    try:
        booted: set[str] = set()
        deadline = time.monotonic() + 300
        while len(booted) < 2 and time.monotonic() < deadline:
            for r in orch.resources(hstack.id):
                if r.name in ("bm1", "bm2") and r.name not in booted and r.status == "CREATE_COMPLETE":
                    res = orch.get(f"/stacks/{hstack.name}/{hstack.id}/resources/{r.name}").json()["resource"]
                    occ = res["attributes"]["os_collect_config"]
                    assert occ["collectors"] == ["cfn", "local"], occ
                    heat_agents.boot("", name=f"heat-{r.name}", occ=occ)
                    booted.add(r.name)
            time.sleep(2)
        assert len(booted) == 2, "Heat's deployed servers never completed"
        from tests.apply.test_cloud_software_deployment import heat_stack_outputs

        theirs = heat_stack_outputs(orch, hstack.id)
    finally:
        heat_agents.stop()
    # hotc, with fresh agents
    image = AgentImage(heat_agents.venv, heat_agents.src, tmp_path / "agents-hotc")
    image.work.mkdir()
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    try:
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", *store, "--target", "bm1",
                  "--target", "bm2")  # fmt: skip
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        for name in ("occ1", "occ2"):
            image.boot("", name=name, occ=_output(tmp_path, "ds", name))
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "ds", "--auto-approve", *store)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        ours = _outputs(tmp_path, "ds")
        r = _hotc(tmp_path, "destroy", "ds", "--auto-approve", *store,
                  "--timeout", "OS::Heat::SoftwareDeploymentGroup=120")  # fmt: skip
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    finally:
        image.stop()
    assert {k: ours[k] for k in DEPLOYMENT_OUTPUTS} == {k: theirs[k] for k in DEPLOYMENT_OUTPUTS}
    assert ours["stdouts"] == {"one": "hello from one CREATE\n", "two": "hello from two CREATE\n"}


FAILING = """heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      outputs: [{name: problem, error_output: true}]
      config: |
        #!/bin/sh
        echo "broken" >&2
        printf 'disk full' > "$heat_outputs_path.problem"
        exit 3
  bm: {type: OS::Heat::DeployedServer}
  dep:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: bm}}
outputs:
  occ: {value: {get_attr: [bm, os_collect_config]}}
"""


@pytest.mark.cloud
def test_a_failing_deployment_fails_as_in_heat(
    cloud: Any, tmp_path: Path, s3_bucket: S3Bucket, heat_agents: AgentImage, cloud_tracker: Any
) -> None:
    """A script that exits 3 and flags an error_output: Heat's stack fails with the deployment's reason, and
    hotc's apply fails with the same reason."""
    orch = cloud.orchestration
    hstack = cloud_tracker.track(orch.create_stack(name=cloud_tracker.name("dsfail"), template=FAILING,
                                                    timeout_mins=5))  # fmt: skip
    reason = None
    try:
        booted = False
        deadline = time.monotonic() + 300
        while reason is None and time.monotonic() < deadline:
            for r in orch.resources(hstack.id):
                if r.name == "bm" and not booted and r.status == "CREATE_COMPLETE":
                    res = orch.get(f"/stacks/{hstack.name}/{hstack.id}/resources/bm").json()["resource"]
                    heat_agents.boot("", name="heat-bm", occ=res["attributes"]["os_collect_config"])
                    booted = True
                if r.name == "dep" and r.status == "CREATE_FAILED":
                    reason = r.status_reason
            time.sleep(2)
    finally:
        heat_agents.stop()
    assert reason is not None, "Heat's deployment never failed"
    heat_failure = reason.split("Deployment to server failed: ", 1)[1]
    assert (
        heat_failure
        == "deploy_status_code : Deployment exited with non-zero status code: 3, problem : disk full"
    )

    image = AgentImage(heat_agents.venv, heat_agents.src, tmp_path / "agents-hotc")
    image.work.mkdir()
    (tmp_path / "t.yaml").write_text(FAILING)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    try:
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "dsf", "--auto-approve", *store, "--target", "bm")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        image.boot("", name="bm", occ=_output(tmp_path, "dsf", "occ"))
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "dsf", "--auto-approve", *store)
        assert r.returncode != 0
        text = r.stdout + r.stderr
        assert f"Deployment to server failed: {heat_failure}" in text, text[-3000:]
        r = _hotc(tmp_path, "destroy", "dsf", "--auto-approve", *store)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    finally:
        image.stop()


COMPONENT = """heat_template_version: 2018-08-31
resources:
  comp:
    type: OS::Heat::SoftwareComponent
    properties:
      inputs: [{name: greeting}]
      configs:
        - actions: [CREATE]
          tool: script
          config: |
            #!/bin/sh
            echo "create $greeting"
        - actions: [DELETE]
          tool: script
          config: |
            #!/bin/sh
            echo "delete $greeting"
  bm: {type: OS::Heat::DeployedServer}
  dep:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: comp}, server: {get_resource: bm}, input_values: {greeting: hi}}
outputs:
  stdout: {value: {get_attr: [dep, deploy_stdout]}}
  config: {value: {get_attr: [comp, config]}}
  occ: {value: {get_attr: [bm, os_collect_config]}}
"""


def _ran(image: AgentImage, name: str, deadline_s: float = 300) -> dict[str, Any]:
    """The derived config the agents of ``name`` ran (from 55-heat-config's deployed/ directory)."""
    deployed = image.work / name / "up" / "var" / "lib" / "heat-config" / "deployed"
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for f in sorted(deployed.glob("*.notify.json")) if deployed.is_dir() else []:
            return dict(json.loads((deployed / f.name.replace(".notify.json", ".json")).read_text()))
        time.sleep(2)
    raise AssertionError(f"the agents never signalled: {image.log(name)[-3000:]}")


@pytest.mark.cloud
def test_a_component_deploys_as_in_heat(
    cloud: Any, tmp_path: Path, s3_bucket: S3Bucket, heat_agents: AgentImage, cloud_tracker: Any
) -> None:
    """A SoftwareComponent deployed to a DeployedServer: Heat and hotc hand the agents the same derived config
    (group ``component``, ``{"configs": [...]}``; the stock 55-heat-config picks the config of deploy_action and
    runs it with its ``tool``'s hook), and give the same outputs."""
    orch = cloud.orchestration
    hstack = cloud_tracker.track(orch.create_stack(name=cloud_tracker.name("dscomp"), template=COMPONENT,
                                                    timeout_mins=5))  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        booted = False
        while not booted and time.monotonic() < deadline:
            for r in orch.resources(hstack.id):
                if r.name == "bm" and r.status == "CREATE_COMPLETE":
                    res = orch.get(f"/stacks/{hstack.name}/{hstack.id}/resources/bm").json()["resource"]
                    heat_agents.boot("", name="heat-bm", occ=res["attributes"]["os_collect_config"])
                    booted = True
            time.sleep(2)
        assert booted, "Heat's deployed server never completed"
        from tests.apply.test_cloud_software_deployment import heat_stack_outputs

        theirs = heat_stack_outputs(orch, hstack.id)
        heat_config = _ran(heat_agents, "heat-bm")
    finally:
        heat_agents.stop()
    image = AgentImage(heat_agents.venv, heat_agents.src, tmp_path / "agents-hotc")
    image.work.mkdir()
    (tmp_path / "t.yaml").write_text(COMPONENT)
    store = ["--signal-store", f"s3://{s3_bucket.name}/sig"]
    try:
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "dsc", "--auto-approve", *store, "--target", "bm")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        image.boot("", name="bm", occ=_output(tmp_path, "dsc", "occ"))
        r = _hotc(tmp_path, "apply", "-t", "t.yaml", "dsc", "--auto-approve", *store)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        ours = _outputs(tmp_path, "dsc")
        our_config = _ran(image, "bm")
        r = _hotc(
            tmp_path,
            "destroy",
            "dsc",
            "--auto-approve",
            *store,
            "--timeout",
            "OS::Heat::SoftwareDeployment=120",
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    finally:
        image.stop()
    assert ours["stdout"] == theirs["stdout"] == "create hi\n"
    assert ours["config"] == theirs["config"] is None  # get_attr [comp, config]: null in Heat
    for k in ("group", "config", "outputs", "options"):
        assert our_config[k] == heat_config[k], k
    transport = {"deploy_signal_id", "deploy_signal_verb", "deploy_signal_transport", "deploy_server_id",
                 "deploy_stack_id"}  # fmt: skip
    mine = {i["name"]: i["value"] for i in our_config["inputs"] if i["name"] not in transport}
    assert mine == {i["name"]: i["value"] for i in heat_config["inputs"] if i["name"] not in transport}
