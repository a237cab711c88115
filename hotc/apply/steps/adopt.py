"""Adopting an existing object: Heat's ``external_id`` (never managed) or an import (managed from then on).
The object is read through its type's driver and recorded; the cloud is never changed. The record's helpers
are :mod:`hotc.apply.adopt`."""

from __future__ import annotations

from typing import Any

from hotc.apply.adopt import (
    ADOPTED_STATUS,
    adopt_reason,
    adopted_record,
    is_external,
    missing_object,
    recorded_properties,
    without_unknowns,
)
from hotc.apply.events import resource_event
from hotc.apply.graph import Step
from hotc.apply.stepenv import StepEnv, StepFailed, as_deposed, err, with_defaults
from hotc.errors import HotcError
from hotc.state.document import DeposedInstance, StackState
from hotc.state.events import utc_now


def adopt(env: StepEnv, step: Step, pid: str) -> None:
    """Adopt the existing object ``pid`` (Heat's ``external_id``, or an import): read it through the type's
    driver and record it; the cloud is never changed. The previous record of the address (an external_id
    change) becomes an old instance: forgotten if it was adopted or Retain, else deleted by the cleanup.
    Nothing is recorded when the object cannot be read. Properties whose inputs are unknown (an import of
    one resource of a stack) are recorded as read from the cloud."""
    change = step.change
    assert change is not None
    addr, type_name = step.address, change.type
    driver = env.driver(type_name)
    deps, policy = env.record(step)
    external = is_external(change)
    if external:
        props = env.desired_props(step)
    else:
        props = _import_props(env, step)
    ctx = env.ctx(addr, type_name, lambda _p: None)
    try:
        outcome = driver.read(ctx, pid, with_defaults(type_name, props))
    except Exception as exc:  # noqa: BLE001
        raise StepFailed(
            f"reading the existing {type_name} {pid} failed: {err(exc)}; nothing was recorded"
        ) from exc
    if outcome is None:
        raise StepFailed(missing_object(type_name, pid))
    got = outcome.physical_id or pid
    if external:
        recorded, note = dict(props), None
    else:
        # lazy: hotc check loads this module, not the schema registry (test_startup_imports)
        from hotc.providers.registry import get_schema

        recorded, note = recorded_properties(
            get_schema(type_name), props, outcome.properties, change.sensitive_paths
        )
    if note:
        ctx.log(note)
    now = utc_now()
    reason = adopt_reason(got, external)

    def record(s: StackState) -> StackState:
        cur = s.resources.get(addr)
        deposed: tuple[DeposedInstance, ...] = cur.deposed if cur is not None else ()
        same = cur is not None and cur.physical_id == got
        if cur is not None and cur.physical_id is not None and not same:
            deposed = (*deposed, as_deposed(cur, type_name))
        return s.with_resource(
            adopted_record(
                address=addr,
                type_name=type_name,
                outcome=outcome,
                physical_id=got,
                properties=recorded,
                dependencies=deps,
                deletion_policy=policy,
                external=external,
                reason=reason,
                now=now,
                sensitive_paths=change.sensitive_paths,
                current=cur if same else None,
                deposed=deposed,
            )
        )

    env.keeper.commit(record, (resource_event(addr, type_name, ADOPTED_STATUS, reason, got),))


def _import_props(env: StepEnv, step: Step) -> dict[str, Any]:
    """The template's properties of an imported resource, with those whose inputs are still unknown left
    out (the live values are recorded for them)."""
    if env.desired is None:
        raise StepFailed("the plan has no desired template to evaluate")
    try:
        props = env.desired.resolve_properties(step.address, env.make_resolver(env.keeper.state))
    except HotcError as exc:
        raise StepFailed(exc.message) from exc
    return dict(without_unknowns(dict(props)))
