"""Heat 27 of the test cloud and hotc make the same alarms in the same Aodh: one template is created by Heat and by
hotc, and each alarm Heat made is the alarm hotc made (type, rule, actions with the queue's zaqar URL, severity,
time constraints, enabled, repeat_actions; only names and ids differ). What Heat does on an update (severity:
in place, same alarm; time constraints: replaced, a new alarm) is what hotc decides for the same change; Heat's
suspend disables the alarms as hotc's does; and Heat's create of a Gnocchi alarm fails in this cloud (no
Gnocchi), which is the reason hotc's plan gives for refusing it. ``hotc import --from-heat --abandon`` takes
Heat's alarms over: no change planned, and hotc's destroy deletes them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hotc.providers.drivers import support_problem
from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults
from tests.apply.aodh_cloud import alarms_cleanup, aodh
from tests.apply.cloud_cli import CliStack, hotc

pytestmark = pytest.mark.cloud
__all__ = ["alarms_cleanup"]  # the fixture

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  severity: {type: string, default: low}
  tz: {type: string, default: Europe/Amsterdam}
resources:
  ev:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: compute.instance.delete.end
      query: [{field: traits.instance_id, op: eq, value: abc}]
      alarm_actions: ['http://127.0.0.1:9/alarm']
      alarm_queues: [q1]
      severity: {get_param: severity}
      time_constraints: [{name: night, start: '0 23 * * *', duration: 3600, timezone: {get_param: tz}}]
  prom:
    type: OS::Aodh::PrometheusAlarm
    properties: {query: up, threshold: 5, comparison_operator: lt, description: web is down}
  comp:
    type: OS::Aodh::CompositeAlarm
    properties:
      repeat_actions: false
      composite_rule:
        operator: and
        rules:
          - {type: gnocchi_resources_threshold, metric: cpu, resource_id: r1, resource_type: instance,
             threshold: 80, aggregation_method: mean}
          - {type: gnocchi_aggregation_by_metrics_threshold, metrics: [m1], threshold: 2,
             aggregation_method: mean, comparison_operator: gt}
"""

GNOCCHI = """heat_template_version: 2021-04-16
resources:
  g:
    type: OS::Aodh::GnocchiResourcesAlarm
    properties:
      {metric: cpu, resource_id: r1, resource_type: instance, threshold: 80, aggregation_method: mean,
       comparison_operator: gt}
"""

#: what differs between two alarms of the same template (who made them, when, and their names)
_OWN = {"alarm_id", "name", "timestamp", "state_timestamp", "evaluate_timestamp", "user_id", "project_id"}


def _doc(text: str) -> dict[str, Any]:
    """A template as Heat's API takes it (the version as text, not a YAML date)."""
    import yaml

    doc: dict[str, Any] = yaml.safe_load(text)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


def comparable(alarm: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in alarm.items() if k not in _OWN}


def _wait(heat: Any, stack_id: str, before: Any, want: tuple[str, ...]) -> Any:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        now = heat.get_stack(stack_id)
        if now.updated_at != before and now.status in want:
            return now
        time.sleep(2)
    raise AssertionError(f"Heat's stack did not reach {want}")


def decision(type_name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    rtype = get_schema(type_name)
    assert rtype is not None
    return decide_update(rtype, apply_defaults(rtype, old), apply_defaults(rtype, new)).kind


def test_heat_and_hotc_make_the_same_alarms_and_decide_the_same(
    cloud: Any, cloud_tracker: Any, alarms_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=_doc(TEMPLATE), parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    def heat_ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    cli = CliStack(tmp_path, hotc_cloud_env, cloud_tracker.name("hotc"), [])
    cli.apply()
    mine = cli.ids()
    first = heat_ids()
    for address in ("ev", "prom", "comp"):
        by_heat = aodh(cloud, "GET", f"/alarms/{first[address]}")
        by_hotc = aodh(cloud, "GET", f"/alarms/{mine[address]}")
        assert comparable(by_heat) == comparable(by_hotc), address
    assert aodh(cloud, "GET", f"/alarms/{first['ev']}")["alarm_actions"] == [
        "http://127.0.0.1:9/alarm",
        "trust+zaqar:?queue_name=q1",
    ]

    ev_old = {
        "event_type": "compute.instance.delete.end",
        "query": [{"field": "traits.instance_id", "op": "eq", "value": "abc"}],
        "alarm_actions": ["http://127.0.0.1:9/alarm"],
        "alarm_queues": ["q1"],
        "severity": "low",
        "time_constraints": [
            {"name": "night", "start": "0 23 * * *", "duration": 3600, "timezone": "Europe/Amsterdam"}
        ],
    }
    # severity: Heat updates the alarm in place; hotc decides an update
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={"severity": "critical"})
    assert _wait(heat, st.id, before, ("UPDATE_COMPLETE", "UPDATE_FAILED")).status == "UPDATE_COMPLETE"
    assert heat_ids()["ev"] == first["ev"]
    assert aodh(cloud, "GET", f"/alarms/{first['ev']}")["severity"] == "critical"
    ev_new = {**ev_old, "severity": "critical"}
    assert decision("OS::Aodh::EventAlarm", ev_old, ev_new) == UPDATE

    # time constraints: Heat replaces the alarm; hotc decides a replacement
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={"severity": "critical", "tz": "UTC"})
    assert _wait(heat, st.id, before, ("UPDATE_COMPLETE", "UPDATE_FAILED")).status == "UPDATE_COMPLETE"
    replaced = heat_ids()["ev"]
    assert replaced != first["ev"] and aodh(cloud, "GET", f"/alarms/{first['ev']}") is None
    tz_utc = [{**ev_old["time_constraints"][0], "timezone": "UTC"}]
    assert decision("OS::Aodh::EventAlarm", ev_new, {**ev_new, "time_constraints": tz_utc}) == REPLACE

    # suspend: Heat disables its alarms, as hotc's suspend does
    r = heat.post(f"/stacks/{st.name}/{st.id}/actions", json={"suspend": None})
    assert r.status_code == 200, r.text
    before = heat.get_stack(st.id).updated_at
    deadline = time.monotonic() + 600
    while heat.get_stack(st.id).status != "SUSPEND_COMPLETE":
        assert time.monotonic() < deadline and not heat.get_stack(st.id).status.endswith("FAILED")
        time.sleep(2)
    ids = heat_ids()
    assert [aodh(cloud, "GET", f"/alarms/{ids[a]}")["enabled"] for a in ("ev", "prom", "comp")] == [False] * 3
    del before

    # a Gnocchi alarm: Heat's create fails here (Aodh asks Gnocchi, which this cloud lacks); hotc refuses it
    g = heat.create_stack(name=cloud_tracker.name("heatg"), template=_doc(GNOCCHI), parameters={})
    cloud_tracker.track(g)
    g = heat.wait_for_status(g, "CREATE_FAILED", failures=["CREATE_COMPLETE"], wait=900)
    assert "metric" in str(g.status_reason), g.status_reason
    problem = support_problem("OS::Aodh::GnocchiResourcesAlarm")
    assert problem is not None and "without Gnocchi" in problem and "503" in problem


FROM_HEAT = """heat_template_version: 2021-04-16
resources:
  ev:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: compute.instance.delete.end
      alarm_queues: [q1]
      time_constraints: [{name: night, start: '0 23 * * *', duration: 3600}]
  prom:
    type: OS::Aodh::PrometheusAlarm
    properties: {query: up, threshold: 5, comparison_operator: lt}
"""


def test_heats_alarms_are_taken_over_with_from_heat(
    cloud: Any, cloud_tracker: Any, alarms_cleanup: None, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=_doc(FROM_HEAT), parameters={})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)
    made = {r.name: r.physical_resource_id for r in heat.resources(st.id)}
    stack = cloud_tracker.name("hotc")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "mig", "--abandon")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.orchestration.find_stack(st.id, ignore_missing=True) is None  # abandoned: the alarms stay
    assert all(aodh(cloud, "GET", f"/alarms/{pid}") is not None for pid in made.values())
    plan = ["plan", "-t", "mig/template.yaml", "-e", "mig/environment.yaml", stack, "--refresh"]
    r = hotc(tmp_path, hotc_cloud_env, *plan, "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert CliStack(tmp_path, hotc_cloud_env, stack, []).ids() == made
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert all(aodh(cloud, "GET", f"/alarms/{pid}") is None for pid in made.values())
