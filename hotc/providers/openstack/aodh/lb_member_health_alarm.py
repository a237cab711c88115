"""OS::Aodh::LBMemberHealthAlarm: an alarm on the members of an Octavia pool reporting ERROR
(``loadbalancer_member_health_rule``: the pool's id, the root stack and the autoscaling group). As in Heat, the
pool is looked up by name or id and sent as its id; ``stack`` (and ``time_constraints``) replace the alarm,
the rest is updated in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.aodh.base import AlarmDriver
from hotc.providers.openstack.common import lookup, with_defaults
from hotc.providers.openstack.live import LiveProps


def find_pool(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "pool", value, conn.load_balancer.get_pool, lambda n: conn.load_balancer.pools(name=n))


class LBMemberHealthAlarmDriver(AlarmDriver):
    alarm_type = "loadbalancer_member_health"

    def rule(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "pool_id": str(find_pool(ctx, conn, props.get("pool")).id),
            "stack_id": props.get("stack"),
            "autoscaling_group_id": props.get("autoscaling_group_id"),
        }

    def live_rule(self, lp: LiveProps, rule: Mapping[str, Any]) -> None:
        lp.ref("pool", rule.get("pool_id"), "pool", find_pool)
        lp.text("stack", rule.get("stack_id"))
        lp.text("autoscaling_group_id", rule.get("autoscaling_group_id"))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Aodh::LBMemberHealthAlarm": LBMemberHealthAlarmDriver()})
