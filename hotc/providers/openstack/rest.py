"""The REST plumbing of the drivers that call a service through openstacksdk's adapter for it, because
openstacksdk has no resources for what they drive (Aodh's alarms, Manila's shares, Mistral's workflows): an
error answer becomes a :class:`ServiceHTTPError` carrying the HTTP status (``common.call`` retries the
transient ones and turns a 404 into NotFound) and the service's own message; a good answer gives its JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ServiceHTTPError(Exception):
    """A service's answer >= 400: its status (for retries and 404s) and the service's own message."""

    def __init__(self, status_code: int, details: str) -> None:
        super().__init__(details)
        self.status_code = status_code
        self.details = details


def json_answer(resp: Any, error: type[ServiceHTTPError], message: Callable[[Any], str]) -> Any:
    """The decoded JSON of a good answer (None when empty); ``error`` raised for an error status, with
    ``message(body)`` of a JSON body or the answer's text (at most 500 characters either way)."""
    if resp.status_code >= 400:
        try:
            details = message(resp.json())
        except ValueError:
            details = str(resp.text or resp.reason or "").strip()
        raise error(resp.status_code, details[:500])
    if resp.status_code == 204 or not resp.content:
        return None
    return resp.json()
