"""What every Aodh alarm driver shares: the REST calls (openstacksdk has no alarm resources, so its ``alarming``
adapter carries them), the common properties (actions, queues, severity, time constraints), create, read,
update, delete, suspend/resume and adoption. A type module says only how its properties become Aodh's
``<type>_rule`` and back (:meth:`AlarmDriver.rule` and :meth:`AlarmDriver.live_rule`).

As in Heat (``alarm_base.BaseAlarm``): the alarm's name is generated (no alarm type has a ``name`` property),
each ``*_queues`` entry is sent as a ``trust+zaqar://?queue_name=Q`` action, an update sends the whole new
alarm, suspend disables the alarm and resume enables it. An alarm carries nowhere to put hotc's stamp, so a
killed run's alarm is adopted only by the name hotc generated for its stack and address.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from hotc.model import model
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import (
    ProviderError,
    adopt_by_generated_name,
    call,
    create_once,
    fresh_finder,
    get_or_none,
    ignore_missing,
    physical_name,
    read_back,
)
from hotc.providers.openstack.live import LiveProps, as_given, same_text
from hotc.providers.openstack.rest import ServiceHTTPError, json_answer
from hotc.providers.schemas.aodh import ACTIONS, QUEUES

ZAQAR = "trust+zaqar"


class AodhHTTPError(ServiceHTTPError):
    """An Aodh answer >= 400, with its status (for retries and 404s) and Aodh's own message."""


def _message(body: Any) -> str:
    """Aodh's ``error_message`` (its ``faultstring`` when it is a map), else the body."""
    err = body.get("error_message") if isinstance(body, dict) else None
    if isinstance(err, dict):
        return str(err.get("faultstring") or err)
    return str(err or body)


def request(conn: Any, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
    """One Aodh v2 call (``/alarms...``) through the connection's ``alarming`` adapter; the decoded JSON."""
    resp = conn.alarming.request(path, method, json=dict(body) if body is not None else None)
    return json_answer(resp, AodhHTTPError, _message)


@model
class LiveAlarm:
    """An alarm as Aodh shows it (``id``/``name`` for the list-based reads and adoption)."""

    id: str
    name: str
    body: Mapping[str, Any] = field(default_factory=dict)


def _live(body: Mapping[str, Any]) -> LiveAlarm:
    return LiveAlarm(str(body.get("alarm_id")), str(body.get("name") or ""), dict(body))


def queue_url(queue: Any) -> str:
    return f"{ZAQAR}://?{urlencode({'queue_name': queue})}"


def queue_of(url: Any) -> str | None:
    """The queue a ``trust+zaqar://?queue_name=Q`` action names (Aodh stores it as ``trust+zaqar:?...``), or None
    for any other action."""
    if not isinstance(url, str) or not url.startswith(f"{ZAQAR}:"):
        return None
    names = parse_qs(urlsplit(url).query).get("queue_name")
    return names[0] if names else None


class AlarmDriver(ListRead):
    """One Aodh alarm type; subclasses set ``alarm_type`` and map their rule."""

    alarm_type = ""
    list_what = "alarms"

    # ------------------------------------------------------------------ the type's part
    def rule(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        """The ``<alarm_type>_rule`` Aodh takes for these properties."""
        raise NotImplementedError

    def live_rule(self, lp: LiveProps, rule: Mapping[str, Any]) -> None:
        """Report the rule's properties from Aodh's rule (see :class:`LiveProps`)."""
        raise NotImplementedError

    def rule_key(self) -> str:
        return f"{self.alarm_type}_rule"

    # ------------------------------------------------------------------ body
    def body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        """The alarm as Aodh takes it (Heat's ``actions_to_urls`` and ``get_alarm_props``)."""
        out: dict[str, Any] = {"type": self.alarm_type, self.rule_key(): self.rule(ctx, conn, props)}
        for key in ("description", "enabled", "repeat_actions", "severity"):
            if props.get(key) is not None:
                out[key] = props[key]
        for actions, queues in zip(ACTIONS, QUEUES, strict=True):
            urls = [str(a) for a in props.get(actions) or [] if a not in (None, "")]
            urls += [queue_url(q) for q in props.get(queues) or []]
            out[actions] = urls
        out["time_constraints"] = [
            {k: v for k, v in dict(tc).items() if v is not None} for tc in props.get("time_constraints") or []
        ]
        return out

    # ------------------------------------------------------------------ lifecycle
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body = self.body(ctx, conn, props)
        body["name"] = name = physical_name(ctx)
        find_new = fresh_finder(
            ctx, f"create {self.alarm_type} alarm", lambda: self._by_name(conn, name), unique=True
        )
        made = create_once(
            ctx,
            f"create {self.alarm_type} alarm",
            lambda: _live(request(conn, "POST", "/alarms", body)),
            find_new,
        )
        ctx.record_physical_id(made.id)
        return read_back(self, ctx, made.id, props, f"alarm {made.id} disappeared right after its create")

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        got = get_or_none(ctx, f"read alarm {physical_id}", request, conn, "GET", f"/alarms/{physical_id}")
        if got is None:
            return None
        return self.read_outcome(ctx, conn, _live(got), props)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        self._put(ctx, conn, physical_id, self.body(ctx, conn, new))
        return read_back(self, ctx, physical_id, new, f"alarm {physical_id} is gone")

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        ignore_missing(
            ctx, f"delete alarm {physical_id}", request, ctx.cloud(), "DELETE", f"/alarms/{physical_id}"
        )

    def suspend(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        """Heat's ``handle_suspend``: the alarm is disabled."""
        self._put(ctx, ctx.cloud(), physical_id, {"enabled": False})

    def resume(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        """Heat's ``handle_resume``: the alarm is enabled again."""
        self._put(ctx, ctx.cloud(), physical_id, {"enabled": True})

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, {}, "alarms", lambda: self.list_live(ctx, conn))

    # ------------------------------------------------------------------ reads
    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return [_live(a) for a in request(conn, "GET", "/alarms") or [] if a.get("type") == self.alarm_type]

    def _by_name(self, conn: Any, name: str) -> list[LiveAlarm]:
        found = request(
            conn, "GET", f"/alarms?{urlencode({'q.field': 'name', 'q.op': 'eq', 'q.value': name})}"
        )
        return [_live(a) for a in found or [] if a.get("name") == name]

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        live: Mapping[str, Any] = obj.body
        if live.get("type") != self.alarm_type:
            raise ProviderError(f"alarm {obj.id} is a {live.get('type')} alarm, not a {self.alarm_type} one")
        lp = LiveProps(ctx, conn, props)
        for key in ("description", "enabled", "repeat_actions", "severity"):
            lp.text(key, live.get(key))
        for actions, queues in zip(ACTIONS, QUEUES, strict=True):
            urls = list(live.get(actions) or [])
            lp.put(actions, _as_given_list(props.get(actions), [u for u in urls if queue_of(u) is None]))
            lp.put(
                queues, _as_given_list(props.get(queues), [q for u in urls if (q := queue_of(u)) is not None])
            )
        lp.put(
            "time_constraints", _time_constraints(props.get("time_constraints"), live.get("time_constraints"))
        )
        self.live_rule(lp, dict(live.get(self.rule_key()) or {}))
        return Outcome(obj.id, {"show": dict(live)}, properties=lp.result())

    def _put(self, ctx: ActionContext, conn: Any, physical_id: str, change: Mapping[str, Any]) -> None:
        """Aodh's PUT takes the whole alarm: the live one with ``change`` over it (as aodhclient's update)."""

        def put() -> Any:
            current = dict(request(conn, "GET", f"/alarms/{physical_id}") or {})
            current.update(change)
            return request(conn, "PUT", f"/alarms/{physical_id}", current)

        call(ctx, f"update alarm {physical_id}", put)


def _as_given_list(given: Any, live: list[Any]) -> Any:
    """A live list of strings as the template wrote it when it holds the same items in the same order; an
    empty live list is the template's empty value (None or [])."""
    if not live and not given:
        return given
    if isinstance(given, list) and len(given) == len(live) and all(map(same_text, given, live)):
        return given
    return live


_TC_KEYS = ("name", "start", "duration", "timezone", "description")


def _time_constraints(given: Any, live: Any) -> Any:
    """Aodh fills a time constraint's ``description`` and ``timezone`` when the template leaves them out: a live
    constraint that matches the given one on what the template wrote is reported as given."""
    live_items = [dict(x) for x in live or []]
    given_items = [dict(x) for x in given or []] if isinstance(given, list) else None
    if given_items is not None and len(given_items) == len(live_items):
        same = all(
            all(k not in g or g[k] is None or same_text(g[k], lv.get(k)) for k in _TC_KEYS)
            for g, lv in zip(given_items, live_items, strict=True)
        )
        if same:
            return given
    return [
        {k: as_given(None, lv.get(k)) for k in _TC_KEYS if lv.get(k) not in (None, "")} for lv in live_items
    ]


def query_as_given(given: Any, live: Any) -> Any:
    """An event query: Aodh fills each factor's ``type`` (``string``) and ``op`` (``eq``); a live factor equal to
    the given one on what the template wrote is reported as given."""
    live_items = [dict(x) for x in live or []]
    if not live_items and not given:
        return given
    if isinstance(given, list) and len(given) == len(live_items):
        ok = all(
            all(v is None or same_text(v, lv.get(k)) for k, v in dict(g).items())
            for g, lv in zip(given, live_items, strict=True)
        )
        if ok:
            return given
    return [{k: v for k, v in lv.items() if v is not None} for lv in live_items]


def same_number(given: Any, live: Any) -> bool:
    """Whether two values are the same number (Aodh stores thresholds as floats: ``1`` is ``1.0``)."""
    if isinstance(given, bool) or isinstance(live, bool):
        return False
    try:
        return float(given) == float(live)
    except (TypeError, ValueError):
        return False
