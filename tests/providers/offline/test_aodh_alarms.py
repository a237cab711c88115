"""The Aodh alarm drivers against a fake Aodh API that answers as Aodh 23 does where it matters to them: it fills
defaults (a description, repeat_actions false, a time constraint's description and timezone, a query factor's
op and type, a composite sub-rule's granularity/evaluation periods/operator, thresholds as floats), stores a
``trust+zaqar://`` action as ``trust+zaqar:``, answers 503 for Gnocchi rules, 400 with a faultstring for a
rule it does not know, and takes a whole alarm on PUT. The drivers must send Heat's body, find no drift right
after a write, report exactly what was changed outside hotc, update/suspend/resume in place, and adopt a
killed run's alarm by its generated name."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from hotc.providers.openstack.common import ProviderError
from tests.providers.offline.helpers import ctx_for, drift, driver

_RULE_DEFAULTS = {"granularity": 60, "comparison_operator": "eq", "evaluation_periods": 1}
_KNOWN = ("event", "prometheus", "composite", "loadbalancer_member_health")


@dataclass
class Resp:
    status_code: int
    payload: Any = None

    @property
    def content(self) -> bytes:
        return b"" if self.payload is None else json.dumps(self.payload).encode()

    @property
    def text(self) -> str:
        return self.content.decode()

    reason = ""

    def json(self) -> Any:
        return copy.deepcopy(self.payload)


def _error(code: int, text: str) -> Resp:
    return Resp(code, {"error_message": {"faultcode": "Client", "faultstring": text}})


def _sub_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    if len(rule) == 1 and next(iter(rule)) in ("and", "or"):
        ((k, v),) = rule.items()
        return {k: [_sub_rule(r) for r in v]}
    out = {**_RULE_DEFAULTS, **rule}
    out["threshold"] = float(out["threshold"])
    return out


@dataclass
class FakeAodh:
    alarms: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    fail_next_post: int = 0  # answer 503 after storing the alarm (a create whose answer was lost)

    def request(self, path: str, method: str, json: Any = None) -> Resp:  # noqa: A002
        self.calls.append((method, path, copy.deepcopy(json)))
        url = urlsplit(path)
        parts = url.path.strip("/").split("/")
        if parts[0] != "alarms":
            return _error(404, "not found")
        if len(parts) == 1 and method == "GET":
            q = parse_qs(url.query)
            found = list(self.alarms.values())
            if q.get("q.field") == ["name"]:
                found = [a for a in found if a["name"] == q["q.value"][0]]
            return Resp(200, found)
        if len(parts) == 1 and method == "POST":
            return self._post(json)
        alarm = self.alarms.get(parts[1])
        if alarm is None:
            return _error(404, f"Alarm {parts[1]} not found")
        if method == "GET":
            return Resp(200, alarm)
        if method == "DELETE":
            del self.alarms[parts[1]]
            return Resp(204)
        if method == "PUT":
            stored = self._normalise(json)
            stored["alarm_id"] = parts[1]
            self.alarms[parts[1]] = stored
            return Resp(200, stored)
        return _error(405, "method not allowed")

    def _post(self, body: Mapping[str, Any]) -> Resp:
        kind = body.get("type")
        if str(kind).startswith("gnocchi"):
            return Resp(
                503, {"error_message": {"faultstring": "public endpoint for metric service not found"}}
            )
        if kind not in _KNOWN:
            return _error(400, f"Unknown attribute for argument data: {kind}_rule")
        stored = self._normalise(body)
        stored["alarm_id"] = aid = str(uuid.uuid4())
        self.alarms[aid] = stored
        if self.fail_next_post:
            self.fail_next_post -= 1
            return Resp(503, {"error_message": {"faultstring": "gateway lost the answer"}})
        return Resp(201, stored)

    @staticmethod
    def _normalise(body: Mapping[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(dict(body))
        out.setdefault("description", f"{out['type']} alarm rule")
        out.setdefault("repeat_actions", False)
        out.setdefault("enabled", True)
        out.setdefault("severity", "low")
        for key in ("alarm_actions", "ok_actions", "insufficient_data_actions"):
            out[key] = [a.replace("trust+zaqar://", "trust+zaqar:") for a in out.get(key) or []]
        out["time_constraints"] = [
            {"description": f"Time constraint at {tc['start']}", "timezone": "", **tc}
            for tc in out.get("time_constraints") or []
        ]
        if out["type"] == "event":
            rule = out.setdefault("event_rule", {})
            rule.setdefault("event_type", "*")
            rule["query"] = [{"op": "eq", "type": "string", **q} for q in rule.get("query") or []]
        elif out["type"] == "composite":
            out["composite_rule"] = _sub_rule(out["composite_rule"])
        elif out["type"] == "prometheus":
            rule = out["prometheus_rule"]
            rule.setdefault("comparison_operator", "eq")
            rule["threshold"] = float(rule["threshold"])
        return out


@dataclass
class Pool:
    id: str
    name: str


@dataclass
class FakeLB:
    pools_: list[Pool] = field(default_factory=list)

    def get_pool(self, value: str) -> Pool:
        for p in self.pools_:
            if p.id == value:
                return p
        raise ProviderError(f"pool {value} not found", status_code=404)

    def pools(self, name: str) -> list[Pool]:
        return [p for p in self.pools_ if p.name == name]


@dataclass
class Conn:
    alarming: FakeAodh = field(default_factory=FakeAodh)
    load_balancer: FakeLB = field(default_factory=FakeLB)


@pytest.fixture
def aodh() -> Conn:
    return Conn()


EVENT = "OS::Aodh::EventAlarm"
EVENT_PROPS: dict[str, Any] = {
    "description": "server gone",
    "event_type": "compute.instance.delete.end",
    "query": [{"field": "traits.instance_id", "value": "abc"}],
    "alarm_actions": ["https://hooks.example/alarm"],
    "alarm_queues": ["q1"],
    "severity": "critical",
    "time_constraints": [{"name": "night", "start": "0 23 * * *", "duration": 3600}],
}


def test_event_alarm_sends_heats_body_and_reads_back_without_drift(aodh: Conn) -> None:
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT, stack="stk")
    out = d.create(ctx, EVENT_PROPS)
    (_m, _p, body) = next(c for c in aodh.alarming.calls if c[0] == "POST")
    assert body["type"] == "event" and body["name"].startswith("stk-ev-")
    assert body["event_rule"] == {
        "event_type": "compute.instance.delete.end",
        "query": [{"field": "traits.instance_id", "value": "abc", "type": "string"}],
    }
    # a queue is a trust+zaqar action after the given actions, as Heat sends it
    assert body["alarm_actions"] == ["https://hooks.example/alarm", "trust+zaqar://?queue_name=q1"]
    assert body["repeat_actions"] is True and body["enabled"] is True and body["severity"] == "critical"
    assert body["time_constraints"] == [{"name": "night", "start": "0 23 * * *", "duration": 3600}]
    assert "alarm_queues" not in body and "query" not in body
    live = d.read(ctx, out.physical_id, EVENT_PROPS)
    assert drift(EVENT, EVENT_PROPS, live) == []
    assert live.attributes["show"]["event_rule"]["event_type"] == "compute.instance.delete.end"


def test_changes_made_outside_hotc_are_exactly_the_drift(aodh: Conn) -> None:
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT)
    pid = d.create(ctx, EVENT_PROPS).physical_id
    stored = aodh.alarming.alarms[pid]
    stored["severity"] = "low"
    stored["event_rule"]["query"][0]["value"] = "other"
    stored["alarm_actions"] = ["https://hooks.example/alarm"]  # the queue's action removed
    stored["time_constraints"][0]["duration"] = 60
    live = d.read(ctx, pid, EVENT_PROPS)
    assert sorted(drift(EVENT, EVENT_PROPS, live)) == [
        "alarm_queues",
        "query",
        "severity",
        "time_constraints",
    ]


def test_update_puts_the_whole_alarm_and_keeps_its_id(aodh: Conn) -> None:
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT)
    pid = d.create(ctx, EVENT_PROPS).physical_id
    new = {**EVENT_PROPS, "severity": "moderate", "event_type": "compute.instance.update", "alarm_queues": []}
    d.update(ctx, pid, EVENT_PROPS, new, frozenset({"severity", "event_type", "alarm_queues"}))
    (_m, path, body) = [c for c in aodh.alarming.calls if c[0] == "PUT"][-1]
    assert path == f"/alarms/{pid}" and body["alarm_id"] == pid and body["name"].endswith(body["name"][-12:])
    stored = aodh.alarming.alarms[pid]
    assert (
        stored["severity"] == "moderate" and stored["event_rule"]["event_type"] == "compute.instance.update"
    )
    assert stored["alarm_actions"] == ["https://hooks.example/alarm"]
    assert drift(EVENT, new, d.read(ctx, pid, new)) == []


def test_suspend_disables_and_resume_enables(aodh: Conn) -> None:
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT)
    pid = d.create(ctx, EVENT_PROPS).physical_id
    d.suspend(ctx, pid, EVENT_PROPS)
    assert aodh.alarming.alarms[pid]["enabled"] is False
    assert aodh.alarming.alarms[pid]["severity"] == "critical"  # the rest of the alarm is kept
    d.resume(ctx, pid, EVENT_PROPS)
    assert aodh.alarming.alarms[pid]["enabled"] is True


def test_gone_alarm_reads_none_and_deletes_quietly(aodh: Conn) -> None:
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT)
    pid = d.create(ctx, EVENT_PROPS).physical_id
    d.delete(ctx, pid, EVENT_PROPS)
    assert aodh.alarming.alarms == {}
    assert d.read(ctx, pid, EVENT_PROPS) is None
    d.delete(ctx, pid, EVENT_PROPS)  # deleting what is gone is done


def test_a_lost_create_answer_adopts_the_alarm_it_made(aodh: Conn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hotc.providers.openstack.common.pause", lambda _s: None)
    aodh.alarming.fail_next_post = 1
    d = driver(EVENT)
    ctx = ctx_for(aodh, "ev", EVENT)
    out = d.create(ctx, EVENT_PROPS)
    assert list(aodh.alarming.alarms) == [out.physical_id]  # one alarm, not two


def test_a_killed_runs_alarm_is_adopted_by_its_generated_name(aodh: Conn) -> None:
    d = driver(EVENT)
    lineage = uuid.uuid4().hex
    made = d.create(ctx_for(aodh, "ev", EVENT, lineage=lineage), EVENT_PROPS).physical_id
    other = d.create(ctx_for(aodh, "other", EVENT, lineage=lineage), EVENT_PROPS).physical_id
    assert d.find_adoptable(ctx_for(aodh, "ev", EVENT, lineage=lineage), EVENT_PROPS) == made
    assert d.find_adoptable(ctx_for(aodh, "other", EVENT, lineage=lineage), EVENT_PROPS) == other
    assert d.find_adoptable(ctx_for(aodh, "third", EVENT, lineage=lineage), EVENT_PROPS) is None


def test_read_of_an_alarm_of_another_type_is_an_error(aodh: Conn) -> None:
    pid = driver(EVENT).create(ctx_for(aodh, "ev", EVENT), EVENT_PROPS).physical_id
    prom = "OS::Aodh::PrometheusAlarm"
    with pytest.raises(ProviderError, match="is a event alarm, not a prometheus one"):
        driver(prom).read(ctx_for(aodh, "p", prom), pid, {"query": "up", "threshold": 1})


COMPOSITE = "OS::Aodh::CompositeAlarm"
GNOCCHI_RULE = {
    "type": "gnocchi_resources_threshold",
    "metric": "cpu",
    "resource_id": "r1",
    "resource_type": "instance",
    "threshold": 80,
    "aggregation_method": "mean",
}
COMPOSITE_PROPS: dict[str, Any] = {
    "composite_rule": {
        "operator": "or",
        "rules": [
            GNOCCHI_RULE,
            {"and": [{**GNOCCHI_RULE, "metric": "mem"}, {**GNOCCHI_RULE, "comparison_operator": "gt"}]},
        ],
    }
}


def test_composite_rule_is_sent_as_operator_to_rules_and_aodh_defaults_are_no_drift(aodh: Conn) -> None:
    d = driver(COMPOSITE)
    ctx = ctx_for(aodh, "c", COMPOSITE)
    pid = d.create(ctx, COMPOSITE_PROPS).physical_id
    (_m, _p, body) = next(c for c in aodh.alarming.calls if c[0] == "POST")
    assert body["composite_rule"] == {"or": COMPOSITE_PROPS["composite_rule"]["rules"]}
    assert aodh.alarming.alarms[pid]["composite_rule"]["or"][0]["granularity"] == 60
    assert drift(COMPOSITE, COMPOSITE_PROPS, d.read(ctx, pid, COMPOSITE_PROPS)) == []
    # a nested threshold changed outside hotc is drift of the composite rule
    aodh.alarming.alarms[pid]["composite_rule"]["or"][1]["and"][0]["threshold"] = 95.0
    assert drift(COMPOSITE, COMPOSITE_PROPS, d.read(ctx, pid, COMPOSITE_PROPS)) == ["composite_rule"]


def test_prometheus_threshold_as_float_is_no_drift(aodh: Conn) -> None:
    prom = "OS::Aodh::PrometheusAlarm"
    props = {"query": "rate(x[5m])", "threshold": 3}
    d = driver(prom)
    ctx = ctx_for(aodh, "p", prom)
    pid = d.create(ctx, props).physical_id
    assert aodh.alarming.alarms[pid]["prometheus_rule"] == {
        "query": "rate(x[5m])",
        "threshold": 3.0,
        "comparison_operator": "eq",
    }
    assert drift(prom, props, d.read(ctx, pid, props)) == []
    aodh.alarming.alarms[pid]["prometheus_rule"]["threshold"] = 4.0
    assert drift(prom, props, d.read(ctx, pid, props)) == ["threshold"]


def test_lb_member_health_sends_the_pools_id_and_reports_its_name(aodh: Conn) -> None:
    lbh = "OS::Aodh::LBMemberHealthAlarm"
    aodh.load_balancer.pools_ = [Pool("pool-1", "web"), Pool("pool-2", "api")]
    props = {"pool": "web", "stack": "stack-id", "autoscaling_group_id": "asg"}
    d = driver(lbh)
    ctx = ctx_for(aodh, "h", lbh)
    pid = d.create(ctx, props).physical_id
    assert aodh.alarming.alarms[pid]["loadbalancer_member_health_rule"] == {
        "pool_id": "pool-1",
        "stack_id": "stack-id",
        "autoscaling_group_id": "asg",
    }
    assert drift(lbh, props, d.read(ctx, pid, props)) == []
    aodh.alarming.alarms[pid]["loadbalancer_member_health_rule"]["pool_id"] = "pool-2"
    live = d.read(ctx, pid, props)
    assert live.properties["pool"] == "pool-2" and drift(lbh, props, live) == ["pool"]


def test_aodhs_refusal_is_a_clear_error(aodh: Conn) -> None:
    from hotc.providers.openstack.aodh.event_alarm import EventAlarmDriver

    class Threshold(EventAlarmDriver):
        alarm_type = "threshold"

    with pytest.raises(
        ProviderError, match=r"Unknown attribute for argument data: threshold_rule \(HTTP 400\)"
    ):
        Threshold().create(ctx_for(aodh, "t", EVENT), EVENT_PROPS)
    assert aodh.alarming.alarms == {}
