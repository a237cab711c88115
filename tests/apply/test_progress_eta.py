"""The live status line's time left: pure code over given durations (no clock is read, nothing sleeps)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console

from hotc.apply.events import resource_event
from hotc.apply.progress import RichProgress, left_text, plan_steps, time_left
from hotc.planner.plan import Action, Plan, ResourceChange


def test_the_longest_remaining_chain() -> None:
    steps = {"net": (10.0, ()), "port": (20.0, ("net",)), "fip": (5.0, ("net",)), "srv": (30.0, ("port",))}
    assert time_left(steps, done=(), running={}, parallelism=10) == 60.0
    # net done, port 5 s into its 20: 15 + 30 along port -> srv
    assert time_left(steps, done={"net"}, running={"port": 5.0}, parallelism=10) == 45.0
    # a step running longer than expected counts as about to finish, never negative
    assert time_left(steps, done={"net", "port", "fip"}, running={"srv": 99.0}) == 0.0
    assert time_left(steps, done=set(steps), running={}) == 0.0


def test_more_work_than_workers_spreads_over_them() -> None:
    steps = {f"m{i}": (10.0, ()) for i in range(10)}
    assert time_left(steps, done=(), running={}, parallelism=2) == 50.0
    assert time_left(steps, done=(), running={}, parallelism=40) == 10.0


def test_no_estimate_until_the_history_covers_every_remaining_step() -> None:
    steps = {"a": (10.0, ()), "b": (None, ("a",))}
    assert time_left(steps, done=(), running={}) is None
    assert time_left(steps, done={"b"}, running={}) == 10.0


def test_plan_steps_take_the_history_figures_and_the_order_of_each_action() -> None:
    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange("net", "OS::Neutron::Net", Action.CREATE, None, None),
            ResourceChange("srv", "OS::Nova::Server", Action.REPLACE, None, None, depends_on=("net",)),
            ResourceChange("vol", "OS::Cinder::Volume", Action.UPDATE, None, None),
            ResourceChange("old", "OS::Neutron::Port", Action.DELETE, None, None),
            ResourceChange("oldnet", "OS::Neutron::Net", Action.DELETE, None, None),
            ResourceChange(
                "oldsub", "OS::Neutron::Subnet", Action.DELETE, None, None, depends_on=("oldnet",)
            ),
            ResourceChange("same", "OS::Heat::Value", Action.NOOP, None, None),
        ),
    )
    history = {
        "OS::Neutron::Net CREATE": 2.0,
        "OS::Neutron::Net DELETE": 3.0,
        "OS::Nova::Server CREATE": 40.0,
        "OS::Nova::Server DELETE": 8.0,
        "OS::Neutron::Subnet DELETE": 1.0,
    }
    steps = plan_steps(plan, history)
    assert steps["net"] == (2.0, ())
    assert steps["srv"] == (48.0, ("net",))  # a replace: its create and its delete
    assert steps["vol"] == (None, ())  # no update of a volume in the history
    assert steps["old"] == (None, ())
    assert steps["oldnet"] == (3.0, ("oldsub",))  # a delete waits for the deletes of what depends on it
    assert steps["oldsub"] == (1.0, ())
    assert "same" not in steps
    covered = {a: v for a, v in steps.items() if a not in ("vol", "old")}
    assert time_left(covered, done=(), running={}, parallelism=4) == 50.0


def test_left_text() -> None:
    assert left_text(0.2) == "under a second left"
    assert left_text(42.4) == "about 42 s left"
    assert left_text(600) == "about 10 min left"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_status_line_adds_the_time_left() -> None:
    clock = Clock()
    p = RichProgress(Console(file=io.StringIO()), clock=clock)
    p.expect(2)
    assert "left" not in p.text()  # no history: no estimate
    p.expect_steps({"net": (10.0, ()), "srv": (50.0, ("net",))}, 4)
    assert "done 0 of 2, about 60 s left" in p.text()
    p(resource_event("net", "OS::Neutron::Net", "CREATE_IN_PROGRESS", "state changed"))
    clock.now += 4
    assert "about 56 s left" in p.text()
    p(resource_event("net", "OS::Neutron::Net", "CREATE_COMPLETE", "state changed", "n1"))
    p(resource_event("srv", "OS::Nova::Server", "CREATE_IN_PROGRESS", "state changed"))
    clock.now += 20
    assert "done 1 of 2, about 30 s left" in p.text()
    p.expect_steps({"net": (10.0, ()), "srv": (None, ("net",))}, 4)
    assert "left" not in p.text()


def test_apply_gives_the_progress_its_steps(tmp_path: Path, monkeypatch: Any) -> None:
    import hotc.apply.progress as progress
    from tests.clirun import run_hotc

    told: list[tuple[Any, int]] = []

    class Recorder(progress.PlainProgress):
        def expect_steps(self, steps: Any, parallelism: int) -> None:
            told.append((steps, parallelism))

    monkeypatch.setattr(progress, "progress_for", lambda stream=None: Recorder(stream or io.StringIO()))
    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "quickstart.yaml", tmp_path / "q.yaml")
    res = run_hotc(tmp_path, "apply", "-t", "q.yaml", "--auto-approve", "--parallelism", "3")
    assert res.returncode == 0, res.stderr
    [(steps, parallelism)] = told
    assert parallelism == 3 and len(steps) == 5
    assert steps["web"][1] and set(steps["web"][1]) <= set(steps)  # the waits are the plan's dependencies
