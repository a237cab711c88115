"""Heat's two-tier example: changing one port parameter replaces only what really changes."""

from __future__ import annotations

import copy

from hotc.planner.api import Action
from tests.planner.helpers import by_addr, plan_of, stack, state

USER_DATA = {
    "str_replace": {
        "template": "#!/bin/sh\nrun-app --port PORT\n",
        "params": {"PORT": {"get_param": "app_port"}},
    }
}

DOC = {
    "parameters": {"app_port": {"type": "number", "default": 8080}},
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "app-net"}},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"},
        },
        "sg": {
            "type": "OS::Neutron::SecurityGroup",
            "properties": {
                "rules": [
                    {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
                    {
                        "protocol": "tcp",
                        "port_range_min": {"get_param": "app_port"},
                        "port_range_max": {"get_param": "app_port"},
                    },
                ]
            },
        },
        "port_a": {
            "type": "OS::Neutron::Port",
            "properties": {"network": {"get_resource": "net"}, "security_groups": [{"get_resource": "sg"}]},
        },
        "port_b": {
            "type": "OS::Neutron::Port",
            "properties": {"network": {"get_resource": "net"}, "security_groups": [{"get_resource": "sg"}]},
        },
        "server_a": {
            "type": "OS::Nova::Server",
            "properties": {
                "flavor": "m1.small",
                "image": "ubuntu",
                "networks": [{"port": {"get_resource": "port_a"}}],
                "user_data": "RUN_APP",
            },
        },
        "server_b": {
            "type": "OS::Nova::Server",
            "properties": {
                "flavor": "m1.small",
                "image": "ubuntu",
                "networks": [{"port": {"get_resource": "port_b"}}],
                "user_data": "static",
            },
        },
        "lb": {"type": "OS::Octavia::LoadBalancer", "properties": {"vip_subnet": {"get_resource": "subnet"}}},
        "listener": {
            "type": "OS::Octavia::Listener",
            "properties": {"loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP", "protocol_port": 80},
        },
        "pool": {
            "type": "OS::Octavia::Pool",
            "properties": {
                "listener": {"get_resource": "listener"},
                "protocol": "HTTP",
                "lb_algorithm": "ROUND_ROBIN",
            },
        },
        "member_a": {
            "type": "OS::Octavia::PoolMember",
            "properties": {
                "pool": {"get_resource": "pool"},
                "address": {"get_attr": ["server_a", "first_address"]},
                "protocol_port": {"get_param": "app_port"},
                "subnet": {"get_resource": "subnet"},
            },
        },
        "member_b": {
            "type": "OS::Octavia::PoolMember",
            "properties": {
                "pool": {"get_resource": "pool"},
                "address": {"get_attr": ["server_b", "first_address"]},
                "protocol_port": {"get_param": "app_port"},
                "subnet": {"get_resource": "subnet"},
            },
        },
    },
    "outputs": {"app_url": {"value": {"get_attr": ["server_a", "first_address"]}}},
}


def _doc() -> dict:
    doc = copy.deepcopy(DOC)
    doc["resources"]["server_a"]["properties"]["user_data"] = USER_DATA  # the script carries the port
    return doc


def _applied_state():
    """The state after applying _doc() with app_port 8080."""
    rules = [
        {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
        {"protocol": "tcp", "port_range_min": 8080, "port_range_max": 8080},
    ]
    return state(
        {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "app-net"}},
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": "id-net", "cidr": "10.0.0.0/24"},
                "dependencies": ["net"],
            },
            "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": rules}},
            "port_a": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "id-net", "security_groups": ["id-sg"]},
                "dependencies": ["net", "sg", "subnet"],
            },
            "port_b": {
                "type": "OS::Neutron::Port",
                "properties": {"network": "id-net", "security_groups": ["id-sg"]},
                "dependencies": ["net", "sg", "subnet"],
            },
            "server_a": {
                "type": "OS::Nova::Server",
                "properties": {
                    "flavor": "m1.small",
                    "image": "ubuntu",
                    "networks": [{"port": "id-port_a"}],
                    "user_data": "#!/bin/sh\nrun-app --port 8080\n",
                },
                "attributes": {"first_address": "10.0.0.11"},
                "dependencies": ["port_a"],
            },
            "server_b": {
                "type": "OS::Nova::Server",
                "properties": {
                    "flavor": "m1.small",
                    "image": "ubuntu",
                    "networks": [{"port": "id-port_b"}],
                    "user_data": "static",
                },
                "attributes": {"first_address": "10.0.0.12"},
                "dependencies": ["port_b"],
            },
            "lb": {
                "type": "OS::Octavia::LoadBalancer",
                "properties": {"vip_subnet": "id-subnet"},
                "dependencies": ["subnet"],
            },
            "listener": {
                "type": "OS::Octavia::Listener",
                "properties": {"loadbalancer": "id-lb", "protocol": "HTTP", "protocol_port": 80},
                "dependencies": ["lb"],
            },
            "pool": {
                "type": "OS::Octavia::Pool",
                "properties": {"listener": "id-listener", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
                "dependencies": ["listener"],
            },
            "member_a": {
                "type": "OS::Octavia::PoolMember",
                "properties": {
                    "pool": "id-pool",
                    "address": "10.0.0.11",
                    "protocol_port": 8080,
                    "subnet": "id-subnet",
                },
                "dependencies": ["pool", "server_a", "subnet"],
            },
            "member_b": {
                "type": "OS::Octavia::PoolMember",
                "properties": {
                    "pool": "id-pool",
                    "address": "10.0.0.12",
                    "protocol_port": 8080,
                    "subnet": "id-subnet",
                },
                "dependencies": ["pool", "server_b", "subnet"],
            },
        },
        outputs={"app_url": "10.0.0.11"},
    )


def test_unchanged_parameters_give_an_empty_plan():
    plan = plan_of(stack(_doc(), {"app_port": 8080}), _applied_state())
    assert {c.action for c in plan.changes} == {Action.NOOP}
    assert not plan.has_changes


def test_changing_the_port_replaces_only_what_really_changes():
    plan = plan_of(stack(_doc(), {"app_port": 8081}), _applied_state())
    changes = by_addr(plan)
    touched = {a: c.action for a, c in changes.items() if c.action is not Action.NOOP}
    assert touched == {
        "sg": Action.UPDATE,
        "server_a": Action.REPLACE,
        "member_a": Action.REPLACE,
        "member_b": Action.REPLACE,
    }
    # why each one
    assert changes["sg"].changed_paths == ("rules[1].port_range_max", "rules[1].port_range_min")
    assert changes["server_a"].replace_paths == ("user_data",)
    assert changes["server_a"].action_reason == "replace_because_update_policy"
    assert set(changes["member_b"].replace_paths) == {"protocol_port"}
    # member_a's address comes from the replaced server: known after apply, and it forces the replacement too
    assert set(changes["member_a"].replace_paths) == {"address", "protocol_port"}
    addr = changes["member_a"].after["address"]
    assert type(addr).__name__ == "Unknown" and "server_a.first_address" in repr(addr)
    # the security group keeps its id, so the ports referencing it stay as they are
    assert changes["port_a"].action is Action.NOOP
    # the output fed by the replaced server is known only after apply
    (out,) = plan.output_changes
    assert out.action is Action.UPDATE and type(out.after).__name__ == "Unknown"
    assert plan.summary() == {"no-op": 8, "create": 0, "update": 1, "replace": 3, "delete": 0, "forget": 0}
