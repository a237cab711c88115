"""The Mistral v2 REST calls the drivers share, through the connection's ``workflow`` adapter (the catalog's
``workflowv2``): errors carry Mistral's ``faultstring`` and HTTP status (a 404 is :class:`NotFound` through
:func:`hotc.providers.openstack.common.call`), and :func:`wait_execution` waits for an execution to end."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import call, wait_for
from hotc.providers.openstack.rest import ServiceHTTPError, json_answer

#: execution states that are not over yet (Mistral's IDLE, RUNNING, PAUSED)
RUNNING = ("IDLE", "RUNNING", "PAUSED")


class MistralHTTPError(ServiceHTTPError):
    """A Mistral answer >= 400, with its status (for retries and 404s) and Mistral's own message."""


def _message(body: Any) -> str:
    """Mistral's ``faultstring``, else the body."""
    if isinstance(body, dict) and body.get("faultstring"):
        return str(body["faultstring"])
    return str(body)


def request(
    conn: Any, method: str, path: str, *, body: Mapping[str, Any] | None = None, text: str | None = None
) -> Any:
    """One Mistral v2 call (``/workflows...``): a JSON ``body`` or a plain-``text`` one (a workflow
    definition); the decoded JSON answer (None for a 204)."""
    kw: dict[str, Any] = {}
    if text is not None:
        kw = {"data": text.encode(), "headers": {"Content-Type": "text/plain"}}
    elif body is not None:
        kw = {"json": dict(body)}
    return json_answer(conn.workflow.request(path, method, **kw), MistralHTTPError, _message)


def loads(value: Any) -> Any:
    """A JSON field of Mistral's (an execution's ``input``/``output``/``params`` are JSON strings)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def start_execution(
    ctx: ActionContext,
    conn: Any,
    workflow: str,
    inputs: Any,
    params: Mapping[str, Any] | None,
    description: str,
) -> dict[str, Any]:
    """Start an execution of WORKFLOW (a name or id) as Heat's mistralclient ``executions.create`` does: the
    input as JSON, the params as JSON. Not retried (a retry could start a second one)."""
    body: dict[str, Any] = {
        "input": json.dumps(inputs if inputs is not None else {}),
        "description": description,
    }
    body["workflow_id" if is_uuid(workflow) else "workflow_name"] = workflow
    if params:
        body["params"] = json.dumps(dict(params))
    got: dict[str, Any] = call(ctx, f"start an execution of workflow {workflow}", request, conn, "POST",
                                "/executions", body=body, attempts=1)  # fmt: skip
    return got


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def wait_execution(ctx: ActionContext, conn: Any, execution_id: str, what: str) -> dict[str, Any]:
    """The execution once it is over; a ProviderError with Mistral's ``state_info`` when it ends in ERROR or
    CANCELLED (Heat's ``_check_execution``)."""

    def get() -> Any:
        return request(conn, "GET", f"/executions/{execution_id}")

    def failed(e: Any) -> str | None:
        state = e.get("state")
        if state in RUNNING or state == "SUCCESS":
            return None
        return f"Mistral execution {execution_id} ended {state}: {e.get('state_info') or ''}".rstrip(": ")

    done: dict[str, Any] = wait_for(ctx, what, get, lambda e: e is not None and e.get("state") == "SUCCESS",
                                    failed)  # fmt: skip
    return done
