"""Heat's per-resource update decision (decide_update) built from the schemas."""

from __future__ import annotations

from hotc.providers.base import ResourceType
from hotc.providers.registry import get_schema
from hotc.providers.schemas._dsl import string
from hotc.providers.schemas.decide import ERROR, NOOP, REPLACE, UPDATE, decide_update, values_equal
from hotc.values import Unknown


def rt(name: str) -> ResourceType:
    rtype = get_schema(name)
    assert rtype is not None
    return rtype


SERVER = {"flavor": "m1.small", "image": "cirros", "networks": [{"network": "a"}, {"network": "b"}]}


def test_identical_and_default_only_differences_are_noop() -> None:
    server = rt("OS::Nova::Server")
    assert decide_update(server, SERVER, dict(SERVER)).kind == NOOP
    explicit = {**SERVER, "user_data_update_policy": "REPLACE", "metadata": {}, "user_data": ""}
    assert decide_update(server, SERVER, explicit).kind == NOOP


def test_set_like_networks_reordered_is_noop_but_list_order_elsewhere_matters() -> None:
    server = rt("OS::Nova::Server")
    swapped = {**SERVER, "networks": [{"network": "b"}, {"network": "a"}]}
    assert decide_update(server, SERVER, swapped).kind == NOOP
    # security_groups is a plain list Heat compares in order (and it is not updatable: replace)
    d = decide_update(
        server, {**SERVER, "security_groups": ["x", "y"]}, {**SERVER, "security_groups": ["y", "x"]}
    )
    assert d.kind == REPLACE and d.replace_paths == ("security_groups",)


def test_security_group_rules_compare_as_a_set_with_nested_defaults() -> None:
    sg = rt("OS::Neutron::SecurityGroup")
    old = {"rules": [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}, {"protocol": "icmp"}]}
    new = {
        "rules": [
            {"protocol": "icmp", "direction": "ingress"},
            {"protocol": "tcp", "port_range_min": "22", "port_range_max": 22},
        ]
    }
    assert decide_update(sg, old, new).kind == NOOP
    changed = {
        "rules": [{"protocol": "icmp"}, {"protocol": "tcp", "port_range_min": 80, "port_range_max": 80}]
    }
    d = decide_update(sg, old, changed)
    assert d.kind == UPDATE and d.changed == ("rules",)


def test_server_user_data_change_replaces_by_default() -> None:
    d = decide_update(rt("OS::Nova::Server"), {**SERVER, "user_data": "a"}, {**SERVER, "user_data": "b"})
    assert d.kind == REPLACE and d.replace_paths == ("user_data",)
    assert "user_data_update_policy" in d.reasons[0]


def test_server_user_data_ignore_is_an_update() -> None:
    old = {**SERVER, "user_data": "a", "user_data_update_policy": "IGNORE"}
    d = decide_update(rt("OS::Nova::Server"), old, {**old, "user_data": "b"})
    assert d.kind == UPDATE and not d.rebuild and d.changed == ("user_data",)


def test_server_image_change_is_a_rebuild() -> None:
    d = decide_update(rt("OS::Nova::Server"), SERVER, {**SERVER, "image": "ubuntu"})
    assert d.kind == UPDATE and d.rebuild and d.rebuild_paths == ("image",)
    d = decide_update(
        rt("OS::Nova::Server"), SERVER, {**SERVER, "image": "ubuntu", "image_update_policy": "REPLACE"}
    )
    assert d.kind == REPLACE and d.replace_paths == ("image",)


def test_server_flavor_resize_and_non_updatable_property() -> None:
    server = rt("OS::Nova::Server")
    assert decide_update(server, SERVER, {**SERVER, "flavor": "m1.large"}).kind == UPDATE
    d = decide_update(server, SERVER, {**SERVER, "availability_zone": "az2"})
    assert d.kind == REPLACE and d.replace_paths == ("availability_zone",)


def test_unknown_new_value_counts_as_changed() -> None:
    member = rt("OS::Octavia::PoolMember")
    old = {"pool": "p1", "address": "10.0.0.5", "protocol_port": 80}
    d = decide_update(member, old, {**old, "address": Unknown.of("server", ("first_address",))})
    assert d.kind == REPLACE and d.replace_paths == ("address",) and d.unknown == ("address",)
    assert "known only after apply" in d.reasons[0]
    d = decide_update(member, old, {**old, "weight": Unknown.of("x")})
    assert d.kind == UPDATE and d.unknown == ("weight",)


def test_volume_shrink_is_an_error_unless_the_volume_is_replaced_anyway() -> None:
    vol = rt("OS::Cinder::Volume")
    d = decide_update(vol, {"size": 10}, {"size": 5})
    assert d.kind == ERROR and d.errors[0][0] == "size"
    assert decide_update(vol, {"size": 10}, {"size": 20}).kind == UPDATE
    # Heat checks the shrink in handle_update: a replacing change wins
    assert decide_update(vol, {"size": 10, "image": "a"}, {"size": 5, "image": "b"}).kind == REPLACE


def test_immutable_change_is_an_error_before_replace() -> None:
    rtype = ResourceType(name="X::Y::Z", properties={"a": string(immutable=True), "b": string()})
    d = decide_update(rtype, {"a": "1", "b": "1"}, {"a": "2", "b": "2"})
    assert d.kind == ERROR and d.errors[0][0] == "a"


def test_security_group_rule_any_change_replaces() -> None:
    sgr = rt("OS::Neutron::SecurityGroupRule")
    old = {"security_group": "sg", "port_range_min": 80, "port_range_max": 80}
    d = decide_update(sgr, old, {**old, "port_range_min": 81, "port_range_max": 81})
    assert d.kind == REPLACE and set(d.replace_paths) == {"port_range_min", "port_range_max"}


def test_none_never_updates_and_port_replace_always() -> None:
    assert decide_update(rt("OS::Heat::None"), {"a": 1}, {"a": 2}).kind == NOOP
    port = rt("OS::Neutron::Port")
    always = {"network": "n", "replacement_policy": "REPLACE_ALWAYS"}
    assert decide_update(port, always, dict(always)).kind == REPLACE
    assert decide_update(port, {"network": "n"}, {"network": "n"}).kind == NOOP


def test_legacy_alias_and_current_name_diff_equal() -> None:
    port = rt("OS::Neutron::Port")
    assert decide_update(port, {"network_id": "n"}, {"network": "n"}).kind == NOOP


def test_values_equal_nested_set_like() -> None:
    prop = rt("OS::Nova::Server").properties["networks"]
    a = [
        {
            "network": "n",
            "port_extra_properties": {"allowed_address_pairs": [{"ip_address": "1"}, {"ip_address": "2"}]},
        }
    ]
    b = [
        {
            "network": "n",
            "port_extra_properties": {"allowed_address_pairs": [{"ip_address": "2"}, {"ip_address": "1"}]},
        }
    ]
    assert values_equal(prop, a, b)
    assert not values_equal(prop, a, [{"network": "m"}])
