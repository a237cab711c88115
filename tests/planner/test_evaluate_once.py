"""Each property evaluated once in a plan from an empty state: build_desired's implicit-edge pass evaluates the
properties with every resource value Unknown and keeps them (DesiredStack.static_properties); make_plan, whose
resolver answers exactly the same when there is no state and nothing is imported, takes them. The plan is the
same as when everything is evaluated again; a plan over a state never takes them."""

from __future__ import annotations

import dataclasses

from hotc.planner.api import PlanOptions, build_desired, make_plan
from tests.planner.helpers import lookup, stack, state
from tests.planner.test_structure import CHAIN, CHAIN_STATE

NETWORK = {
    "parameters": {"tags": {"type": "json", "default": {"a": 1}}},
    "resources": {
        **CHAIN["resources"],
        "port2": {
            "type": "OS::Neutron::Port",
            "properties": {
                # evaluating this property fails (list_join of a map); the network edge is still found
                "name": {"list_join": ["-", {"get_param": "tags"}]},
                "network": {"get_resource": "net"},
            },
        },
    },
}


def _fields(plan: object) -> list[dict[str, object]]:
    return [dataclasses.asdict(c) for c in plan.changes]  # type: ignore[attr-defined]


def test_a_plan_from_empty_state_takes_the_properties_build_desired_evaluated() -> None:
    d = build_desired(stack(CHAIN), "s", None)
    kept = dict(d.static_properties)
    assert set(kept) == {"subnet", "port", "server"}  # the types whose implicit edges were looked for
    plan = make_plan(d, None, PlanOptions(), schemas=lookup)
    assert d.static_properties == {}  # each taken once
    after = {c.address: c.after for c in plan.changes}
    for addr, props in kept.items():
        assert after[addr] is props
    fresh = build_desired(stack(CHAIN), "s", None)
    fresh.static_properties.clear()  # everything evaluated again by make_plan
    assert _fields(make_plan(fresh, None, PlanOptions(), schemas=lookup)) == _fields(plan)


def test_a_plan_over_a_state_evaluates_with_its_own_resolver() -> None:
    st = state(CHAIN_STATE)
    d = build_desired(stack(CHAIN), "s", st.lineage, state=st)
    assert d.static_properties
    plan = make_plan(d, st, PlanOptions(), schemas=lookup)
    assert d.static_properties == {}  # dropped, not taken
    ch = {c.address: c for c in plan.changes}
    assert ch["subnet"].after == {"network": "id-net", "cidr": "10.0.0.0/24"}  # the recorded id, not Unknown


def test_a_property_that_cannot_be_evaluated_keeps_the_implicit_edges() -> None:
    d = build_desired(stack(NETWORK), "s", None)
    assert "port2" not in d.static_properties
    assert "subnet" in d.resources["port2"].depends_on  # Port -> the subnets of its network
