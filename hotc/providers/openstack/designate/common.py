"""What the Designate drivers share: Designate's v2 REST API (``dns``) spoken directly through the connection's
``dns`` adapter (the bodies are the ones Heat's designateclient sends), zone look-ups by id or name as Heat's
``designate.zone`` constraint does them, and the wait until an object is no longer PENDING (Heat's
``check_*_complete``: ERROR fails it).

A zone or a record set has nowhere to carry hotc's stamp (no tags nor metadata), so what a killed run made is
found by its name: a zone's name is the template's and unique in Designate; a record set without a name gets the
one hotc generated for its stack and address (:func:`hotc.providers.openstack.common.adopt_by_generated_name`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any
from urllib.parse import urlencode

from hotc.model import model
from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import NotFound, call, lookup, wait_for

PENDING = "PENDING"
ERROR = "ERROR"


class DesignateHTTPError(Exception):
    """Designate answered with an error status (retried by ``call`` when transient, then translated to a
    ProviderError; a 404 becomes NotFound)."""

    def __init__(self, status_code: int, text: str) -> None:
        super().__init__(f"{_message(text)} (HTTP {status_code})")
        self.status_code = status_code


def _message(text: str) -> str:
    """Designate's error text: its JSON ``message`` when it gives one."""
    try:
        body = json.loads(text)
    except ValueError:
        return text[:500] or "no details"
    if not isinstance(body, Mapping):
        return text[:500]
    # a schema error names each bad value (``errors.errors[].message``) under a general "Invalid Object"
    errors = body.get("errors")
    found = errors.get("errors") if isinstance(errors, Mapping) else None
    details = [str(e.get("message")) for e in found or [] if isinstance(e, Mapping) and e.get("message")]
    if details:
        return "; ".join(details)
    return str(body.get("message") or text[:500])


def request(conn: Any, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
    """One call to Designate's v2 API (``/zones...``); the decoded JSON (None for an empty answer)."""
    kwargs: dict[str, Any] = {} if body is None else {"json": dict(body)}
    resp = getattr(conn.dns, method)(path, **kwargs)
    code = int(getattr(resp, "status_code", 200))
    if code >= 400:
        raise DesignateHTTPError(code, str(getattr(resp, "text", "") or ""))
    if code == 204 or not resp.content:
        return None
    return resp.json()


@model
class Live:
    """A zone or record set as Designate shows it (``id``/``name``/``created_at`` for the shared readers)."""

    id: str
    name: str
    created_at: str
    body: Mapping[str, Any] = field(default_factory=dict)


def live(body: Mapping[str, Any]) -> Live:
    return Live(
        str(body.get("id")), str(body.get("name") or ""), str(body.get("created_at") or ""), dict(body)
    )


def list_all(conn: Any, path: str, key: str, **query: Any) -> list[Live]:
    """Every object of a listing, page by page (Designate pages by ``links.next``)."""
    out: list[Live] = []
    url = f"{path}?{urlencode({k: v for k, v in query.items() if v is not None})}" if query else path
    while url:
        page = request(conn, "get", url) or {}
        out.extend(live(x) for x in page.get(key) or [])
        nxt = (page.get("links") or {}).get("next")
        url = nxt.split("/v2", 1)[-1] if isinstance(nxt, str) and nxt else ""
    return out


def zone_path(zone_id: str) -> str:
    return f"/zones/{zone_id}"


def get_zone(conn: Any, zone_id: str) -> Live:
    return live(request(conn, "get", zone_path(zone_id)))


def find_zone(ctx: ActionContext | None, conn: Any, name_or_id: Any) -> Live:
    """A zone by id, else by its exact name (unique), as Heat's ``get_zone_id``."""
    found: Live = lookup(
        ctx,
        "zone",
        name_or_id,
        lambda v: get_zone(conn, v),
        lambda v: list_all(conn, "/zones", "zones", name=v),
    )
    return found


def zone_id_of(ctx: ActionContext | None, conn: Any, name_or_id: Any) -> str:
    return find_zone(ctx, conn, name_or_id).id


def wait_settled(ctx: ActionContext, what: str, get: Callable[[], Live]) -> Live:
    """The object once it is no longer PENDING (Heat's ``_check_status_complete``); ERROR fails the action."""

    def failed(obj: Live) -> str | None:
        return "Designate put it in ERROR" if obj.body.get("status") == ERROR else None

    got: Live = wait_for(ctx, what, get, lambda o: o is not None and o.body.get("status") != PENDING, failed)
    return got


def wait_deleted(ctx: ActionContext, what: str, get: Callable[[], Live]) -> None:
    """Wait until Designate has deleted the object (its GET is a 404), as Heat's ``check_delete_complete``."""

    def safe_get() -> Live | None:
        try:
            return get()
        except DesignateHTTPError as exc:
            if exc.status_code == 404:
                return None
            raise

    def failed(obj: Live) -> str | None:
        return "Designate put it in ERROR while deleting it" if obj.body.get("status") == ERROR else None

    wait_for(ctx, what, safe_get, lambda o: o is None, failed)


def present(ctx: ActionContext, what: str, fn: Callable[[], Any]) -> Any:
    """``fn()`` through :func:`call`, or None when Designate says 404."""
    try:
        return call(ctx, what, fn)
    except NotFound:
        return None
