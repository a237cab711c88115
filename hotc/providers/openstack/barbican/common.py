"""What the Barbican drivers share: Barbican's REST API (``key-manager``) spoken directly, and the objects it
lists seen as hotc's readers expect them.

Barbican names every object by its reference, the URI ``http://HOST/v1/secrets/UUID`` (``…/orders/…``,
``…/containers/…``): Heat keeps that reference as the physical id and ``get_resource`` gives it, so hotc does the
same. A bare UUID names the object too (``hotc import`` takes either); the requests go to ``/KIND/UUID`` under the
catalog's key-manager endpoint. Barbican objects carry no tags nor metadata hotc could stamp, so what a killed run
made is found by the name hotc generated for it (:func:`hotc.providers.openstack.common.adopt_by_generated_name`).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import call, get_or_none, ignore_missing

PAGE = 100


class BarbicanHTTPError(Exception):
    """Barbican answered a request with an error status (retried by ``call`` when transient, then translated to
    a ProviderError; a 404 becomes NotFound)."""

    def __init__(self, status_code: int, text: str) -> None:
        super().__init__(f"{_message(text)} (HTTP {status_code})")
        self.status_code = status_code


def _message(text: str) -> str:
    """Barbican's error text: its JSON ``description`` (or ``title``) when it gives one."""
    try:
        body = json.loads(text)
    except ValueError:
        return text[:500] or "no details"
    if isinstance(body, Mapping):
        for key in ("description", "title", "message"):
            if body.get(key):
                return str(body[key])
    return text[:500]


def uuid_of(ref: Any) -> str:
    """The UUID of an object given by reference (``http://…/v1/secrets/UUID``) or by UUID."""
    text = str(ref).strip()
    path = urlsplit(text).path if "://" in text else text
    return path.rstrip("/").rsplit("/", 1)[-1]


def same_ref(a: Any, b: Any) -> bool:
    """Whether two references (or UUIDs) name the same object."""
    return a not in (None, "") and b not in (None, "") and uuid_of(a) == uuid_of(b)


def request(conn: Any, method: str, path: str, **kwargs: Any) -> Any:
    """One raw request to Barbican; the response, or BarbicanHTTPError for an error status."""
    resp = getattr(conn.key_manager, method)(path, **kwargs)
    code = int(getattr(resp, "status_code", 200))
    if code >= 400:
        raise BarbicanHTTPError(code, str(getattr(resp, "text", "") or ""))
    return resp


def get_json(ctx: ActionContext | None, conn: Any, kind: str, ref: Any, what: str) -> dict[str, Any] | None:
    """The object ``/KIND/UUID`` as Barbican shows it, or None when it is gone."""
    found = get_or_none(
        ctx, f"read {what} {ref}", lambda: request(conn, "get", f"/{kind}/{uuid_of(ref)}").json()
    )
    return dict(found) if isinstance(found, Mapping) else None


def post_json(conn: Any, kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    made = request(conn, "post", f"/{kind}", json=dict(body)).json()
    return dict(made) if isinstance(made, Mapping) else {}


def delete(ctx: ActionContext, conn: Any, kind: str, ref: Any, what: str) -> None:
    """Delete ``/KIND/UUID``; what is gone already is deleted."""
    ignore_missing(ctx, f"delete {what} {ref}", lambda: request(conn, "delete", f"/{kind}/{uuid_of(ref)}"))


def payload(ctx: ActionContext, conn: Any, ref: Any, content_type: str | None = None) -> str | None:
    """A secret's decrypted payload: text for ``text/plain``; other content as text when it is UTF-8, else
    base64 (how the template gives a binary payload). None when the secret holds none (or is gone)."""
    meta = None
    if content_type is None:
        meta = get_json(ctx, conn, "secrets", ref, "secret")
        types = (meta or {}).get("content_types") or {}
        content_type = types.get("default") if isinstance(types, Mapping) else None
    if not content_type:
        return None
    resp = get_or_none(
        ctx,
        f"read the payload of secret {ref}",
        lambda: request(
            conn, "get", f"/secrets/{uuid_of(ref)}/payload", headers={"Accept": str(content_type)}
        ),
    )
    if resp is None:
        return None
    raw: bytes = resp.content
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode()


def same_time(given: Any, live: Any) -> bool:
    """Whether two ISO 8601 times are the same instant (Barbican writes ``+00:00`` for a given ``Z``)."""

    def parse(v: Any) -> dt.datetime | None:
        try:
            t = dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
        except ValueError:
            return None
        return t if t.tzinfo else t.replace(tzinfo=dt.UTC)

    a, b = parse(given), parse(live)
    return a is not None and a == b


class Listed:
    """One object of a list call, as the shared readers expect it: ``id`` (its reference), ``name`` and
    ``created_at``; ``data`` is Barbican's representation."""

    def __init__(self, data: Mapping[str, Any], ref_key: str) -> None:
        self.data = dict(data)
        self.id = str(data.get(ref_key) or "")
        meta = data.get("meta")  # an order's name is the name of what it makes
        self.name = data.get("name") or (meta.get("name") if isinstance(meta, Mapping) else None)
        self.created_at = data.get("created")


def list_all(ctx: ActionContext | None, conn: Any, kind: str, ref_key: str, **query: Any) -> list[Listed]:
    """Every object of ``/KIND`` the project holds (Barbican pages by ``offset``/``limit``)."""
    out: list[Listed] = []
    offset = 0
    while True:
        params = {**query, "limit": PAGE, "offset": offset}
        page = call(ctx, f"list {kind}", lambda p=params: request(conn, "get", f"/{kind}", params=p).json())
        items: Iterable[Any] = (page.get(kind) or []) if isinstance(page, Mapping) else []
        got = [Listed(i, ref_key) for i in items if isinstance(i, Mapping)]
        out.extend(got)
        total = page.get("total") if isinstance(page, Mapping) else None
        offset += len(got)
        if not got or len(got) < PAGE or (isinstance(total, int) and offset >= total):
            return out
