"""An update planned against refreshed (live) values starts from them: the driver is asked to undo what changed
outside hotc, which the recorded values do not show (``apply --refresh``, or a saved ``plan --refresh``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.apply.executor import ExecOptions, execute
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeDesired, FakeResource, MemorySink


class Recorder:
    def __init__(self) -> None:
        self.updates: list[tuple[dict[str, Any], dict[str, Any], frozenset[str]]] = []

    def update(
        self,
        ctx: ActionContext,
        pid: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        self.updates.append((dict(old), dict(new), changed))
        return Outcome(pid, {})


def test_update_after_drift_starts_from_the_live_values() -> None:
    rec = ResourceState("net", "Fake::Thing", "n-1", "CREATE_COMPLETE", properties={"name": "a", "up": True})
    state = StackState.new("s").with_resource(rec)
    change = ResourceChange(
        "net",
        "Fake::Thing",
        Action.UPDATE,
        before={"name": "a", "up": False},  # what the refresh read
        after={"name": "a", "up": True},
        changed_paths=("up",),
        action_reason="update",
    )
    driver = Recorder()
    desired = FakeDesired([FakeResource("net", props=lambda r: {"name": "a", "up": True})])
    rep = execute(
        Plan("s", "normal", (change,)),
        state,
        desired,
        lambda _t: driver,
        MemorySink(),
        ExecOptions(delete_attempts=1),
        desired_info=desired.resources,
    )
    assert rep.ok, rep
    ((old, new, changed),) = driver.updates
    assert old["up"] is False and new["up"] is True and changed == frozenset({"up"})
