"""What the Manila drivers share: the REST calls (through the connection's ``shared_file_system`` adapter, the
``sharev2`` endpoint) at the API microversion Heat's manila client asks for (2.13), so every object and every
attribute reads as it does under Heat; and the look-ups by name or id Heat's client plugin makes (an id first,
then a name that must be unique)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any

from hotc.model import model
from hotc.providers.base import ActionContext
from hotc.providers.openstack.batch import ListRead
from hotc.providers.openstack.common import Ambiguous, NotFound, call, create_once, fresh_finder
from hotc.providers.openstack.get_read import GetRead
from hotc.providers.openstack.rest import ServiceHTTPError, json_answer

#: the microversion of Heat 27's manila client plugin (``MANILACLIENT_VERSION``)
MICROVERSION = "2.13"
HEADERS = {"X-OpenStack-Manila-API-Version": MICROVERSION}


class ManilaHTTPError(ServiceHTTPError):
    """A Manila answer >= 400, with its status (for retries and 404s) and Manila's own message."""


def _message(body: Any) -> str:
    """Manila's ``{"<fault>": {"message": ...}}``, else the body."""
    if isinstance(body, dict) and len(body) == 1:
        inner = next(iter(body.values()))
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(body)


def request(conn: Any, method: str, path: str, body: Any = None) -> Any:
    """One Manila v2 call through the connection's ``shared_file_system`` adapter; the decoded JSON (None for
    an empty answer). ``body`` None sends no body; anything else is sent as JSON."""
    kwargs: dict[str, Any] = {"headers": dict(HEADERS)}
    if body is not None:
        kwargs["json"] = body
    return json_answer(conn.shared_file_system.request(path, method, **kwargs), ManilaHTTPError, _message)


@model
class Live:
    """A Manila object as the API shows it (``id``/``name``/``created_at`` for the shared helpers)."""

    id: str
    name: str
    created_at: str
    body: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.body.get(key, default)


def live(body: Mapping[str, Any]) -> Live:
    return Live(
        str(body.get("id")), str(body.get("name") or ""), str(body.get("created_at") or ""), dict(body)
    )


def get_live(conn: Any, collection: str, key: str, oid: str) -> Live:
    """``GET /COLLECTION/OID``'s ``KEY`` (raises :class:`ManilaHTTPError`; wrap it in ``call``/``get_or_none``)."""
    got = request(conn, "GET", f"/{collection}/{oid}")
    return live(dict((got or {}).get(key) or {}))


def list_live(ctx: ActionContext | None, conn: Any, path: str, key: str, what: str) -> list[Live]:
    """``GET PATH``'s list ``KEY``, retried as ``call`` retries."""
    got = call(ctx, f"list {what}", request, conn, "GET", path)
    return [live(dict(o)) for o in (got or {}).get(key) or []]


class ManilaRead(GetRead, ListRead):
    """The reads of a Manila object: ``GET /COLLECTION/ID``'s ``key`` for one, ``GET LIST_PATH``'s
    ``list_key`` for the list-based reads and adoption (``read_what`` names it, ``read_what`` + "s" the list)."""

    collection = ""
    key = ""
    list_path = ""
    list_key = ""

    def get_live(self, conn: Any, physical_id: str) -> Live:
        return get_live(conn, self.collection, self.key, physical_id)

    def _all(self, ctx: ActionContext | None, conn: Any) -> list[Live]:
        return list_live(ctx, conn, self.list_path, self.list_key, f"{self.read_what}s")

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return self._all(ctx, conn)

    def _create(self, ctx: ActionContext, conn: Any, name: Any, body: Mapping[str, Any]) -> Live:
        """``POST /COLLECTION {KEY: body}`` once (what a failed attempt made is found again by ``name``, when the
        object has one), with the new id recorded at once."""
        what = f"create {self.read_what}"
        find_new = fresh_finder(
            ctx, what, lambda: [o for o in self._all(ctx, conn) if name is not None and o.name == name]
        )
        made: Live = create_once(
            ctx,
            what,
            lambda: live(request(conn, "POST", f"/{self.collection}", {self.key: dict(body)})[self.key]),
            find_new,
        )
        ctx.record_physical_id(made.id)
        return made


def find(ctx: ActionContext | None, items: list[Live], value: Any, what: str) -> Live:
    """Heat's ``_find_resource_by_id_or_name``: the item with that id, else the one item with that name."""
    text = str(value)
    by_id = [o for o in items if o.id == text]
    if by_id:
        return by_id[0]
    by_name = [o for o in items if o.name == text]
    if len(by_name) > 1:
        raise Ambiguous(
            f"Ambiguous {what} name '{text}'. Found more than one {what} for this name in Manila."
        )
    if not by_name:
        raise NotFound(f"The {what} ({text}) could not be found.")
    return by_name[0]


def find_share_type(ctx: ActionContext | None, conn: Any, value: Any) -> Live:
    return find(
        ctx, list_live(ctx, conn, "/types?is_public=all", "share_types", "share types"), value, "share type"
    )


def find_share_network(ctx: ActionContext | None, conn: Any, value: Any) -> Live:
    items = list_live(ctx, conn, "/share-networks/detail", "share_networks", "share networks")
    return find(ctx, items, value, "share network")


def find_snapshot(ctx: ActionContext | None, conn: Any, value: Any) -> Live:
    items = list_live(ctx, conn, "/snapshots/detail", "snapshots", "share snapshots")
    return find(ctx, items, value, "share snapshot")


def find_security_service(ctx: ActionContext | None, conn: Any, value: Any) -> Live:
    items = list_live(ctx, conn, "/security-services/detail", "security_services", "security services")
    return find(ctx, items, value, "security service")
