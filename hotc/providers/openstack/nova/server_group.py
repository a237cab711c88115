"""OS::Nova::ServerGroup. A server group has nowhere to carry hotc's stamp (no tags, and its ``metadata`` is
always empty), so a group is adopted only by the name hotc generated for its stack and address; Nova cannot
change a group, so every property change replaces it (as in Heat)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    ProviderError,
    adopt_by_generated_name,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    outcome,
    physical_name,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps


def live_policies(group: Any) -> list[str]:
    """The group's policy as Heat's ``policies`` list: Nova >= 2.64 shows ``policy``, older ones ``policies``."""
    if getattr(group, "policy", None):
        return [str(group.policy)]
    return [str(p) for p in getattr(group, "policies", None) or []]


class ServerGroupDriver(ListRead):
    list_what = "server groups"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        policies = list(props.get("policies") or [])
        if not policies:
            raise ProviderError("server group: policies is empty (Nova needs one policy)")
        # Heat (Nova >= 2.64) creates the group with the first policy of the list
        name = physical_name(ctx, props.get("name"))
        body: dict[str, Any] = {"name": name, "policy": policies[0]}
        rules = props.get("rules")
        if rules:
            body["rules"] = {str(k): _number(v) for k, v in rules.items() if v is not None}
        find_new = fresh_finder(
            ctx, "create server group", lambda: [g for g in conn.compute.server_groups() if g.name == name]
        )
        group = create_once(
            ctx, "create server group", lambda: conn.compute.create_server_group(**body), find_new
        )
        ctx.record_physical_id(str(group.id))
        out = self.read(ctx, str(group.id), props)
        if out is None:
            raise ProviderError(f"server group {group.id} disappeared right after its create")
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        group = get_or_none(
            ctx, f"read server group {physical_id}", conn.compute.get_server_group, physical_id
        )
        if group is None:
            return None
        return self.read_outcome(ctx, conn, group, props)

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.compute.server_groups())

    def read_outcome(self, ctx: ActionContext, conn: Any, group: Any, props: Mapping[str, Any]) -> Outcome:
        lp = LiveProps(ctx, conn, props)
        lp.name(group.name)
        live = live_policies(group)
        given = props.get("policies")
        # a longer list, as Heat takes it, is the live group when its first policy is the live one
        same = isinstance(given, list) and len(live) == 1 and given[:1] == live
        lp.put("policies", given if same else live)
        if "rules" in props:
            given_rules = props.get("rules")
            live_rules = dict(group.rules or {})
            # no rules given and none set: report the recorded value as it was written (None or {})
            lp.put(
                "rules",
                given_rules
                if not live_rules and not given_rules
                else _as_given_rules(given_rules, live_rules),
            )
        return replace(outcome(group, {}), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        # every property replaces the group (none is update_allowed): the planner never asks for an update
        raise ProviderError(
            f"server group {physical_id}: Nova cannot update a server group ({sorted(changed)})"
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx, f"delete server group {physical_id}", ctx.cloud().compute.delete_server_group, physical_id
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, "server groups", lambda: conn.compute.server_groups())


def _number(value: Any) -> Any:
    """A rule value as Nova takes it (``max_server_per_host`` is an integer; Heat's schema says Number)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return float(value)
    return value


def _as_given_rules(given: Mapping[str, Any] | None, live: Mapping[str, Any]) -> dict[str, Any]:
    g = dict(given or {})
    return {k: g[k] if k in g and _number(g[k]) == v else v for k, v in live.items()}


DRIVERS: dict[str, Driver] = with_defaults({"OS::Nova::ServerGroup": ServerGroupDriver()})
