"""A type updated on every stack update whatever changed (``ResourceType.always_update``): an
OS::Mistral::ExternalResource with ``always_update: true`` is planned as an update, with the reason, even when
its properties are as applied; without it, or with it false, an unchanged one is no change."""

from __future__ import annotations

import pytest

from hotc.planner.api import Action
from tests.planner.helpers import by_addr, plan_of, stack, state

PROPS = {
    "actions": {"CREATE": {"workflow": "wf_create"}, "UPDATE": {"workflow": "wf_update"}},
    "input": {"size": 1},
}


def _planned(always: object | None) -> object:
    props = dict(PROPS) if always is None else {**PROPS, "always_update": always}
    res = {"type": "OS::Mistral::ExternalResource", "properties": props}
    st = state({"ext": {**res, "physical_id": "exec-1"}})
    return by_addr(plan_of(stack({"resources": {"ext": res}}), st))["ext"]


@pytest.mark.parametrize("always", [True, "true", "yes"])
def test_always_update_plans_an_update_of_an_unchanged_resource(always: object) -> None:
    c = _planned(always)
    assert c.action is Action.UPDATE  # type: ignore[attr-defined]
    assert "always_update is true" in c.reason_detail  # type: ignore[attr-defined]


@pytest.mark.parametrize("always", [None, False, "false"])
def test_without_always_update_an_unchanged_resource_is_no_change(always: object) -> None:
    assert _planned(always).action is Action.NOOP  # type: ignore[attr-defined]


def test_a_change_of_a_replace_on_change_input_still_replaces() -> None:
    res = {
        "type": "OS::Mistral::ExternalResource",
        "properties": {**PROPS, "always_update": True, "replace_on_change_inputs": ["size"]},
    }
    old = {**res, "properties": {**res["properties"], "input": {"size": 2}}, "physical_id": "exec-1"}
    c = by_addr(plan_of(stack({"resources": {"ext": res}}), state({"ext": old})))["ext"]
    assert c.action is Action.REPLACE
