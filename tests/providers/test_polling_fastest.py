"""A create whose type's history is long enough polls first, after its first second, just before the shortest
recent duration: the polls on the way there are not made."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hotc.providers.openstack import common
from hotc.providers.openstack.polling import EARLY, POLL_MIN, SKIP_MIN, SURE, TIGHT, first_poll_at
from tests.providers.test_openstack_common import make_ctx
from tests.providers.test_polling import Clock


def test_first_poll_at_is_just_before_the_shorter_of_fastest_and_expected() -> None:
    assert first_poll_at(20.0) == pytest.approx(SURE * 20.0)
    assert first_poll_at(20.0, expected=30.0) == pytest.approx(SURE * 20.0)
    assert first_poll_at(20.0, expected=10.0) == pytest.approx(SURE * 10.0)  # never past the usual end
    assert first_poll_at(None, expected=30.0) is None  # no history of the shortest: the usual schedule
    assert first_poll_at(SKIP_MIN / 2) is None  # too short to be worth a skip
    assert first_poll_at(0.0) is None


def polls_until(ready_at: float, expected: float | None, fastest: float | None) -> tuple[float, Clock, int]:
    clock = Clock()
    polls = 0

    def get() -> Any:
        nonlocal polls
        polls += 1
        return "ACTIVE" if clock.t >= ready_at else "BUILD"

    ctx = replace(make_ctx(None, "r"), expected=expected, fastest=fastest)
    common.wait_for(ctx, "thing", get, lambda s: s == "ACTIVE", sleep=clock.sleep, clock=clock)
    return clock.t, clock, polls


def test_a_create_skips_from_its_first_second_to_just_before_the_shortest_end() -> None:
    seen_before, _, polls_before = polls_until(20.0, expected=20.0, fastest=None)
    seen, clock, polls = polls_until(20.0, expected=20.0, fastest=19.0)
    # the first second as before, then one sleep to 0.9 x 19 s
    after_early = [t for t in _times(clock) if t >= EARLY]
    assert after_early[1] == pytest.approx(SURE * 19.0)
    assert polls < polls_before
    assert seen <= 20.0 + TIGHT * 20.0 + 1e-9  # the end still seen within the tight polls around it
    assert seen_before <= 20.0 + TIGHT * 20.0 + 1e-9


def test_a_short_first_step_is_still_seen_in_the_first_second() -> None:
    seen, _clock, _ = polls_until(0.5, expected=20.0, fastest=19.0)
    assert seen <= 0.5 + 0.25 + 1e-9


def test_a_run_faster_than_the_history_is_seen_at_the_skip() -> None:
    seen, _clock, _ = polls_until(5.0, expected=20.0, fastest=19.0)
    assert seen == pytest.approx(SURE * 19.0, abs=POLL_MIN)


def _times(clock: Clock) -> list[float]:
    """The times of the polls after the first one (each sleep ends at a poll)."""
    t, out = 0.0, []
    for s in clock.slept:
        t += s
        out.append(t)
    return out
