"""Mistral in the test cloud (86-mistral.sh), through openstacksdk's ``workflow`` proxy only (no hotc code): a
workflow is stored, an execution of it runs on the engine and the executor (over RabbitMQ) to SUCCESS with the
output its task published, and both are deleted."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.fixtures.cloud import CloudTracker, require_service

pytestmark = pytest.mark.cloud


def test_mistral_runs_an_execution_on_its_engine_and_executor(
    cloud: Any, cloud_tracker: CloudTracker
) -> None:
    require_service(cloud, "workflowv2", "86-mistral.sh")
    wf = cloud.workflow
    name = cloud_tracker.name("wf")
    definition = (
        f"version: '2.0'\n{name}:\n  input: [who]\n  output: {{said: <% $.said %>}}\n  tasks:\n"
        "    say:\n      action: std.echo output=<% 'hi ' + $.who %>\n      publish: {said: <% task().result %>}\n"
    )
    r = wf.post("/workflows", data=definition, headers={"Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    execution_id = ""
    try:
        r = wf.post("/executions", json={"workflow_name": name, "input": json.dumps({"who": "smoke"})})
        assert r.status_code == 201, r.text
        execution_id = r.json()["id"]
        deadline = time.monotonic() + 60
        while (got := wf.get(f"/executions/{execution_id}").json())["state"] in ("IDLE", "RUNNING"):
            assert time.monotonic() < deadline, f"execution still {got['state']} after 60 s"
            time.sleep(0.5)
        assert got["state"] == "SUCCESS", got.get("state_info")
        assert json.loads(got["output"]) == {"said": "hi smoke"}
    finally:
        if execution_id:
            assert wf.delete(f"/executions/{execution_id}").status_code == 204
        assert wf.delete(f"/workflows/{name}").status_code == 204
    assert wf.get(f"/workflows/{name}").status_code == 404
