"""OS::Aodh::PrometheusAlarm: a threshold on the result of a PromQL query (``prometheus_rule``). Aodh's API
stores it without asking Prometheus; only its evaluator would. Every property but ``time_constraints`` is
updated in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.aodh.base import AlarmDriver, same_number
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps


class PrometheusAlarmDriver(AlarmDriver):
    alarm_type = "prometheus"

    def rule(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"query": props.get("query"), "threshold": props.get("threshold")}
        if props.get("comparison_operator") is not None:
            out["comparison_operator"] = props["comparison_operator"]
        return out

    def live_rule(self, lp: LiveProps, rule: Mapping[str, Any]) -> None:
        lp.text("query", rule.get("query"))
        given = lp.props.get("threshold")
        lp.put("threshold", given if same_number(given, rule.get("threshold")) else rule.get("threshold"))
        # Aodh stores "eq" when the template gives no operator
        if lp.props.get("comparison_operator") is not None:
            lp.text("comparison_operator", rule.get("comparison_operator"))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Aodh::PrometheusAlarm": PrometheusAlarmDriver()})
