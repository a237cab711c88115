"""OS::Mistral::ExternalResource: a resource Heat knows nothing of, made, changed and deleted by the template's own
Mistral workflows, one per action (``actions``: CREATE, UPDATE, SUSPEND, RESUME, DELETE), as Heat's
``MistralExternalResource`` does:

- each action that names a workflow starts an execution of it with ``input`` (an update: the new input), the
  ``description`` property as the execution's description and the action's ``params``, and waits for it to end;
  an execution that ends in ERROR or CANCELLED fails the action with Mistral's ``state_info``;
- after the first one, every execution gets the outputs of the ones before in its environment
  (``env().heat_extresource_data``);
- the physical id is the output ``resource_id`` of the last execution, else that execution's id; the ``output``
  attribute is every output so far, merged, as the JSON text Heat keeps (``{get_attr: [R, output]}`` is that text
  in Heat too);
- ``input`` is the one property updated in place (the UPDATE workflow runs); an input named in
  ``replace_on_change_inputs`` replaces the resource instead (``hotc.providers.schemas.mistral``).

hotc keeps no private data beside a resource, so the outputs so far are read back from Mistral: the last execution
this resource's actions started (its workflow is one of the actions', its description the ``description``
property, and its id or output ``resource_id`` the physical id) holds the outputs before it in its environment and
its own in its output. A read reports the properties as recorded (there is nothing else to compare them with).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import call, with_defaults
from hotc.providers.openstack.mistral.api import loads, request, start_execution, wait_execution

ENV_KEY = "heat_extresource_data"


def _params(execution: Mapping[str, Any]) -> dict[str, Any]:
    got = loads(execution.get("params"))
    return dict(got) if isinstance(got, Mapping) else {}


def _output(execution: Mapping[str, Any]) -> dict[str, Any]:
    got = loads(execution.get("output"))
    return dict(got) if isinstance(got, Mapping) else {}


class ExternalResourceDriver:
    # ------------------------------------------------------------------ the actions
    def _run(
        self,
        ctx: ActionContext,
        action: str,
        props: Mapping[str, Any],
        inputs: Any = None,
        physical_id: str | None = None,
    ) -> Outcome | None:
        """Heat's ``_handle_action`` + ``_check_action``: None when the template gives ACTION no workflow."""
        data = dict((props.get("actions") or {}).get(action) or {})
        if not data.get("workflow"):
            return None
        conn = ctx.cloud()
        params = dict(data.get("params") or {})
        before: dict[str, Any] = {}
        if physical_id:
            before = self._outputs(ctx, conn, physical_id, props)
            params["env"] = {**dict(params.get("env") or {}), ENV_KEY: before}
        started = start_execution(
            ctx,
            conn,
            str(data["workflow"]),
            inputs if inputs else props.get("input") or {},
            params,
            str(props.get("description") or ""),
        )
        eid = str(started["id"])
        done = wait_execution(ctx, conn, eid, f"{action} workflow {data['workflow']} of {ctx.address}")
        own = _output(done)
        outputs = {**before, **own}
        pid = str(own.get("resource_id") or eid)[:255]  # Heat: this execution's resource_id, else its id
        if action == "CREATE":
            ctx.record_physical_id(pid)
        return Outcome(pid, {"output": json.dumps(outputs), "show": dict(done)})

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        out = self._run(ctx, "CREATE", props)
        return out if out is not None else Outcome(None)  # Heat: no CREATE workflow, no resource id

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        last = self._last(ctx, conn, physical_id, props)
        if last is None:
            return Outcome(physical_id, {}, properties=dict(props))
        outputs = {**dict(_params(last).get("env", {}).get(ENV_KEY) or {}), **_output(last)}
        return Outcome(physical_id, {"output": json.dumps(outputs), "show": last}, properties=dict(props))

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        inputs = new.get("input") if "input" in changed else None
        out = self._run(ctx, "UPDATE", new, inputs, physical_id)
        return out if out is not None else Outcome(physical_id)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        self._run(ctx, "DELETE", props, None, physical_id)

    def suspend(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        """The SUSPEND workflow: its outputs join ``output`` and its id (or output ``resource_id``) becomes the
        physical id, as every action's does in Heat. None when the template gives SUSPEND no workflow."""
        return self._run(ctx, "SUSPEND", _defaulted(props), None, physical_id)

    def resume(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        return self._run(ctx, "RESUME", _defaulted(props), None, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None  # nothing marks an execution as hotc's: a killed run's CREATE runs again

    # ------------------------------------------------------------------ the outputs so far
    def _last(
        self, ctx: ActionContext, conn: Any, physical_id: str, props: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """The last execution this resource's actions started (see the module), read whole."""
        workflows = {
            str(a.get("workflow")) for a in (props.get("actions") or {}).values() if a and a.get("workflow")
        }
        found: list[dict[str, Any]] = []
        for wf in sorted(workflows):
            query = urlencode(
                {"workflow_name": wf, "sort_keys": "created_at", "sort_dirs": "desc", "limit": 100}
            )
            got = (
                call(ctx, f"list executions of workflow {wf}", request, conn, "GET", f"/executions?{query}")
                or {}
            )
            found += [
                dict(e)
                for e in got.get("executions") or []
                if e.get("description") == props.get("description")
            ]
        found.sort(key=lambda e: str(e.get("created_at") or ""), reverse=True)
        for e in found:
            whole = call(ctx, f"read execution {e['id']}", request, conn, "GET", f"/executions/{e['id']}")
            if physical_id in (str(whole.get("id")), str(_output(whole).get("resource_id") or "")):
                return dict(whole)
        return None

    def _outputs(
        self, ctx: ActionContext, conn: Any, physical_id: str, props: Mapping[str, Any]
    ) -> dict[str, Any]:
        last = self._last(ctx, conn, physical_id, props)
        if last is None:
            return {}
        return {**dict(_params(last).get("env", {}).get(ENV_KEY) or {}), **_output(last)}


def _defaulted(props: Mapping[str, Any]) -> Mapping[str, Any]:
    """Heat's defaults filled in (suspend and resume get the recorded properties as they are; the ``description``
    default, ``Heat managed``, is the executions' description)."""
    # lazy: hotc check loads the drivers, not the schema registry nor the parser (test_startup_imports)
    from hotc.providers.registry import get_schema
    from hotc.providers.validation import apply_defaults

    rtype = get_schema("OS::Mistral::ExternalResource")
    return props if rtype is None else apply_defaults(rtype, props)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Mistral::ExternalResource": ExternalResourceDriver()})
