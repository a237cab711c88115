"""OS::Mistral::ExternalResource against the test cloud's Mistral, through the hotc CLI: its CREATE workflow really
runs (engine + executor) and its output ``resource_id`` is the physical id, its outputs the ``output`` attribute
(the JSON text Heat keeps); a fresh plan shows no change; an ``input`` change runs the UPDATE workflow in place,
which sees the earlier outputs in ``env().heat_extresource_data``, and the physical id becomes that execution's, as
in Heat; a change to an input named in ``replace_on_change_inputs`` replaces the resource (a new CREATE, then the
old one's DELETE workflow); suspend and resume run their workflows; destroy runs the DELETE workflow. Every check asks Mistral itself."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.test_cloud_mistral import mistral, mistral_cleanup
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud
__all__ = ["mistral_cleanup"]  # the fixture

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  who: {type: string, default: ann}
  key: {type: string, default: k1}
resources:
  make:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: '', key: ''}
      output: {resource_id: <% $.key + '-' + $.who %>, made_by: <% $.who %>}
      tasks: [{name: t, action: std.noop}]
  change:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: '', key: ''}
      output: {changed_to: <% $.who %>, made_by_then: <% env().heat_extresource_data.made_by %>}
      tasks: [{name: t, action: std.noop}]
  remove:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: '', key: ''}
      output: {removed: <% $.key %>, last_seen: <% env().heat_extresource_data.keys().len() %>}
      tasks: [{name: t, action: std.noop}]
  pause:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: '', key: ''}
      output: {paused_for: <% env().heat_extresource_data.made_by %>}
      tasks: [{name: t, action: std.noop}]
  ext:
    type: OS::Mistral::ExternalResource
    properties:
      actions:
        CREATE: {workflow: {get_resource: make}}
        UPDATE: {workflow: {get_resource: change}}
        DELETE: {workflow: {get_resource: remove}}
        SUSPEND: {workflow: {get_resource: pause}}
        RESUME: {workflow: {get_resource: pause}, params: {env: {resumed: true}}}
      input: {who: {get_param: who}, key: {get_param: key}}
      replace_on_change_inputs: [key]
outputs:
  output: {value: {get_attr: [ext, output]}}
"""


def runs(cloud: Any, workflow: str) -> list[dict[str, Any]]:
    got = (
        mistral(cloud, "GET", f"/executions?workflow_name={workflow}&sort_keys=created_at&sort_dirs=asc")
        or {}
    )
    return [mistral(cloud, "GET", f"/executions/{e['id']}") for e in got.get("executions") or []]


def test_external_resource_runs_its_workflows_through_the_cli(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "workflowv2", "86-mistral.sh")
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    cli = CliStack(tmp_path, env, stack, [])

    def output() -> Any:
        r = hotc(tmp_path, env, "output", stack, "output", "--format", "json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    cli.apply()
    ids = cli.ids()
    assert ids["ext"] == "k1-ann"  # the CREATE workflow's output resource_id
    (made,) = runs(cloud, ids["make"])
    assert made["state"] == "SUCCESS" and made["description"] == "Heat managed"  # Heat's default
    assert json.loads(made["input"]) == {"who": "ann", "key": "k1"}
    assert json.loads(output()) == {"resource_id": "k1-ann", "made_by": "ann"}  # the JSON text, as Heat's
    cli.no_change()

    # an input change: the UPDATE workflow, with the outputs so far in its environment
    plan = cli.plan("--parameter", "who=bob")
    assert list(plan) == ["ext"] and plan["ext"]["actions"] == ["update"], plan
    cli.apply("--parameter", "who=bob")
    (changed,) = runs(cloud, ids["change"])
    assert changed["state"] == "SUCCESS"
    assert json.loads(changed["params"])["env"]["heat_extresource_data"] == {
        "resource_id": "k1-ann",
        "made_by": "ann",
    }
    assert cli.ids()["ext"] == changed["id"]  # no resource_id in its output: the execution's id, as in Heat
    assert json.loads(output()) == {
        "resource_id": "k1-ann",
        "made_by": "ann",
        "changed_to": "bob",
        "made_by_then": "ann",
    }
    cli.no_change("--parameter", "who=bob")

    # suspend and resume run their workflows (the action's own env entries kept beside the outputs so far)
    for verb in ("suspend", "resume"):
        r = hotc(tmp_path, env, verb, stack)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    paused = runs(cloud, ids["pause"])
    assert [p["state"] for p in paused] == ["SUCCESS", "SUCCESS"]
    assert [json.loads(p["output"]) for p in paused] == [{"paused_for": "ann"}] * 2
    resumed_env = json.loads(paused[1]["params"])["env"]
    assert resumed_env["resumed"] is True and resumed_env["heat_extresource_data"]["changed_to"] == "bob"
    # as in Heat, each action's execution becomes the id and its outputs join `output` (the suspend's were in
    # the resume's environment); a plan shows the stack output that follows, and the next apply stores it
    assert resumed_env["heat_extresource_data"]["paused_for"] == "ann"
    assert cli.ids()["ext"] == paused[1]["id"]
    assert cli.plan("--parameter", "who=bob") == {}
    cli.apply("--parameter", "who=bob")
    assert json.loads(output())["paused_for"] == "ann"

    # a replace_on_change input: a new resource (CREATE), then the old one's DELETE workflow
    plan = cli.plan("--parameter", "who=bob", "--parameter", "key=k2")
    assert list(plan) == ["ext"] and sorted(plan["ext"]["actions"]) == ["create", "delete"], plan
    cli.apply("--parameter", "who=bob", "--parameter", "key=k2")
    assert cli.ids()["ext"] == "k2-bob"
    (removed,) = runs(cloud, ids["remove"])
    assert removed["state"] == "SUCCESS" and json.loads(removed["input"]) == {"who": "bob", "key": "k1"}
    assert json.loads(removed["output"])["removed"] == "k1"
    assert json.loads(removed["params"])["env"]["heat_extresource_data"]["changed_to"] == "bob"

    r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    last = runs(cloud, ids["remove"])[-1]  # the DELETE workflow of the resource destroy removed
    assert last["state"] == "SUCCESS" and json.loads(last["output"])["removed"] == "k2"
    for name in (ids["make"], ids["change"], ids["remove"]):
        assert mistral(cloud, "GET", f"/workflows/{name}") is None


def test_heat_gives_the_same_ids_and_output_text(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """Heat 27 on the same template: the same physical id after the create (the output resource_id) and after an
    input update (the UPDATE execution's id), and the very same ``output`` text."""
    require_service(cloud, "workflowv2", "86-mistral.sh")
    import yaml

    heat = cloud.orchestration
    doc = yaml.safe_load(TEMPLATE)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=doc, parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    cli = CliStack(tmp_path, env, cloud_tracker.name("hotc"), [])
    cli.apply()

    def heat_state() -> tuple[str, str]:
        got = heat.get_stack(st.id)
        ext = {r.name: r.physical_resource_id for r in heat.resources(st.id)}["ext"]
        return ext, {o["output_key"]: o["output_value"] for o in got.outputs}["output"]

    def hotc_state() -> tuple[str, str]:
        r = hotc(tmp_path, env, "output", cli.stack, "output", "--format", "json")
        assert r.returncode == 0, r.stderr
        return cli.ids()["ext"], json.loads(r.stdout)

    assert heat_state() == hotc_state() == ("k1-ann", heat_state()[1])
    assert isinstance(heat_state()[1], str)
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=doc, parameters={"who": "bob"})
    deadline = time.monotonic() + 600
    while (now := heat.get_stack(st.id)).updated_at == before or now.status.endswith("IN_PROGRESS"):
        assert time.monotonic() < deadline
        time.sleep(2)
    assert now.status == "UPDATE_COMPLETE", now.status_reason
    cli.apply("--parameter", "who=bob")
    (heat_id, heat_text), (hotc_id, hotc_text) = heat_state(), hotc_state()
    assert heat_text == hotc_text
    # each execution read by its id (a list holds only its first page of the cloud's executions)
    assert mistral(cloud, "GET", f"/executions/{heat_id}")["workflow_name"].startswith(f"{st.name}-change-")
    assert mistral(cloud, "GET", f"/executions/{hotc_id}")["workflow_name"].startswith(f"{cli.stack}-change-")
    r = hotc(tmp_path, env, "destroy", cli.stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_always_update_runs_the_update_workflow_on_every_apply(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """``always_update: true``: as Heat's stack update does, every apply runs the UPDATE workflow, even when no
    property changed; the plan says so."""
    require_service(cloud, "workflowv2", "86-mistral.sh")
    text = TEMPLATE.replace("      replace_on_change_inputs: [key]\n", "      always_update: true\n")
    assert "always_update" in text
    (tmp_path / "t.yaml").write_text(text)
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    cli = CliStack(tmp_path, env, cloud_tracker.name("stk"), [])
    cli.apply()
    ids = cli.ids()
    assert runs(cloud, ids["change"]) == []
    for n in (1, 2):
        plan = cli.plan()
        assert list(plan) == ["ext"] and plan["ext"]["actions"] == ["update"], plan
        cli.apply()
        assert [e["state"] for e in runs(cloud, ids["change"])] == ["SUCCESS"] * n
    r = hotc(tmp_path, env, "destroy", cli.stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
