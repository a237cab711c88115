"""The Mistral workflow definition (v2 DSL, YAML) a Workflow's properties make, as Heat's
``Workflow.prepare_properties`` builds it, and the properties read back from a live definition (drift, import).

Heat's definition: ``{version: '2.0', NAME: {type, description, tags, output, input: [input's keys], tasks:
{TASK: {...}}, task-defaults: {...}}}``, dumped by PyYAML's safe dumper. A task takes its ``workflow``, then its
``policies`` entries (the kilo-era key Heat moves into the task), then every other key it gives, with ``_`` written
``-`` (``on_success`` is ``on-success``); a ``task_defaults`` entry is sent only when it is truthy. The input's
values are not in the definition: they are the input of the executions a signal starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

#: the task keys Heat copies into the definition, in Heat's order (``workflow``, ``name`` and ``policies`` apart)
TASK_KEYS = (
    "description",
    "on_error",
    "on_complete",
    "on_success",
    "action",
    "publish",
    "input",
    "requires",
    "retry",
    "wait_before",
    "wait_after",
    "pause_before",
    "timeout",
    "with_items",
    "keep_result",
    "target",
    "join",
    "concurrency",
)
_TOP = ("type", "description", "tags", "output")


def _task(task: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(task)
    if isinstance(task.get("policies"), Mapping):
        merged.update(task["policies"])  # Heat: task.update(task['policies'])
    out: dict[str, Any] = {}
    if merged.get("workflow") is not None:
        out["workflow"] = merged["workflow"]
    for key in TASK_KEYS:
        if merged.get(key) is not None:
            out[key.replace("_", "-")] = merged[key]
    return out


def definition_of(props: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The definition as a dict (see the module)."""
    body: dict[str, Any] = {k: props.get(k) for k in _TOP if props.get(k) is not None}
    if props.get("input") is not None:
        body["input"] = list(dict(props["input"]).keys())
    body["tasks"] = {}
    for task in props.get("tasks") or []:
        body["tasks"][task["name"]] = _task(task)
    if props.get("task_defaults") is not None:
        body["task-defaults"] = {k.replace("_", "-"): v for k, v in dict(props["task_defaults"]).items() if v}
    return {"version": "2.0", name: body}


def definition_text(props: Mapping[str, Any], name: str) -> str:
    """The YAML text Heat sends to Mistral for these properties."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(yaml.dump(definition_of(props, name), Dumper=dumper))


def parse(text: Any, name: str) -> dict[str, Any]:
    """The workflow NAME's part of a live definition (``{}`` when it cannot be read)."""
    try:
        doc = yaml.safe_load(str(text or ""))
    except yaml.YAMLError:
        return {}
    if not isinstance(doc, dict):
        return {}
    body = doc.get(name)
    if not isinstance(body, dict):
        bodies = [v for k, v in doc.items() if k != "version" and isinstance(v, dict)]
        body = bodies[0] if len(bodies) == 1 else {}
    return dict(body)


def live_properties(props: Mapping[str, Any], live: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The properties a live definition says, each as the template gave it where the definition is what that
    value makes (the input's values, which the definition lacks, are kept for the keys it still has)."""
    want = definition_of(props, name)[name]
    out: dict[str, Any] = {}
    for key in _TOP:
        if key in props:
            out[key] = props[key] if live.get(key) == want.get(key) else live.get(key)
    if "input" in props:
        live_in = _input_names(live.get("input"))
        given = props.get("input")
        if set(live_in) == set(_input_names(want.get("input"))):
            out["input"] = given
        else:
            old = dict(given) if isinstance(given, Mapping) else {}
            out["input"] = {k: old.get(k) for k in live_in} if live_in or given is not None else given
    if "tasks" in props:
        got = live.get("tasks")
        live_tasks: dict[str, Any] = dict(got) if isinstance(got, dict) else {}
        if live_tasks == want.get("tasks"):
            out["tasks"] = props["tasks"]
        else:
            out["tasks"] = [
                {"name": tname, **{k.replace("-", "_"): v for k, v in dict(t or {}).items()}}
                for tname, t in live_tasks.items()
            ]
    if "task_defaults" in props:
        live_td = live.get("task-defaults")
        if live_td == want.get("task-defaults"):
            out["task_defaults"] = props["task_defaults"]
        else:
            out["task_defaults"] = (
                {k.replace("-", "_"): v for k, v in dict(live_td).items()}
                if isinstance(live_td, dict)
                else None
            )
    return out


def _input_names(value: Any) -> list[str]:
    """The names a definition's ``input`` declares (a name, or a one-key map of a name and its default)."""
    names: list[str] = []
    for item in value or []:
        if isinstance(item, dict):
            names.extend(str(k) for k in item)
        else:
            names.append(str(item))
    return names
