"""Helpers of the offline driver tests: contexts, and the drift check as the planner makes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.planner.diff import apply_defaults, changed_keys
from hotc.planner.refresh import _merge
from hotc.providers.base import ActionContext, Outcome
from hotc.providers.drivers import driver_for
from hotc.providers.registry import get_schema
from tests.providers.test_openstack_common import Recorder, make_ctx

__all__ = ["Recorder", "ctx_for", "drift", "driver", "make_ctx"]


def driver(type_name: str) -> Any:
    d = driver_for(type_name)
    assert d is not None, type_name
    return d


def ctx_for(conn: Any, address: str, type_name: str, **kw: Any) -> ActionContext:
    return make_ctx(conn, address, type_name, **kw)


def drift(type_name: str, recorded: Mapping[str, Any], live: Outcome | None) -> list[str]:
    """The property names a refresh would report as changed outside hotc (make_plan's comparison)."""
    assert live is not None and live.properties is not None
    rtype = get_schema(type_name)
    merged = _merge(recorded, live.properties)
    return changed_keys(rtype, apply_defaults(rtype, recorded), apply_defaults(rtype, merged))
