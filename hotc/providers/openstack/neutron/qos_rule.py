"""What the four QoS rule types share (:class:`QoSRuleDriver`): a rule lives under its policy
(``/qos/policies/<policy>/<kind>_rules/<id>``); its physical id is the rule's id, as in Heat, and the policy is
found from the ``policy`` property (or, when that no longer names it, by scanning the policies' rule lists).
Rules carry neither tags nor names: a rule whose create answer was lost, or that a killed run made, is found
again as the rule of this kind on the policy with exactly the values the template gives (Neutron allows one
rule of a kind per direction on a policy, so there is at most one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.common import (
    NotFound,
    ProviderError,
    call,
    create_once,
    get_or_none,
    ignore_missing,
    show,
)
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.lookup import find_qos_policy


class QoSRuleDriver:
    """Subclasses give ``rule`` (openstacksdk's infix: ``bandwidth_limit`` for ``create_qos_bandwidth_limit_rule``),
    ``what`` and ``fields`` (the properties sent as API fields of the same name)."""

    rule = ""
    what = ""
    fields: tuple[str, ...] = ()

    def _m(self, conn: Any, verb: str) -> Callable[..., Any]:
        fn: Callable[..., Any] = getattr(conn.network, f"{verb}_qos_{self.rule}_rule")
        return fn

    def _rules(self, ctx: ActionContext, conn: Any, policy_id: str) -> list[Any]:
        lister = getattr(conn.network, f"qos_{self.rule}_rules")
        return call(ctx, f"list {self.what}s of QoS policy {policy_id}", lambda: list(lister(policy_id)))

    def _body(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """The create request (Heat sends ``tenant_id`` too when the template gives it)."""
        body = {k: props[k] for k in self.fields if props.get(k) is not None}
        if props.get("tenant_id"):
            body["tenant_id"] = props["tenant_id"]
        return body

    def _policy_id(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str | None:
        try:
            return str(find_qos_policy(ctx, conn, props.get("policy")).id)
        except NotFound:
            return None

    def _locate(
        self, ctx: ActionContext, conn: Any, rule_id: str, props: Mapping[str, Any]
    ) -> tuple[str, Any]:
        """(policy id, rule) of the rule ``rule_id``; the rule is None when it is gone."""
        pid = None
        try:
            pid = self._policy_id(ctx, conn, props)
        except ProviderError:
            pid = None
        if pid is not None:
            found = get_or_none(ctx, f"read {self.what} {rule_id}", self._m(conn, "get"), rule_id, pid)
            if found is not None:
                return pid, found
        # the property no longer names the rule's policy (an import, a policy renamed): scan the policies
        for pol in call(ctx, "list QoS policies", lambda: list(conn.network.qos_policies())):
            if any(str(r.get("id")) == rule_id for r in pol.rules or []):
                found = get_or_none(ctx, f"read {self.what} {rule_id}", self._m(conn, "get"), rule_id, pol.id)
                return str(pol.id), found
        return pid or "", None

    def _matching(self, ctx: ActionContext, conn: Any, policy_id: str, body: Mapping[str, Any]) -> list[Any]:
        out = []
        for r in self._rules(ctx, conn, policy_id):
            raw = r.to_dict(original_names=True)
            if all(raw.get(k) == v for k, v in body.items() if k != "tenant_id"):
                out.append(r)
        return out

    def _outcome(self, res: Any, policy_id: str) -> Outcome:
        return Outcome(str(res.id), {"show": {**show(res), "qos_policy_id": policy_id}})

    # -- Driver protocol
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        pid = str(find_qos_policy(ctx, conn, props.get("policy")).id)
        body = self._body(props)

        def just_made() -> Any:
            found = self._matching(ctx, conn, pid, body)
            return found[0] if len(found) == 1 else None

        res = create_once(ctx, f"create {self.what}", lambda: self._m(conn, "create")(pid, **body), just_made)
        ctx.record_physical_id(res.id)
        return self._outcome(res, pid)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        pid, res = self._locate(ctx, conn, physical_id, props)
        if res is None:
            return None
        raw = res.to_dict(original_names=True)
        lp = LiveProps(ctx, conn, props)
        for key in self.fields:
            lp.put(key, raw.get(key))
        lp.ref("policy", pid, "QoS policy", find_qos_policy)
        return replace(self._outcome(res, pid), properties=lp.result())

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        pid, res = self._locate(ctx, conn, physical_id, new)
        if res is None:
            raise NotFound(f"{self.what} {physical_id} is gone")
        body = {k: new[k] for k in self.fields if k in changed and new.get(k) is not None}
        if body:
            res = call(
                ctx, f"update {self.what} {physical_id}", self._m(conn, "update"), physical_id, pid, **body
            )
        return self._outcome(res, pid)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        pid, res = self._locate(ctx, conn, physical_id, props)
        if res is None:
            return  # gone (or its policy is: a policy's rules go with it)
        ignore_missing(ctx, f"delete {self.what} {physical_id}", self._m(conn, "delete"), physical_id, pid)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        try:
            pid = self._policy_id(ctx, conn, props)
        except ProviderError:
            return None
        if pid is None:
            return None
        found = self._matching(ctx, conn, pid, self._body(props))
        return str(found[0].id) if len(found) == 1 else None
