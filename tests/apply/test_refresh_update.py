"""An update planned by ``plan --refresh`` to bring drift back starts from the live values the plan saw, not
from the recorded ones: otherwise a property changed outside hotc (recorded == desired) would look unchanged
and the update would do nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.executor import ExecOptions, execute
from hotc.planner.plan import Action
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, change, plan_of


class Recording(FakeDriver):
    def __init__(self, cloud: FakeCloud) -> None:
        super().__init__(cloud)
        self.updates: list[tuple[dict[str, Any], frozenset[str]]] = []

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        self.updates.append((dict(old), changed))
        return super().update(ctx, physical_id, old, new, changed)


def test_update_of_a_refresh_plan_starts_from_the_live_values() -> None:
    cloud = FakeCloud()
    cloud.objects["n1"] = {"props": {"name": "renamed", "mtu": 1}, "tags": {}, "address": "net"}
    st = StackState.new("s").with_resource(
        ResourceState("net", "Fake::Thing", "n1", "CREATE_COMPLETE", {"name": "web", "mtu": 1})
    )
    desired = FakeDesired([FakeResource("net", props=lambda r: {"name": "web", "mtu": 1})])
    planned = change(
        "net",
        Action.UPDATE,
        before={"name": "renamed", "mtu": 1},  # as the refresh found it
        after={"name": "web", "mtu": 1},
    )
    plan = plan_of([replace(planned, changed_paths=("name",))])
    driver = Recording(cloud)
    rep = execute(plan, st, desired, lambda _t: driver, MemorySink(), ExecOptions(parallelism=1))
    assert rep.ok, rep
    assert driver.updates == [({"name": "renamed", "mtu": 1}, frozenset({"name"}))]
    assert cloud.objects["n1"]["props"]["name"] == "web"
