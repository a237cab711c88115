"""The Mistral types against the test cloud's real Mistral (tests/cloud/86-mistral.sh: API, engine and executor),
through the hotc CLI: a Workflow and a CronTrigger on it are created, and Mistral holds the definition Heat builds
from the properties; a fresh plan shows no drift; a signal (``hotc signal``) starts an execution that really runs on
the engine and the executor, and the ``executions`` attribute shows it with its output; a signal with an input the
workflow does not declare is refused as Heat refuses it; a task change updates the workflow in place (same name);
a new ``name`` replaces the workflow and, through ``get_resource``, the trigger; a definition changed outside hotc is
drift, and the apply puts it back; a workflow made outside hotc is imported and then managed; destroy deletes the
workflow, the trigger and the executions the signals started. Every check asks Mistral itself."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import CliStack, hotc
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hi}
  wf_name: {type: string, default: ''}
conditions:
  named: {not: {equals: [{get_param: wf_name}, '']}}
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      name: {if: [named, {get_param: wf_name}, {get_param: 'OS::stack_name'}]}
      type: direct
      description: says something
      tags: [hotc]
      input: {name: bob}
      output: {said: <% $.said %>}
      tasks:
        - name: say
          action: {str_replace: {template: std.echo output="G <% $.name %>", params: {G: {get_param: greeting}}}}
          publish: {said: <% task().result %>}
          on_success: [done]
        - name: done
          action: std.noop
          policies: {retry: {count: 2, delay: 1}}
  cron:
    type: OS::Mistral::CronTrigger
    properties:
      pattern: "0 0 1 1 *"
      workflow: {name: {get_resource: wf}, input: {name: cron}}
outputs:
  ref: {value: {get_resource: wf}}
  data: {value: {get_attr: [wf, data]}}
  executions: {value: {get_attr: [wf, executions]}}
  remaining: {value: {get_attr: [cron, remaining_executions]}}
"""


def mistral(cloud: Any, method: str, path: str, **kw: Any) -> Any:
    r = cloud.workflow.request(path, method, **kw)
    if r.status_code == 404:
        return None
    assert r.status_code < 400, r.text
    return r.json() if r.content else None


def definition(cloud: Any, name: str) -> dict[str, Any]:
    got = mistral(cloud, "GET", f"/workflows/{name}")
    assert got is not None, f"workflow {name} is not in Mistral"
    doc: dict[str, Any] = yaml.safe_load(got["definition"])[name]
    return doc


def executions(cloud: Any, name: str) -> list[dict[str, Any]]:
    got = mistral(cloud, "GET", f"/executions?workflow_name={name}") or {}
    return list(got.get("executions") or [])


@pytest.fixture
def mistral_cleanup(cloud: Any, cloud_tracker: Any) -> None:
    """Whatever this test's stacks left in Mistral (a failed test) goes: triggers, executions, then workflows."""
    prefix = cloud_tracker.prefix

    def sweep() -> None:
        for t in (mistral(cloud, "GET", "/cron_triggers") or {}).get("cron_triggers") or []:
            if t["name"].startswith(prefix):
                mistral(cloud, "DELETE", f"/cron_triggers/{t['name']}")
        for w in (mistral(cloud, "GET", "/workflows") or {}).get("workflows") or []:
            if w["name"].startswith(prefix):
                for e in executions(cloud, w["name"]):
                    mistral(cloud, "DELETE", f"/executions/{e['id']}")
                mistral(cloud, "DELETE", f"/workflows/{w['name']}")

    cloud_tracker.defer("mistral workflows and triggers", sweep)


def outputs(cli: CliStack) -> dict[str, Any]:
    r = hotc(cli.cwd, cli.env, "output", cli.stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    return {k: v["value"] for k, v in json.loads(r.stdout).items()}


def test_workflow_and_cron_trigger_round_trip_through_the_cli(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "workflowv2", "86-mistral.sh")
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    # a token cached before Mistral was registered would lack its endpoint: this test's own cache
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    cli = CliStack(tmp_path, env, stack, [])

    cli.apply()
    ids = cli.ids()
    name = ids["wf"]
    assert name == stack  # the template's name (here the stack's): the physical id is the workflow's name
    got = definition(cloud, name)
    # the definition Heat builds: input keys only, tasks by name, '-' for '_', the policies moved into the task
    assert got["type"] == "direct" and got["description"] == "says something" and got["tags"] == ["hotc"]
    assert got["input"] == ["name"] and got["output"] == {"said": "<% $.said %>"}
    assert got["tasks"] == {
        "say": {
            "action": 'std.echo output="hi <% $.name %>"',
            "publish": {"said": "<% task().result %>"},
            "on-success": ["done"],
        },
        "done": {"action": "std.noop", "retry": {"count": 2, "delay": 1}},
    }
    trigger = mistral(cloud, "GET", f"/cron_triggers/{ids['cron']}")
    assert trigger["workflow_name"] == name and trigger["pattern"] == "0 0 1 1 *"
    assert json.loads(trigger["workflow_input"]) == {"name": "cron"}
    assert ids["cron"].startswith(f"{stack}-cron-")
    out = outputs(cli)
    assert out["ref"] == name and out["data"] == {"name": name, "input": {"name": "bob"}}
    assert out["executions"] == []
    cli.no_change()

    # a signal starts an execution that runs on the engine and the executor
    r = hotc(tmp_path, env, "signal", stack, "wf", "--data", '{"input": {"name": "sig"}}')
    assert r.returncode == 0, r.stdout + r.stderr
    deadline = time.monotonic() + 60
    while not (done := [e for e in executions(cloud, name) if e["state"] not in ("IDLE", "RUNNING")]):
        assert time.monotonic() < deadline, executions(cloud, name)
        time.sleep(0.5)
    assert [e["state"] for e in done] == ["SUCCESS"], done
    run = mistral(cloud, "GET", f"/executions/{done[0]['id']}")
    assert json.loads(run["input"]) == {"name": "sig"} and json.loads(run["output"]) == {"said": "hi sig"}
    r = hotc(tmp_path, env, "signal", stack, "wf", "--data", '{"input": {"nope": 1}}')
    assert r.returncode != 0 and "Unknown input nope" in r.stderr, r.stderr
    assert len(executions(cloud, name)) == 1
    cli.apply("--refresh")
    (seen,) = outputs(cli)["executions"]
    assert seen["id"] == run["id"] and seen["state"] == "SUCCESS" and seen["output"] == {"said": "hi sig"}
    assert seen["input"] == {"name": "sig"} and seen["workflow_name"] == name

    # a task change is an update in place: the same workflow gets the new definition
    created = mistral(cloud, "GET", f"/workflows/{name}")["created_at"]
    plan = cli.plan("--parameter", "greeting=hello")
    assert list(plan) == ["wf"] and plan["wf"]["actions"] == ["update"], plan
    cli.apply("--parameter", "greeting=hello")
    assert cli.ids()["wf"] == name
    assert mistral(cloud, "GET", f"/workflows/{name}")["created_at"] == created
    assert definition(cloud, name)["tasks"]["say"]["action"] == 'std.echo output="hello <% $.name %>"'
    cli.no_change("--parameter", "greeting=hello")

    # changed outside hotc: drift, and the apply puts the definition back
    text = mistral(cloud, "GET", f"/workflows/{name}")["definition"].replace("hello", "hand")
    r = cloud.workflow.request(
        "/workflows", "PUT", data=text.encode(), headers={"Content-Type": "text/plain"}
    )
    assert r.status_code == 200, r.text
    plan = cli.plan("--parameter", "greeting=hello")
    assert list(plan) == ["wf"] and plan["wf"]["actions"] == ["update"], plan
    cli.apply("--parameter", "greeting=hello", "--refresh")
    assert definition(cloud, name)["tasks"]["say"]["action"] == 'std.echo output="hello <% $.name %>"'

    # a new name replaces the workflow, and the trigger that names it
    new_name = cloud_tracker.name("renamed")
    plan = cli.plan("--parameter", "greeting=hello", "--parameter", f"wf_name={new_name}")
    assert {a: c["actions"] for a, c in plan.items()} == {
        "wf": ["create", "delete"],
        "cron": ["create", "delete"],
    } or {a: sorted(c["actions"]) for a, c in plan.items()} == {
        "wf": ["create", "delete"],
        "cron": ["create", "delete"],
    }, plan
    cli.apply("--parameter", "greeting=hello", "--parameter", f"wf_name={new_name}")
    new = cli.ids()
    assert new["wf"] == new_name and new["cron"] != ids["cron"]
    assert mistral(cloud, "GET", f"/workflows/{name}") is None
    assert mistral(cloud, "GET", f"/cron_triggers/{ids['cron']}") is None
    assert mistral(cloud, "GET", f"/cron_triggers/{new['cron']}")["workflow_name"] == new_name
    assert executions(cloud, name) == []  # the replaced workflow's signalled executions went with it

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    outside = cloud_tracker.name("outside")
    made = f"version: '2.0'\n{outside}:\n  type: direct\n  tasks:\n    only:\n      action: std.noop\n"
    r = cloud.workflow.request(
        "/workflows", "POST", data=made.encode(), headers={"Content-Type": "text/plain"}
    )
    assert r.status_code == 201, r.text
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  w: {{type: OS::Mistral::Workflow, properties: {{name: {outside}, type: direct,"
        " tasks: [{name: only, action: std.noop}]}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"w": outside}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert mistral(cloud, "GET", f"/workflows/{outside}") is None

    r = hotc(tmp_path, env, "signal", stack, "wf", "--data", '{"input": {"name": "last"}}')
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(executions(cloud, new_name)) == 1
    r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert mistral(cloud, "GET", f"/workflows/{new_name}") is None
    assert mistral(cloud, "GET", f"/cron_triggers/{new['cron']}") is None
    assert executions(cloud, new_name) == []


def test_a_missing_workflow_is_a_plan_error_and_a_trigger_is_imported(
    cloud: Any, cloud_tracker: Any, mistral_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """Heat's ``mistral.workflow`` constraint: a trigger on a workflow Mistral does not have is refused by the plan
    (Heat's create fails with the same message); a trigger made outside hotc is imported, then destroyed."""
    require_service(cloud, "workflowv2", "86-mistral.sh")
    env = {**hotc_cloud_env, "HOTC_TOKEN_CACHE": str(tmp_path / "tokens")}
    missing = cloud_tracker.name("nowf")
    (tmp_path / "c.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  cron:\n    type: OS::Mistral::CronTrigger\n"
        f"    properties: {{pattern: '0 0 1 1 *', workflow: {{name: {missing}}}}}\n"
    )
    r = hotc(tmp_path, env, "plan", "-t", "c.yaml", cloud_tracker.name("c"), "-o", "p.json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        f"c.yaml:5:50: error: cron: property workflow.name: The Workflow ({missing}) could not be found."
        in (r.stderr)
    ), r.stderr
    assert not (tmp_path / "p.json").exists()

    wf, trig = cloud_tracker.name("wf"), cloud_tracker.name("trig")
    made = f"version: '2.0'\n{wf}:\n  type: direct\n  tasks:\n    only:\n      action: std.noop\n"
    r = cloud.workflow.request(
        "/workflows", "POST", data=made.encode(), headers={"Content-Type": "text/plain"}
    )
    assert r.status_code == 201, r.text
    r = cloud.workflow.request(
        "/cron_triggers", "POST", json={"name": trig, "workflow_name": wf, "pattern": "0 0 1 1 *"}
    )
    assert r.status_code == 201, r.text
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  t: {{type: OS::Mistral::CronTrigger, properties: {{name: {trig}, pattern: '0 0 1 1 *',"
        f" workflow: {{name: {wf}}}}}}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"t": trig}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    # deleted outside hotc: the refresh finds it gone and the plan makes it again
    assert cloud.workflow.request(f"/cron_triggers/{trig}", "DELETE").status_code == 204
    r = hotc(tmp_path, env, "plan", "-t", "i.yaml", other, "--refresh", "--format", "json")
    assert r.returncode == 0, r.stderr
    (change,) = [c for c in json.loads(r.stdout)["resource_changes"] if c["actions"] != ["no-op"]]
    assert change["address"] == "t" and "create" in change["actions"], change  # made again
    r = hotc(tmp_path, env, "apply", "-t", "i.yaml", other, "--refresh", "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert mistral(cloud, "GET", f"/cron_triggers/{trig}")["workflow_name"] == wf
    r = hotc(tmp_path, env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert mistral(cloud, "GET", f"/cron_triggers/{trig}") is None
    assert mistral(cloud, "GET", f"/workflows/{wf}")["name"] == wf  # not the stack's: left alone
