"""OS::Neutron::SecurityGroupRule: rules carry no tags, so a rule is found by its exact content (Neutron
refuses duplicates anyway)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    outcome,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import _put
from hotc.providers.openstack.neutron.lookup import (
    find_security_group,
)
from hotc.providers.openstack.neutron.security_group import _prefix, rule_key


class SecurityGroupRuleDriver(ListRead):
    list_what = "security group rules"

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        """Rules carry no tags: every rule of the project, in one call."""
        return list(conn.network.security_group_rules(project_id=conn.current_project_id))

    def _body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        sg = find_security_group(ctx, conn, props["security_group"])
        body: dict[str, Any] = {
            "security_group_id": sg.id,
            "direction": props.get("direction") or "ingress",
            "ethertype": props.get("ethertype") or "IPv4",
        }
        for key in ("port_range_min", "port_range_max", "description", "remote_ip_prefix"):
            _put(body, key, props.get(key))
        if props.get("protocol") is not None:
            body["protocol"] = str(props["protocol"])
        if props.get("remote_group"):
            body["remote_group_id"] = find_security_group(ctx, conn, props["remote_group"]).id
        return body

    def _find(self, ctx: ActionContext, conn: Any, body: Mapping[str, Any]) -> Any:
        want = rule_key(body)
        rules = call(
            ctx,
            "list security group rules",
            lambda: list(conn.network.security_group_rules(security_group_id=body["security_group_id"])),
        )
        for r in rules:
            if rule_key(r.to_dict(original_names=True)) == want:
                return r
        return None

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self._body(ctx, conn, props)
        rule = create_once(
            ctx,
            "create security group rule",
            lambda: conn.network.create_security_group_rule(**body),
            lambda: self._find(ctx, conn, body),
        )
        ctx.record_physical_id(rule.id)
        return outcome(rule, {})

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        rule = get_or_none(
            ctx, f"read security group rule {physical_id}", conn.network.get_security_group_rule, physical_id
        )
        return None if rule is None else self.read_outcome(ctx, conn, rule, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, rule: Any, props: Mapping[str, Any]) -> Outcome:
        raw = rule.to_dict(original_names=True)
        lp = LiveProps(ctx, conn, props)
        lp.ref("security_group", raw.get("security_group_id"), "security group", find_security_group)
        lp.ref("remote_group", raw.get("remote_group_id"), "security group", find_security_group)
        for key in ("direction", "ethertype", "port_range_min", "port_range_max"):
            lp.put(key, raw.get(key))
        lp.text("protocol", raw.get("protocol"))
        lp.text("description", raw.get("description") or "")
        if lp.wants("remote_ip_prefix"):
            live_prefix = raw.get("remote_ip_prefix")
            given = props.get("remote_ip_prefix")
            lp.put("remote_ip_prefix", given if _prefix(given) == _prefix(live_prefix) else live_prefix)
        return replace(outcome(rule, {}), properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("a security group rule cannot be updated in place (replace it)")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        ignore_missing(
            ctx,
            f"delete security group rule {physical_id}",
            conn.network.delete_security_group_rule,
            physical_id,
        )

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        try:
            body = self._body(ctx, conn, props)
        except ProviderError:
            return None
        found = self._find(ctx, conn, body)
        return None if found is None else str(found.id)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::SecurityGroupRule": SecurityGroupRuleDriver()})
