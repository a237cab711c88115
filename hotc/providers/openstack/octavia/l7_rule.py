"""OS::Octavia::L7Rule: lives under its L7 policy (every call names the policy), with the LB-ACTIVE dance of
:class:`~hotc.providers.openstack.octavia.base.OctaviaChild`; stamped with Octavia tags and adopted by them.
Its ``l7policy`` replaces it (as in Heat); the rest is updated in place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import Item
from hotc.providers.openstack.common import ProviderError, with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.octavia.base import OctaviaChild, find_l7_policy, lb_of_listener


class L7RuleDriver(OctaviaChild):
    kind, plural, what = "l7_rule", "l7_rules", "L7 rule"
    simple = {
        "admin_state_up": "admin_state_up",
        "type": "type",
        "compare_type": "compare_type",
        "invert": "invert",
        "key": "key",
        "value": "value",
    }
    named = False

    def _policy(self, ctx: ActionContext | None, conn: Any, props: Mapping[str, Any]) -> Any:
        return find_l7_policy(ctx, conn, props["l7policy"])

    def lb_of_props(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> str:
        return lb_of_listener(ctx, conn, self._policy(ctx, conn, props).listener_id)

    def _pid(self, conn: Any, props: Mapping[str, Any]) -> str:
        return str(self._policy(None, conn, props).id)

    def _create(self, conn: Any, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return conn.load_balancer.create_l7_rule(self._pid(conn, props), **body)

    def _get(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return conn.load_balancer.get_l7_rule(pid, self._pid(conn, props))

    def _update(self, conn: Any, pid: str, props: Mapping[str, Any], body: dict[str, Any]) -> Any:
        return conn.load_balancer.update_l7_rule(pid, self._pid(conn, props), **body)

    def _delete(self, conn: Any, pid: str, props: Mapping[str, Any]) -> Any:
        return conn.load_balancer.delete_l7_rule(pid, self._pid(conn, props), ignore_missing=False)

    def _list(self, conn: Any, props: Mapping[str, Any], **query: Any) -> list[Any]:
        return list(conn.load_balancer.l7_rules(self._pid(conn, props), **query))

    def update_body(
        self, ctx: ActionContext, conn: Any, new: Mapping[str, Any], changed: frozenset[str]
    ) -> dict[str, Any]:
        body = super().update_body(ctx, conn, new, changed)
        # openstacksdk's update takes the rule's value under its attribute name (``value`` is a parameter of
        # its own ``_update``)
        if "value" in body:
            body["rule_value"] = body.pop("value")
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.put("l7policy", lp.props.get("l7policy"))  # read through that policy: it holds the rule

    def read_many(self, items: Sequence[Item]) -> dict[str, Outcome]:
        """Rules live under their policies: read one by one (through their policy)."""
        return {}

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        try:
            self._policy(ctx, ctx.cloud(), props)
        except ProviderError as exc:
            if exc.status_code in (None, 404):
                return None  # the policy is gone, and its rules with it
            raise
        return super().read(ctx, physical_id, props)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::L7Rule": L7RuleDriver()})
