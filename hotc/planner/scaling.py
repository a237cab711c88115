"""Scaling decisions: what one ScalingPolicy signal does to its AutoScalingGroup, as Heat decides it.

Heat (``heat/scaling/scalingutil.py``, ``cooldown.py``, the AutoScalingGroup's ``adjust``):

- the new capacity from the current one: ``change_in_capacity`` adds the adjustment, ``exact_capacity`` is
  the adjustment, ``percent_change_in_capacity`` adds that percent of the current size (a change under one
  member rounds away from zero, a larger one towards zero), at least ``min_adjustment_step`` members; the
  result is kept within the group's ``min_size`` and ``max_size``;
- a signal that would not change the capacity is refused ("no change in capacity") and starts no cooldown;
- otherwise it is refused while the group is in cooldown: until ``cooldown_end``, which every resize moves to
  now + the policy's ``cooldown`` (the group's own ``cooldown`` when the policy sets none), and a create or
  update of the group to now + the group's ``cooldown``, never earlier than it was.

Pure: the caller gives the group's recorded state and the time; nothing here reads a clock or a store.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from hotc.errors import HotcError
from hotc.model import model

POLICY_TYPES = frozenset({"OS::Heat::ScalingPolicy", "AWS::AutoScaling::ScalingPolicy"})
GROUP_TYPE = "OS::Heat::AutoScalingGroup"

EXACT, CHANGE, PERCENT = "exact_capacity", "change_in_capacity", "percent_change_in_capacity"
CFN_TYPES = {"ExactCapacity": EXACT, "ChangeInCapacity": CHANGE, "PercentChangeInCapacity": PERCENT}


def new_capacity(
    current: int,
    adjustment: float,
    adjustment_type: str,
    min_adjustment_step: int | None,
    minimum: int,
    maximum: int,
) -> int:
    """Heat's ``calculate_new_capacity``."""
    kind = CFN_TYPES.get(adjustment_type, adjustment_type)
    if kind == CHANGE:
        capacity = current + adjustment
    elif kind == EXACT:
        capacity = adjustment
    elif kind == PERCENT:
        delta = current * adjustment / 100.0
        if math.fabs(delta) < 1.0:
            rounded = int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
        else:
            rounded = int(math.floor(delta) if delta > 0.0 else math.ceil(delta))
        if min_adjustment_step and min_adjustment_step > abs(rounded):
            rounded = min_adjustment_step if rounded > 0 else -min_adjustment_step
        capacity = current + rounded
    else:
        raise HotcError(f"adjustment_type {adjustment_type!r}: expected one of {EXACT}, {CHANGE}, {PERCENT}")
    if capacity > maximum:
        return maximum
    if capacity < minimum:
        return minimum
    return int(capacity)


@model
class Policy:
    """A ScalingPolicy's properties as applied (Heat's or the AWS names)."""

    address: str
    group: str  # the group's id (what get_resource of the group gave) or name
    adjustment: float
    adjustment_type: str
    min_adjustment_step: int | None
    cooldown: float | None

    @staticmethod
    def of(address: str, type_name: str, props: Mapping[str, Any]) -> Policy:
        if type_name == "AWS::AutoScaling::ScalingPolicy":
            names = (
                "AutoScalingGroupName",
                "ScalingAdjustment",
                "AdjustmentType",
                "MinAdjustmentStep",
                "Cooldown",
            )
        else:
            names = (
                "auto_scaling_group_id",
                "scaling_adjustment",
                "adjustment_type",
                "min_adjustment_step",
                "cooldown",
            )
        group, adj, kind, step, cooldown = (props.get(n) for n in names)
        try:
            if adj is None:
                raise TypeError
            return Policy(
                address=address,
                group=str(group),
                adjustment=float(adj),
                adjustment_type=str(kind),
                min_adjustment_step=int(step) if step is not None else None,
                cooldown=float(cooldown) if cooldown is not None else None,
            )
        except (TypeError, ValueError):
            raise HotcError(
                f"{address}: the recorded properties of the scaling policy are not usable "
                f"(scaling_adjustment {adj!r}, min_adjustment_step {step!r}, cooldown {cooldown!r})"
            ) from None

    @property
    def reason(self) -> str:
        """Heat's cooldown reason: ``ADJUSTMENT_TYPE : ADJUSTMENT``."""
        adj = self.adjustment
        return f"{self.adjustment_type} : {int(adj) if float(adj).is_integer() else adj}"


@model
class Bounds:
    """What the group's template says about sizes, and its current size."""

    current: int
    min_size: int
    max_size: int
    cooldown: float | None = None


@model
class Decision:
    """One signal decided: ``accepted`` (``before`` → ``after``, ``cooldown_end`` the new end) or refused
    with ``reason``."""

    policy: str
    group: str
    signal: str
    accepted: bool
    before: int
    after: int
    reason: str
    cooldown_end: str | None


def parse_time(value: str) -> datetime:
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    t = datetime.fromisoformat(text)
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def format_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def cooldown_after(now: datetime, seconds: float | None, previous_end: str | None) -> str:
    """The cooldown end after a resize at ``now``: now + ``seconds`` (0 when unset or negative), never before
    ``previous_end`` (Heat keeps the later one)."""
    end = now + timedelta(seconds=max(0.0, float(seconds or 0)))
    if previous_end is not None and parse_time(previous_end) > end:
        return previous_end
    return format_time(end)


def decide(
    policy: Policy,
    group: str,
    bounds: Bounds,
    cooldown_end: str | None,
    now: datetime,
    signal: str,
) -> Decision:
    """What Heat does with one signal to ``policy`` (its group ``group`` at ``bounds``, in cooldown until
    ``cooldown_end``) at ``now``."""
    before = bounds.current
    after = new_capacity(
        before,
        policy.adjustment,
        policy.adjustment_type,
        policy.min_adjustment_step,
        bounds.min_size,
        bounds.max_size,
    )
    if after == before:
        return Decision(
            policy.address,
            group,
            signal,
            False,
            before,
            before,
            f"no change in capacity ({policy.reason}: the group has {before} members, min_size "
            f"{bounds.min_size}, max_size {bounds.max_size})",
            cooldown_end,
        )
    cooldown = policy.cooldown if policy.cooldown is not None else bounds.cooldown
    if cooldown_end is not None and now < parse_time(cooldown_end):
        shown = "None" if cooldown is None else f"{cooldown:g}"
        return Decision(
            policy.address,
            group,
            signal,
            False,
            before,
            before,
            f"due to cooldown, cooldown {shown} (until {cooldown_end})",
            cooldown_end,
        )
    return Decision(
        policy.address,
        group,
        signal,
        True,
        before,
        after,
        policy.reason,
        cooldown_after(now, cooldown, cooldown_end),
    )
