"""The Aodh alarm types offline: their properties are checked as Heat's schemas say (allowed values, a composite
rule's two rules at least, a time constraint's required keys and cron start), with the template's position (a warning from validate, an error from plan); the
types with a driver plan; the Gnocchi alarms and the threshold alarm validate and plan refuses them with the
reason (no Gnocchi in the test cloud; Aodh removed threshold alarms); the old Ceilometer names resolve to them;
CombinationAlarm is Heat's placeholder, planned like OS::Heat::None."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clirun import run_hotc

HEAD = "heat_template_version: 2021-04-16\nresources:\n"


def _write(tmp_path: Path, body: str) -> None:
    (tmp_path / "t.yaml").write_text(HEAD + body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  a:\n    type: OS::Aodh::EventAlarm\n    properties: {severity: extreme}\n",
            "t.yaml:5:28: error: OS::Aodh::EventAlarm: property severity: 'extreme' is not an allowed value",
        ),
        (
            "  a:\n    type: OS::Aodh::CompositeAlarm\n"
            "    properties: {composite_rule: {operator: or, rules: [{type: prometheus, query: up, threshold: 1}]}}\n",
            "t.yaml:5:56: error: OS::Aodh::CompositeAlarm: property composite_rule.rules: length 1 of",
        ),
        (
            "  a:\n    type: OS::Aodh::CompositeAlarm\n"
            "    properties: {composite_rule: {operator: xor, rules: [{}, {}]}}\n",
            "t.yaml:5:45: error: OS::Aodh::CompositeAlarm: property composite_rule.operator: 'xor' is not an allowed",
        ),
        (
            "  a:\n    type: OS::Aodh::PrometheusAlarm\n"
            "    properties: {query: up, threshold: 1, time_constraints: [{name: n, duration: 10}]}\n",
            "t.yaml:5:62: error: OS::Aodh::PrometheusAlarm: required property time_constraints.0.start is missing",
        ),
        (  # Heat sends the operator as null and Aodh refuses it: Heat's create fails (seen on the test cloud)
            "  a:\n    type: OS::Aodh::PrometheusAlarm\n    properties: {query: up, threshold: 1}\n",
            "t.yaml:3:3: error: OS::Aodh::PrometheusAlarm: comparison_operator is needed: without it Heat sends null",
        ),
        (
            "  a:\n    type: OS::Aodh::LBMemberHealthAlarm\n    properties: {pool: p, autoscaling_group_id: g}\n",
            "t.yaml:5:17: error: OS::Aodh::LBMemberHealthAlarm: required property stack is missing",
        ),
    ],
)
def test_invalid_alarm_properties_are_errors_with_their_position(
    tmp_path: Path, body: str, message: str
) -> None:
    _write(tmp_path, body)
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")  # as Heat's template validate: a warning
    assert r.returncode == 0 and message.replace(": error:", ": warning:") in r.stdout + r.stderr
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "s")  # what Heat's create would fail on: an error
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stdout + r.stderr and "nothing was planned" in r.stderr


def test_alarm_types_with_a_driver_plan(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "  ev: {type: OS::Aodh::EventAlarm, properties: {event_type: compute.instance.update}}\n"
        "  pr: {type: OS::Aodh::PrometheusAlarm, properties: {query: up, threshold: 1, comparison_operator: ge}}\n"
        "  co:\n    type: OS::Aodh::CompositeAlarm\n"
        "    properties: {composite_rule: {operator: or, rules: [{type: prometheus, query: up, threshold: 1},"
        " {type: prometheus, query: down, threshold: 2}]}}\n"
        "  lb: {type: OS::Aodh::LBMemberHealthAlarm, properties: {pool: p, stack: s, autoscaling_group_id: g}}\n"
        "  old: {type: OS::Ceilometer::CombinationAlarm, properties: {alarm_ids: [x, y]}}\n",
    )
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "s")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "5 to create" in r.stdout
    assert "+ old (OS::Aodh::CombinationAlarm) will be created" in r.stdout


@pytest.mark.parametrize(
    ("type_name", "props", "why"),
    [
        (
            "OS::Aodh::GnocchiResourcesAlarm",
            "{metric: cpu, resource_id: r, resource_type: instance, threshold: 1, comparison_operator: gt}",
            "runs Aodh without Gnocchi",
        ),
        (
            "OS::Aodh::GnocchiAggregationByMetricsAlarm",
            "{metrics: [m], threshold: 1, comparison_operator: gt}",
            "runs Aodh without Gnocchi",
        ),
        (
            "OS::Aodh::GnocchiAggregationByResourcesAlarm",
            "{metric: cpu, query: '{}', resource_type: instance, threshold: 1, comparison_operator: gt}",
            "runs Aodh without Gnocchi",
        ),
        ("OS::Aodh::Alarm", "{meter_name: cpu, threshold: 1}", "Aodh removed the threshold alarm"),
        ("OS::Ceilometer::Alarm", "{meter_name: cpu, threshold: 1}", "Aodh removed the threshold alarm"),
    ],
)
def test_types_without_a_driver_validate_and_plan_refuses_them_with_the_reason(
    tmp_path: Path, type_name: str, props: str, why: str
) -> None:
    _write(tmp_path, f"  a:\n    type: {type_name}\n    properties: {props}\n")
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "hotc cannot create or update this type" in r.stdout + r.stderr
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "s", "-o", "p.json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "t.yaml:3:3: error: a: hotc cannot create or update OS::Aodh::" in r.stderr
    assert why in r.stderr
    assert not (tmp_path / "p.json").exists()
