"""How long each type's actions take, learned from the stack's events and from the run, reaches the drivers as
``ActionContext.expected`` (the waits poll around it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from hotc.apply.durations import Durations, learned
from hotc.apply.executor import ExecOptions, execute
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import StackState
from hotc.state.events import Event
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan


def ev(t: float, address: str, type_: str, status: str) -> Event:
    whole, frac = divmod(t, 1)
    return Event(f"2026-12-01T10:00:{int(whole):02d}.{int(frac * 1e6):06d}Z", address, type_, status)


def test_learned_pairs_each_in_progress_with_its_complete_and_takes_the_median() -> None:
    server, port = "OS::Nova::Server", "OS::Neutron::Port"
    events = [
        ev(0, "a", server, "CREATE_IN_PROGRESS"),
        ev(0, "b", server, "CREATE_IN_PROGRESS"),
        ev(0.5, "p", port, "CREATE_IN_PROGRESS"),
        ev(1.0, "p", port, "CREATE_COMPLETE"),
        ev(4, "a", server, "CREATE_COMPLETE"),
        ev(6, "b", server, "CREATE_COMPLETE"),
        ev(7, "c", server, "CREATE_IN_PROGRESS"),
        ev(9, "c", server, "CREATE_FAILED"),  # a failure is no measure of a success
        ev(10, "c", server, "CREATE_COMPLETE"),  # ... and what follows it has no start
        ev(11, "a", server, "DELETE_IN_PROGRESS"),
        ev(11.8, "a", server, "DELETE_COMPLETE"),
        ev(12, "x", "OS::Heat::Stack", "CHECK_IN_PROGRESS"),
    ]
    assert learned(events) == pytest.approx(
        {f"{server} CREATE": 5.0, f"{port} CREATE": 0.5, f"{server} DELETE": 0.8}, abs=1e-3
    )


def test_durations_start_from_the_history_and_follow_the_run() -> None:
    d = Durations({"T CREATE": 10.0})
    assert d.expected("T", "CREATE") == 10.0
    assert d.expected("T", "DELETE") is None
    d.observe("T", "CREATE", 2.0)
    d.observe("T", "CREATE", 3.0)
    assert d.expected("T", "CREATE") == 3.0  # median of 10, 2, 3


class Recording(FakeDriver):
    def __init__(self, cloud: FakeCloud) -> None:
        super().__init__(cloud)
        self.expected: dict[tuple[str, str], float | None] = {}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        self.expected[("create", ctx.address)] = ctx.expected
        return super().create(ctx, props)


def test_the_executor_hands_drivers_the_expected_duration_of_their_action() -> None:
    cloud = FakeCloud()
    cloud.latency[("create", "first")] = 0.2
    driver = Recording(cloud)
    res = [
        FakeResource("first"),
        FakeResource("second", depends_on=("first",)),
        FakeResource("other", type="Other::Thing"),
    ]
    desired = FakeDesired(res)
    rep = execute(
        create_plan(desired),
        StackState.new("s"),
        desired,
        lambda _t: driver,
        MemorySink(),
        ExecOptions(parallelism=4, expected={"Other::Thing CREATE": 42.0}),
        desired_info=desired.resources,
    )
    assert rep.ok
    assert driver.expected[("create", "first")] is None  # nothing known yet
    second = driver.expected[("create", "second")]
    assert second is not None and 0.2 <= second < 5  # learned from the first one, in this run
    assert driver.expected[("create", "other")] == 42.0  # from the stack's history
