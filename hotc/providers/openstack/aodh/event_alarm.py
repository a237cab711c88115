"""OS::Aodh::EventAlarm: an alarm on the events other services emit (``event_rule``: an event type and a query
over the event's traits). Every property but ``time_constraints`` is updated in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.aodh.base import AlarmDriver, query_as_given
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps


class EventAlarmDriver(AlarmDriver):
    alarm_type = "event"

    def rule(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if props.get("event_type"):
            out["event_type"] = props["event_type"]
        query = [{k: v for k, v in dict(q).items() if v is not None} for q in props.get("query") or []]
        if query:
            out["query"] = query
        return out

    def live_rule(self, lp: LiveProps, rule: Mapping[str, Any]) -> None:
        lp.text("event_type", rule.get("event_type"))
        lp.put("query", query_as_given(lp.props.get("query"), rule.get("query")))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Aodh::EventAlarm": EventAlarmDriver()})
