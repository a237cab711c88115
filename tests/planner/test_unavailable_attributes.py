"""An attribute hotc cannot give (a Mistral workflow's ``alarm_url``: Heat's signed CloudFormation URL) passed to a
resource is a plan error at the get_attr's FILE:LINE:COL naming the reason and what to use instead; nothing is
planned. Read only by an output, it is no error (the output shows null)."""

from __future__ import annotations

from pathlib import Path

from tests.clirun import run_hotc

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      tasks: [{name: t, action: std.noop}]
  alarm:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: x
      alarm_actions: [{get_attr: [wf, alarm_url]}]
"""


def test_a_workflows_alarm_url_given_to_an_alarm_is_a_plan_error(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr  # Heat's validate accepts it: the attribute exists
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "-o", "p.json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        "t.yaml:12:23: error: alarm: get_attr [wf, alarm_url]: OS::Mistral::Workflow attribute alarm_url: hotc has "
        "no URL that starts a workflow's execution" in r.stderr
    )
    assert "hotc signal STACK WORKFLOW" in r.stderr
    assert not (tmp_path / "p.json").exists()


def test_other_attributes_of_the_workflow_plan(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        TEMPLATE.replace("alarm_actions: [{get_attr: [wf, alarm_url]}]", "description: {get_resource: wf}")
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 to create" in r.stdout
