"""OS::Heat::TestResource: Heat's resource for testing stacks, done in-process.

As Heat does it: the action (create/update/delete) waits ``action_wait_secs.<action>`` seconds, else
``wait_secs`` (-1: forever, i.e. until the action's timeout); then, with ``fail: true``, create and update
fail ("Test Resource failed NAME") -- delete never fails. ``value`` (default ``test_string``) is stored and
given back by the ``output`` attribute; a change of ``value`` with ``update_replace: true`` replaces the
resource (the planner's rule), ``update_replace_value`` cannot be updated. ``attr_wait_secs`` delays the
reading of attributes. ``client_name``/``entity_name`` (poll an OpenStack client while waiting) and
``constraint_prop_secs`` (a delay in constraint validation) are accepted; hotc does no polling for them.
``get_resource`` gives the physical name ``<stack>-<name>-<id>``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.providers.native.naming import physical_name

DEFAULT_VALUE = "test_string"


def _secs(v: Any, what: str) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        raise HotcError(f"{what}: {v!r} is not a number") from None


def wait_secs(props: Mapping[str, Any], action: str) -> float:
    per_action = props.get("action_wait_secs") or {}
    secs = per_action.get(action) if isinstance(per_action, Mapping) else None
    if secs is None:
        secs = props.get("wait_secs", 0)
    return _secs(secs if secs is not None else 0, f"wait seconds for {action}")


def _wait(ctx: ActionContext, secs: float) -> None:
    if secs < 0:
        time.sleep(ctx.timeout)
        raise HotcError(
            f"timed out after {ctx.timeout:g} s (wait_secs is -1: the test resource never completes)"
        )
    if secs > ctx.timeout:
        time.sleep(ctx.timeout)
        raise HotcError(f"timed out after {ctx.timeout:g} s waiting {secs:g} s")
    time.sleep(secs)


def _fail(props: Mapping[str, Any]) -> bool:
    f = props.get("fail", False)
    if isinstance(f, str):
        return f.strip().lower() in ("true", "t", "on", "y", "yes", "1")
    return bool(f)


def _name(ctx: ActionContext) -> str:
    return ctx.address.rsplit(".", 1)[-1]


class HeatTestResourceDriver:
    def _attrs(self, props: Mapping[str, Any], output: Any) -> dict[str, Any]:
        attr_wait = _secs(props.get("attr_wait_secs") or 0, "attr_wait_secs")
        if attr_wait > 0:
            time.sleep(attr_wait)
        return {"output": output}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        pid = None
        if not _fail(props):
            pid = physical_name(ctx.stack_name, _name(ctx))
            ctx.record_physical_id(pid)
        _wait(ctx, wait_secs(props, "create"))
        if _fail(props):
            raise HotcError(f"Test Resource failed {_name(ctx)}")
        return Outcome(pid, self._attrs(props, props.get("value", DEFAULT_VALUE)))

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        return Outcome(physical_id, {"output": props.get("value", DEFAULT_VALUE)})

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        output = old.get("value", DEFAULT_VALUE)
        value_changed = "value" in changed and new.get("value", DEFAULT_VALUE)
        if value_changed:
            if not _fail(new):
                output = new.get("value", DEFAULT_VALUE)
            _wait(ctx, wait_secs(new, "update"))
        if _fail(new):
            raise HotcError(f"Test Resource failed {_name(ctx)}")
        return Outcome(physical_id, self._attrs(new, output))

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        _wait(ctx, wait_secs(props, "delete"))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        return None
