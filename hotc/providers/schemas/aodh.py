"""OS::Aodh::* alarm types (service ``alarming``), as Heat 27 declares them (``heat/engine/resources/alarm_base.py``,
``openstack/aodh/alarm.py``, ``composite_alarm.py``, ``gnocchi/alarm.py``).

Every alarm shares the common part (actions, queues, severity, time constraints); each type adds the properties
of its rule (Heat sends them to Aodh as ``<type>_rule``). ``time_constraints`` is the one common property Heat
does not update in place: a change replaces the alarm. Alarms have no attribute beyond ``show``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import PropSchema, ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    attrs,
    boolean,
    custom,
    integer,
    length_,
    list_,
    map_,
    number,
    range_,
    string,
)
from hotc.providers.schemas._rules import known

OPERATORS = ("le", "ge", "eq", "lt", "gt", "ne")
_QUERY_TYPES = ("integer", "float", "string", "boolean", "datetime")


def _query_factor() -> PropSchema:
    """One query factor: an attribute compared with a value."""
    return map_(
        {
            "field": string(),
            "type": string(default="string", constraints=(allowed(*_QUERY_TYPES),)),
            "op": string(constraints=(allowed(*OPERATORS),)),
            "value": string(),
        }
    )


def _queues() -> PropSchema:
    return list_(string(constraints=(custom("zaqar.queue"),)), default=[], update=True)


COMMON: dict[str, PropSchema] = {
    "description": string(update=True),
    "enabled": boolean(default=True, update=True),
    "alarm_actions": list_(update=True),
    "ok_actions": list_(update=True),
    "insufficient_data_actions": list_(update=True),
    "alarm_queues": _queues(),
    "ok_queues": _queues(),
    "insufficient_data_queues": _queues(),
    "repeat_actions": boolean(default=True, update=True),
    "severity": string(default="low", update=True, constraints=(allowed("low", "moderate", "critical"),)),
    "time_constraints": list_(
        map_(
            {
                "name": string(required=True),
                "start": string(required=True, constraints=(custom("cron_expression"),)),
                "description": string(),
                "duration": integer(required=True, constraints=(range_(min=0),)),
                "timezone": string(constraints=(custom("timezone"),)),
            }
        ),
        default=[],
    ),
}

#: the common properties that hold the alarm's notification targets (Heat turns queues into zaqar URLs)
ACTIONS = ("alarm_actions", "ok_actions", "insufficient_data_actions")
QUEUES = ("alarm_queues", "ok_queues", "insufficient_data_queues")


def operator_given(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Heat sends a threshold rule's ``comparison_operator`` as null when the template leaves it out (it moves every
    rule property into the rule), and Aodh refuses a null operator (HTTP 400): Heat's create fails."""
    value = props.get("comparison_operator")
    if not known(value) or value is not None:
        return []
    return [
        (
            "comparison_operator",
            "comparison_operator is needed: without it Heat sends null, which Aodh refuses (its create fails); "
            f"give one of {', '.join(OPERATORS)}",
        )
    ]


def _alarm(name: str, rule: dict[str, PropSchema], heat_class: str, **kw: object) -> ResourceType:
    return ResourceType(
        name=name,
        properties={**rule, **COMMON},
        attributes=attrs(),
        service="alarming",
        heat_class=heat_class,
        **kw,  # type: ignore[arg-type]
    )


_HEAT = "heat.engine.resources.openstack.aodh."

EVENT_ALARM = _alarm(
    "OS::Aodh::EventAlarm",
    {
        "event_type": string(default="*", update=True),
        "query": list_(_query_factor(), update=True),
    },
    _HEAT + "alarm.EventAlarm",
)

COMPOSITE_ALARM = _alarm(
    "OS::Aodh::CompositeAlarm",
    {
        "composite_rule": map_(
            {
                "operator": string(required=True, update=True, constraints=(allowed("or", "and"),)),
                "rules": list_(required=True, update=True, constraints=(length_(min=2),)),
            },
            required=True,
            update=True,
        ),
    },
    _HEAT + "composite_alarm.CompositeAlarm",
)

LB_MEMBER_HEALTH_ALARM = _alarm(
    "OS::Aodh::LBMemberHealthAlarm",
    {
        "pool": string(required=True, update=True),
        "stack": string(required=True),
        "autoscaling_group_id": string(required=True, update=True),
    },
    _HEAT + "alarm.LBMemberHealthAlarm",
)

PROMETHEUS_ALARM = _alarm(
    "OS::Aodh::PrometheusAlarm",
    {
        "comparison_operator": string(update=True, constraints=(allowed(*OPERATORS),)),
        "query": string(required=True, update=True),
        "threshold": number(required=True, update=True),
    },
    _HEAT + "alarm.PrometheusAlarm",
    validators=(operator_given,),
)

_GNOCCHI: dict[str, PropSchema] = {
    "comparison_operator": string(update=True, constraints=(allowed(*OPERATORS),)),
    "evaluation_periods": integer(update=True),
    "aggregation_method": string(update=True),
    "granularity": integer(update=True),
    "threshold": number(required=True, update=True),
}

GNOCCHI_RESOURCES_ALARM = _alarm(
    "OS::Aodh::GnocchiResourcesAlarm",
    {
        "metric": string(required=True, update=True),
        "resource_id": string(required=True, update=True),
        "resource_type": string(required=True, update=True),
        **_GNOCCHI,
    },
    _HEAT + "gnocchi.alarm.AodhGnocchiResourcesAlarm",
    validators=(operator_given,),
)

GNOCCHI_BY_METRICS_ALARM = _alarm(
    "OS::Aodh::GnocchiAggregationByMetricsAlarm",
    {"metrics": list_(required=True, update=True), **_GNOCCHI},
    _HEAT + "gnocchi.alarm.AodhGnocchiAggregationByMetricsAlarm",
    validators=(operator_given,),
)

GNOCCHI_BY_RESOURCES_ALARM = _alarm(
    "OS::Aodh::GnocchiAggregationByResourcesAlarm",
    {
        "metric": string(required=True, update=True),
        "query": string(required=True, update=True),
        "resource_type": string(required=True, update=True),
        **_GNOCCHI,
    },
    _HEAT + "gnocchi.alarm.AodhGnocchiAggregationByResourcesAlarm",
    validators=(operator_given,),
)

# The threshold alarm: Heat still declares it (deprecated), Aodh removed its rule (a create is a 400 there).
THRESHOLD_ALARM = _alarm(
    "OS::Aodh::Alarm",
    {
        "comparison_operator": string(update=True, constraints=(allowed(*OPERATORS),)),
        "evaluation_periods": integer(update=True),
        "meter_name": string(required=True),
        "period": integer(update=True),
        "statistic": string(update=True, constraints=(allowed("count", "avg", "sum", "min", "max"),)),
        "threshold": number(required=True, update=True),
        "matching_metadata": map_(default={}, update=True),
        "query": list_(_query_factor(), update=True),
    },
    _HEAT + "alarm.AodhAlarm",
    support="deprecated",
    description="deprecated: Aodh removed threshold alarms; use OS::Aodh::GnocchiAggregationByResourcesAlarm",
)

# Removed from Aodh: Heat keeps the name as a placeholder that takes any properties and makes nothing.
COMBINATION_ALARM = ResourceType(
    name="OS::Aodh::CombinationAlarm",
    properties={},
    attributes=attrs(),
    never_updates=True,
    accepts_any_properties=True,
    support="hidden",
    description="removed from Aodh: a placeholder (as OS::Heat::None); use OS::Aodh::CompositeAlarm",
    heat_class=_HEAT + "alarm.CombinationAlarm",
)

TYPES = (
    EVENT_ALARM,
    COMPOSITE_ALARM,
    LB_MEMBER_HEALTH_ALARM,
    PROMETHEUS_ALARM,
    GNOCCHI_RESOURCES_ALARM,
    GNOCCHI_BY_METRICS_ALARM,
    GNOCCHI_BY_RESOURCES_ALARM,
    THRESHOLD_ALARM,
    COMBINATION_ALARM,
)
