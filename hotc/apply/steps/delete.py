"""Deleting: a resource the plan removes, the old instances of a replaced one (the ``cleanup`` step), and
forgetting a Retain resource (the ``forget`` step: left in the cloud, removed from the state).

A delete honours the deletion policy recorded with the instance (Delete, Snapshot, Retain) and is retried
with backoff (it is idempotent). A child its parent's cascading delete removed (hotc.apply.cascade) is only
checked to be gone.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.events import SECRET_ID_TYPES, resource_event
from hotc.apply.graph import Step
from hotc.apply.recovery import find_interrupted
from hotc.apply.stepenv import StepEnv, StepFailed, err, patch, with_defaults
from hotc.planner.plan import Action
from hotc.providers.base import DELETE, SNAPSHOT, ActionContext, Driver
from hotc.state.document import DeposedInstance, ResourceState, StackState


def cleanup(env: StepEnv, step: Step) -> None:
    """Delete the old instances of the resource of ``step``, then the resource itself when the plan deletes it."""
    addr = step.address
    cur = env.keeper.state.resources.get(addr)
    if cur is None:
        return
    # old instances first (they are older than the current one)
    for dep in cur.deposed:
        delete_deposed(env, addr, cur.type, dep)
    if step.change is not None and step.change.action is Action.DELETE and not step.change.deposed:
        delete_current(env, addr)


def forget(env: StepEnv, step: Step) -> None:
    cur = env.keeper.state.resources.get(step.address)
    if cur is not None:
        _forget_now(env, step.address, cur)


def delete_call(
    env: StepEnv, driver: Driver, ctx: ActionContext, pid: str, props: Mapping[str, Any], policy: str
) -> None:
    """``driver.delete`` under ``policy`` (Delete or Snapshot; Retain never gets here), retried. A Snapshot
    asked of a driver that cannot take one fails, and the resource is kept."""
    if policy == SNAPSHOT and not getattr(driver, "snapshot_delete", False):
        raise StepFailed(
            f"deletion_policy Snapshot: hotc cannot snapshot a {ctx.type} before deleting it, so it was "
            "kept; change the deletion_policy to Retain (keep it) or Delete (lose it), then run again"
        )
    if policy not in (DELETE, SNAPSHOT):
        raise StepFailed(f"unknown deletion_policy {policy!r}: the resource was kept")
    attempts = max(1, env.options.delete_attempts)
    delay = env.options.retry_backoff
    for i in range(attempts):
        try:
            env.timed(ctx.type, "DELETE", lambda: driver.delete(ctx, pid, props, policy=policy))
            return
        except Exception:
            if i == attempts - 1 or env.cancelled:
                raise
            time.sleep(delay)
            delay *= 2


def delete_deposed(env: StepEnv, addr: str, cur_type: str, dep: DeposedInstance) -> None:
    type_name = dep.type or cur_type
    label = "old instance" if type_name in SECRET_ID_TYPES else f"old instance {dep.physical_id}"

    def drop(s: StackState) -> StackState:
        rs = s.resources.get(addr)
        if rs is None:
            return s
        return s.with_resource(
            replace(rs, deposed=tuple(d for d in rs.deposed if d.physical_id != dep.physical_id))
        )

    if dep.deletion_policy == "Retain":
        env.keeper.commit(
            drop,
            (
                resource_event(
                    addr,
                    type_name,
                    "DELETE_SKIPPED",
                    f"{label} retained (deletion_policy Retain)",
                    dep.physical_id,
                ),
            ),
        )
        return
    driver = env.driver(type_name)
    env.keeper.commit(
        lambda s: s,
        (
            resource_event(
                addr, type_name, "DELETE_IN_PROGRESS", f"deleting {label} (replaced)", dep.physical_id
            ),
        ),
    )
    try:
        delete_call(
            env,
            driver,
            env.ctx(addr, type_name, lambda _p: None, action="DELETE"),
            dep.physical_id,
            with_defaults(type_name, dep.properties),
            dep.deletion_policy,
        )
    except Exception as exc:  # noqa: BLE001
        reason = err(exc)
        env.stop_scheduling()

        def mark(s: StackState) -> StackState:
            rs = s.resources.get(addr)
            if rs is None:
                return s
            deposed = tuple(
                replace(d, status="DELETE_FAILED") if d.physical_id == dep.physical_id else d
                for d in rs.deposed
            )
            return s.with_resource(replace(rs, deposed=deposed))

        env.keeper.commit(
            mark,
            (resource_event(addr, type_name, "DELETE_FAILED", f"{label}: {reason}", dep.physical_id),),
        )
        raise StepFailed(f"deleting {label}: {reason}") from exc
    env.keeper.commit(
        drop, (resource_event(addr, type_name, "DELETE_COMPLETE", f"{label} deleted", dep.physical_id),)
    )


def delete_current(env: StepEnv, addr: str) -> None:
    cur = env.keeper.state.resources.get(addr)
    if cur is None:
        return
    if cur.deletion_policy == "Retain":
        _forget_now(env, addr, cur)
        return
    if cur.physical_id is None:
        # never got an id: look for one created by an interrupted run before forgetting it
        pid = None
        driver0 = env.drivers(cur.type)
        if driver0 is not None and cur.in_progress:
            try:
                pid = find_interrupted(env, cur, driver0)
            except Exception as exc:  # noqa: BLE001
                raise StepFailed(
                    f"looking for a resource left by an interrupted run failed: {err(exc)}"
                ) from exc
        if pid is None:
            env.keeper.commit(
                lambda s: s.without_resource(addr),
                (resource_event(addr, cur.type, "DELETE_COMPLETE", "nothing was created"),),
            )
            return
        cur = replace(cur, physical_id=pid)
    driver = env.driver(cur.type)
    pid = cur.physical_id
    assert pid is not None
    parent = env.cascaded.get(addr)
    why = "state changed" if parent is None else f"deleted with {parent} (cascade)"
    if parent is not None:
        env.logger(addr)(f"{parent} was deleted with cascade, which removes {addr}: checking it is gone")
    env.keeper.commit(
        lambda s: patch(s, addr, status="DELETE_IN_PROGRESS", status_reason=why, physical_id=pid),
        (resource_event(addr, cur.type, "DELETE_IN_PROGRESS", why, pid),),
    )
    try:
        delete_call(
            env,
            driver,
            env.ctx(addr, cur.type, lambda _p: None, action="DELETE"),
            pid,
            with_defaults(cur.type, cur.properties),
            cur.deletion_policy,
        )
    except Exception as exc:  # noqa: BLE001
        reason = err(exc)
        env.stop_scheduling()
        env.keeper.commit(
            lambda s: patch(s, addr, status="DELETE_FAILED", status_reason=reason),
            (resource_event(addr, cur.type, "DELETE_FAILED", reason, pid),),
        )
        raise StepFailed(reason) from exc
    env.keeper.commit(
        lambda s: s.without_resource(addr),
        (resource_event(addr, cur.type, "DELETE_COMPLETE", why, pid),),
        wait=False,
    )


def _forget_now(env: StepEnv, addr: str, cur: ResourceState) -> None:
    env.keeper.commit(
        lambda s: s.without_resource(addr),
        (
            resource_event(
                addr,
                cur.type,
                "DELETE_SKIPPED",
                "deletion_policy Retain: left in the cloud, removed from the state",
                cur.physical_id,
            ),
        ),
    )
