"""Adaptive polling: waits sleep in proportion to how long they have waited, and poll tightly around the
duration the stack's history expects."""

from __future__ import annotations

from typing import Any

from hotc.providers.openstack import common
from hotc.providers.openstack.polling import (
    EARLY,
    EARLY_STEP,
    FRACTION,
    POLL_MAX,
    POLL_MIN,
    TIGHT,
    Poll,
)
from tests.providers.test_openstack_common import make_ctx


class Clock:
    """A fake clock the fake sleep advances; records every sleep."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.t += s


def wait_until(ready_at: float, expected: float | None = None) -> tuple[float, Clock, int]:
    """Wait for a status that turns ACTIVE at ``ready_at`` (fake seconds): when it was seen, the clock, polls."""
    clock = Clock()
    polls = 0

    def get() -> Any:
        nonlocal polls
        polls += 1
        return "ACTIVE" if clock.t >= ready_at else "BUILD"

    ctx = make_ctx(None, "r")
    if expected is not None:
        from dataclasses import replace

        ctx = replace(ctx, expected=expected)
    common.wait_for(ctx, "thing", get, lambda s: s == "ACTIVE", sleep=clock.sleep, clock=clock)
    return clock.t, clock, polls


def test_first_polls_are_short_and_the_interval_grows_with_the_wait() -> None:
    clock = Clock()
    p = Poll(clock)
    assert p.interval() == POLL_MIN
    clock.t = 5.0
    assert p.interval() == FRACTION * 5.0
    clock.t = 600.0
    assert p.interval() == POLL_MAX


def test_a_quick_transition_is_seen_quickly_and_a_slow_one_at_most_a_fifth_late() -> None:
    seen, _clock, _ = wait_until(0.25)
    assert seen < 0.25 + POLL_MIN + 1e-9  # the old schedule (0.5 s first sleep) saw it at 0.5 s
    for ready in (2.0, 7.3, 40.0):
        seen, _clock, polls = wait_until(ready)
        assert ready <= seen <= ready * (1 + FRACTION) + POLL_MIN
        assert polls < 40  # logarithmic in the duration, not one per POLL_MIN


def test_with_an_expected_duration_the_wait_skips_ahead_then_polls_tightly() -> None:
    seen_plain, _, polls_plain = wait_until(10.0)
    seen, clock, polls = wait_until(10.0, expected=10.0)
    # the first second polled every EARLY_STEP (a short first step of the action is seen at once), then
    # straight towards 0.7 x 10 s, at most POLL_MAX per sleep
    early = [s for s in clock.slept if s == EARLY_STEP]
    assert clock.slept[: len(early)] == early and 1 <= len(early) <= EARLY / EARLY_STEP + 1
    assert clock.slept[len(early)] == POLL_MAX
    assert seen <= 10.0 + TIGHT * 10.0 + 1e-9  # polled every 0.5 s around the expected end
    assert seen < seen_plain
    assert polls < polls_plain


def test_an_expected_duration_that_is_too_long_costs_at_most_poll_max() -> None:
    seen, _clock, _ = wait_until(0.5, expected=100.0)
    assert seen <= 0.5 + EARLY_STEP  # a short step of a long action: seen within a quarter second
    seen, _clock, _ = wait_until(3.0, expected=100.0)
    assert seen <= 3.0 + POLL_MAX


def test_the_last_sleep_stops_at_the_deadline() -> None:
    clock = Clock()
    ctx = make_ctx(None, "r")
    try:
        common.wait_for(
            ctx,
            "thing",
            lambda: "BUILD",
            lambda s: s == "ACTIVE",
            timeout=1.0,
            sleep=clock.sleep,
            clock=clock,
        )
    except common.ProviderError as exc:
        assert "timed out after 1s" in str(exc)
    else:
        raise AssertionError("no timeout")
    assert clock.t <= 1.0 + 1e-9


def test_a_slowly_answering_cloud_is_polled_less_often() -> None:
    clock = Clock()
    p = Poll(clock)
    p.answered(1.5)  # the last GET took 1.5 s
    assert p.interval() == 1.5
    p.answered(20.0)
    assert p.interval() == POLL_MAX
    p.answered(0.01)
    assert p.interval() == POLL_MIN
