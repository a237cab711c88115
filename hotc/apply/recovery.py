"""Crash recovery: what the apply does with what an earlier, interrupted or failed run left behind.

- A create killed between the cloud call and recording the new id leaves a ``CREATE_IN_PROGRESS`` record
  without an id: :func:`find_interrupted` asks the type's driver for the object that create made (by its
  lineage/address stamp), and :func:`adopt_interrupted` records it instead of creating another.
- A resource left FAILED or IN_PROGRESS whose object is healthy in the cloud and has the desired properties
  is kept, not replaced (Heat's ``needs_replace_failed``): :func:`recover`.
- A kept object that lacks hotc's stamp (a run killed between the create and the tagging) gets it back:
  :func:`restamp`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.graph import Step
from hotc.apply.stepenv import (
    TAG_LINEAGE,
    ExecContext,
    FailedReplaceRule,
    StepEnv,
    StepFailed,
    err,
    instance_tag,
    patch,
    with_defaults,
)
from hotc.providers.base import Driver, Outcome
from hotc.state.document import ResourceState

#: plan reasons of a replace that :func:`recover` may turn into keeping the resource
RECOVERABLE = frozenset({"replace_because_failed", "replace_because_incomplete"})
TRANSITIONAL = frozenset(
    {
        "BUILD",
        "REBUILD",
        "RESIZE",
        "MIGRATING",
        "REBOOT",
        "HARD_REBOOT",
        "PASSWORD",
        "CREATING",
        "DOWNLOADING",
        "ATTACHING",
        "DETACHING",
        "EXTENDING",
        "RETYPING",
        "RESERVED",
        "QUEUED",
        "SAVING",
        "IMPORTING",
        "UPLOADING",
        "BACKING-UP",
        "RESTORING-BACKUP",
        "MAINTENANCE",
    }
)


def failed_replace_rule(type_name: str) -> FailedReplaceRule | None:
    """The type's ``failed_replace`` rule (None when it has none)."""
    try:
        # lazy: hotc check loads this module, not the schema registry (test_startup_imports)
        from hotc.providers.registry import get_schema
    except ImportError:
        return None
    rtype = get_schema(type_name)
    return getattr(rtype, "failed_replace", None) if rtype is not None else None


def live_record(outcome: Outcome | None) -> dict[str, Any] | None:
    """The cloud's record of an object as a driver read it (its ``show`` attribute, else its attributes)."""
    if outcome is None:
        return None
    show = outcome.attributes.get("show")
    record = dict(show) if isinstance(show, Mapping) else dict(outcome.attributes)
    if "status" not in record and "provisioning_status" in record:
        record["status"] = record["provisioning_status"]
    return record


def transitional(record: Mapping[str, Any] | None) -> bool:
    """Whether the object is still changing (a server in BUILD, a load balancer PENDING_CREATE, …)."""
    if not record:
        return False
    status = str(record.get("provisioning_status") or record.get("status") or "").upper()
    return status in TRANSITIONAL or status.startswith("PENDING_")


def find_interrupted(env: StepEnv, rs: ResourceState, driver: Driver) -> str | None:
    """The id of the object an interrupted create of ``rs`` (in progress, no id recorded) made, if any.
    Raises what the driver raises."""
    ctx = env.ctx(rs.address, rs.type, lambda _pid: None, instance_tag(rs))
    return driver.find_adoptable(ctx, with_defaults(rs.type, rs.properties))


def recover(env: StepEnv, step: Step, props: dict[str, Any]) -> bool:
    """Heat's ``needs_replace_failed`` at apply time: a resource left FAILED or IN_PROGRESS whose object is
    healthy in the cloud (read through its driver, judged by its type's ``failed_replace`` rule, after waiting
    out a transitional status) and whose properties are the desired ones is kept, not replaced. True when
    kept; False to replace as planned (no rule, gone, broken, unreadable, or properties differ)."""
    addr = step.address
    cur = env.keeper.state.resources.get(addr)
    change = step.change
    assert change is not None
    if cur is None or cur.physical_id is None or cur.type != change.type or dict(cur.properties) != props:
        return False
    rule = env.failed_replace_rule(cur.type)
    driver = env.drivers(cur.type)
    if rule is None or driver is None:
        return False
    ctx = env.ctx(addr, cur.type, lambda _p: None, instance_tag(cur))
    deadline = time.monotonic() + ctx.timeout
    delay = 1.0
    try:
        while True:
            live = driver.read(ctx, cur.physical_id, with_defaults(cur.type, props))
            record = live_record(live)
            if live is None or not transitional(record) or time.monotonic() >= deadline or env.cancelled:
                break
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 10.0)
    except Exception as exc:  # noqa: BLE001 -- cannot tell: replace as planned
        ctx.log(f"reading {cur.physical_id} to see whether it can be kept failed: {err(exc)}; replacing it")
        return False
    if live is None or rule(record) or transitional(record):
        return False
    live = restamp(driver, ctx, cur.physical_id, with_defaults(cur.type, props), record or {}) or live
    action = cur.status.split("_", 1)[0] if cur.status.split("_", 1)[0] in ("CREATE", "UPDATE") else "CREATE"
    reason = f"left {cur.status} by an earlier run, but healthy in the cloud: kept (not replaced)"
    env.complete(
        addr,
        cur.type,
        action,
        replace(live, physical_id=live.physical_id or cur.physical_id),
        props,
        reason=reason,
    )
    return True


def restamp(
    driver: Driver, ctx: ExecContext, pid: str, props: dict[str, Any], record: Mapping[str, Any]
) -> Outcome | None:
    """Put the lineage/address stamp back on a kept object that lacks it (a run killed between the create
    and the tagging), by asking the driver to re-apply its ``metadata`` (Nova, Cinder) or ``tags``."""
    md = record.get("metadata")
    tags = record.get("tags")
    if isinstance(md, Mapping):
        missing = "metadata" if md.get(TAG_LINEAGE) != ctx.lineage else None
    elif isinstance(tags, list | tuple):
        missing = "tags" if f"{TAG_LINEAGE}={ctx.lineage}" not in tags else None
    else:
        missing = None
    if missing is None:
        return None
    try:
        out = driver.update(ctx, pid, props, props, frozenset({missing}))
    except Exception as exc:  # noqa: BLE001 -- the object is kept anyway; say so
        ctx.log(f"could not put the hotc stamp back on {pid}: {err(exc)}")
        return None
    ctx.log(f"put the hotc stamp back on {pid} ({missing})")
    return out


def adopt_interrupted(
    env: StepEnv,
    step: Step,
    driver: Driver,
    pid: str,
    props: dict[str, Any],
    deps: tuple[str, ...],
    policy: str,
    tag: str,
) -> None:
    """Record ``pid``, the object an interrupted create of ``step``'s resource made, as its current instance."""
    addr = step.address
    type_name = step.change.type if step.change is not None else ""
    ctx = env.ctx(addr, type_name, lambda _p: None, tag)
    try:
        outcome = driver.read(ctx, pid, with_defaults(type_name, props))
    except Exception as exc:  # noqa: BLE001
        raise StepFailed(f"reading the resource {pid} left by an interrupted run failed: {err(exc)}") from exc
    if outcome is None:
        raise StepFailed(f"the resource {pid} left by an interrupted run disappeared while being adopted")
    outcome = replace(outcome, physical_id=outcome.physical_id or pid)
    outcome = (
        restamp(driver, ctx, pid, with_defaults(type_name, props), live_record(outcome) or {}) or outcome
    )
    env.keeper.commit(
        lambda s: patch(s, addr, physical_id=outcome.physical_id, dependencies=deps, deletion_policy=policy)
    )
    env.complete(
        addr, type_name, "CREATE", outcome, props, reason="adopted a resource left by an interrupted run"
    )
