"""An alarm action that names a resource of the stack: Heat turns it into that resource's AlarmUrl attribute,
which an OS::Heat::ScalingPolicy does not have, so Heat's create of the alarm fails; hotc's plan says so where
the template writes it, and what to write instead. Heat's template validate accepts it, and so does hotc's."""

from __future__ import annotations

from pathlib import Path

from tests.clirun import run_hotc

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  grp:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      resource: {type: OS::Heat::None}
  scale_up:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: grp}
      adjustment_type: change_in_capacity
      scaling_adjustment: 1
  alarm:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: compute.instance.exists
      ok_actions: [http://example.com/ok]
      alarm_actions: ACTIONS
"""


def _plan(tmp_path: Path, actions: str, *extra: str) -> tuple[int, str]:
    (tmp_path / "t.yaml").write_text(TEMPLATE.replace("ACTIONS", actions))
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", *extra, "s")
    return r.returncode, r.stdout + r.stderr


def test_an_action_naming_a_scaling_policy_is_a_plan_error_at_its_position(tmp_path: Path) -> None:
    code, out = _plan(tmp_path, "[http://example.com/a, scale_up]")
    assert code != 0
    assert (
        "t.yaml:20:45: error: alarm: property alarm_actions.1: 'scale_up' names the resource scale_up "
        "(OS::Heat::ScalingPolicy)" in out
    )
    assert "{get_attr: [scale_up, alarm_url]}" in out
    assert not (tmp_path / ".hotc").exists() or not list((tmp_path / ".hotc").rglob("*.json"))
    (tmp_path / "t.yaml").write_text(TEMPLATE.replace("ACTIONS", "[scale_up]"))
    assert run_hotc(tmp_path, "validate", "-t", "t.yaml").returncode == 0  # as Heat's template validate


def test_an_action_from_a_parameter_naming_a_resource_is_caught_too(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        TEMPLATE.replace("resources:\n", "parameters:\n  act: {type: string}\nresources:\n", 1).replace(
            "ACTIONS", "[{get_param: act}]"
        )
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "--parameter", "act=grp", "s")
    assert r.returncode != 0
    assert "alarm: property alarm_actions.0: 'grp' names the resource grp (OS::Heat::AutoScalingGroup)" in (
        r.stdout + r.stderr
    )


def test_urls_and_names_of_nothing_in_the_stack_are_left_alone(tmp_path: Path) -> None:
    # no scaling policy here (its signal URLs would need a signal store to plan)
    body = TEMPLATE.replace("ACTIONS", "[http://example.com/a, not_a_resource]")
    body = body[: body.index("  scale_up:")] + body[body.index("  alarm:") :]
    (tmp_path / "t.yaml").write_text(body)
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "s")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "names the resource" not in r.stdout + r.stderr
    assert "+ alarm (OS::Aodh::EventAlarm) will be created" in r.stdout
    assert '+ alarm_actions: ["http://example.com/a", "not_a_resource"]' in r.stdout


def test_an_action_naming_a_resource_whose_condition_is_false_says_what_heat_does(tmp_path: Path) -> None:
    """Heat 27 (checked on the test cloud): ``act in self.stack`` looks in the template's resources and finds
    the name, ``self.stack[act]`` looks in those the conditions keep and does not: the alarm is CREATE_FAILED
    with "KeyError: resources.alarm: 'scale_up'". Nothing reaches Aodh, and no AlarmUrl is asked for."""
    body = TEMPLATE.replace("ACTIONS", "[scale_up]").replace(
        "resources:\n",
        "parameters:\n  up: {type: boolean, default: false}\nconditions:\n  up: {get_param: up}\nresources:\n",
        1,
    )
    body = body.replace(
        "    type: OS::Heat::ScalingPolicy\n", "    type: OS::Heat::ScalingPolicy\n    condition: up\n"
    )
    (tmp_path / "t.yaml").write_text(body)
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "s")
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert (
        "alarm: property alarm_actions.0: 'scale_up' names the resource scale_up (OS::Heat::ScalingPolicy), "
        "whose condition is false: Heat finds scale_up among the template's resources but not among those its "
        "conditions keep, so its create of the alarm fails (KeyError: 'scale_up') before anything reaches Aodh"
        in out
    ), out
    assert "AlarmUrl" not in out
    assert "{if: [up, [{get_attr: [scale_up, alarm_url]}], []]}" in out
    assert "t.yaml:25:23: error" in out  # where the template writes the action (alarm_actions: [scale_up])
    # with the condition true it is the AlarmUrl case again
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "--parameter", "up=true", "s")
    assert r.returncode != 0 and "AlarmUrl attribute" in r.stdout + r.stderr
