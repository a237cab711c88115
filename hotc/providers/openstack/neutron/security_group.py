"""OS::Neutron::SecurityGroup: the group and its ``rules`` kept exactly as the template says (plus Neutron's
default egress rules unless the template has egress rules of its own, as Heat does); rule identity as Neutron
sees it (:func:`rule_key`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    ProviderError,
    call,
    ignore_missing,
    is_transient,
    status_of,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items, resolve_id
from hotc.providers.openstack.neutron.base import NeutronDriver, _put
from hotc.providers.openstack.neutron.lookup import (
    find_security_group,
)


def _prefix(value: Any) -> Any:
    return None if value in (None, "", "0.0.0.0/0", "::/0") else value


def _proto(value: Any) -> Any:
    if value in (None, "", "any"):
        return None
    return str(value).lower()


RuleKey = tuple[Any, ...]


def rule_key(rule: Mapping[str, Any]) -> RuleKey:
    """What makes two rules the same for Neutron (it refuses duplicates)."""
    return (
        rule.get("direction") or "ingress",
        rule.get("ethertype") or "IPv4",
        _proto(rule.get("protocol")),
        rule.get("port_range_min"),
        rule.get("port_range_max"),
        _prefix(rule.get("remote_ip_prefix")),
        rule.get("remote_group_id"),
    )


def heat_rule(ctx: ActionContext, conn: Any, sg_id: str, rule: Mapping[str, Any]) -> dict[str, Any]:
    """A rule of SecurityGroup.rules as the API wants it (Heat's defaults: ingress, IPv4, remote_ip_prefix)."""
    body: dict[str, Any] = {
        "direction": rule.get("direction") or "ingress",
        "ethertype": rule.get("ethertype") or "IPv4",
    }
    for key in ("port_range_min", "port_range_max", "protocol", "description"):
        _put(body, key, rule.get(key))
    if body.get("protocol") is not None:
        body["protocol"] = str(body["protocol"])
    mode = rule.get("remote_mode") or "remote_ip_prefix"
    if mode == "remote_group_id":
        group = rule.get("remote_group_id")
        body["remote_group_id"] = find_security_group(ctx, conn, group).id if group else sg_id
    else:
        _put(body, "remote_ip_prefix", rule.get("remote_ip_prefix"))
    return body


DEFAULT_EGRESS = (
    {"direction": "egress", "ethertype": "IPv4"},
    {"direction": "egress", "ethertype": "IPv6"},
)
RULES_AT_ONCE = 8  # rule creates of one group in flight at once


class SecurityGroupDriver(NeutronDriver):
    kind, plural, what = "security_group", "security_groups", "security group"
    simple = {"name": "name", "description": "description", "stateful": "stateful"}
    attribute_names = ()

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        body.pop("value_specs", None)
        return body

    def after_create(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> None:
        self._sync_rules(ctx, conn, res.id, props.get("rules") or [])

    def update_extra(self, ctx, conn, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        if "rules" in changed:
            self._sync_rules(ctx, conn, physical_id, new.get("rules") or [])

    def _sync_rules(self, ctx: ActionContext, conn: Any, sg_id: str, rules: list[Mapping[str, Any]]) -> None:
        """Make the group's rules exactly the template's, plus Neutron's default egress rules unless the
        template has egress rules of its own (as Heat does)."""
        wanted = [heat_rule(ctx, conn, sg_id, r) for r in rules]
        if not any(r["direction"] == "egress" for r in wanted):
            wanted.extend(dict(r) for r in DEFAULT_EGRESS)
        want_keys = {rule_key(r): r for r in wanted}
        have = call(
            ctx,
            f"list rules of security group {sg_id}",
            lambda: list(conn.network.security_group_rules(security_group_id=sg_id)),
        )
        have_keys = set()
        for rule in have:
            key = rule_key(rule.to_dict(original_names=True))
            if key in want_keys and key not in have_keys:
                have_keys.add(key)
                continue
            ignore_missing(
                ctx, f"delete security group rule {rule.id}", conn.network.delete_security_group_rule, rule.id
            )
        missing = [body for key, body in want_keys.items() if key not in have_keys]

        def create(body: Mapping[str, Any]) -> None:
            try:
                call(
                    ctx,
                    f"create rule in security group {sg_id}",
                    lambda: conn.network.create_security_group_rule(security_group_id=sg_id, **body),
                    retry_if=_retry_not_duplicate,
                )
            except ProviderError as exc:
                if exc.status_code != 409:  # already there
                    raise

        if len(missing) < 2:
            for body in missing:
                create(body)
            return
        # the rules are independent of each other: made at once, not one round trip after the other (a group's
        # rules are on the path to every port and server that uses the group)
        with ThreadPoolExecutor(
            max_workers=min(RULES_AT_ONCE, len(missing)), thread_name_prefix="hotc-rule"
        ) as pool:
            for done in [pool.submit(create, body) for body in missing]:
                done.result()  # the first failure, in the template's order, is raised

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        return {}

    def read_outcome(self, ctx: ActionContext, conn: Any, res: Any, props: Mapping[str, Any]) -> Outcome:
        out = super().read_outcome(ctx, conn, res, props)
        if "rules" not in props:
            return out
        rules = getattr(res, "security_group_rules", None)
        if rules is None:
            rules = [
                r.to_dict(original_names=True)
                for r in call(
                    ctx,
                    f"list rules of security group {res.id}",
                    lambda: list(conn.network.security_group_rules(security_group_id=res.id)),
                )
            ]
        live = self.live_rules(ctx, conn, str(res.id), props.get("rules") or [], rules)
        return replace(out, properties={**dict(out.properties or {}), "rules": live})

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.text("description", raw.get("description") or "")
        lp.put("stateful", raw.get("stateful"))

    @staticmethod
    def live_rules(
        ctx: ActionContext,
        conn: Any,
        sg_id: str,
        given: list[Mapping[str, Any]],
        live: Iterable[Mapping[str, Any]],
    ) -> list[Any]:
        """The group's rules as the template gives them: each template rule Neutron still has, then each other
        rule in Heat's form (Neutron's default egress rules left out when the template has no egress rule of
        its own, as :meth:`_sync_rules` adds them)."""

        def key_of_given(rule: Mapping[str, Any]) -> RuleKey:
            body = dict(rule)
            body.setdefault("direction", "ingress")
            body.setdefault("ethertype", "IPv4")
            if (rule.get("remote_mode") or "remote_ip_prefix") == "remote_group_id":
                group = rule.get("remote_group_id")
                body["remote_group_id"] = (
                    resolve_id(ctx, conn, "security group", group, find_security_group) if group else sg_id
                )
                body["remote_ip_prefix"] = None
            else:
                body["remote_group_id"] = None
            return rule_key(body)

        have = [dict(r) for r in live]
        if not any((r.get("direction") or "ingress") == "egress" for r in given):
            defaults = {rule_key(r) for r in DEFAULT_EGRESS}
            have = [r for r in have if rule_key(r) not in defaults]
        keys = {id(g): key_of_given(g) for g in given}
        return match_items(given, have, lambda g, r: keys[id(g)] == rule_key(r), _heat_rule_of)


def _heat_rule_of(rule: Mapping[str, Any]) -> dict[str, Any]:
    """A Neutron rule in the form of an item of SecurityGroup.rules."""
    out: dict[str, Any] = {
        "direction": rule.get("direction"),
        "ethertype": rule.get("ethertype"),
        "protocol": rule.get("protocol"),
        "port_range_min": rule.get("port_range_min"),
        "port_range_max": rule.get("port_range_max"),
    }
    if rule.get("remote_group_id"):
        out["remote_mode"] = "remote_group_id"
        out["remote_group_id"] = rule["remote_group_id"]
    else:
        out["remote_mode"] = "remote_ip_prefix"
        out["remote_ip_prefix"] = rule.get("remote_ip_prefix")
    return {k: v for k, v in out.items() if v is not None}


def _retry_not_duplicate(exc: BaseException) -> bool:
    return is_transient(exc) and status_of(exc) != 409


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::SecurityGroup": SecurityGroupDriver()})
