"""Scaling decisions as Heat makes them (``heat/scaling/scalingutil.py``, ``cooldown.py``, the group's
``adjust``), through :mod:`hotc.planner.scaling` with a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hotc.planner.scaling import Bounds, Policy, cooldown_after, decide, format_time, new_capacity

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("current", "adjustment", "kind", "step", "want"),
    [
        (2, 1, "change_in_capacity", None, 3),
        (2, -5, "change_in_capacity", None, 1),  # min_size 1
        (2, 9, "change_in_capacity", None, 5),  # max_size 5
        (2, 4, "exact_capacity", None, 4),
        (2, 0, "exact_capacity", None, 1),
        (4, 10, "percent_change_in_capacity", None, 5),  # 0.4: under one member rounds up
        (4, -10, "percent_change_in_capacity", None, 3),  # -0.4: rounds down (away from zero)
        (3, 50, "percent_change_in_capacity", None, 4),  # 1.5: floor
        (4, -50, "percent_change_in_capacity", None, 2),  # -2.0
        (3, -50, "percent_change_in_capacity", None, 2),  # -1.5: ceil (towards zero)
        (4, 10, "percent_change_in_capacity", 2, 5),  # at least 2 (then max_size 5)
        (4, -10, "percent_change_in_capacity", 2, 2),
        (2, 1, "ChangeInCapacity", None, 3),  # the AWS names
        (2, 3, "ExactCapacity", None, 3),
    ],
)
def test_new_capacity(current: int, adjustment: int, kind: str, step: int | None, want: int) -> None:
    assert new_capacity(current, adjustment, kind, step, 1, 5) == want


def _policy(adjustment: float = 1, cooldown: float | None = 60) -> Policy:
    return Policy("up", "g-id", adjustment, "change_in_capacity", None, cooldown)


def test_an_accepted_signal_starts_the_policys_cooldown() -> None:
    d = decide(_policy(), "g", Bounds(2, 1, 5), None, NOW, "s")
    assert d.accepted and (d.before, d.after) == (2, 3)
    assert d.cooldown_end == format_time(NOW + timedelta(seconds=60))
    assert d.reason == "change_in_capacity : 1"


def test_inside_the_cooldown_a_signal_is_refused() -> None:
    end = format_time(NOW + timedelta(seconds=5))
    d = decide(_policy(), "g", Bounds(2, 1, 5), end, NOW, "s")
    assert not d.accepted and d.after == 2 and d.reason.startswith("due to cooldown, cooldown 60")
    later = decide(_policy(), "g", Bounds(2, 1, 5), end, NOW + timedelta(seconds=6), "s")
    assert later.accepted


def test_no_change_in_capacity_is_refused_before_the_cooldown_is_looked_at() -> None:
    end = format_time(NOW + timedelta(seconds=500))
    d = decide(_policy(), "g", Bounds(5, 1, 5), end, NOW, "s")
    assert not d.accepted and d.reason.startswith("no change in capacity") and d.cooldown_end == end


def test_a_policy_without_cooldown_uses_the_groups() -> None:
    d = decide(_policy(cooldown=None), "g", Bounds(2, 1, 5, cooldown=30), None, NOW, "s")
    assert d.cooldown_end == format_time(NOW + timedelta(seconds=30))
    d = decide(_policy(cooldown=None), "g", Bounds(2, 1, 5), None, NOW, "s")
    assert d.cooldown_end == format_time(NOW)  # none at all: 0


def test_the_cooldown_end_never_moves_back() -> None:
    far = format_time(NOW + timedelta(hours=1))
    assert cooldown_after(NOW, 10, far) == far
    assert cooldown_after(NOW, -10, None) == format_time(NOW)  # Heat sanitises a negative cooldown to 0
