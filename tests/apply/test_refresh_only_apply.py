"""Applying a refresh-only plan writes the drift it found into the state, and nothing else."""

from __future__ import annotations

import io
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.apply import apply_wiring
from hotc.errors import HotcError
from hotc.ops.apply import ApplyOptions, run_apply
from hotc.planner.api import save_plan
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.providers.base import ActionContext, Outcome
from hotc.state import backend_from_config
from hotc.state.document import ResourceState, StackState


class LiveDriver:
    """Reads give the live form: size 2 and a live attribute."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        self.reads.append(ctx.address)
        return Outcome(physical_id, {"size": 2, "live": True}, properties={"size": 2})


def _setup(tmp_path: Path) -> tuple[Any, StackState]:
    b = backend_from_config(str(tmp_path / "st8"), tmp_path)
    st = StackState.new("st")
    for addr in ("a", "b", "c"):
        st = st.with_resource(
            ResourceState(
                addr,
                "Fake::Thing",
                f"id-{addr}",
                "CREATE_COMPLETE",
                properties={"name": addr, "size": 1, "pw": "secret"},
                attributes={"size": 1},
                sensitive_paths=("pw",),
            )
        )
    with b.lock("st", "test") as lk:
        st = b.write("st", st, lk)
    return b, st


def _apply(tmp_path: Path, plan: Plan, driver: LiveDriver) -> tuple[int, str]:
    path = tmp_path / "refresh.plan"
    save_plan(plan, path)
    out = io.StringIO()
    rc = run_apply(
        stack="st",
        opts=ApplyOptions(backend=str(tmp_path / "st8")),
        out=out,
        err=io.StringIO(),
        interactive=False,
        read_line=lambda: "",
        progress=nullcontext,
        wiring=replace(apply_wiring(None), drivers=lambda _t: driver),
        plan_file=path,
        cwd=tmp_path,
    )
    return rc, out.getvalue()


def test_refresh_only_apply_records_changed_and_gone_resources(tmp_path: Path) -> None:
    b, st = _setup(tmp_path)
    drift = (
        ResourceChange(
            "a",
            "Fake::Thing",
            Action.UPDATE,
            dict(st.resources["a"].properties),
            {"name": "a", "size": 2, "pw": "(sensitive)"},
            changed_paths=("size",),
            action_reason="drift_changed",
        ),
        ResourceChange(
            "b",
            "Fake::Thing",
            Action.DELETE,
            dict(st.resources["b"].properties),
            None,
            action_reason="drift_gone",
        ),
    )
    plan = Plan(
        "st", "refresh-only", (), state_lineage=st.lineage, state_serial=st.serial, resource_drift=drift
    )
    driver = LiveDriver()
    rc, text = _apply(tmp_path, plan, driver)
    assert rc == 0, text
    assert (
        "1 resource(s) updated from the cloud: a" in text
        and "1 found gone and removed from the state: b" in text
    )
    assert "Nothing in the cloud was changed" in text
    new, _ = b.read("st")
    assert new.serial == st.serial + 1
    assert set(new.resources) == {"a", "c"}
    a = new.resources["a"]
    assert a.properties == {"name": "a", "size": 2, "pw": "secret"}  # the hidden value kept, not the mark
    assert a.attributes == {"size": 2, "live": True} and a.status == "CREATE_COMPLETE"
    assert new.resources["c"] == st.resources["c"]
    assert driver.reads == ["a"]
    events = b.read_events("st")
    assert [(e.address, e.status) for e in events] == [("a", "CHECK_COMPLETE"), ("b", "DELETE_COMPLETE")]
    # the same plan again is stale: the state moved
    with pytest.raises(HotcError, match="stale"):
        _apply(tmp_path, plan, driver)


def test_refresh_only_apply_without_drift_writes_nothing(tmp_path: Path) -> None:
    b, st = _setup(tmp_path)
    plan = Plan("st", "refresh-only", (), state_lineage=st.lineage, state_serial=st.serial)
    rc, text = _apply(tmp_path, plan, LiveDriver())
    assert rc == 0 and "no drift to record" in text
    assert b.read("st")[0].serial == st.serial


def test_refresh_only_apply_refuses_when_the_object_vanished_since_the_plan(tmp_path: Path) -> None:
    b, st = _setup(tmp_path)
    drift = (ResourceChange("a", "Fake::Thing", Action.UPDATE, {}, {"name": "a", "size": 2}),)
    plan = Plan(
        "st", "refresh-only", (), state_lineage=st.lineage, state_serial=st.serial, resource_drift=drift
    )

    class Gone(LiveDriver):
        def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
            return None

    with pytest.raises(HotcError, match="now gone from the cloud; make a new plan"):
        _apply(tmp_path, plan, Gone())
    assert b.read("st")[0].serial == st.serial  # nothing written
