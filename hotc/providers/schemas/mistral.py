"""OS::Mistral::* resource types (service ``workflowv2``), as Heat 27 declares them
(``heat/engine/resources/openstack/mistral/workflow.py``, ``cron_trigger.py``, ``external_resource.py``).

- ``OS::Mistral::Workflow``: every property but ``name`` is ``update_allowed`` (the definition is sent again);
  a new ``name`` replaces the workflow. Its physical id, and what ``get_resource`` gives, is the workflow's name.
  ``policies`` is the hidden kilo-era task key whose entries Heat moves into the task itself.
- ``OS::Mistral::CronTrigger``: no property is ``update_allowed``: every change replaces the trigger.
- ``OS::Mistral::ExternalResource``: only ``input`` is ``update_allowed`` (it runs the UPDATE workflow); an input
  named in ``replace_on_change_inputs`` replaces the resource when it changes, as Heat's ``_needs_update`` does.

The cross-property rules are Heat's ``validate`` overrides, with Heat's messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import AttrSchema, PropSchema, ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    attrs,
    boolean,
    custom,
    integer,
    length_,
    list_,
    map_,
    string,
)
from hotc.providers.schemas._rules import known

SERVICE = "workflowv2"
_HEAT = "heat.engine.resources.openstack.mistral."

#: task keys Heat's ``policies`` map may hold (moved into the task by Heat's translation rules)
POLICY_KEYS = ("pause_before", "wait_after", "wait_before", "timeout", "concurrency", "retry")


def _task_defaults() -> PropSchema:
    return map_(
        {
            "on_success": list_(),
            "on_error": list_(),
            "on_complete": list_(),
            "requires": list_(),
            "retry": map_(),
            "wait_before": integer(),
            "wait_after": integer(),
            "pause_before": boolean(),
            "timeout": integer(),
            "concurrency": integer(),
        },
        update=True,
    )


def _task() -> PropSchema:
    return map_(
        {
            "name": string(required=True),
            "description": string(),
            "input": map_(),
            "action": string(),
            "workflow": string(constraints=(custom("mistral.workflow"),)),
            "publish": map_(),
            "on_success": list_(),
            "on_error": list_(),
            "on_complete": list_(),
            "policies": map_(hidden=True),
            "requires": list_(),
            "retry": map_(),
            "wait_before": integer(),
            "wait_after": integer(),
            "pause_before": boolean(),
            "timeout": integer(),
            "with_items": string(),
            "keep_result": boolean(),
            "concurrency": integer(),
            "target": string(),
            "join": string(),
        }
    )


def workflow_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Heat's ``Workflow.validate``: a reverse workflow names its first task in ``params.task_name``; a task runs
    an action or a workflow (one of them); ``requires`` only in reverse workflows; a policy given twice (in the
    task and in its ``policies``); ``concurrency`` only with ``with_items``."""
    out: list[tuple[str, str]] = []
    wf_type, params, tasks = props.get("type"), props.get("params"), props.get("tasks")
    if not known(wf_type, params, tasks):
        return []
    if wf_type == "reverse" and not (isinstance(params, Mapping) and params.get("task_name")):
        out.append(
            (
                "params",
                "Mistral resource validation error: 'task_name' is not assigned in 'params' in case of reverse "
                "type workflow.",
            )
        )
    for i, task in enumerate(tasks or []):
        if not isinstance(task, Mapping) or not known(*task.values()):
            continue
        where = f"tasks.{i}"
        wf, action = task.get("workflow"), task.get("action")
        if wf and action:
            out.append((where, "Cannot define the following properties at the same time: workflow, action."))
        elif not wf and not action:
            out.append(
                (where, "At least one of the following properties must be specified: workflow, action.")
            )
        if task.get("requires") is not None and wf_type == "direct":
            out.append(
                (
                    f"{where}.requires",
                    f"Mistral resource validation error: task {task.get('name')} contains property 'requires' "
                    "in case of direct workflow. Only reverse workflows can contain property 'requires'.",
                )
            )
        policies = task.get("policies")
        if isinstance(policies, Mapping):
            for key in policies:
                if key in POLICY_KEYS and task.get(key) is not None:
                    out.append(
                        (
                            f"{where}.policies.{key}",
                            f"Cannot define the following properties at the same time: tasks.{key}, "
                            f"tasks.policies.{key}",
                        )
                    )
        concurrency = task.get("concurrency")
        if concurrency is None and isinstance(policies, Mapping):
            concurrency = policies.get("concurrency")
        if task.get("with_items") is None and concurrency is not None:
            out.append((f"{where}.concurrency", "concurrency cannot be specified without with_items."))
    return out


WORKFLOW = ResourceType(
    name="OS::Mistral::Workflow",
    properties={
        "name": string(),
        "type": string(required=True, update=True, constraints=(allowed("direct", "reverse"),)),
        "use_request_body_as_input": boolean(update=True),
        "tags": list_(update=True),
        "description": string(update=True),
        "input": map_(update=True),
        "output": map_(update=True),
        "params": map_(update=True),
        "task_defaults": _task_defaults(),
        "tasks": list_(_task(), required=True, update=True, constraints=(length_(min=1),)),
    },
    attributes={
        **attrs(data="map", executions="list"),
        "alarm_url": AttrSchema(
            description="Heat's signed URL that starts an execution when POSTed to",
            type="string",
            unavailable=(
                "hotc has no URL that starts a workflow's execution (Heat's is a signed URL of its CloudFormation "
                "API); start one with 'hotc signal STACK WORKFLOW --data JSON'"
            ),
        ),
    },
    service=SERVICE,
    validators=(workflow_validate,),
    heat_class=_HEAT + "workflow.Workflow",
)


def cron_trigger_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Heat's ``CronTrigger.validate``: a trigger needs a ``pattern`` or a ``first_time``."""
    pattern, first = props.get("pattern"), props.get("first_time")
    if not known(pattern, first) or pattern or first:
        return []
    return [("pattern", "At least one of the following properties must be specified: pattern, first_time.")]


CRON_TRIGGER = ResourceType(
    name="OS::Mistral::CronTrigger",
    properties={
        "name": string(),
        "pattern": string(constraints=(custom("cron_expression"),)),
        "workflow": map_(
            {
                "name": string(required=True, constraints=(custom("mistral.workflow"),)),
                "input": map_(),
            },
            required=True,
        ),
        "first_time": string(),
        "count": integer(),
    },
    attributes=attrs(next_execution_time="string", remaining_executions="integer"),
    service=SERVICE,
    validators=(cron_trigger_validate,),
    heat_class=_HEAT + "cron_trigger.CronTrigger",
)

#: the resource actions an ExternalResource may give a workflow for (Heat's ``Resource`` action names)
EXTERNAL_ACTIONS = ("CREATE", "UPDATE", "SUSPEND", "RESUME", "DELETE")


def _external_action() -> PropSchema:
    return map_(
        {
            "workflow": string(required=True, constraints=(custom("mistral.workflow"),)),
            "params": map_(default={}),
        }
    )


def replace_on_changed_inputs(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Heat's ``MistralExternalResource._needs_update``: a change to an input named in
    ``replace_on_change_inputs`` replaces the resource instead of running its UPDATE workflow."""
    names, before, after = new.get("replace_on_change_inputs"), old.get("input"), new.get("input")
    if not known(names, before, after) or not isinstance(names, list):
        return []
    before = before if isinstance(before, Mapping) else {}
    after = after if isinstance(after, Mapping) else {}
    return [
        (f"input.{n}", f"input {n} is in replace_on_change_inputs")
        for n in names
        if before.get(n) != after.get(n)
    ]


EXTERNAL_RESOURCE = ResourceType(
    name="OS::Mistral::ExternalResource",
    properties={
        "actions": map_({a: _external_action() for a in EXTERNAL_ACTIONS}, required=True),
        "input": map_(default={}, update=True),
        "description": string(default="Heat managed"),
        "replace_on_change_inputs": list_(default=[]),
        "always_update": boolean(default=False),
    },
    attributes=attrs(output="map"),
    service=SERVICE,
    replace_rules=(replace_on_changed_inputs,),
    always_update=lambda props: (
        "always_update is true: Heat runs the UPDATE workflow on every stack update"
        if str(props.get("always_update")).lower() in ("true", "1", "t", "on", "y", "yes")
        else None
    ),
    heat_class=_HEAT + "external_resource.MistralExternalResource",
)

TYPES = (WORKFLOW, CRON_TRIGGER, EXTERNAL_RESOURCE)
