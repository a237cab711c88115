"""Offline: the Mistral definition a Workflow's properties make (Heat's ``prepare_properties``), the properties read
back from a live definition (drift), a signal's input and params (Heat's ``handle_signal``) and the cross-property
rules (Heat's ``validate``), with Heat's messages."""

from __future__ import annotations

import pytest
import yaml

from hotc.errors import HotcError
from hotc.providers.openstack.mistral.definition import definition_text, live_properties, parse
from hotc.providers.openstack.mistral.workflow import signal_arguments
from hotc.providers.schemas.mistral import cron_trigger_validate, replace_on_changed_inputs, workflow_validate

PROPS = {
    "type": "direct",
    "description": "d",
    "input": {"a": 1, "b": None},
    "output": {"o": "<% $.x %>"},
    "tasks": [
        {"name": "t2", "action": "std.noop", "on_success": ["t1"], "wait_before": None},
        {"name": "t1", "workflow": "other", "policies": {"retry": {"count": 2}, "timeout": 9}},
    ],
    "task_defaults": {"on_error": ["t1"], "pause_before": False, "timeout": 0},
}


def test_the_definition_is_the_one_heat_builds() -> None:
    doc = yaml.safe_load(definition_text(PROPS, "wf"))
    assert doc == {
        "version": "2.0",
        "wf": {
            "type": "direct",
            "description": "d",
            "output": {"o": "<% $.x %>"},
            "input": ["a", "b"],  # the input's keys only: its values are what a signal's execution gets
            "tasks": {
                "t2": {"action": "std.noop", "on-success": ["t1"]},
                "t1": {"workflow": "other", "retry": {"count": 2}, "timeout": 9},  # policies moved in
            },
            "task-defaults": {"on-error": ["t1"]},  # falsy entries are not sent, as in Heat
        },
    }


def test_a_live_definition_equal_to_the_template_reads_as_given_and_a_changed_one_as_drift() -> None:
    live = parse(definition_text(PROPS, "wf"), "wf")
    assert live_properties(PROPS, live, "wf") == {k: PROPS[k] for k in PROPS}
    live["tasks"]["t2"]["action"] = "std.echo output=x"
    live["input"] = ["a"]
    got = live_properties(PROPS, live, "wf")
    assert got["input"] == {"a": 1}
    assert {t["name"]: t.get("action") for t in got["tasks"]} == {"t2": "std.echo output=x", "t1": None}
    assert got["type"] == "direct" and got["task_defaults"] == PROPS["task_defaults"]


def test_a_signal_overrides_the_declared_input_and_params() -> None:
    props = {"input": {"a": 1, "b": 2}, "params": {"env": {"x": 1}}}
    assert signal_arguments(props, {"input": {"b": 3}, "params": {"task_name": "t"}}) == (
        {"a": 1, "b": 3},
        {"env": {"x": 1}, "task_name": "t"},
    )
    assert signal_arguments(props, None) == ({"a": 1, "b": 2}, {"env": {"x": 1}})
    body = {"input": {"a": 1, "b": 2}, "use_request_body_as_input": True}
    assert signal_arguments(body, {"a": 5}) == ({"a": 5, "b": 2}, {})


@pytest.mark.parametrize(
    ("details", "message"),
    [
        ({"input": {"c": 1}}, "Signal data error: Unknown input c"),
        ({"input": [1]}, "Signal data error: Input in signal data must be a map, find a list"),
        ({"params": "x"}, "Signal data error: Params must be a map, find a str"),
    ],
)
def test_a_signal_heat_refuses_is_refused(details: object, message: str) -> None:
    with pytest.raises(HotcError) as info:
        signal_arguments({"input": {"a": 1}}, details)
    assert str(info.value.message) == message


def test_heats_cross_property_rules() -> None:
    def errs(**props: object) -> list[str]:
        return [m for _p, m in workflow_validate({"type": "direct", **props})]

    assert errs(tasks=[{"name": "t", "action": "std.noop"}]) == []
    assert errs(tasks=[{"name": "t", "action": "a", "workflow": "w"}]) == [
        "Cannot define the following properties at the same time: workflow, action."
    ]
    assert errs(tasks=[{"name": "t"}]) == [
        "At least one of the following properties must be specified: workflow, action."
    ]
    assert (
        "Only reverse workflows can contain property 'requires'"
        in errs(tasks=[{"name": "t", "action": "a", "requires": ["x"]}])[0]
    )
    assert errs(tasks=[{"name": "t", "action": "a", "concurrency": 2}]) == [
        "concurrency cannot be specified without with_items."
    ]
    assert errs(tasks=[{"name": "t", "action": "a", "retry": {}, "policies": {"retry": {}}}]) == [
        "Cannot define the following properties at the same time: tasks.retry, tasks.policies.retry"
    ]
    assert [
        m for _p, m in workflow_validate({"type": "reverse", "tasks": [{"name": "t", "action": "a"}]})
    ] == [
        "Mistral resource validation error: 'task_name' is not assigned in 'params' in case of reverse type "
        "workflow."
    ]
    assert cron_trigger_validate({"pattern": None, "first_time": None}) != []
    assert cron_trigger_validate({"pattern": "* * * * *"}) == []


def test_an_input_named_in_replace_on_change_inputs_replaces_an_external_resource() -> None:
    old = {"input": {"a": 1, "b": 1}, "replace_on_change_inputs": ["a"]}
    assert replace_on_changed_inputs(old, {**old, "input": {"a": 1, "b": 2}}) == []
    assert replace_on_changed_inputs(old, {**old, "input": {"a": 2, "b": 1}}) == [
        ("input.a", "input a is in replace_on_change_inputs")
    ]
