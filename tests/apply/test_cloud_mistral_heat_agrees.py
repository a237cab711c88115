"""Heat 27 of the test cloud and hotc make the same Mistral objects from one template: Mistral holds the same
workflow definition for Heat's workflow and hotc's (only the generated names differ) and the same cron trigger on
it; a signal with the same data starts, under Heat and under hotc, an execution with the same input that ends with
the same output, and both show it in ``executions``; what Heat does on an update (a task changed: the same
workflow, updated in place; a new name: a new workflow) is what hotc decides for the same change. Heat needs no
configuration for this: its Mistral client finds the ``workflowv2`` endpoint in the catalog. ``hotc import
--from-heat --abandon`` takes Heat's workflow and trigger over: no change planned, and hotc's destroy deletes
them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults
from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.test_cloud_mistral import executions, mistral, mistral_cleanup
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud
__all__ = ["mistral_cleanup"]  # the fixture

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hi}
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {name: bob, punct: '!'}
      output: {said: <% $.said %>}
      task_defaults: {on_error: [oops], timeout: 0}
      tasks:
        - name: say
          action: {str_replace: {template: std.echo output="G <% $.name + $.punct %>", params: {G: {get_param: greeting}}}}
          publish: {said: <% task().result %>}
          policies: {retry: {count: 1, delay: 1}, wait_after: 0}
        - name: oops
          action: std.noop
  cron:
    type: OS::Mistral::CronTrigger
    properties:
      pattern: "0 0 1 1 *"
      count: 3
      workflow: {name: {get_resource: wf}, input: {name: cron, punct: '?'}}
outputs:
  data: {value: {get_attr: [wf, data]}}
  executions: {value: {get_attr: [wf, executions]}}
  remaining: {value: {get_attr: [cron, remaining_executions]}}
"""


def _doc(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(text)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


def definition_as(cloud: Any, name: str) -> str:
    """The definition Mistral holds for workflow NAME, with the name written ``WF``."""
    got = mistral(cloud, "GET", f"/workflows/{name}")
    assert got is not None, name
    return str(got["definition"]).replace(name, "WF")


def wait_done(cloud: Any, workflow: str, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 90
    while True:
        runs = executions(cloud, workflow)
        if len(runs) >= count and all(e["state"] not in ("IDLE", "RUNNING") for e in runs):
            return [mistral(cloud, "GET", f"/executions/{e['id']}") for e in runs]
        assert time.monotonic() < deadline, runs
        time.sleep(0.5)


def decision(type_name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    rtype = get_schema(type_name)
    assert rtype is not None
    return decide_update(rtype, apply_defaults(rtype, old), apply_defaults(rtype, new)).kind


def _wait(heat: Any, stack_id: str, before: Any) -> Any:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        now = heat.get_stack(stack_id)
        if now.updated_at != before and now.status in ("UPDATE_COMPLETE", "UPDATE_FAILED"):
            return now
        time.sleep(2)
    raise AssertionError("Heat's stack update did not end")


def test_heat_and_hotc_make_the_same_workflow_and_run_the_same_signal(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "workflowv2", "86-mistral.sh")
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=_doc(TEMPLATE), parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)

    def heat_ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    def heat_outputs() -> dict[str, Any]:
        got = heat.get_stack(st.id)
        return {o["output_key"]: o["output_value"] for o in got.outputs}

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    cli = CliStack(tmp_path, env, cloud_tracker.name("hotc"), [])
    cli.apply()
    mine, theirs = cli.ids(), heat_ids()
    assert theirs["wf"].startswith(f"{st.name}-wf-") and mine["wf"].startswith(f"{cli.stack}-wf-")
    # the very text Heat sends (PyYAML's safe dump of the same document), the names apart
    assert definition_as(cloud, theirs["wf"]) == definition_as(cloud, mine["wf"])
    heat_cron = mistral(cloud, "GET", f"/cron_triggers/{theirs['cron']}")
    hotc_cron = mistral(cloud, "GET", f"/cron_triggers/{mine['cron']}")
    same = ("pattern", "workflow_input", "remaining_executions", "workflow_params", "scope")
    assert {k: heat_cron.get(k) for k in same} == {k: hotc_cron.get(k) for k in same}
    assert heat_cron["workflow_name"] == theirs["wf"] and hotc_cron["workflow_name"] == mine["wf"]
    assert heat_outputs()["data"] == {"name": theirs["wf"], "input": {"name": "bob", "punct": "!"}}
    r = hotc(tmp_path, env, "output", cli.stack, "data", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"name": mine["wf"], "input": {"name": "bob", "punct": "!"}}
    assert heat_outputs()["remaining"] == 3

    # the same signal: the same execution input and output under Heat and hotc
    data = {"input": {"name": "sig"}}
    r = heat.post(f"/stacks/{st.name}/{st.id}/resources/wf/signal", json=data)
    assert r.status_code == 200, r.text
    r = hotc(tmp_path, env, "signal", cli.stack, "wf", "--data", json.dumps(data))
    assert r.returncode == 0, r.stdout + r.stderr
    (by_heat,) = wait_done(cloud, theirs["wf"], 1)
    (by_hotc,) = wait_done(cloud, mine["wf"], 1)
    for run in (by_heat, by_hotc):
        assert run["state"] == "SUCCESS", run.get("state_info")
        assert json.loads(run["input"]) == {"name": "sig", "punct": "!"}
        assert json.loads(run["output"]) == {"said": "hi sig!"}
    # Heat's outputs show what its last create or update resolved (the executions are read again by the next
    # update), hotc's what its last apply read: a refresh reads them again
    assert heat_outputs()["executions"] == []
    r = hotc(tmp_path, env, "output", cli.stack, "executions", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [], r.stdout + r.stderr
    cli.apply("--refresh")

    # a task changed: Heat updates the workflow in place (same name, new definition); hotc decides an update
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={"greeting": "hello"})
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    assert heat_ids() == theirs
    assert 'output="hello <%' in definition_as(cloud, theirs["wf"])
    (heat_seen,) = heat_outputs()["executions"]
    r = hotc(tmp_path, env, "output", cli.stack, "executions", "--format", "json")
    assert r.returncode == 0, r.stderr
    (hotc_seen,) = json.loads(r.stdout)
    assert set(heat_seen) == set(hotc_seen) == {"id", "workflow_name", "created_at", "updated_at", "state",
                                                 "input", "output"}  # fmt: skip
    assert {k: heat_seen[k] for k in ("state", "input", "output")} == {
        k: hotc_seen[k] for k in ("state", "input", "output")
    }
    assert (heat_seen["id"], hotc_seen["id"]) == (by_heat["id"], by_hotc["id"])
    old = {"type": "direct", "tasks": [{"name": "say", "action": "std.echo output=hi"}]}
    new = {"type": "direct", "tasks": [{"name": "say", "action": "std.echo output=hello"}]}
    assert decision("OS::Mistral::Workflow", old, new) == UPDATE
    # a new name: Heat makes a new workflow (and a new trigger on it); hotc decides a replacement
    named = TEMPLATE.replace("      type: direct\n", f"      name: {st.name}-named\n      type: direct\n", 1)
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(named), parameters={"greeting": "hello"})
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    now = heat_ids()
    assert now["wf"] == f"{st.name}-named" and mistral(cloud, "GET", f"/workflows/{theirs['wf']}") is None
    assert now["cron"] != theirs["cron"]
    assert decision("OS::Mistral::Workflow", old, {**old, "name": "other"}) == REPLACE
    cron = {"pattern": "0 0 1 1 *", "workflow": {"name": "a"}}
    assert decision("OS::Mistral::CronTrigger", cron, {**cron, "workflow": {"name": "b"}}) == REPLACE
    r = hotc(tmp_path, env, "destroy", cli.stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


# Named: an unnamed object Heat made is planned as a rename by a refresh after --from-heat (the driver reports a
# name hotc did not generate), for every type with a name (a security group too): a known leftover of the takeover
FROM_HEAT = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      name: {list_join: ['-', [{get_param: prefix}, wf]]}
      type: direct
      tasks: [{name: only, action: std.noop}]
  cron:
    type: OS::Mistral::CronTrigger
    properties:
      name: {list_join: ['-', [{get_param: prefix}, cron]]}
      pattern: "0 0 1 1 *"
      workflow: {name: {get_resource: wf}}
"""


def test_heats_workflow_and_trigger_are_taken_over_with_from_heat(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "workflowv2", "86-mistral.sh")
    heat = cloud.orchestration
    prefix = cloud_tracker.name("heat")
    st = heat.create_stack(name=prefix, template=_doc(FROM_HEAT), parameters={"prefix": prefix})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=600)
    made = {r.name: r.physical_resource_id for r in heat.resources(st.id)}
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, env, "import", stack, "--from-heat", st.name, "mig", "--abandon")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert heat.find_stack(st.id, ignore_missing=True) is None  # abandoned: the workflow and trigger stay
    assert mistral(cloud, "GET", f"/workflows/{made['wf']}") is not None
    plan = ["plan", "-t", "mig/template.yaml", "-e", "mig/environment.yaml", stack, "--refresh"]
    r = hotc(tmp_path, env, *plan, "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert CliStack(tmp_path, env, stack, []).ids() == made
    r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert mistral(cloud, "GET", f"/workflows/{made['wf']}") is None
    assert mistral(cloud, "GET", f"/cron_triggers/{made['cron']}") is None
