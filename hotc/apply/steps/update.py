"""Updating a resource in place: the driver gets the old and new properties (schema defaults filled in) and
the names of those that differ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.apply.events import resource_event
from hotc.apply.graph import Step
from hotc.apply.stepenv import StepEnv, StepFailed, err, patch, with_defaults
from hotc.planner.plan import ResourceChange


def update(env: StepEnv, step: Step, props: dict[str, Any]) -> None:
    change = step.change
    assert change is not None
    addr, type_name = step.address, change.type
    driver = env.driver(type_name)
    cur = env.keeper.state.resources.get(addr)
    if cur is None or cur.physical_id is None:
        raise StepFailed("the plan updates a resource that the state no longer holds; make a new plan")
    deps, policy = env.record(step)
    old_props = planned_old(cur.properties, change)
    old_d, new_d = with_defaults(type_name, old_props), with_defaults(type_name, props)
    changed = frozenset(k for k in set(old_d) | set(new_d) if old_d.get(k) != new_d.get(k))
    env.keeper.commit(
        lambda s: patch(
            s,
            addr,
            status="UPDATE_IN_PROGRESS",
            status_reason="state changed",
            dependencies=deps,
            deletion_policy=policy,
            declared_type=getattr(env.info.get(addr), "declared_type", None),
        ),
        (resource_event(addr, type_name, "UPDATE_IN_PROGRESS", "state changed", cur.physical_id),),
    )

    def on_id(pid: str) -> None:
        env.keeper.commit(lambda s: patch(s, addr, physical_id=pid))

    try:
        pid0 = cur.physical_id
        ctx = env.ctx(addr, type_name, on_id, action="UPDATE")
        outcome = env.timed(type_name, "UPDATE", lambda: driver.update(ctx, pid0, old_d, new_d, changed))
    except Exception as exc:  # noqa: BLE001
        reason = err(exc)
        env.stop_scheduling()
        env.keeper.commit(
            lambda s: patch(s, addr, status="UPDATE_FAILED", status_reason=reason),
            (resource_event(addr, type_name, "UPDATE_FAILED", reason, cur.physical_id),),
        )
        raise StepFailed(reason) from exc
    env.complete(addr, type_name, "UPDATE", outcome, props)


def planned_old(recorded: Mapping[str, Any], change: ResourceChange) -> dict[str, Any]:
    """The properties an update starts from: the recorded ones, except those the plan saw changed outside hotc
    (a ``--refresh`` plan's ``before`` holds their live values): an update that brings drift back must know
    what is there now (a network renamed by hand, an interface attached by hand) to undo it."""
    out = dict(recorded)
    before = change.before or {}
    for path in change.changed_paths:
        key = path.split(".", 1)[0].split("[", 1)[0]
        if key in before and not _is_masked_value(before[key]):
            out[key] = before[key]
    return out


def _is_masked_value(value: Any) -> bool:
    if isinstance(value, dict):
        return "__sensitive__" in value or any(_is_masked_value(v) for v in value.values())
    if isinstance(value, list):
        return any(_is_masked_value(v) for v in value)
    return False
