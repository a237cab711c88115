"""Attributes of a resource updated in place are "known after apply" unless its type declares them stable
(a plan must come true): dependents and outputs are planned with that Unknown."""

from __future__ import annotations

from hotc.planner.api import Action
from hotc.state.document import ResourceState
from hotc.values import Unknown
from tests.planner.helpers import by_addr, plan_of, stack, state

TEST_RES = "OS::Heat::TestResource"


def _chain(tag: str) -> dict:  # type: ignore[type-arg]
    return {
        "resources": {
            "a": {"type": TEST_RES, "properties": {"value": f"a-{tag}"}},
            "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["a", "output"]}}},
        },
        "outputs": {
            "out": {"value": {"get_attr": ["v", "value"]}},
            "aout": {"value": {"get_attr": ["a", "output"]}},
        },
    }


def _chain_state() -> object:
    return state(
        {
            "a": {"type": TEST_RES, "properties": {"value": "a-v1"}, "attributes": {"output": "a-v1"}},
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": "a-v1"},
                "attributes": {"value": "a-v1"},
                "dependencies": ["a"],
            },
        },
        outputs={"out": "a-v1", "aout": "a-v1"},
    )


def test_attribute_of_an_updated_resource_is_unknown_for_dependents_and_outputs() -> None:
    plan = plan_of(stack(_chain("v2")), _chain_state())  # type: ignore[arg-type]
    ch = by_addr(plan)
    assert ch["a"].action is Action.UPDATE
    # before the fix: v was a no-op planned with the old "a-v1", and the apply left it stale
    assert ch["v"].action is Action.UPDATE
    assert isinstance(ch["v"].after["value"], Unknown)
    outs = {o.name: o for o in plan.output_changes}
    assert outs["aout"].action is Action.UPDATE and isinstance(outs["aout"].after, Unknown)
    assert outs["out"].action is Action.UPDATE and isinstance(outs["out"].after, Unknown)


def test_unchanged_template_keeps_attributes_known() -> None:
    plan = plan_of(stack(_chain("v1")), _chain_state())  # type: ignore[arg-type]
    assert {c.action for c in plan.changes} == {Action.NOOP}
    assert all(o.action is Action.NOOP for o in plan.output_changes)
    assert not plan.has_changes


def test_update_that_changes_no_property_keeps_attributes_known() -> None:
    doc = _chain("v1")
    doc["resources"]["a"]["deletion_policy"] = "Retain"
    plan = plan_of(stack(doc), _chain_state())  # type: ignore[arg-type]
    ch = by_addr(plan)
    assert ch["a"].action is Action.UPDATE and "deletion_policy" in ch["a"].reason_detail
    assert ch["v"].action is Action.NOOP and ch["v"].after["value"] == "a-v1"


def test_declared_stable_attribute_keeps_its_value_others_become_unknown() -> None:
    doc = {
        "resources": {
            "port": {"type": "OS::Neutron::Port", "properties": {"network": "n", "name": "new"}},
            "net_of": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_attr": ["port", "network_id"]}},
            },
            "name_of": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["port", "name"]}}},
            "ips_of": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_attr": ["port", "fixed_ips"]}},
            },
        }
    }
    st = state(
        {
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "n", "name": "old"},
                "attributes": {
                    "network_id": "net-1",
                    "name": "old",
                    "fixed_ips": [{"ip_address": "10.0.0.5"}],
                },
            },
            "net_of": {"type": "OS::Heat::Value", "properties": {"value": "net-1"}, "dependencies": ["port"]},
            "name_of": {"type": "OS::Heat::Value", "properties": {"value": "old"}, "dependencies": ["port"]},
            "ips_of": {
                "type": "OS::Heat::Value",
                "properties": {"value": [{"ip_address": "10.0.0.5"}]},
                "dependencies": ["port"],
            },
        }
    )
    ch = by_addr(plan_of(stack(doc), st))
    assert ch["port"].action is Action.UPDATE
    assert ch["net_of"].action is Action.NOOP  # network_id is declared stable for OS::Neutron::Port
    assert ch["name_of"].action is Action.UPDATE and isinstance(ch["name_of"].after["value"], Unknown)
    # fixed_ips is not a changed property, yet an update may change it: unknown (was planned as a no-op)
    assert ch["ips_of"].action is Action.UPDATE and isinstance(ch["ips_of"].after["value"], Unknown)


def test_unknown_from_an_update_forces_a_dependent_replace_when_the_property_cannot_be_updated() -> None:
    doc = _chain("v2")
    doc["resources"]["b"] = {
        "type": TEST_RES,
        "properties": {"value": {"get_attr": ["a", "output"]}, "update_replace": True},
    }
    st = _chain_state()
    st = st.with_resource(  # type: ignore[attr-defined]
        ResourceState(
            address="b",
            type=TEST_RES,
            physical_id="id-b",
            status="CREATE_COMPLETE",
            properties={"value": "a-v1", "update_replace": True},
            attributes={"output": "a-v1"},
            dependencies=("a",),
        )
    )
    ch = by_addr(plan_of(stack(doc), st))
    assert ch["b"].action is Action.REPLACE and isinstance(ch["b"].after["value"], Unknown)
