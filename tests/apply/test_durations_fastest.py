"""The shortest recent duration of a type's create, learned from the stack's events, reaches the create's driver
as ``ActionContext.fastest`` (its first poll after the first second comes just before it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.apply.durations import MIN_RUNS, Durations, fastest_key, fastest_of, learned
from hotc.apply.executor import ExecOptions, execute
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import StackState
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan
from tests.apply.test_durations import ev

SERVER = "OS::Nova::Server"


def creates(*seconds: float, type_: str = SERVER) -> list[Any]:
    out = []
    for i, s in enumerate(seconds):
        out += [
            ev(i * 10, f"s{i}", type_, "CREATE_IN_PROGRESS"),
            ev(i * 10 + s, f"s{i}", type_, "CREATE_COMPLETE"),
        ]
    return out


def test_learned_gives_the_shortest_only_with_enough_runs() -> None:
    assert fastest_key(SERVER, "CREATE") not in learned(creates(8.0, 6.0))
    got = learned(creates(8.0, 6.0, 7.0))
    assert MIN_RUNS == 3
    assert got[fastest_key(SERVER, "CREATE")] == 6.0
    assert got[f"{SERVER} CREATE"] == 7.0  # the median as before
    assert fastest_of([5.0, 4.0]) is None


def test_durations_keep_the_shortest_apart_and_lower_it_with_the_run() -> None:
    d = Durations(learned(creates(8.0, 6.0, 7.0)))
    assert d.expected(SERVER, "CREATE") == 7.0  # the shortest is not a sample of the median
    assert d.fastest(SERVER, "CREATE") == 6.0
    d.observe(SERVER, "CREATE", 4.5)
    assert d.fastest(SERVER, "CREATE") == 4.5  # a faster create now: at once
    fresh = Durations()
    for s in (3.0, 5.0):
        fresh.observe("T", "CREATE", s)
    assert fresh.fastest("T", "CREATE") is None
    fresh.observe("T", "CREATE", 4.0)
    assert fresh.fastest("T", "CREATE") == 3.0


class Recording(FakeDriver):
    def __init__(self, cloud: FakeCloud) -> None:
        super().__init__(cloud)
        self.fastest: dict[str, float | None] = {}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        self.fastest[ctx.address] = ctx.fastest
        return super().create(ctx, props)


def test_the_executor_hands_a_create_the_shortest_of_its_history() -> None:
    cloud = FakeCloud()
    driver = Recording(cloud)
    desired = FakeDesired([FakeResource("web", type="Fake::Slow"), FakeResource("other")])
    rep = execute(
        create_plan(desired),
        StackState.new("s"),
        desired,
        lambda _t: driver,
        MemorySink(),
        ExecOptions(parallelism=2, expected=learned(creates(8.0, 6.0, 7.0, type_="Fake::Slow"))),
        desired_info=desired.resources,
    )
    assert rep.ok, (rep.failed, rep.not_started, rep.output_errors)
    assert driver.fastest["web"] == 6.0
    assert driver.fastest["other"] is None  # no history for its type


def test_a_replacements_create_gets_no_shortest() -> None:
    """Its first waits are the old instance letting go (a port): they must not sleep towards the create's end."""
    from hotc.planner.plan import Action
    from hotc.state.document import ResourceState
    from tests.apply.fakes import change, plan_of

    cloud = FakeCloud()
    driver = Recording(cloud)
    desired = FakeDesired([FakeResource("web", props=lambda r: {"name": "new"})])
    cloud.objects["web-old"] = {"props": {}, "tags": {}, "address": "web"}
    state = StackState.new("s").with_resource(
        ResourceState("web", "Fake::Thing", "web-old", "CREATE_COMPLETE", {"name": "old"})
    )
    rep = execute(
        plan_of([change("web", Action.REPLACE, after={"name": "new"})]),
        state,
        desired,
        lambda _t: driver,
        MemorySink(),
        ExecOptions(parallelism=2, expected=learned(creates(8.0, 6.0, 7.0, type_="Fake::Thing"))),
        desired_info=desired.resources,
    )
    assert rep.ok, rep.failed
    assert "web" in driver.fastest and driver.fastest["web"] is None
