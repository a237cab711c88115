"""OS::Mistral::CronTrigger: a Mistral cron trigger that starts a workflow on a schedule. No property is
``update_allowed`` (Mistral cannot change a trigger): every change replaces it. Its physical id is the trigger's
name (the template's, else a generated one), as in Heat.

Heat reads nothing back from a trigger (its ``get_live_state`` is empty: a trigger's remaining count and next time
move on their own), so a read reports the properties as recorded and finds only whether the trigger is still
there; ``next_execution_time`` and ``remaining_executions`` are read from Mistral. The test cloud runs no periodic
server, so its triggers are stored and read but never fire.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    adopt_by_generated_name,
    create_once,
    get_or_none,
    ignore_missing,
    physical_name,
    read_back,
    with_defaults,
)
from hotc.providers.openstack.mistral.api import is_uuid, request
from hotc.providers.openstack.mistral.workflow import Named


def trigger_body(name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """What Heat's mistralclient sends for ``cron_triggers.create``."""
    wf = dict(props.get("workflow") or {})
    ident = str(wf.get("name") or "")
    body: dict[str, Any] = {"name": name, "workflow_id" if is_uuid(ident) else "workflow_name": ident}
    if wf.get("input"):
        body["workflow_input"] = json.dumps(wf["input"])
    if props.get("pattern"):
        body["pattern"] = props["pattern"]
    if props.get("first_time"):
        body["first_execution_time"] = props["first_time"]
    if props.get("count") is not None:
        body["remaining_executions"] = props["count"]
    return body


class CronTriggerDriver:
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"))
        body = trigger_body(name, props)

        def find() -> Any:
            got = get_or_none(
                ctx, f"read cron trigger {name}", request, conn, "GET", f"/cron_triggers/{quote(name)}"
            )
            return Named(name, name) if got is not None and not props.get("name") else None

        create_once(
            ctx,
            f"create cron trigger {name}",
            lambda: request(conn, "POST", "/cron_triggers", body=body),
            find,
        )
        ctx.record_physical_id(name)
        return read_back(self, ctx, name, props, f"cron trigger {name} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        got = get_or_none(
            ctx,
            f"read cron trigger {physical_id}",
            request,
            ctx.cloud(),
            "GET",
            f"/cron_triggers/{quote(physical_id)}",
        )
        if got is None:
            return None
        attrs = {
            "show": dict(got),
            "next_execution_time": got.get("next_execution_time"),
            "remaining_executions": got.get("remaining_executions"),
        }
        return Outcome(physical_id, attrs, properties=dict(props))

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # no property is update_allowed: the planner replaces the trigger for any change
        return read_back(self, ctx, physical_id, new, f"cron trigger {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx, f"delete cron trigger {physical_id}", request, ctx.cloud(), "DELETE",
            f"/cron_triggers/{quote(physical_id)}",
        )  # fmt: skip

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()

        def listed() -> list[Named]:
            got = request(conn, "GET", "/cron_triggers?limit=1000") or {}
            return [Named(str(t["name"]), str(t["name"])) for t in got.get("cron_triggers") or []]

        return adopt_by_generated_name(ctx, props, "cron triggers", listed)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Mistral::CronTrigger": CronTriggerDriver()})
