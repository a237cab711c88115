"""OS::Mistral::Workflow: a Mistral workflow whose definition Heat builds from the properties
(:mod:`.definition`). Its physical id, and what ``get_resource`` gives, is the workflow's name (the template's
``name``, else one generated as Heat's physical resource name is); a new ``name`` replaces it, any other change
sends the new definition (Mistral's ``PUT /workflows``).

A signal (``hotc signal STACK ADDRESS --data JSON``) starts an execution as Heat's ``handle_signal`` does: the
signal's ``input`` (or, with ``use_request_body_as_input``, the whole body) over the properties' ``input``, its
``params`` over the properties' ``params``; an input the properties do not declare is refused, as Heat refuses it.
Each execution a signal starts carries a description naming the stack's lineage and the resource
(:func:`signal_description`), so a read finds them again (the ``executions`` attribute, Heat's list of each
execution's id, workflow name, times, state, input and output) and a delete deletes them first, as Heat's does.
Workflows carry nowhere to put hotc's stamp: a killed run's workflow is adopted by the name hotc generated.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from hotc.errors import HotcError
from hotc.model import model
from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    adopt_by_generated_name,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.mistral.api import loads, request, start_execution
from hotc.providers.openstack.mistral.definition import definition_text, live_properties, parse

SIGNAL_MARK = "hotc signal"


@model
class Named:
    """A workflow in a listing (``id`` is its name: the physical id)."""

    id: str
    name: str


def signal_description(ctx: ActionContext) -> str:
    """The description of an execution a signal of this resource starts (how reads and deletes find it)."""
    return f"{SIGNAL_MARK} {ctx.lineage} {ctx.address}"


def signal_arguments(props: Mapping[str, Any], details: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The input and params of the execution a signal with DETAILS starts (Heat's ``_get_inputs_and_params``,
    ``_validate_signal_data`` and ``handle_signal``); a HotcError with Heat's message when the data is refused."""
    inputs: Any = None
    params: Any = None
    if props.get("use_request_body_as_input"):
        inputs = details
    elif details is not None:
        if not isinstance(details, Mapping):
            raise HotcError(
                f"Signal data error: the signal must be a map with input and params, got {details!r}"
            )
        inputs, params = details.get("input"), details.get("params")
    declared = props.get("input")
    if inputs is not None:
        if not isinstance(inputs, Mapping):
            raise HotcError(
                f"Signal data error: Input in signal data must be a map, find a {type(inputs).__name__}"
            )
        for key in inputs:
            if declared is None or key not in declared:
                raise HotcError(f"Signal data error: Unknown input {key}")
    if params is not None and not isinstance(params, Mapping):
        raise HotcError(f"Signal data error: Params must be a map, find a {type(params).__name__}")
    merged_in = copy.deepcopy(dict(declared)) if isinstance(declared, Mapping) else {}
    merged_params = copy.deepcopy(dict(props.get("params") or {}))
    if inputs:
        merged_in.update(inputs)
    if params:
        merged_params.update(params)
    return merged_in, merged_params


def _execution(e: Mapping[str, Any]) -> dict[str, Any]:
    """An execution as Heat's ``executions`` attribute shows it."""
    return {
        "id": e.get("id"),
        "workflow_name": e.get("workflow_name"),
        "created_at": e.get("created_at"),
        "updated_at": e.get("updated_at"),
        "state": e.get("state"),
        "input": loads(e.get("input")),
        "output": loads(e.get("output")),
    }


class WorkflowDriver:
    def _name(self, ctx: ActionContext, props: Mapping[str, Any]) -> str:
        return physical_name(ctx, props.get("name"))

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = self._name(ctx, props)
        text = definition_text(props, name)

        def find() -> Any:
            got = get_or_none(ctx, f"read workflow {name}", request, conn, "GET", f"/workflows/{quote(name)}")
            return Named(name, name) if got is not None and not props.get("name") else None

        made = create_once(
            ctx,
            f"create workflow {name}",
            lambda: request(conn, "POST", "/workflows?scope=private", text=text),
            find,
        )
        if isinstance(made, Mapping):
            name = str((made.get("workflows") or [{}])[0].get("name") or name)
        ctx.record_physical_id(name)
        return read_back(self, ctx, name, props, f"workflow {name} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        got = get_or_none(
            ctx, f"read workflow {physical_id}", request, conn, "GET", f"/workflows/{quote(physical_id)}"
        )
        if got is None:
            return None
        live = parse(got.get("definition"), physical_id)
        lp = LiveProps(ctx, conn, props)
        lp.name(got.get("name"))
        found = live_properties(props, live, physical_id)
        for key in ("type", "description", "tags", "output", "input", "tasks", "task_defaults"):
            if key in found:
                lp.put(key, found[key])
        for key in ("params", "use_request_body_as_input"):  # not in the definition: what the template says
            lp.put(key, props.get(key))
        executions = [  # each read whole, as Heat's attribute does (a listing leaves the output out)
            _execution(call(ctx, f"read execution {e['id']}", request, conn, "GET", f"/executions/{e['id']}"))
            for e in self._signalled(ctx, conn, physical_id)
        ]
        attrs = {
            "show": dict(got),
            "data": {"name": physical_id, "input": props.get("input")},
            "executions": executions,
        }
        return Outcome(physical_id, attrs, properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        text = definition_text(new, physical_id)
        call(ctx, f"update workflow {physical_id}", request, conn, "PUT", "/workflows", text=text)
        return read_back(self, ctx, physical_id, new, f"workflow {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        for e in self._signalled(ctx, conn, physical_id):  # Heat's _delete_executions
            ignore_missing(
                ctx, f"delete execution {e.get('id')}", request, conn, "DELETE", f"/executions/{e['id']}"
            )
        ignore_missing(
            ctx, f"delete workflow {physical_id}", request, conn, "DELETE", f"/workflows/{quote(physical_id)}"
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()

        def listed() -> list[Named]:
            got = request(conn, "GET", "/workflows?limit=1000") or {}
            return [Named(str(w["name"]), str(w["name"])) for w in got.get("workflows") or []]

        return adopt_by_generated_name(ctx, props, "workflows", listed)

    # ------------------------------------------------------------------ signals
    def signal(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], details: Any
    ) -> dict[str, Any]:
        """Start the execution a signal with DETAILS starts (see the module); the execution as Mistral made it."""
        inputs, params = signal_arguments(props, details)
        conn = ctx.cloud()
        return start_execution(ctx, conn, physical_id, inputs, params, signal_description(ctx))

    def _signalled(self, ctx: ActionContext, conn: Any, name: str) -> list[dict[str, Any]]:
        """The executions signals of this resource started, oldest first."""
        query = urlencode(
            {"workflow_name": name, "sort_keys": "created_at", "sort_dirs": "asc", "limit": 1000}
        )
        got = call(ctx, f"list executions of workflow {name}", request, conn, "GET", f"/executions?{query}")
        mark = signal_description(ctx)
        return [dict(e) for e in (got or {}).get("executions") or [] if e.get("description") == mark]


DRIVERS: dict[str, Driver] = with_defaults({"OS::Mistral::Workflow": WorkflowDriver()})
