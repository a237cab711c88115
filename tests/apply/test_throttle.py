"""The executor backs off on the cloud's own busy signals (429, 503, 409, much slower answers than usual) and
comes back to --parallelism as actions complete."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest

from hotc.apply import throttle
from hotc.apply.executor import ExecOptions, execute
from hotc.apply.throttle import Throttle
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import StackState
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_a_signal_halves_the_limit_once_per_burst_and_completions_bring_it_back() -> None:
    clock = Clock()
    t = Throttle(16, clock)
    assert t.limit == 16
    assert t.congested("429")
    assert t.limit == 8
    assert not t.congested("429 again, same burst")  # within the cooldown: counted once
    assert t.limit == 8
    t.completed()
    assert t.limit == 8  # no increase right after a signal
    clock.t += throttle.COOLDOWN
    for _ in range(3):
        t.completed()
    assert t.limit == 11
    for _ in range(3):
        clock.t += throttle.COOLDOWN
        t.congested("503")
    assert t.limit == throttle.FLOOR  # 11 -> 5 -> 2, and never below the floor
    clock.t += throttle.COOLDOWN
    for _ in range(100):
        t.completed()
    assert t.limit == 16  # never above --parallelism
    assert t.signals[0] == "429: at most 8 actions in flight"


def test_only_a_much_slower_answer_than_usual_is_a_signal() -> None:
    t = Throttle(10, Clock())
    assert t.answered(30.0) is None  # no history yet: nothing is "usual"
    for _ in range(20):
        assert t.answered(0.2) is None
    assert t.answered(1.5) is None  # slower, but not long
    reason = t.answered(6.0)
    assert reason is not None and "took 6.0 s" in reason


class Busy(FakeDriver):
    """The first create tells the run the cloud answered 429, as the shared call helper does."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        if ctx.address == "a0":
            ctx.on_call(0.05, 429)
            self.signalled.set()
        with self.cloud.lock:
            if ctx.address.startswith("b"):
                self.b_in_flight += 1
                self.b_max = max(self.b_max, self.b_in_flight)
        try:
            return super().create(ctx, props)
        finally:
            with self.cloud.lock:
                if ctx.address.startswith("b"):
                    self.b_in_flight -= 1

    b_in_flight = 0
    b_max = 0
    signalled = threading.Event()


def test_the_executor_holds_back_new_actions_after_a_busy_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(throttle, "COOLDOWN", 1e9)  # the limit stays lowered for the whole run
    cloud = FakeCloud()
    gates = [cloud.gate("create", f"a{i}") for i in range(8)]
    for i in range(8):
        cloud.latency[("create", f"b{i}")] = 0.2
    driver = Busy(cloud)
    # the a's come first in the plan and start first; every b is ready from the start too
    res = [FakeResource(f"a{i}") for i in range(8)] + [FakeResource(f"b{i}") for i in range(8)]
    desired = FakeDesired(res)
    logs: list[str] = []

    def release() -> None:  # once a0 has told the run, let every a finish
        driver.signalled.wait(30)
        for g in gates:
            g.set()

    threading.Thread(target=release, daemon=True).start()
    rep = execute(
        create_plan(desired),
        StackState.new("s"),
        desired,
        lambda _t: driver,
        MemorySink(),
        ExecOptions(parallelism=8),
        desired_info=desired.resources,
        on_log=lambda _a, m: logs.append(m),
    )
    assert rep.ok
    assert driver.b_max <= 4  # after the signal, at most half as many actions at once (8 without it)
    assert any(
        "the cloud is busy (the cloud answered HTTP 429: at most 4 actions in flight)" in m for m in logs
    )
