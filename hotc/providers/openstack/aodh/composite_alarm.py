"""OS::Aodh::CompositeAlarm: rules combined by ``and``/``or`` (``composite_rule``: Heat sends
``{operator: rules}``). Aodh fills each sub-rule's defaults (granularity, evaluation periods, operator) and stores
numbers as floats: a live rule that matches the template's on what the template wrote is reported as given, so
only a real change shows as drift. The sub-rules Aodh takes are the prometheus and gnocchi threshold rules; it
stores gnocchi sub-rules without asking Gnocchi (only its evaluator would)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.aodh.base import AlarmDriver, same_number
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps, same_text

_COMBINERS = ("and", "or")


class CompositeAlarmDriver(AlarmDriver):
    alarm_type = "composite"

    def rule_key(self) -> str:
        return "composite_rule"

    def rule(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        composite = dict(props.get("composite_rule") or {})
        return {str(composite.get("operator")): list(composite.get("rules") or [])}

    def live_rule(self, lp: LiveProps, rule: Mapping[str, Any]) -> None:
        given = lp.props.get("composite_rule")
        if len(rule) != 1:
            lp.put("composite_rule", dict(rule))
            return
        ((operator, rules),) = rule.items()
        if (
            isinstance(given, Mapping)
            and given.get("operator") == operator
            and rules_match(given.get("rules"), rules)
        ):
            lp.put("composite_rule", given)
        else:
            lp.put("composite_rule", {"operator": operator, "rules": rules})


def rules_match(given: Any, live: Any) -> bool:
    """Whether a live list of sub-rules is the given one with Aodh's defaults filled in."""
    if not isinstance(given, list) or not isinstance(live, list) or len(given) != len(live):
        return False
    return all(rule_matches(g, lv) for g, lv in zip(given, live, strict=True))


def rule_matches(given: Any, live: Any) -> bool:
    if not isinstance(given, Mapping) or not isinstance(live, Mapping):
        return False
    if len(given) == 1 and next(iter(given)) in _COMBINERS:
        ((key, rules),) = given.items()
        return set(live) == {key} and rules_match(rules, live[key])
    return all(v is None or (k in live and value_matches(v, live[k])) for k, v in given.items())


def value_matches(given: Any, live: Any) -> bool:
    if isinstance(given, list):
        return isinstance(live, list) and len(given) == len(live) and all(map(value_matches, given, live))
    if isinstance(given, Mapping):
        return rule_matches(given, live)
    return same_number(given, live) or same_text(given, live)


DRIVERS: dict[str, Driver] = with_defaults({"OS::Aodh::CompositeAlarm": CompositeAlarmDriver()})
