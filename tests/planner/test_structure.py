"""Unknown propagation across chains, groups, nested stacks, targets, destroy, cycles, sensitivity."""

from __future__ import annotations

import pytest

from hotc.errors import HotcError
from hotc.planner.api import Action, StateResolver, build_desired
from hotc.values import Unknown
from tests.planner.helpers import by_addr, plan_of, stack, state

CHAIN = {
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "n"}},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"},
        },
        "port": {
            "type": "OS::Neutron::Port",
            "properties": {
                "network": {"get_resource": "net"},
                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}],
            },
        },
        "server": {
            "type": "OS::Nova::Server",
            "properties": {"flavor": "m1", "image": "i", "networks": [{"port": {"get_resource": "port"}}]},
        },
        "other": {"type": "OS::Neutron::Net", "properties": {"name": "o"}},
    }
}

CHAIN_STATE = {
    "net": {"type": "OS::Neutron::Net", "properties": {"name": "n"}},
    "subnet": {
        "type": "OS::Neutron::Subnet",
        "properties": {"network": "id-net", "cidr": "10.0.0.0/24"},
        "dependencies": ["net"],
    },
    "port": {
        "type": "OS::Neutron::Port",
        "properties": {"network": "id-net", "fixed_ips": [{"subnet": "id-subnet"}]},
        "dependencies": ["net", "subnet"],
    },
    "server": {
        "type": "OS::Nova::Server",
        "properties": {"flavor": "m1", "image": "i", "networks": [{"port": "id-port"}]},
        "dependencies": ["port"],
    },
    "other": {"type": "OS::Neutron::Net", "properties": {"name": "o"}},
}


def test_unknown_propagates_along_a_chain():
    plan = plan_of(stack(CHAIN), state(CHAIN_STATE), replace=("net",))
    ch = by_addr(plan)
    assert ch["net"].action_reason == "replace_by_request"
    # subnet.network is fed by the new net's id: unknown, not update_allowed -> replace
    assert ch["subnet"].action is Action.REPLACE and ch["subnet"].replace_paths == ("network",)
    assert isinstance(ch["subnet"].after["network"], Unknown)
    assert ch["port"].action is Action.REPLACE and set(ch["port"].replace_paths) == {"network"}
    assert isinstance(ch["port"].after["fixed_ips"][0]["subnet"], Unknown)
    # server.networks is update_allowed: an in-place update with the port id known after apply
    assert ch["server"].action is Action.UPDATE
    assert isinstance(ch["server"].after["networks"][0]["port"], Unknown)
    assert ch["other"].action is Action.NOOP


def test_implicit_dependencies_port_and_server_on_subnet():
    d = build_desired(stack(CHAIN), "s", None)
    assert d.resources["port"].depends_on == ("net", "subnet")
    doc = {
        "resources": {
            "net": {"type": "OS::Neutron::Net"},
            "subnet": {"type": "OS::Neutron::Subnet", "properties": {"network": {"get_resource": "net"}}},
            "server": {
                "type": "OS::Nova::Server",
                "properties": {"flavor": "f", "networks": [{"network": {"get_resource": "net"}}]},
            },
            "router": {"type": "OS::Neutron::Router"},
            "ri": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {"router": {"get_resource": "router"}, "subnet": {"get_resource": "subnet"}},
            },
            "port": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}}},
            "fip": {
                "type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public", "port_id": {"get_resource": "port"}},
            },
            "fip2": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "public"}},
            "assoc": {
                "type": "OS::Neutron::FloatingIPAssociation",
                "properties": {
                    "floatingip_id": {"get_resource": "fip2"},
                    "port_id": {"get_resource": "port"},
                },
            },
        }
    }
    d = build_desired(stack(doc), "s", None)
    assert "subnet" in d.resources["server"].depends_on  # Server -> Subnet of its network
    assert "subnet" in d.resources["port"].depends_on  # Port -> Subnet of its network
    assert "ri" in d.resources["fip"].depends_on  # FloatingIP -> RouterInterface on its port's subnet
    assert "ri" in d.resources["assoc"].depends_on  # FloatingIPAssociation -> RouterInterface
    assert "ri" not in d.resources["fip2"].depends_on


def test_dependency_cycle_is_an_error_naming_it():
    doc = {
        "resources": {
            "a": {"type": "OS::Heat::None", "depends_on": "b"},
            "b": {"type": "OS::Heat::None", "depends_on": "c"},
            "c": {"type": "OS::Heat::None", "depends_on": "a"},
        }
    }
    with pytest.raises(
        HotcError, match=r"dependency cycle: .*a.*b.*c|dependency cycle: .*(a -> c|c -> b|b -> a)"
    ):
        build_desired(stack(doc), "s", None)


GROUP = {
    "parameters": {"n": {"type": "number", "default": 3}},
    "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "grp": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": {"get_param": "n"},
                "resource_def": {
                    "type": "OS::Neutron::Port",
                    "properties": {"name": "port-%index%", "network": {"get_resource": "net"}},
                },
            },
        },
        "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["grp", "refs"]}}},
    },
}


def test_resource_group_members_are_expanded_with_index_substitution():
    plan = plan_of(stack(GROUP))
    ch = by_addr(plan)
    assert [a for a in ch if a.startswith("grp")] == ["grp[0]", "grp[1]", "grp[2]"]
    assert ch["grp[1]"].after["name"] == "port-1" and ch["grp[1]"].index == 1
    assert ch["grp[2]"].depends_on == ("net",)
    assert ch["v"].depends_on == ("grp[0]", "grp[1]", "grp[2]")
    refs = ch["v"].after["value"]
    assert len(refs) == 3 and all(isinstance(r, Unknown) for r in refs)


def test_group_shrink_deletes_the_highest_members():
    st = state(
        {
            "net": {"type": "OS::Neutron::Net"},
            **{
                f"grp[{i}]": {
                    "type": "OS::Neutron::Port",
                    "properties": {"name": f"port-{i}", "network": "id-net"},
                }
                for i in range(3)
            },
        }
    )
    plan = plan_of(stack(GROUP, {"n": 2}), st)
    ch = by_addr(plan)
    assert ch["grp[0]"].action is Action.NOOP and ch["grp[1]"].action is Action.NOOP
    assert ch["grp[2]"].action is Action.DELETE and ch["grp[2]"].action_reason == "delete_because_count_index"


def test_group_attributes_resolve_from_members_at_apply_time():
    d = build_desired(stack(GROUP), "s", "lin")
    live = {"net": {"physical_id": "N"}, **{f"grp[{i}]": {"physical_id": f"P{i}"} for i in range(3)}}
    assert d.resolve_properties("v", StateResolver(live)) == {"value": ["P0", "P1", "P2"]}
    assert d.resolve_properties("grp[1]", StateResolver(live)) == {"name": "port-1", "network": "N"}


NESTED_DB = {
    "parameters": {"size": {"type": "number"}, "net": {"type": "string"}},
    "resources": {
        "vol": {"type": "OS::Cinder::Volume", "properties": {"size": {"get_param": "size"}}},
        "port": {"type": "OS::Neutron::Port", "properties": {"network": {"get_param": "net"}}},
    },
    "outputs": {"vol_id": {"value": {"get_resource": "vol"}}},
}


def _nested_doc(size: int = 10) -> dict:
    return {
        "resources": {
            "net": {"type": "OS::Neutron::Net"},
            "db": {"type": "db.yaml", "properties": {"size": size, "net": {"get_resource": "net"}}},
            "user": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["db", "vol_id"]}}},
        }
    }


def test_template_resource_is_expanded_with_parameters_from_the_parent():
    plan = plan_of(stack(_nested_doc(), nested={"db.yaml": NESTED_DB}))
    ch = by_addr(plan)
    assert set(ch) == {"net", "db.vol", "db.port", "user"}
    assert ch["db.vol"].after == {"size": 10}
    assert ch["db.port"].depends_on == ("net",)  # inherited from the parent's reference
    assert set(ch["user"].depends_on) == {"db.vol", "db.port"}
    assert ch["user"].after["value"] == Unknown.of("db.vol")


def test_nested_change_and_nested_outputs_from_state():
    st = state(
        {
            "net": {"type": "OS::Neutron::Net"},
            "db.vol": {"type": "OS::Cinder::Volume", "properties": {"size": 10}},
            "db.port": {"type": "OS::Neutron::Port", "properties": {"network": "id-net"}},
            "user": {"type": "OS::Heat::Value", "properties": {"value": "id-db.vol"}},
        }
    )
    same = plan_of(stack(_nested_doc(), nested={"db.yaml": NESTED_DB}), st)
    assert {c.action for c in same.changes} == {Action.NOOP}
    grown = by_addr(plan_of(stack(_nested_doc(20), nested={"db.yaml": NESTED_DB}), st))
    assert grown["db.vol"].action is Action.UPDATE and grown["user"].action is Action.NOOP


def test_group_of_nested_templates_composes_addresses():
    doc = {
        "resources": {
            "web": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    # "1%index%": a volume of size 0 (index 0) is one Heat refuses to create (range min 1)
                    "resource_def": {"type": "db.yaml", "properties": {"size": "1%index%", "net": "public"}},
                },
            }
        }
    }
    plan = plan_of(stack(doc, nested={"db.yaml": NESTED_DB}))
    ch = by_addr(plan)
    assert set(ch) == {"web[0].vol", "web[0].port", "web[1].vol", "web[1].port"}
    assert ch["web[1].vol"].after == {"size": 11}


def test_target_includes_dependencies_only():
    plan = plan_of(stack(CHAIN), None, targets=("port",))
    assert {c.address for c in plan.changes} == {"net", "subnet", "port"}
    grp = plan_of(stack(GROUP), None, targets=("grp",))
    assert {c.address for c in grp.changes} == {"net", "grp[0]", "grp[1]", "grp[2]"}
    with pytest.raises(HotcError, match="--target nope"):
        plan_of(stack(CHAIN), None, targets=("nope",))


def test_destroy_deletes_everything_dependents_first():
    plan = plan_of(
        stack(CHAIN),
        state({**CHAIN_STATE, "net": {**CHAIN_STATE["net"], "deletion_policy": "Retain"}}),
        mode="destroy",
    )
    order = [c.address for c in plan.changes]
    assert order.index("server") < order.index("port") < order.index("subnet") < order.index("net")
    ch = by_addr(plan)
    assert ch["net"].action is Action.FORGET and ch["server"].action is Action.DELETE


def test_destroy_with_target_takes_dependents_along():
    plan = plan_of(stack(CHAIN), state(CHAIN_STATE), mode="destroy", targets=("subnet",))
    assert {c.address for c in plan.changes} == {"subnet", "port", "server"}


def test_hidden_parameters_mark_properties_and_outputs_sensitive():
    doc = {
        "parameters": {"pw": {"type": "string", "hidden": True, "default": "s3cret"}},
        "resources": {
            "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}, "type": "string"}},
            "w": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["v", "value"]}}},
            "x": {"type": "OS::Heat::Value", "properties": {"value": "plain"}},
        },
        "outputs": {"o": {"value": {"get_attr": ["w", "value"]}}, "p": {"value": "plain"}},
    }
    plan = plan_of(stack(doc))
    ch = by_addr(plan)
    assert ch["v"].sensitive_paths == ("value",)
    assert ch["w"].sensitive_paths == ("value",)  # derived through get_attr
    assert ch["x"].sensitive_paths == ()
    outs = {o.name: o for o in plan.output_changes}
    assert outs["o"].sensitive and not outs["p"].sensitive


def test_masked_hidden_value_in_state_compares_by_digest():
    from hotc.planner.diff import masked_digest

    doc = {
        "parameters": {"pw": {"type": "string", "hidden": True}},
        "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}}}},
    }
    st = state(
        {"v": {"type": "OS::Heat::Value", "properties": {"value": {"__sensitive__": masked_digest("old")}}}}
    )
    assert by_addr(plan_of(stack(doc, {"pw": "old"}), st))["v"].action is Action.NOOP
    assert by_addr(plan_of(stack(doc, {"pw": "new"}), st))["v"].action is Action.UPDATE


def test_outputs_create_update_delete():
    doc = {
        "parameters": {"x": {"type": "string", "default": "b"}},
        "resources": {},
        "outputs": {"same": {"value": "a"}, "chg": {"value": {"get_param": "x"}}, "new": {"value": 1}},
    }
    st = state({}, outputs={"same": "a", "chg": "old", "gone": 5})
    outs = {o.name: o.action for o in plan_of(stack(doc), st).output_changes}
    assert outs == {"same": Action.NOOP, "chg": Action.UPDATE, "new": Action.CREATE, "gone": Action.DELETE}


def test_refresh_drift_gone_object_is_replaced():
    from hotc.planner.api import PlanOptions, make_plan
    from tests.planner.helpers import lookup

    st = state(CHAIN_STATE)
    d = build_desired(stack(CHAIN), "s", st.lineage)
    plan = make_plan(
        d,
        st,
        PlanOptions(),
        refreshed={"other": None, "net": {"properties": {"name": "renamed-by-hand"}}},
        schemas=lookup,
    )
    ch = by_addr(plan)
    assert ch["other"].action is Action.REPLACE and ch["other"].action_reason == "replace_because_gone"
    assert ch["net"].action is Action.UPDATE and ch["net"].before["name"] == "renamed-by-hand"
    drift = {c.address: c.action for c in plan.resource_drift}
    assert drift == {"other": Action.DELETE, "net": Action.UPDATE}
    ro = make_plan(d, st, PlanOptions(mode="refresh-only"), refreshed={"other": None}, schemas=lookup)
    assert ro.changes == () and [c.address for c in ro.resource_drift] == ["other"]


def test_output_that_cannot_be_evaluated_is_an_output_error_not_a_plan_error():
    def doc(member: dict) -> dict:
        return {
            "resources": {
                "g": {
                    "type": "OS::Heat::ResourceGroup",
                    "properties": {"count": 0, "resource_def": member},
                }
            },
            "outputs": {
                # a group's value attribute is a list: str_split of it cannot be evaluated
                "first": {"value": {"str_split": [",", {"get_attr": ["g", "value"]}]}},
                "all": {"value": {"get_attr": ["g", "value"]}},
                # a member attribute of a group with no members reads as null, as in Heat 27
                "missing": {"value": {"get_attr": ["g", "resource.0.value"]}},
            },
        }

    plan = plan_of(stack(doc({"type": "OS::Heat::Value", "properties": {"value": 1}})))
    outs = {o.name: o for o in plan.output_changes}
    assert outs["first"].error is not None and "str_split" in outs["first"].error
    assert outs["all"].error is None and outs["all"].after == []
    assert outs["missing"].error is None and outs["missing"].after is None
    # an output reading secrets (a group of RandomStrings) errors the same way, its message withheld
    plan = plan_of(stack(doc({"type": "OS::Heat::RandomString"})))
    outs = {o.name: o for o in plan.output_changes}
    assert outs["first"].sensitive and outs["first"].error is not None and "withheld" in outs["first"].error
    assert outs["all"].error is None


def test_removal_policies_skip_listed_members_by_index_or_physical_id():
    doc = {
        "resources": {
            "g": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "removal_policies": [{"resource_list": ["0", "id-g[1]"]}],
                    "resource_def": {"type": "OS::Heat::None"},
                },
            }
        }
    }
    st = state({f"g[{i}]": {"type": "OS::Heat::None"} for i in range(3)})
    plan = plan_of(stack(doc), st)
    ch = by_addr(plan)
    assert ch["g[0]"].action is Action.DELETE and ch["g[1]"].action is Action.DELETE
    assert ch["g[2]"].action is Action.NOOP and ch["g[3]"].action is Action.CREATE


def test_conditions_on_a_stack_id_not_known_yet_are_decided():
    child = {
        "parameters": {"root_stack_id": {"type": "string", "default": ""}},
        "conditions": {"standalone": {"equals": [{"get_param": "root_stack_id"}, ""]}},
        "resources": {
            "alarm": {"type": "OS::Heat::None", "condition": "standalone"},
            "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "root_stack_id"}}},
        },
    }
    doc = {
        "resources": {
            "member": {"type": "child.yaml", "properties": {"root_stack_id": {"get_param": "OS::stack_id"}}},
            "alone": {"type": "child.yaml"},
        }
    }
    plan = plan_of(stack(doc, nested={"child.yaml": child}))
    ch = by_addr(plan)
    assert "member.alarm" not in ch and "alone.alarm" in ch  # fed a stack id: not standalone
    assert isinstance(ch["member.v"].after["value"], Unknown)  # the value itself stays unknown


def test_hidden_values_through_nested_outputs_are_sensitive():
    child = {
        "parameters": {"pw": {"type": "string", "hidden": True}},
        "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}}}},
        "outputs": {"secret": {"value": {"get_attr": ["v", "value"]}}, "plain": {"value": "x"}},
    }
    doc = {
        "resources": {
            "db": {"type": "child.yaml", "properties": {"pw": "literal"}},
            "user": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["db", "secret"]}}},
            "other": {"type": "OS::Heat::Value", "properties": {"value": "y"}},
        },
        "outputs": {"leak": {"value": {"get_attr": ["user", "value"]}}},
    }
    plan = plan_of(stack(doc, nested={"child.yaml": child}))
    ch = by_addr(plan)
    assert ch["db.v"].sensitive_paths == ("value",)
    assert ch["user"].sensitive_paths == ("value",) and ch["other"].sensitive_paths == ()
    assert {o.name: o.sensitive for o in plan.output_changes} == {"leak": True}


def test_autoscaling_group_capacity():
    def doc(**props):  # type: ignore[no-untyped-def]
        return {
            "resources": {
                "asg": {
                    "type": "OS::Heat::AutoScalingGroup",
                    "properties": {
                        "min_size": 1,
                        "max_size": 5,
                        "resource": {"type": "OS::Heat::None"},
                        **props,
                    },
                }
            }
        }

    assert {c.address for c in plan_of(stack(doc())).changes} == {"asg[0]"}  # min_size on create
    assert len(plan_of(stack(doc(desired_capacity=3))).changes) == 3
    # without desired_capacity, an existing group keeps its size (within min/max)
    st = state({f"asg[{i}]": {"type": "OS::Heat::None"} for i in range(4)})
    plan = plan_of(stack(doc()), st)
    assert {c.address: c.action for c in plan.changes} == {f"asg[{i}]": Action.NOOP for i in range(4)}
    shrunk = plan_of(stack(doc(max_size=2)), st)
    # Heat removes the oldest members first (same creation time here: then by name)
    assert {c.address for c in shrunk.changes if c.action is Action.DELETE} == {"asg[0]", "asg[1]"}


def test_custom_index_var_and_pseudo_parameters():
    doc = {
        "resources": {
            "g": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "index_var": "__n__",
                    "resource_def": {
                        "type": "OS::Heat::Value",
                        "properties": {
                            "value": {
                                "list_join": ["-", [{"get_param": "OS::stack_name"}, "__n__", "%index%"]]
                            }
                        },
                    },
                },
            },
            "p": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "OS::project_id"}}},
            "i": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "OS::stack_id"}}},
        }
    }
    from hotc.planner.api import PlanOptions, make_plan
    from tests.planner.helpers import lookup

    ch = by_addr(plan_of(stack(doc)))
    assert ch["g[1]"].after == {"value": "s-1-%index%"}
    assert isinstance(ch["p"].after["value"], Unknown) and isinstance(ch["i"].after["value"], Unknown)
    d = build_desired(stack(doc), "s", "lin-9", project_id="proj-1")
    ch2 = {c.address: c for c in make_plan(d, None, PlanOptions(), schemas=lookup).changes}
    assert ch2["p"].after == {"value": "proj-1"} and ch2["i"].after == {"value": "lin-9"}


def test_removing_a_nested_stack_deletes_its_resources_dependents_first():
    st = state(
        {
            "net": {"type": "OS::Neutron::Net"},
            "db.vol": {"type": "OS::Cinder::Volume", "properties": {"size": 10}},
            "db.port": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "id-net"},
                "dependencies": ["net"],
            },
        }
    )
    plan = plan_of(stack({"resources": {"net": {"type": "OS::Neutron::Net"}}}), st)
    ch = by_addr(plan)
    assert ch["db.vol"].action is Action.DELETE and ch["db.port"].action is Action.DELETE
    assert ch["net"].action is Action.NOOP
    assert ch["db.port"].depends_on == ("net",)  # the applier deletes db.port before anything it needed
