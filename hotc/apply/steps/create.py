"""Creating a resource, or the new instance of a replaced one (the old instance stays, deposed, until the
cleanup step deletes it).

``CREATE_IN_PROGRESS`` is recorded before the driver is called and the physical id as soon as the driver
reports it, so a killed run leaves a trace that the next run follows (:mod:`hotc.apply.recovery`). For a
replacement, the old instances first let go of what the new one needs (Heat's ``prepare_for_replace``: a
server's explicit ports) and get it back when the create fails (``restore_prev_rsrc``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hotc.apply.events import resource_event
from hotc.apply.graph import Step
from hotc.apply.recovery import adopt_interrupted, find_interrupted
from hotc.apply.stepenv import (
    StepEnv,
    StepFailed,
    as_deposed,
    err,
    instance_tag,
    patch,
    with_defaults,
)
from hotc.providers.base import prepare_for_replace, restore_after_failed_replace
from hotc.state.document import DeposedInstance, ResourceState, StackState
from hotc.state.events import utc_now


def create(env: StepEnv, step: Step, props: dict[str, Any]) -> None:
    change = step.change
    assert change is not None
    addr, type_name = step.address, change.type
    driver = env.driver(type_name)
    deps, policy = env.record(step)
    old = env.keeper.state.resources.get(addr)
    now = utc_now()
    adopted: str | None = None
    if old is not None and old.physical_id is None and old.in_progress:
        # a run was killed between the cloud call and recording its id: find what it created
        try:
            adopted = find_interrupted(env, old, env.driver(old.type))
        except Exception as exc:  # noqa: BLE001
            raise StepFailed(f"looking for a resource left by an interrupted run failed: {exc}") from exc
        if adopted is not None and old.type == type_name and dict(old.properties) == props:
            adopt_interrupted(env, step, driver, adopted, props, deps, policy, instance_tag(old))
            return
        if adopted is not None:
            old = replace(old, physical_id=adopted)

    def start(s: StackState) -> StackState:
        cur = s.resources.get(addr)
        deposed: tuple[DeposedInstance, ...] = cur.deposed if cur is not None else ()
        base = old if old is not None and old.physical_id is not None else cur
        if base is not None and base.physical_id is not None:
            deposed = (*deposed, as_deposed(base, type_name))
        rs = ResourceState(
            address=addr,
            type=type_name,
            physical_id=None,
            status="CREATE_IN_PROGRESS",
            properties=props,
            dependencies=deps,
            deletion_policy=policy,
            status_reason="state changed",
            created_at=now,
            updated_at=now,
            sensitive_paths=change.sensitive_paths,
            deposed=deposed,
            declared_type=getattr(env.info.get(addr), "declared_type", None),
        )
        return s.with_resource(rs)

    started = env.keeper.commit(
        start, (resource_event(addr, type_name, "CREATE_IN_PROGRESS", "state changed"),)
    )
    entry = started.resources[addr]
    old_ids = {d.physical_id for d in entry.deposed}

    def on_id(pid: str) -> None:
        env.keeper.commit(lambda s: patch(s, addr, physical_id=pid))

    def on_ready() -> None:
        # the object exists and is usable: what needs only its id (recorded above) may start. Not for a
        # replacement (its dependents are updated, which waits for the whole create)
        cur = env.keeper.state.resources.get(addr)
        if not entry.deposed and cur is not None and cur.physical_id is not None:
            env.release(step.key)

    ctx = env.ctx(addr, type_name, on_id, instance_tag(entry), "CREATE", on_ready)
    if entry.deposed:  # a replacement's first waits are the old instance letting go: no skip to the usual end
        ctx = replace(ctx, fastest=None)
    new_d = with_defaults(type_name, props)
    lent: list[DeposedInstance] = []  # old instances that let go of something for the replacement
    try:
        for dep in entry.deposed:  # Heat's prepare_for_replace (a server's explicit ports, …)
            if (dep.type or type_name) == type_name:
                lent.append(dep)
                if not prepare_for_replace(
                    driver, ctx, dep.physical_id, with_defaults(type_name, dep.properties), new_d
                ):
                    lent.pop()
        outcome = env.timed(type_name, "CREATE", lambda: driver.create(ctx, new_d))
    except Exception as exc:  # noqa: BLE001
        reason = err(exc)
        env.stop_scheduling()
        for dep in reversed(lent):  # Heat's restore_prev_rsrc: the old instance gets back what it lent
            try:
                restore_after_failed_replace(
                    driver, ctx, dep.physical_id, with_defaults(type_name, dep.properties), new_d
                )
            except Exception as rexc:  # noqa: BLE001
                reason += f"; restoring the old instance {dep.physical_id} failed too: {err(rexc)}"

        def failed(s: StackState) -> StackState:
            rs = s.resources.get(addr)
            if rs is None:
                return s
            pid = rs.physical_id
            if pid is not None and pid in old_ids:  # never delete what is still the live resource
                return s.with_resource(
                    replace(
                        rs,
                        status="CREATE_FAILED",
                        status_reason=reason,
                        deposed=tuple(d for d in rs.deposed if d.physical_id != pid),
                    )
                )
            return s.with_resource(replace(rs, status="CREATE_FAILED", status_reason=reason))

        env.keeper.commit(failed, (resource_event(addr, type_name, "CREATE_FAILED", reason),))
        raise StepFailed(reason) from exc
    current = env.keeper.state.resources.get(addr)
    got = outcome.physical_id or (current.physical_id if current is not None else None)
    if got is not None and got in old_ids:
        # The "new" object is the old one: a type whose id is made of its inputs (a volume attachment
        # server:volume, a router interface, a key pair by name) ensured it exists as desired. It is the
        # current instance now and must not be deleted as an old one.
        env.keeper.commit(
            lambda s: patch(
                s, addr, deposed=tuple(d for d in s.resources[addr].deposed if d.physical_id != got)
            )
        )
        env.complete(
            addr,
            type_name,
            "CREATE",
            outcome,
            props,
            reason=f"{got} already existed as desired: kept as the current instance",
        )
        return
    env.complete(addr, type_name, "CREATE", outcome, props)
