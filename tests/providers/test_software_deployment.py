"""Software deployments over the signal store, offline (moto's S3): the metadata a server's agents poll, the
derived config Heat would give them, the signal rules; and the plan-time refusals."""

from __future__ import annotations

import email
import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.providers.base import ActionContext, Outcome
from hotc.providers.native.deployment_mixin import outcome_of_signal
from hotc.providers.native.server_metadata import create_server_metadata, register_server
from hotc.providers.native.software_deployment import SoftwareDeploymentDriver
from hotc.providers.native.structured_deployment import substitute
from hotc.state.signal_store import SignalStore, SignalStoreConfig
from tests.clirun import Result, run_hotc
from tests.fixtures.s3 import S3Bucket

REPO = Path(__file__).resolve().parents[2]


def test_signal_rules_are_heats() -> None:
    outputs = [{"name": "result"}, {"name": "problem", "error_output": True}]
    values, failure = outcome_of_signal(
        {"deploy_stdout": "ok", "deploy_status_code": 0, "result": 1}, outputs
    )
    assert failure == "" and values == {
        "result": 1,
        "deploy_stdout": "ok",
        "deploy_stderr": None,
        "deploy_status_code": 0,
    }
    _, failure = outcome_of_signal({"deploy_status_code": "2", "problem": "disk"}, outputs)
    assert failure == "deploy_status_code : Deployment exited with non-zero status code: 2, problem : disk"
    _, failure = outcome_of_signal({"deploy_status_code": "0"}, outputs)
    assert failure == ""


def test_structured_config_inputs_are_substituted() -> None:
    config = {
        "a": {"get_input": "x"},
        "b": [{"get_input": "deploy_action"}, {"other": 1}],
        "c": {"get_input": "nope"},
    }
    values = {"x": 5, "deploy_action": "CREATE"}
    assert substitute(config, "get_input", values, strict=False) == {
        "a": 5,
        "b": ["CREATE", {"other": 1}],
        "c": None,
    }
    with pytest.raises(HotcError, match=r"The Parameter \(nope\) was not provided"):
        substitute(config, "get_input", values, strict=True)


@dataclass
class _Config:
    physical_id: str
    attributes: dict[str, Any]
    properties: dict[str, Any] = field(default_factory=dict)


def _ctx(store: SignalStore, config: _Config, logs: list[str]) -> Any:
    @dataclass(frozen=True)
    class Ctx(ActionContext):
        lookup: Any = None

    return Ctx(
        address="deploy",
        type="OS::Heat::SoftwareDeployment",
        stack_name="st",
        lineage="lin-1",
        timeout=60,
        cloud=lambda: None,
        record_physical_id=lambda _p: None,
        log=logs.append,
        signals=lambda: store,
        lookup=lambda pid: config if pid == config.physical_id else None,
    )


def _curl(*args: str) -> str:
    r = subprocess.run(["curl", "-sf", *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


CONFIG = _Config(
    "cfg-1",
    {
        "show": {
            "id": "cfg-1",
            "name": "install",
            "group": "script",
            "config": "#!/bin/sh\necho hi\n",
            "inputs": [{"name": "greeting", "type": "String", "default": "hello"}],
            "outputs": [{"name": "result"}],
            "options": {},
        }
    },
)


def _deploy(
    store: SignalStore, body: dict[str, Any], via_hotc_signal: bool = False
) -> tuple[Outcome | Exception, dict[str, Any], str]:
    logs: list[str] = []
    ctx = _ctx(store, CONFIG, logs)
    payload, key = create_server_metadata(ctx, "#!/bin/sh\necho user-data\n")
    register_server(ctx, "srv-1", key)
    msg = email.message_from_string(payload)
    parts = [(p.get_content_type(), p.get_filename()) for p in msg.walk() if not p.is_multipart()]
    assert parts == [
        ("text/cloud-config", "cloud-config"),
        ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"),
        ("text/x-shellscript", ""),
        ("text/x-cfninitdata", "cfn-init-data"),
    ]
    meta = json.loads(
        next(p for p in msg.walk() if p.get_filename() == "cfn-init-data").get_payload(decode=True)
    )
    url = meta["os-collect-config"]["request"]["metadata_url"]
    assert meta["deployments"] == [] and meta["os-collect-config"]["collectors"] == [
        "ec2",
        "request",
        "local",
    ]
    result: list[Outcome | Exception] = []

    def run() -> None:
        try:
            result.append(SoftwareDeploymentDriver().create(ctx, {"config": "cfg-1", "server": "srv-1",
                                                                  "input_values": {"extra": 1}}))  # fmt: skip
        except Exception as exc:  # noqa: BLE001
            result.append(exc)

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 30
    while True:  # the agent: poll the metadata URL until a deployment shows up
        doc = json.loads(_curl(url))
        if doc["deployments"]:
            break
        assert time.monotonic() < deadline
        time.sleep(0.3)
    derived = doc["deployments"][0]
    inputs = {i["name"]: i["value"] for i in derived["inputs"]}
    # heat-config-notify: PUT the outputs, with the verb the config names
    assert inputs["deploy_signal_verb"] == "PUT"
    if via_hotc_signal:  # what `hotc signal STACK deploy --data ...` does: the pending action's object
        from hotc.providers.native.signal_mixin import signal_key
        from hotc.state.document import ResourceState

        pid = inputs["deploy_signal_id"].split("/deployments/", 1)[1].split("/", 1)[0]
        rs = ResourceState("deploy", "OS::Heat::SoftwareDeployment", pid, "CREATE_IN_PROGRESS")
        key = signal_key({"deploy": rs}, "deploy", store, "st")
        assert store.key_of_url(inputs["deploy_signal_id"]) == key
        store.put(key, json.dumps(body).encode())
    else:
        _curl("-X", "PUT", "-H", "Content-Type: application/json", "--data-binary", json.dumps(body),
              inputs["deploy_signal_id"])  # fmt: skip
    t.join(60)
    return result[0], derived, "\n".join(logs)


def test_a_deployment_publishes_its_derived_config_and_takes_the_signal(s3_bucket: S3Bucket) -> None:
    store = SignalStore(SignalStoreConfig(s3_bucket.name, "sig"))
    outcome, derived, logs = _deploy(store, {"deploy_stdout": "hi\n", "deploy_status_code": 0, "result": "r"})
    assert isinstance(outcome, Outcome), outcome
    assert outcome.attributes["deploy_stdout"] == "hi\n" and outcome.attributes["result"] == "r"
    assert (
        derived["group"] == "script"
        and derived["name"] == "install"
        and derived["outputs"] == [{"name": "result"}]
    )
    names = [i["name"] for i in derived["inputs"]]
    assert names == ["greeting", "extra", "deploy_server_id", "deploy_action", "deploy_stack_id",
                     "deploy_resource_name", "deploy_signal_transport", "deploy_signal_id",
                     "deploy_signal_verb"]  # fmt: skip
    inputs = {i["name"]: i["value"] for i in derived["inputs"]}
    assert inputs["greeting"] == "hello" and inputs["extra"] == 1  # default, and an undeclared input
    assert inputs["deploy_action"] == "CREATE" and inputs["deploy_stack_id"] == "st/lin-1"
    assert inputs["deploy_server_id"] == "srv-1" and inputs["deploy_signal_transport"] == "TEMP_URL_SIGNAL"
    assert "X-Amz-Signature" not in json.dumps(outcome.attributes) and "X-Amz-Signature" not in logs


def test_a_non_zero_status_fails_the_deployment_as_heat_says(s3_bucket: S3Bucket) -> None:
    store = SignalStore(SignalStoreConfig(s3_bucket.name, "sig"))
    outcome, _, _ = _deploy(
        store, {"deploy_stdout": "", "deploy_stderr": "boom", "deploy_status_code": 3}, via_hotc_signal=True
    )
    assert isinstance(outcome, HotcError)
    assert outcome.message == (
        "Deployment to server failed: deploy_status_code : Deployment exited with non-zero status code: 3"
    )


PLAN_T = """heat_template_version: 2018-08-31
resources:
  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: "#!/bin/sh"}}
  server:
    type: OS::Nova::Server
    properties: {image: img, flavor: f, user_data_format: %s}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: server}%s}
"""


def _plan(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Result:
    """``hotc plan`` in-process (no cloud configured, no signal store)."""
    (tmp_path / "t.yaml").write_text(text)
    for k in ("OS_CLOUD", "OS_AUTH_URL"):
        monkeypatch.delenv(k, raising=False)
    return run_hotc(tmp_path, "plan", "-t", "t.yaml")


def test_deployments_that_need_heat_are_plan_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _plan(tmp_path, PLAN_T % ("SOFTWARE_CONFIG", ", signal_transport: HEAT_SIGNAL"), monkeypatch)
    assert r.returncode == 1
    assert (
        "deployment: OS::Heat::SoftwareDeployment: signal_transport HEAT_SIGNAL needs Heat's API" in r.stderr
    )
    assert "use TEMP_URL_SIGNAL" in r.stderr
    r = _plan(tmp_path, PLAN_T % ("RAW", ""), monkeypatch)
    assert "the server server must have user_data_format: SOFTWARE_CONFIG" in r.stderr
    r = _plan(tmp_path, (PLAN_T % ("SOFTWARE_CONFIG", "")).replace(
        "user_data_format: SOFTWARE_CONFIG", "user_data_format: SOFTWARE_CONFIG, software_config_transport: ZAQAR_MESSAGE"
    ), monkeypatch)  # fmt: skip
    assert "software_config_transport ZAQAR_MESSAGE needs the Zaqar messaging service" in r.stderr
    assert "use POLL_TEMP_URL" in r.stderr
    r = _plan(tmp_path, PLAN_T % ("SOFTWARE_CONFIG", ""), monkeypatch)
    assert r.returncode == 1 and "server, deployment: signals need the signal store" in r.stderr
