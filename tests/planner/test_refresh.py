"""Refreshing through drivers (fakes: no cloud) and planning against the live data."""

from __future__ import annotations

from typing import Any

from hotc.planner.api import Action, PlanOptions, build_desired, make_plan
from hotc.planner.refresh import driver_reader, refresh_resources
from hotc.providers.base import Outcome
from tests.planner.helpers import lookup, stack, state


class FakeDriver:
    def __init__(self, live: dict[str, Any]) -> None:
        self.live = live
        self.calls: list[str] = []

    def read(self, ctx: Any, physical_id: str, props: Any) -> Outcome | None:
        self.calls.append(ctx.address)
        if physical_id not in self.live:
            return None
        return Outcome(physical_id, {"value": self.live[physical_id]}, {"value": self.live[physical_id]})


def _setup():  # type: ignore[no-untyped-def]
    doc = {
        "resources": {
            "a": {"type": "OS::Heat::Value", "properties": {"value": "x"}},
            "b": {"type": "OS::Heat::Value", "properties": {"value": "y"}},
            "c": {"type": "OS::Heat::Value", "properties": {"value": "z"}},
        }
    }
    st = state(
        {
            "a": {"type": "OS::Heat::Value", "properties": {"value": "x"}},
            "b": {"type": "OS::Heat::Value", "properties": {"value": "y"}},
            "c": {"type": "OS::Heat::Value", "properties": {"value": "z"}},
        }
    )
    return doc, st


def test_refresh_reads_every_recorded_resource_and_reports_drift() -> None:
    doc, st = _setup()
    driver = FakeDriver({"id-a": "x", "id-b": "changed by hand"})  # c is gone
    refreshed = refresh_resources(st, driver_reader(st, cloud=lambda: None, driver_for=lambda t: driver))
    assert sorted(driver.calls) == ["a", "b", "c"]
    assert refreshed["c"] is None and refreshed["b"].properties["value"] == "changed by hand"
    d = build_desired(stack(doc), "s", st.lineage)
    ro = make_plan(d, st, PlanOptions(mode="refresh-only"), refreshed, schemas=lookup)
    assert ro.changes == ()
    assert {c.address: c.action for c in ro.resource_drift} == {"b": Action.UPDATE, "c": Action.DELETE}
    normal = {c.address: c for c in make_plan(d, st, PlanOptions(), refreshed, schemas=lookup).changes}
    assert normal["a"].action is Action.NOOP
    assert normal["b"].action is Action.UPDATE and normal["b"].before == {"value": "changed by hand"}
    assert normal["c"].action is Action.REPLACE and normal["c"].action_reason == "replace_because_gone"


def test_types_without_a_driver_are_kept_as_recorded() -> None:
    _doc, st = _setup()
    refreshed = refresh_resources(st, driver_reader(st, cloud=lambda: None, driver_for=lambda t: None))
    assert refreshed == dict(st.resources)


def test_failed_server_is_replaced_only_when_its_live_status_is_broken() -> None:
    from dataclasses import replace as dc_replace

    doc = {"resources": {"srv": {"type": "OS::Nova::Server", "properties": {"flavor": "f", "image": "i"}}}}
    st = state(
        {
            "srv": {
                "type": "OS::Nova::Server",
                "properties": {"flavor": "f", "image": "i"},
                "status": "UPDATE_FAILED",
                "attributes": {"status": "ACTIVE"},
            }
        }
    )
    d = build_desired(stack(doc), "s", st.lineage)
    # without a refresh: Heat's default, replace
    plain = make_plan(d, st, PlanOptions(), schemas=lookup).changes[0]
    assert plain.action is Action.REPLACE and plain.action_reason == "replace_because_failed"
    # refreshed and ACTIVE: not broken, kept (Heat's Server.needs_replace_failed)
    live = dc_replace(st.resources["srv"], attributes={"status": "ACTIVE"})
    kept = make_plan(d, st, PlanOptions(), {"srv": live}, schemas=lookup).changes[0]
    assert (
        kept.action is Action.UPDATE and kept.changed_paths == () and "marked complete" in kept.reason_detail
    )
    broken = dc_replace(st.resources["srv"], attributes={"status": "ERROR"})
    assert (
        make_plan(d, st, PlanOptions(), {"srv": broken}, schemas=lookup).changes[0].action is Action.REPLACE
    )


def test_refresh_only_plan_lists_each_drifted_property_before_and_after() -> None:
    from hotc.planner.render.markdown import render_markdown
    from hotc.planner.render.text import render_text

    doc, st = _setup()
    driver = FakeDriver({"id-a": "x", "id-b": "changed by hand", "id-c": "z"})
    refreshed = refresh_resources(st, driver_reader(st, cloud=lambda: None, driver_for=lambda t: driver))
    d = build_desired(stack(doc), "s", st.lineage)
    plan = make_plan(d, st, PlanOptions(mode="refresh-only"), refreshed, schemas=lookup)
    text = render_text(plan)
    assert "~ b (OS::Heat::Value) changed: value" in text
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("value:"))
    assert "y" in line and "changed by hand" in line and line.index("y") < line.index("changed by hand")
    md = render_markdown(plan)
    assert "`value`" in md and "changed by hand" in md
