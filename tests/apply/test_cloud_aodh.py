"""The Aodh alarms against the test cloud's real Aodh API (tests/cloud/85-aodh.sh), through the hotc CLI: an
EventAlarm whose alarm action is a ScalingPolicy's ``alarm_url``, a PrometheusAlarm, a CompositeAlarm of Gnocchi
sub-rules and an LBMemberHealthAlarm on an Octavia pool are created; a fresh plan shows no drift; a change made
outside hotc shows as exactly that drift; what Heat updates in place (severity, event type, thresholds) keeps the
alarm; what it does not (time constraints, the member-health alarm's stack) replaces it; suspend disables every
alarm and resume enables it again; check reads them; an alarm made outside hotc is imported and then managed;
destroy deletes. Every check asks Aodh itself. The ``alarm_url`` is a secret: Aodh holds it, the plan and the
apply never print it and the state never stores it in clear; and POSTing what Aodh's notifier would send to the
URL Aodh holds scales the group (the cloud runs no Aodh evaluator/notifier to send it)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.apply.aodh_cloud import alarms_cleanup, aodh
from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.test_scaling_watch import Watcher, aodh_post
from tests.fixtures.s3 import S3Bucket, free_port

pytestmark = pytest.mark.cloud
__all__ = ["alarms_cleanup"]  # the fixture

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  subnet: {type: string}
  severity: {type: string, default: low}
  tz: {type: string, default: Europe/Amsterdam}
  threshold: {type: number, default: 80}
  event: {type: string, default: compute.instance.delete.end}
  root: {type: string, default: root-a}
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties: {min_size: 1, max_size: 3, desired_capacity: 1, resource: {type: OS::Heat::None}}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: asg}
      adjustment_type: change_in_capacity
      scaling_adjustment: 1
      cooldown: 0
  ev:
    type: OS::Aodh::EventAlarm
    properties:
      description: a server went away
      event_type: {get_param: event}
      query: [{field: traits.instance_id, op: eq, value: abc}]
      alarm_actions: [{get_attr: [up, alarm_url]}]
      ok_actions: ['http://127.0.0.1:9/ok']
      alarm_queues: [q1]
      severity: {get_param: severity}
      time_constraints: [{name: night, start: '0 23 * * *', duration: 3600, timezone: {get_param: tz}}]
  prom:
    type: OS::Aodh::PrometheusAlarm
    properties: {query: 'up{job="web"}', threshold: {get_param: threshold}, comparison_operator: lt}
  comp:
    type: OS::Aodh::CompositeAlarm
    properties:
      composite_rule:
        operator: or
        rules:
          - {type: gnocchi_resources_threshold, metric: cpu, resource_id: r1, resource_type: instance,
             threshold: {get_param: threshold}, aggregation_method: mean}
          - and:
            - {type: gnocchi_aggregation_by_metrics_threshold, metrics: [m1], threshold: 2,
               aggregation_method: mean, comparison_operator: gt}
            - {type: gnocchi_resources_threshold, metric: mem, resource_id: r1, resource_type: instance,
               threshold: 90, aggregation_method: max}
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {vip_subnet: {get_param: subnet}}
  pool:
    type: OS::Octavia::Pool
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, lb_algorithm: ROUND_ROBIN}
  lbh:
    type: OS::Aodh::LBMemberHealthAlarm
    properties: {pool: {get_resource: pool}, stack: {get_param: root}, autoscaling_group_id: {get_resource: asg}}
outputs:
  size: {value: {get_attr: [asg, current_size]}}
  asg_id: {value: {get_resource: asg}}
"""

ALARMS = ("ev", "prom", "comp", "lbh")


def test_alarm_types_round_trip_through_the_cli(
    cloud: Any,
    cloud_shared: Any,
    cloud_tracker: Any,
    alarms_cleanup: None,
    hotc_cloud_env: dict[str, str],
    s3_bucket: S3Bucket,
    tmp_path: Path,
) -> None:
    stack = cloud_tracker.name("stk")
    lbs: list[str] = []
    cloud_tracker.defer(
        "octavia load balancer",
        lambda: [cloud.load_balancer.delete_load_balancer(i, ignore_missing=True, cascade=True) for i in lbs],
    )
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    port = free_port()
    store = f"s3://{s3_bucket.name}/sig"
    env = {**hotc_cloud_env, "AWS_ENDPOINT_URL_S3": os.environ["AWS_ENDPOINT_URL_S3"]}
    env["HOTC_SIGNAL_RECEIVER"] = f"http://127.0.0.1:{port}"
    params = ["--parameter", f"subnet={cloud_shared.private_subnet_name}", "--signal-store", store]
    cli = CliStack(tmp_path, env, stack, params)

    r = hotc(tmp_path, env, "apply", "-t", "t.yaml", *params, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    ids = cli.ids()
    lbs.append(ids["lb"])
    ev = aodh(cloud, "GET", f"/alarms/{ids['ev']}")
    assert ev["type"] == "event" and ev["name"].startswith(f"{stack}-ev-")
    assert ev["event_rule"]["event_type"] == "compute.instance.delete.end"
    assert [(q["field"], q["op"], q["value"]) for q in ev["event_rule"]["query"]] == [
        ("traits.instance_id", "eq", "abc")
    ]
    assert ev["severity"] == "low" and ev["enabled"] is True and ev["repeat_actions"] is True
    assert ev["ok_actions"] == ["http://127.0.0.1:9/ok"]
    assert [tc["timezone"] for tc in ev["time_constraints"]] == ["Europe/Amsterdam"]
    # the alarm action is the policy's receiver URL (read from the state with its key, as an operator would),
    # then the queue as Heat sends it
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, tmp_path, env={}).read(stack)
    assert st is not None
    url = st.resources["up"].attributes["alarm_url"]
    assert isinstance(url, str) and url.startswith(f"http://127.0.0.1:{port}/v1/signal/"), url
    assert ev["alarm_actions"] == [url, "trust+zaqar:?queue_name=q1"]
    # a secret: never printed, never stored in clear
    assert url not in r.stdout + r.stderr
    token = url.rsplit("/", 1)[-1]
    for f in (tmp_path / ".hotc").rglob("*"):
        if f.is_file():
            assert token.encode() not in f.read_bytes(), f
    plan_text = hotc(tmp_path, env, "plan", "-t", "t.yaml", *params, stack, "--refresh")
    assert plan_text.returncode == 0 and token not in plan_text.stdout + plan_text.stderr

    prom = aodh(cloud, "GET", f"/alarms/{ids['prom']}")
    assert prom["prometheus_rule"]["query"] == 'up{job="web"}' and prom["prometheus_rule"]["threshold"] == 80
    comp = aodh(cloud, "GET", f"/alarms/{ids['comp']}")
    assert list(comp["composite_rule"]) == ["or"]
    assert comp["composite_rule"]["or"][0]["metric"] == "cpu"
    assert comp["composite_rule"]["or"][1]["and"][1]["aggregation_method"] == "max"
    r = hotc(tmp_path, env, "output", stack, "asg_id")
    asg_id = r.stdout.strip()
    assert r.returncode == 0 and asg_id, r.stdout + r.stderr
    lbh = aodh(cloud, "GET", f"/alarms/{ids['lbh']}")
    assert lbh["loadbalancer_member_health_rule"] == {
        "pool_id": ids["pool"],
        "stack_id": "root-a",
        "autoscaling_group_id": asg_id,
    }
    cli.no_change()

    # drift: severity and the event type changed outside hotc, planned back in place
    aodh(cloud, "PUT", f"/alarms/{ids['ev']}", {**ev, "severity": "moderate"})
    planned = cli.plan()
    assert set(planned) == {"ev"} and planned["ev"]["actions"] == ["update"]
    assert planned["ev"]["changed_paths"] == [["severity"]]

    # in place, as in Heat: severity, event type, thresholds (the composite's nested one too)
    upd = ["--parameter", "severity=critical", "--parameter", "threshold=70", "--parameter", "event=x.y"]
    planned = cli.plan(*upd)
    assert {a: c["actions"] for a, c in planned.items()} == {
        "ev": ["update"],
        "prom": ["update"],
        "comp": ["update"],
    }
    cli.apply(*upd)
    assert cli.ids() == ids
    ev = aodh(cloud, "GET", f"/alarms/{ids['ev']}")
    assert ev["severity"] == "critical" and ev["event_rule"]["event_type"] == "x.y"
    assert ev["alarm_actions"] == [url, "trust+zaqar:?queue_name=q1"]
    assert aodh(cloud, "GET", f"/alarms/{ids['prom']}")["prometheus_rule"]["threshold"] == 70
    assert aodh(cloud, "GET", f"/alarms/{ids['comp']}")["composite_rule"]["or"][0]["threshold"] == 70
    cli.no_change(*upd)

    # replaced, as in Heat: an event alarm's time constraints, a member-health alarm's stack
    rep = [*upd, "--parameter", "tz=UTC", "--parameter", "root=root-b"]
    planned = cli.plan(*rep)
    assert set(planned) == {"ev", "lbh"}
    for c in planned.values():
        assert "create" in c["actions"] and "delete" in c["actions"]
    cli.apply(*rep)
    new = cli.ids()
    assert new["ev"] != ids["ev"] and new["lbh"] != ids["lbh"] and new["prom"] == ids["prom"]
    assert aodh(cloud, "GET", f"/alarms/{ids['ev']}") is None
    assert aodh(cloud, "GET", f"/alarms/{ids['lbh']}") is None
    ev = aodh(cloud, "GET", f"/alarms/{new['ev']}")
    assert [tc["timezone"] for tc in ev["time_constraints"]] == ["UTC"]
    assert ev["alarm_actions"] == [url, "trust+zaqar:?queue_name=q1"]
    assert (
        aodh(cloud, "GET", f"/alarms/{new['lbh']}")["loadbalancer_member_health_rule"]["stack_id"] == "root-b"
    )
    cli.no_change(*rep)

    # suspend disables every alarm, resume enables it again (Heat's handle_suspend/handle_resume); check reads
    r = hotc(tmp_path, env, "suspend", stack)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [aodh(cloud, "GET", f"/alarms/{new[a]}")["enabled"] for a in ALARMS] == [False] * 4
    r = hotc(tmp_path, env, "resume", stack)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [aodh(cloud, "GET", f"/alarms/{new[a]}")["enabled"] for a in ALARMS] == [True] * 4
    r = hotc(tmp_path, env, "check", stack)
    assert r.returncode == 0 and all(f"{a}: CHECK_COMPLETE" in r.stdout + r.stderr for a in ALARMS), r.stdout

    # what Aodh's notifier would POST to the action Aodh holds scales the group through the receiver
    w = Watcher(tmp_path, store, port, stack=stack, env=env)
    try:
        w.wait_for("receiving alarms on")
        w.wait_for(f"watching stack {stack!r}")
        assert aodh_post(ev["alarm_actions"][0]).status_code == 202
        assert "asg 1 → 2 members" in w.wait_for("scaling:")
        w.wait_for("Apply complete")
    finally:
        w.stop()
    r = hotc(tmp_path, env, "output", stack, "size")
    assert r.returncode == 0 and r.stdout.strip() == "2", r.stdout + r.stderr

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    made = aodh(
        cloud,
        "POST",
        "/alarms",
        {
            "name": cloud_tracker.name("outside"),
            "type": "prometheus",
            "prometheus_rule": {"query": "up", "threshold": 3, "comparison_operator": "gt"},
            "severity": "moderate",
            "repeat_actions": True,
        },
    )
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2021-04-16\nresources:\n"
        "  p: {type: OS::Aodh::PrometheusAlarm, properties: {query: up, threshold: 3, comparison_operator: gt,"
        " severity: moderate}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"p": made["alarm_id"]}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert aodh(cloud, "GET", f"/alarms/{made['alarm_id']}") is None

    r = hotc(tmp_path, env, "destroy", stack, "--auto-approve", *params[2:])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert [aodh(cloud, "GET", f"/alarms/{new[a]}") for a in ALARMS] == [None] * 4
    assert cloud.load_balancer.find_load_balancer(ids["lb"]) is None
