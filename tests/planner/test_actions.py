"""Golden tests: each action kind and each reason."""

from __future__ import annotations

import pytest

from hotc.errors import HotcError
from hotc.planner.api import Action
from hotc.values import Unknown
from tests.planner.helpers import by_addr, plan_of, stack, state

SERVER = {
    "type": "OS::Nova::Server",
    "properties": {
        "flavor": "m1",
        "image": "cirros",
        "key_name": "k1",
        "networks": [{"network": "a"}, {"network": "b"}],
    },
}
SERVER_STATE = {
    "type": "OS::Nova::Server",
    "properties": {
        "flavor": "m1",
        "image": "cirros",
        "key_name": "k1",
        "networks": [{"network": "a"}, {"network": "b"}],
    },
}


def one(doc_res: dict, st_res: dict | None, **opts):  # type: ignore[no-untyped-def]
    st = state({"r": st_res}) if st_res is not None else None
    return by_addr(plan_of(stack({"resources": {"r": doc_res}}), st, **opts))["r"]


def _with(base: dict, **props) -> dict:  # type: ignore[no-untyped-def]
    return {"type": base["type"], "properties": {**base["properties"], **props}}


def test_create_when_not_in_state():
    c = one(SERVER, None)
    assert c.action is Action.CREATE and c.before is None and c.after["flavor"] == "m1"


def test_noop_when_equal():
    c = one(SERVER, SERVER_STATE)
    assert c.action is Action.NOOP and c.changed_paths == ()


def test_defaults_are_applied_on_both_sides():
    # the state recorded the default explicitly, the template omits it: no change
    st = _with(SERVER_STATE, user_data_update_policy="REPLACE", metadata={})
    assert one(SERVER, st).action is Action.NOOP


def test_set_like_list_reordered_is_no_change_but_a_real_change_is_an_update():
    reordered = _with(SERVER, networks=[{"network": "b"}, {"network": "a"}])
    assert one(reordered, SERVER_STATE).action is Action.NOOP
    changed = one(_with(SERVER, networks=[{"network": "b"}, {"network": "c"}]), SERVER_STATE)
    assert changed.action is Action.UPDATE and changed.replace_paths == ()
    assert all(p.startswith("networks") for p in changed.changed_paths)


def test_ordered_list_reordered_is_a_change():
    doc = {
        "type": "OS::Neutron::Port",
        "properties": {"network": "n", "fixed_ips": [{"ip_address": "1"}, {"ip_address": "2"}]},
    }
    st = {
        "type": "OS::Neutron::Port",
        "properties": {"network": "n", "fixed_ips": [{"ip_address": "2"}, {"ip_address": "1"}]},
    }
    assert one(doc, st).action is Action.UPDATE


def test_update_in_place_for_update_allowed_property():
    c = one(_with(SERVER, flavor="m2"), SERVER_STATE)
    assert c.action is Action.UPDATE and not c.rebuild and c.changed_paths == ("flavor",)
    assert c.before["flavor"] == "m1" and c.after["flavor"] == "m2"


def test_replace_because_cannot_update():
    c = one(_with(SERVER, key_name="k2"), SERVER_STATE)
    assert c.action is Action.REPLACE
    assert c.action_reason == "replace_because_cannot_update"
    assert c.replace_paths == ("key_name",)
    assert c.previous_physical_id == "id-r"
    assert c.action.json_actions == ["create", "delete"]


def test_replace_by_type_rule_user_data_replace_policy():
    c = one(_with(SERVER, user_data="new"), _with(SERVER_STATE, user_data="old"))
    assert c.action is Action.REPLACE and c.action_reason == "replace_because_update_policy"
    assert c.replace_paths == ("user_data",) and "REPLACE" in c.reason_detail


def test_user_data_with_ignore_policy_is_an_update_and_rebuild_policy_a_rebuild():
    ignore = one(
        _with(SERVER, user_data="new", user_data_update_policy="IGNORE"),
        _with(SERVER_STATE, user_data="old", user_data_update_policy="IGNORE"),
    )
    assert ignore.action is Action.UPDATE and not ignore.rebuild
    rebuild = one(
        _with(SERVER, user_data="new", user_data_update_policy="REBUILD"),
        _with(SERVER_STATE, user_data="old", user_data_update_policy="REBUILD"),
    )
    assert rebuild.action is Action.UPDATE and rebuild.rebuild


def test_image_change_is_a_rebuild():
    c = one(_with(SERVER, image="ubuntu"), SERVER_STATE)
    assert c.action is Action.UPDATE and c.rebuild and c.action_reason == "update_rebuild"
    assert "root disk" in c.reason_detail


def test_image_change_with_replace_policy_is_a_replace():
    c = one(
        _with(SERVER, image="ubuntu", image_update_policy="REPLACE"),
        _with(SERVER_STATE, image_update_policy="REPLACE"),
    )
    assert c.action is Action.REPLACE and c.replace_paths == ("image",)


def test_replace_by_request():
    c = one(SERVER, SERVER_STATE, replace=("r",))
    assert c.action is Action.REPLACE and c.action_reason == "replace_by_request"


def test_replace_request_for_unknown_address_is_an_error():
    with pytest.raises(HotcError, match="--replace nope"):
        one(SERVER, SERVER_STATE, replace=("nope",))


def test_failed_resource_is_replaced():
    c = one(SERVER, {**SERVER_STATE, "status": "UPDATE_FAILED"})
    assert c.action is Action.REPLACE and c.action_reason == "replace_because_failed"
    assert "UPDATE_FAILED" in c.reason_detail


def test_interrupted_create_is_replaced():
    c = one(SERVER, {**SERVER_STATE, "status": "CREATE_IN_PROGRESS"})
    assert c.action is Action.REPLACE and c.action_reason == "replace_because_incomplete"


def test_type_change_is_a_replace():
    c = one({"type": "OS::Heat::None"}, SERVER_STATE)
    assert c.action is Action.REPLACE and c.action_reason == "replace_because_type_changed"


def test_immutable_change_is_a_plan_error():
    with pytest.raises(HotcError, match="Heat would refuse") as info:
        one(
            {"type": "Test::Immutable", "properties": {"immutable_thing": "b"}},
            {"type": "Test::Immutable", "properties": {"immutable_thing": "a"}},
        )
    assert "immutable" in str(info.value.diagnostics[0])


def test_volume_shrink_is_a_plan_error_and_growth_an_update():
    with pytest.raises(HotcError, match="Heat would refuse") as info:
        one(
            {"type": "OS::Cinder::Volume", "properties": {"size": 5}},
            {"type": "OS::Cinder::Volume", "properties": {"size": 10}},
        )
    assert "cannot shrink" in str(info.value.diagnostics[0]) and "r: " in str(info.value.diagnostics[0])
    grow = one(
        {"type": "OS::Cinder::Volume", "properties": {"size": 20}},
        {"type": "OS::Cinder::Volume", "properties": {"size": 10}},
    )
    assert grow.action is Action.UPDATE


def test_delete_when_gone_from_template_and_forget_when_retained():
    st = state(
        {"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::None", "deletion_policy": "Retain"}}
    )
    plan = plan_of(stack({"resources": {}}), st)
    ch = by_addr(plan)
    assert ch["a"].action is Action.DELETE and ch["a"].action_reason == "delete_because_no_resource_config"
    assert ch["b"].action is Action.FORGET and ch["b"].action_reason == "forget_because_retain"
    assert plan.summary()["delete"] == 1 and plan.summary()["forget"] == 1


def test_condition_false_deletes():
    doc = {
        "parameters": {"on": {"type": "boolean", "default": False}},
        "conditions": {"enabled": {"get_param": "on"}},
        "resources": {"a": {"type": "OS::Heat::None", "condition": "enabled"}},
    }
    plan = plan_of(stack(doc), state({"a": {"type": "OS::Heat::None"}}))
    assert by_addr(plan)["a"].action_reason == "delete_because_condition_false"
    plan_on = plan_of(stack(doc, {"on": True}), state({"a": {"type": "OS::Heat::None"}}))
    assert by_addr(plan_on)["a"].action is Action.NOOP


def test_metadata_change_is_an_update():
    c = one(
        {"type": "OS::Heat::None", "metadata": {"k": "v2"}},
        {"type": "OS::Heat::None", "metadata": {"k": "v1"}},
    )
    assert c.action is Action.UPDATE and "metadata" in c.reason_detail


def test_deposed_instance_is_deleted():
    from dataclasses import replace

    from hotc.state.document import DeposedInstance

    st = state({"r": SERVER_STATE})
    st = st.with_resource(replace(st.resources["r"], deposed=(DeposedInstance("old-1"),)))
    plan = plan_of(stack({"resources": {"r": SERVER}}), st)
    ch = by_addr(plan)
    assert ch["r"].action is Action.NOOP
    assert ch["r (deposed)"].action is Action.DELETE and ch["r (deposed)"].previous_physical_id == "old-1"


def test_unknown_from_created_resource_into_update_allowed_property_is_an_update():
    doc = {
        "resources": {
            "sg": {"type": "OS::Neutron::SecurityGroup"},
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "n", "security_groups": [{"get_resource": "sg"}]},
            },
        }
    }
    st = state(
        {
            "port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "n", "security_groups": ["default"]},
            }
        }
    )
    ch = by_addr(plan_of(stack(doc), st))
    assert ch["sg"].action is Action.CREATE
    assert ch["port"].action is Action.UPDATE
    assert isinstance(ch["port"].after["security_groups"][0], Unknown)


def test_external_id_is_adopted_never_created_or_deleted():
    from hotc.parser.ir import Literal
    from tests.planner.helpers import template

    t = template({"resources": {"ext": {"type": "OS::Nova::Server"}}})
    res = t.resources["ext"]
    from dataclasses import replace as dc_replace

    t = dc_replace(t, resources={"ext": dc_replace(res, external_id=Literal("srv-123"))})
    loaded = stack({"resources": {"ext": {"type": "OS::Nova::Server"}}})
    loaded = dc_replace(loaded, template=t)
    c = by_addr(plan_of(loaded))["ext"]
    assert c.action is Action.CREATE and c.import_id == "srv-123" and c.action_reason == "import_external_id"
    assert c.deletion_policy == "Retain"
    st = state({"ext": {"type": "OS::Nova::Server", "id": "srv-123", "deletion_policy": "Retain"}})
    assert by_addr(plan_of(loaded, st))["ext"].action is Action.NOOP
    gone = by_addr(plan_of(stack({"resources": {}}), st))["ext"]
    assert gone.action is Action.FORGET
