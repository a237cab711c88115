"""Group update policies run through the executor with Heat-native members (OS::Heat::TestResource):
batch order, pauses (an injected pause: no sleeping, no timing), failure stops, interruption during a pause."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

from hotc.apply.batches import wait_or_stop
from hotc.apply.executor import ApplyReport, ExecOptions, Executor
from hotc.cli.common import load_for_command
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.planner.plan import Plan
from hotc.planner.render.text import render_text
from hotc.providers.drivers import driver_for
from hotc.state.document import StackState
from tests.apply.fakes import MemorySink

RG = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
  fail: {type: boolean, default: false}
  n: {type: number, default: 4}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {max_batch_size: 2, min_in_service: %(min)s, pause_time: %(pause)s}
      batch_create: {max_batch_size: 3, pause_time: 7}
    properties:
      count: {get_param: n}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}, fail: {get_param: fail}}
"""

ASG = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
resources:
  g:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 10
      desired_capacity: 4
      rolling_updates: {max_batch_size: 2, min_in_service: 3, pause_time: 11}
      resource:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}}
"""


class Pauses:
    """An injected pause: records each pause with what was complete at that moment, returns at once."""

    def __init__(self, sink: MemorySink) -> None:
        self.sink = sink
        self.calls: list[tuple[float, list[str]]] = []

    def __call__(self, seconds: float, stop: threading.Event) -> None:
        done = [e.address for e in self.sink.events if e.status.endswith("_COMPLETE") and "[" in e.address]
        self.calls.append((seconds, done))


def run(
    tmp_path: Path,
    text: str,
    state: StackState,
    box: dict[str, Any] | None = None,
    drivers: Any = driver_for,
    **params: str,
) -> tuple[ApplyReport, MemorySink, Plan]:
    """Plan ``text`` against ``state`` and apply it with an injected pause (kept in ``box["pauses"]``)."""
    path = tmp_path / "t.yaml"
    path.write_text(text)
    loaded = load_for_command(path, [], params, {}, verb="planned", err=io.StringIO())
    desired = build_desired(loaded, "s", state.lineage, state=state)
    plan = make_plan(desired, state if state.resources else None, PlanOptions())
    sink = MemorySink()
    pauses = Pauses(sink)
    if box is not None:
        box["pauses"] = pauses
    ex = Executor(
        plan,
        state,
        desired,
        drivers,
        sink,
        ExecOptions(delete_attempts=1, retry_backoff=0.0),
        desired_info=desired.resources,
        pause=pauses,
    )
    return ex.run(), sink, plan


def order(sink: MemorySink, status: str) -> list[str]:
    return [e.address for e in sink.events if e.status == status and "[" in e.address]


def rg(min_in_service: int = 0, pause: float = 5) -> str:
    return RG % {"min": min_in_service, "pause": pause}


def test_batch_create_in_heat_batches_with_pauses(tmp_path: Path) -> None:
    box: dict[str, Any] = {}
    rep, sink2, plan = run(tmp_path, rg(), StackState.new("s"), box, n="5")
    assert rep.ok, rep
    (r,) = plan.groups
    assert r.policy == "batch_create"
    # Heat: 5 members from 0, batches of 3 -> (3, 3), (5, 2)
    assert [(b.members, b.size) for b in r.batches] == [(("g[0]", "g[1]", "g[2]"), 3), (("g[3]", "g[4]"), 5)]
    created = order(sink2, "CREATE_COMPLETE")
    assert set(created[:3]) == {"g[0]", "g[1]", "g[2]"} and set(created[3:]) == {"g[3]", "g[4]"}
    assert [b.status for b in rep.batches] == ["complete", "complete"]
    (call,) = box["pauses"].calls  # one pause, between the two batches, once the first was created
    assert call[0] == 7 and set(call[1]) == {"g[0]", "g[1]", "g[2]"}


def test_rolling_update_batches_order_pauses_and_temporary_member(tmp_path: Path) -> None:
    rep, _, _ = run(tmp_path, rg(3), StackState.new("s"))
    assert rep.ok
    path_plan: dict[str, Any] = {}
    rep2, sink, plan = run(tmp_path, rg(3), rep.state, path_plan, v="b")
    assert rep2.ok, rep2
    (r,) = plan.groups
    # Heat's ResourceGroup for 4 members, max_batch_size 2, min_in_service 3: (5,2) (5,2) (4,1); the highest
    # index first; a temporary member g[4] keeps three members in service
    assert [b.size for b in r.batches] == [5, 5, 4]
    assert [b.members for b in r.batches] == [("g[4]", "g[3]"), ("g[2]", "g[1]"), ("g[0]", "g[4]")]
    assert r.temporary == ("g[4]",)
    updated = order(sink, "UPDATE_COMPLETE")
    assert set(updated[:1]) == {"g[3]"} and set(updated[1:3]) == {"g[2]", "g[1]"} and updated[3] == "g[0]"
    # every event of batch N comes before any event of batch N+1
    pos = {e: i for i, e in reversed(list(enumerate((e.address, e.status) for e in sink.events)))}
    assert pos[("g[3]", "UPDATE_COMPLETE")] < pos[("g[2]", "UPDATE_IN_PROGRESS")]
    assert pos[("g[1]", "UPDATE_COMPLETE")] < pos[("g[0]", "UPDATE_IN_PROGRESS")]
    assert pos[("g[4]", "CREATE_COMPLETE")] < pos[("g[4]", "DELETE_IN_PROGRESS")]
    assert pos[("g[2]", "UPDATE_COMPLETE")] < pos[("g[4]", "DELETE_IN_PROGRESS")]
    # pauses: after batches 1 and 2 (not after the last), each once its batch was complete
    pauses = path_plan["pauses"]
    assert [s for s, _ in pauses.calls] == [5, 5]
    assert {"g[3]", "g[4]"} <= set(pauses.calls[0][1]) and "g[2]" not in pauses.calls[0][1][-2:]
    assert {"g[1]", "g[2]"} <= set(pauses.calls[1][1][len(pauses.calls[0][1]) :])
    # the temporary member is gone, every member has the new value
    assert sorted(rep2.state.resources) == ["g[0]", "g[1]", "g[2]", "g[3]"]
    assert {rs.properties["value"] for rs in rep2.state.resources.values()} == {"b"}
    assert [b.status for b in rep2.batches] == ["complete"] * 3


def test_failure_stops_later_batches_and_the_report_says_which_ran(tmp_path: Path) -> None:
    rep, _, _ = run(tmp_path, rg(0, 30), StackState.new("s"))
    assert rep.ok
    box: dict[str, Any] = {}
    # TestResource's own failure: every member fails its update, so batch 1 fails
    rep2, sink, plan = run(tmp_path, rg(0, 30), rep.state, box, v="b", fail="true")
    assert not rep2.ok
    (r,) = plan.groups
    assert [b.members for b in r.batches] == [("g[3]", "g[2]"), ("g[1]", "g[0]")]
    assert [b.status for b in rep2.batches] == ["failed", "not started"]
    started = set(order(sink, "UPDATE_IN_PROGRESS"))
    assert started == {"g[3]", "g[2]"}  # batch 2 never started
    assert box["pauses"].calls == []  # no pause after a failed batch
    assert {rep2.state.resources[a].properties["value"] for a in ("g[0]", "g[1]")} == {"a"}


def test_pause_is_interrupted_by_cancel_and_later_batches_never_start(tmp_path: Path) -> None:
    rep, _, _ = run(tmp_path, rg(0, 3600), StackState.new("s"))
    path = tmp_path / "t.yaml"
    loaded = load_for_command(path, [], {"v": "b"}, {}, verb="planned", err=io.StringIO())
    desired = build_desired(loaded, "s", rep.state.lineage, state=rep.state)
    plan = make_plan(desired, rep.state, PlanOptions())
    pausing = threading.Event()

    def pause(seconds: float, stop: threading.Event) -> None:
        assert seconds == 3600
        pausing.set()
        wait_or_stop(seconds, stop)  # the real pause: only a cancel ends it

    sink = MemorySink()
    ex = Executor(
        plan,
        rep.state,
        desired,
        driver_for,
        sink,
        ExecOptions(delete_attempts=1, retry_backoff=0.0),
        desired_info=desired.resources,
        pause=pause,
    )
    result: list[ApplyReport] = []
    t = threading.Thread(target=lambda: result.append(ex.run()))
    t.start()
    assert pausing.wait(60)
    ex.cancel("SIGTERM")  # what the CLI's signal handler calls
    t.join(60)
    assert not t.is_alive() and result
    rep2 = result[0]
    assert rep2.interrupted and not rep2.failed
    assert [b.status for b in rep2.batches] == ["complete", "not started"]
    assert set(order(sink, "UPDATE_IN_PROGRESS")) == {"g[3]", "g[2]"}


def test_asg_rolling_updates_keep_min_in_service_with_a_replacement_across_batches(tmp_path: Path) -> None:
    rep, _, plan0 = run(tmp_path, ASG, StackState.new("s"))
    assert rep.ok and not plan0.groups[0].batches  # an ASG is created at once
    box: dict[str, Any] = {}
    rep2, sink, plan = run(tmp_path, ASG, rep.state, box, v="b")
    assert rep2.ok, rep2
    (r,) = plan.groups
    # Heat's AutoScalingGroup for 4 members, max_batch_size 2, min_in_service 3: (5,2) (5,2) (4,0)
    assert [b.size for b in r.batches] == [5, 5, 4]
    assert [s for s, _ in box["pauses"].calls] == [11, 11]
    # batch 1: a new instance (of the member Heat removes last) plus one member updated, oldest first
    by = {c.address: c for c in plan.changes}
    (early,) = [a for a in r.batches[0].apply if by[a].action.value == "replace"]
    assert early in r.batches[2].cleanup
    updated_in_place = [a for b in r.batches for a in b.apply if by[a].action.value == "update"]
    assert len(updated_in_place) == 3 and early not in updated_in_place
    # never fewer than min_in_service members untouched: at most one member changing per batch 1 and 3
    assert sorted(rep2.state.resources) == ["g[0]", "g[1]", "g[2]", "g[3]"]
    assert {rs.properties["value"] for rs in rep2.state.resources.values()} == {"b"}
    assert not any(rs.deposed for rs in rep2.state.resources.values())
    del sink


REPLACE = """
heat_template_version: 2018-08-31
parameters: {v: {type: string, default: x}}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy: {rolling_update: {max_batch_size: 1, pause_time: 2}}
    properties:
      count: 2
      resource_def: {type: OS::Heat::TestResource, properties: {value: {get_param: v}, update_replace: true}}
  after:
    type: OS::Heat::TestResource
    # a string property: a list of refs is refused by Heat (and by hotc's plan), joined it is a string
    properties: {value: {list_join: [",", {get_attr: [g, refs]}]}}
"""


def test_replacements_in_batches_create_first_and_old_instances_wait_for_dependents(tmp_path: Path) -> None:
    rep, _, _ = run(tmp_path, REPLACE, StackState.new("s"))
    assert rep.ok
    rep2, sink, plan = run(tmp_path, REPLACE, rep.state, {}, v="y")
    assert rep2.ok, rep2
    assert [b.members for b in plan.groups[0].batches] == [("g[1]",), ("g[0]",)]
    ev = [(e.address, e.status, e.reason) for e in sink.events]

    def at(addr: str, status: str, old: bool = False) -> int:
        return next(
            i
            for i, (a, s, r) in enumerate(ev)
            if a == addr and s == status and (("old instance" in r) == old)
        )

    # batch 2's replacement starts after batch 1's new instance exists
    assert at("g[1]", "CREATE_COMPLETE") < at("g[0]", "CREATE_IN_PROGRESS")
    # an old instance goes only after the resource reading every member points at the new ones
    assert at("after", "UPDATE_COMPLETE") < at("g[1]", "DELETE_IN_PROGRESS", old=True)
    assert at("after", "UPDATE_COMPLETE") < at("g[0]", "DELETE_IN_PROGRESS", old=True)
    assert not any(rs.deposed for rs in rep2.state.resources.values())


class FailFor:
    """TestResource's driver, with updates of one address failing (as a cloud error would)."""

    def __init__(self, address: str) -> None:
        self.address = address

    def __call__(self, type_name: str) -> Any:
        real = driver_for(type_name)
        me = self

        class Wrapped:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def update(self, ctx: Any, pid: str, old: Any, new: Any, changed: Any) -> Any:
                if ctx.address == me.address:
                    raise RuntimeError("the cloud said no")
                return real.update(ctx, pid, old, new, changed)

        return Wrapped() if real is not None else None


def test_a_failed_batch_leaves_a_state_the_next_apply_finishes(tmp_path: Path) -> None:
    rep, _, _ = run(tmp_path, rg(3, 0), StackState.new("s"))
    failed, _, _ = run(tmp_path, rg(3, 0), rep.state, drivers=FailFor("g[2]"), v="b")
    assert [b.status for b in failed.batches] == ["complete", "failed", "not started"]
    assert "g[4]" in failed.state.resources  # the temporary member of batch 1 is still there
    again, _, plan = run(tmp_path, rg(3, 0), failed.state, v="b")
    assert again.ok, again
    (r,) = plan.groups
    assert (r.before, r.after) == (5, 4)
    assert sorted(again.state.resources) == ["g[0]", "g[1]", "g[2]", "g[3]"]
    assert {rs.properties["value"] for rs in again.state.resources.values()} == {"b"}
    assert "no member changes" in render_text(plan) or all(b.members for b in r.batches)
