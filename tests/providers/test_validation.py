"""Property validation against resource-type schemas (IR before evaluation, resolved values after),
defaults and Heat's coercion rules, and update errors."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.errors import Diagnostic, Pos, Severity
from hotc.parser.ir import Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.providers.base import ResourceType
from hotc.providers.registry import get_schema
from hotc.providers.validation import (
    apply_defaults,
    update_errors,
    validate_property_exprs,
    validate_property_values,
)
from hotc.values import Unknown

F = "t.yaml"
RES_POS = Pos(F, 3, 3)


class _Line:
    """Hands out increasing positions so each IR node has its own line."""

    def __init__(self) -> None:
        self.n = 10

    def __call__(self) -> Pos:
        self.n += 1
        return Pos(F, self.n, 7)


def ir(value: Any, line: _Line) -> Expr:
    """Build IR from plain data; {"fn": name} becomes a FunctionCall (unknown until evaluation)."""
    if isinstance(value, dict) and set(value) == {"fn"}:
        return FunctionCall(value["fn"], line())
    if isinstance(value, dict):
        keys = [line() for _ in value]
        items = tuple((k, ir(v, line)) for k, v in value.items())
        return MapExpr(items, pos=keys[0] if keys else line(), key_pos=tuple(keys))
    if isinstance(value, list):
        return ListExpr(tuple(ir(v, line) for v in value), pos=line())
    return Literal(value, pos=line())


def rt(name: str) -> ResourceType:
    rtype = get_schema(name)
    assert rtype is not None
    return rtype


def check(name: str, props: Any) -> list[Diagnostic]:
    return validate_property_exprs(rt(name), ir(props, _Line()) if props is not None else None, RES_POS)


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.ERROR]


SERVER_OK = {"flavor": "m1.small", "image": "cirros", "networks": [{"network": "private"}]}


# ---------------------------------------------------------------------------------------------- valid input


@pytest.mark.parametrize(
    ("name", "props"),
    [
        ("OS::Nova::Server", SERVER_OK),
        ("OS::Nova::Server", {"flavor": {"fn": "get_param"}, "image": {"fn": "get_param"}}),
        (
            "OS::Nova::Server",
            {"flavor": "f", "block_device_mapping_v2": [{"volume_id": {"fn": "get_resource"}}]},
        ),
        (
            "OS::Neutron::Port",
            {"network": {"fn": "get_resource"}, "fixed_ips": [{"subnet": {"fn": "get_resource"}}]},
        ),
        ("OS::Neutron::SecurityGroupRule", {"security_group": "sg", "protocol": 6, "port_range_min": "22"}),
        (
            "OS::Neutron::SecurityGroup",
            {"rules": [{"protocol": "icmp"}, {"protocol": "tcp", "port_range_min": 80}]},
        ),
        ("OS::Cinder::Volume", {"size": "10"}),
        ("OS::Cinder::Volume", {"image": "cirros", "size": 1}),
        ("OS::Heat::RandomString", {"length": 12, "character_classes": [{"class": "digits", "min": 2}]}),
        ("OS::Heat::Value", {"value": [1, {"a": None}]}),
        ("OS::Heat::None", {"anything": "goes", "really": [1, 2]}),
        ("OS::Heat::None", None),
        ("OS::Octavia::Pool", {"lb_algorithm": "ROUND_ROBIN", "protocol": "HTTP", "listener": "l"}),
        ("OS::Neutron::Net", None),
        ("OS::Nova::Server", {"flavor": "f", "image": "i", "config_drive": "TRUE"}),
        ("OS::Neutron::Subnet", {"network": "n", "cidr": "10.0.0.0/24", "ip_version": "6"}),
        # a whole properties map from a function is unknown until evaluation
        ("OS::Nova::Server", {"fn": "if"}),
    ],
)
def test_valid_properties_give_no_errors(name: str, props: Any) -> None:
    assert errors(check(name, props)) == []


# ---------------------------------------------------------------------------------------- unknown property


def test_unknown_property_suggests_close_match_at_key_position() -> None:
    line = _Line()
    props = ir({"flavour": "m1.small", "image": "cirros"}, line)
    assert isinstance(props, MapExpr)
    diags = validate_property_exprs(rt("OS::Nova::Server"), props, RES_POS)
    unknown = [d for d in diags if d.code == "unknown-property"]
    assert len(unknown) == 1
    assert "flavour" in unknown[0].message and "did you mean flavor" in unknown[0].message
    assert unknown[0].pos == props.key_pos[0]
    # the required flavor is then missing too, reported at the properties map
    missing = [d for d in diags if d.code == "missing-required-property"]
    assert len(missing) == 1 and "flavor" in missing[0].message and missing[0].pos == props.pos


def test_unknown_property_without_close_match_lists_valid_ones() -> None:
    diags = check("OS::Heat::Value", {"value": 1, "zzzz": 2})
    (d,) = errors(diags)
    assert "valid propertys" not in d.message
    assert "value" in d.message and "type" in d.message


def test_unknown_nested_key() -> None:
    diags = errors(check("OS::Nova::Server", {"flavor": "f", "image": "i", "networks": [{"netwrk": "x"}]}))
    assert any(d.code == "unknown-property" and "networks.0.netwrk" in d.message for d in diags)


# --------------------------------------------------------------------------------------------- required


def test_required_missing_at_resource_position_when_no_properties() -> None:
    diags = check("OS::Neutron::Port", None)
    (d,) = errors(diags)
    assert d.code == "missing-required-property" and "network" in d.message and d.pos == RES_POS
    assert str(d).startswith("t.yaml:3:3: error: OS::Neutron::Port: required property network")


def test_required_satisfied_by_legacy_alias_with_warning() -> None:
    diags = check("OS::Neutron::Port", {"network_id": "abc"})
    assert errors(diags) == []
    assert [d.code for d in diags] == ["legacy-property"]


def test_alias_and_current_name_conflict() -> None:
    diags = errors(check("OS::Neutron::Port", {"network_id": "abc", "network": "def"}))
    assert [d.code for d in diags] == ["property-conflict"]


def test_required_nested_key_missing() -> None:
    diags = errors(
        check("OS::Neutron::Subnet", {"network": "n", "cidr": "c", "allocation_pools": [{"start": "a"}]})
    )
    assert [d.code for d in diags] == ["missing-required-property"]
    assert "allocation_pools.0.end" in diags[0].message


# ------------------------------------------------------------------------------------------- wrong types

TYPE_CASES = [
    # (type, property, value, ok)
    ("OS::Neutron::Port", "name", 5, True),  # integers become strings
    ("OS::Neutron::Port", "name", True, True),
    ("OS::Neutron::Port", "name", 1.5, False),  # floats do not
    ("OS::Neutron::Port", "name", [1], False),
    ("OS::Neutron::Port", "name", {"a": 1}, False),
    ("OS::Cinder::Volume", "size", "10", True),
    ("OS::Cinder::Volume", "size", "ten", False),
    ("OS::Cinder::Volume", "size", "1.5", False),
    ("OS::Cinder::Volume", "size", [10], False),
    ("OS::Heat::WaitCondition", "timeout", "1.5", True),  # number
    ("OS::Heat::WaitCondition", "timeout", "soon", False),
    ("OS::Neutron::Port", "admin_state_up", "False", True),
    ("OS::Neutron::Port", "admin_state_up", "yes", False),
    ("OS::Neutron::Port", "admin_state_up", 1, False),  # Heat refuses integers for booleans
    ("OS::Neutron::Port", "security_groups", "default", False),  # a string is not a list
    ("OS::Neutron::Port", "security_groups", {"a": 1}, False),
    ("OS::Neutron::Port", "value_specs", [1], False),
    ("OS::Neutron::Port", "value_specs", "x", False),
    ("OS::Neutron::Port", "name", None, True),  # null is fine for any type
]


@pytest.mark.parametrize(("name", "prop", "value", "ok"), TYPE_CASES)
def test_literal_types_follow_heat_coercion(name: str, prop: str, value: Any, ok: bool) -> None:
    base: dict[str, Any] = {
        "OS::Neutron::Port": {"network": "n"},
        "OS::Cinder::Volume": {},
        "OS::Heat::WaitCondition": {"handle": "h", "timeout": 10},
    }[name]
    props = {**base, prop: value}
    line = _Line()
    expr = ir(props, line)
    diags = errors(validate_property_exprs(rt(name), expr, RES_POS))
    assert (diags == []) is ok, diags
    if not ok:
        assert diags[0].code == "property-type" and prop in diags[0].message
        # positioned at the offending value
        assert isinstance(expr, MapExpr)
        value_node = expr.get(prop)
        assert value_node is not None and diags[0].pos == value_node.pos
    # the same verdict on resolved values
    vdiags = errors(validate_property_values(rt(name), props, RES_POS))
    assert (vdiags == []) is ok, vdiags


# -------------------------------------------------------------------------------------------- constraints

CONSTRAINT_CASES = [
    (
        "OS::Neutron::SecurityGroupRule",
        {"security_group": "s", "direction": "sideways"},
        "not an allowed value",
    ),
    ("OS::Neutron::SecurityGroupRule", {"security_group": "s", "port_range_min": 70000}, "out of range"),
    ("OS::Neutron::SecurityGroupRule", {"security_group": "s", "port_range_min": "-1"}, "out of range"),
    ("OS::Neutron::SecurityGroupRule", {"security_group": "s", "protocol": 300}, "not an allowed value"),
    ("OS::Nova::KeyPair", {"name": ""}, "length"),
    ("OS::Heat::ResourceGroup", {"resource_def": {"type": "X"}, "index_var": "%i"}, "length"),
    (
        "OS::Glance::WebImage",
        {"disk_format": "qcow2", "container_format": "bare", "location": "u", "kernel_id": "x"},
        "does not match pattern",
    ),
    (
        "OS::Heat::SoftwareDeployment",
        {"server": "s", "actions": ["CREATE", "EXPLODE"]},
        "not an allowed value",
    ),
    ("OS::Heat::RandomString", {"character_classes": [{"class": "emoji"}]}, "not an allowed value"),
    (
        "OS::Octavia::PoolMember",
        {"pool": "p", "address": "a", "protocol_port": 80, "weight": 257},
        "out of range",
    ),
]


@pytest.mark.parametrize(("name", "props", "needle"), CONSTRAINT_CASES)
def test_constraint_violations(name: str, props: dict[str, Any], needle: str) -> None:
    diags = errors(check(name, props))
    assert [d.code for d in diags] == ["property-constraint"], diags
    assert needle in diags[0].message
    assert [d.code for d in errors(validate_property_values(rt(name), props, RES_POS))] == [
        "property-constraint"
    ]


def test_allowed_values_compare_after_coercion() -> None:
    # protocol is a string property whose allowed values include the integers 0..255: "6" and 6 both pass
    for proto in ("6", 6, "tcp"):
        assert (
            errors(check("OS::Neutron::SecurityGroupRule", {"security_group": "s", "protocol": proto})) == []
        )
    # ip_version is an integer property allowed 4 or 6: "6" passes, "5" fails
    assert errors(check("OS::Neutron::Subnet", {"network": "n", "cidr": "c", "ip_version": "6"})) == []
    assert errors(check("OS::Neutron::Subnet", {"network": "n", "cidr": "c", "ip_version": "5"}))


def test_custom_constraints_are_not_checked_offline() -> None:
    assert errors(check("OS::Nova::Server", {"flavor": "no-such-flavor", "image": "no-such-image"})) == []


def test_function_values_are_skipped() -> None:
    props = {
        "security_group": "s",
        "direction": {"fn": "get_param"},
        "port_range_min": {"fn": "get_param"},
        "remote_ip_prefix": {"fn": "str_replace"},
    }
    assert check("OS::Neutron::SecurityGroupRule", props) == []
    # a function inside a list: the literal siblings are still checked
    diags = errors(
        check("OS::Heat::SoftwareDeployment", {"server": "s", "actions": [{"fn": "get_param"}, "NOPE"]})
    )
    assert diags == []  # the list as a whole holds an unknown: its allowed_values check waits for evaluation


def test_properties_must_be_a_map() -> None:
    diags = errors(check("OS::Neutron::Net", ["a"]))
    assert [d.code for d in diags] == ["property-type"] and "must be a map" in diags[0].message


# ----------------------------------------------------------------------------------- cross-property checks

CROSS_CASES = [
    ("OS::Neutron::RouterInterface", {"router": "r"}, "one of subnet or port"),
    ("OS::Neutron::RouterInterface", {"router": "r", "subnet": "s", "port": "p"}, "cannot both"),
    ("OS::Neutron::Subnet", {"network": "n"}, "subnetpool or cidr"),
    (
        "OS::Neutron::SecurityGroupRule",
        {"security_group": "s", "remote_group": "g", "remote_ip_prefix": "0.0.0.0/0"},
        "cannot both",
    ),
    (
        "OS::Neutron::SecurityGroupRule",
        {"security_group": "s", "port_range_min": 90, "port_range_max": 80},
        "less",
    ),
    ("OS::Octavia::Pool", {"lb_algorithm": "ROUND_ROBIN", "protocol": "HTTP"}, "listener or loadbalancer"),
    (
        "OS::Octavia::Listener",
        {"protocol_port": 443, "protocol": "TERMINATED_HTTPS", "loadbalancer": "l"},
        "default_tls_container_ref",
    ),
    ("OS::Cinder::Volume", {}, "exactly one of source_volid or snapshot_id"),
    ("OS::Nova::Server", {"flavor": "f"}, "neither image nor a bootable volume"),
    (
        "OS::Nova::Server",
        {"flavor": "f", "image": "i", "networks": [{"fixed_ip": "10.0.0.5", "port": "p"}]},
        "fixed_ip and port",
    ),
    ("OS::Heat::AutoScalingGroup", {"resource": {"type": "x"}, "min_size": 3, "max_size": 1}, "min_size"),
    (
        "OS::Heat::RandomString",
        {"length": 2, "character_classes": [{"class": "digits", "min": 3}]},
        "smaller",
    ),
    ("OS::Neutron::Port", {"network": "n", "value_specs": {"tenant_id": "x"}}, "not allowed in value_specs"),
    ("OS::Neutron::SecurityGroup", {"name": "default"}, "default"),
]


@pytest.mark.parametrize(("name", "props", "needle"), CROSS_CASES)
def test_cross_property_validators(name: str, props: dict[str, Any], needle: str) -> None:
    diags = errors(check(name, props))
    assert diags and all(d.code == "property-conflict" for d in diags), diags
    assert any(needle in d.message for d in diags), diags
    assert any(needle in d.message for d in errors(validate_property_values(rt(name), props, RES_POS)))


def test_cross_property_validators_wait_for_functions() -> None:
    # subnet/port from conditional functions: not decidable before evaluation
    assert (
        errors(
            check(
                "OS::Neutron::RouterInterface", {"router": "r", "subnet": {"fn": "if"}, "port": {"fn": "if"}}
            )
        )
        == []
    )


def test_validators_on_values_skip_unknowns() -> None:
    vol = rt("OS::Cinder::Volume")
    assert errors(validate_property_values(vol, {"size": Unknown()}, RES_POS)) == []
    assert errors(validate_property_values(vol, {"snapshot_id": Unknown.of("snap")}, RES_POS)) == []


def test_values_with_unknown_parts_skip_only_those_parts() -> None:
    server = rt("OS::Nova::Server")
    values = {
        "flavor": Unknown.of("flv"),
        "image": "i",
        "networks": [{"network": Unknown.of("net")}],
        "user_data_format": "BAD",
    }
    diags = errors(validate_property_values(server, values, RES_POS))
    assert [d.code for d in diags] == ["property-constraint"] and "BAD" in diags[0].message
    assert all(d.pos == RES_POS for d in diags)


def test_values_unknown_property_and_required() -> None:
    diags = errors(validate_property_values(rt("OS::Neutron::Port"), {"netwrk": "x"}, RES_POS))
    assert sorted(d.code for d in diags) == ["missing-required-property", "unknown-property"]


# ------------------------------------------------------------------------------------------- apply_defaults


def test_apply_defaults_makes_omitted_and_default_equal() -> None:
    server = rt("OS::Nova::Server")
    omitted = apply_defaults(server, {"flavor": "f", "image": "i"})
    explicit = apply_defaults(
        server, {"flavor": "f", "image": "i", "user_data_update_policy": "REPLACE", "metadata": {}}
    )
    assert omitted == explicit
    assert omitted["user_data_update_policy"] == "REPLACE"
    assert omitted["user_data"] == ""
    assert "key_name" not in omitted  # no default: stays absent


def test_apply_defaults_coerces_like_heat() -> None:
    assert apply_defaults(rt("OS::Cinder::Volume"), {"size": "10"})["size"] == 10
    port = apply_defaults(rt("OS::Neutron::Port"), {"network": "n", "admin_state_up": "False", "name": 5})
    assert port["admin_state_up"] is False and port["name"] == "5"
    # explicit null becomes the default, else the empty value of the type
    port = apply_defaults(
        rt("OS::Neutron::Port"), {"network": "n", "device_owner": None, "name": None, "tags": None}
    )
    assert port["device_owner"] == "" and port["name"] == "" and port["tags"] == []


def test_apply_defaults_nested_and_aliases() -> None:
    sg = apply_defaults(
        rt("OS::Neutron::SecurityGroup"), {"rules": [{"protocol": "tcp", "port_range_min": "22"}]}
    )
    assert sg["rules"] == [
        {
            "protocol": "tcp",
            "port_range_min": 22,
            "direction": "ingress",
            "ethertype": "IPv4",
            "remote_mode": "remote_ip_prefix",
        }
    ]
    assert (
        sg["rules"]
        == apply_defaults(
            rt("OS::Neutron::SecurityGroup"),
            {
                "rules": [
                    {"protocol": "tcp", "port_range_min": 22, "direction": "ingress", "ethertype": "IPv4"}
                ]
            },
        )["rules"]
    )
    port = apply_defaults(rt("OS::Neutron::Port"), {"network_id": "n", "fixed_ips": [{"subnet_id": "s"}]})
    assert port["network"] == "n" and "network_id" not in port
    assert port["fixed_ips"] == [{"subnet": "s"}]
    router = apply_defaults(rt("OS::Neutron::Router"), {"l3_agent_id": "a"})
    assert router["l3_agent_ids"] == ["a"]
    rs = apply_defaults(rt("OS::Heat::RandomString"), {})
    assert rs["character_classes"] == [{"class": "lettersdigits", "min": 1}] and rs["length"] == 32


def test_apply_defaults_keeps_unknowns_and_none_resource_values() -> None:
    u = Unknown.of("net")
    assert apply_defaults(rt("OS::Neutron::Port"), {"network": u})["network"] is u
    assert apply_defaults(rt("OS::Heat::None"), {"x": 1}) == {"x": 1}


# -------------------------------------------------------------------------------------------- update errors


def test_update_errors_volume_shrink() -> None:
    vol = rt("OS::Cinder::Volume")
    old = apply_defaults(vol, {"size": 20})
    assert [p for p, _ in update_errors(vol, old, apply_defaults(vol, {"size": "10"}))] == ["size"]
    assert update_errors(vol, old, apply_defaults(vol, {"size": 30})) == []


def test_update_errors_immutable_property() -> None:
    from hotc.providers.schemas._dsl import string

    rtype = ResourceType(name="X::Y::Z", properties={"a": string(immutable=True), "b": string(update=True)})
    assert rtype.immutable == frozenset({"a"})
    assert [p for p, _ in update_errors(rtype, {"a": "1"}, {"a": "2"})] == ["a"]
    assert update_errors(rtype, {"a": "1", "b": "x"}, {"a": "1", "b": "y"}) == []
    assert [p for p, _ in update_errors(rtype, {"a": "1"}, {"a": Unknown()})] == ["a"]


# ------------------------------------------------------------------------- non-strict (template validate)


def test_non_strict_mode_matches_heat_template_validate() -> None:
    server = rt("OS::Nova::Server")
    props = ir(
        {"image": "i", "flavour": "f", "config_drive": "maybe", "networks": [{"netwrk": "x"}]}, _Line()
    )
    diags = validate_property_exprs(server, props, RES_POS, strict=False)
    # only the unknown top-level property is an error
    assert [d.code for d in errors(diags)] == ["unknown-property"]
    warned = {d.code for d in diags if d.severity is Severity.WARNING}
    assert {"missing-required-property", "property-type", "unknown-property"} <= warned
    assert all("will fail" in d.message for d in diags if d.severity is Severity.WARNING)
    # the same input in strict mode: all errors
    strict = errors(validate_property_exprs(server, props, RES_POS))
    assert {d.code for d in strict} == {"missing-required-property", "property-type", "unknown-property"}
    assert len(strict) == 4


def test_non_strict_cross_property_conflicts_are_warnings() -> None:
    vals = {"router": "r"}
    diags = validate_property_values(rt("OS::Neutron::RouterInterface"), vals, RES_POS, strict=False)
    assert errors(diags) == [] and [d.code for d in diags] == ["property-conflict"]


# ------------------------------------------------------------------------- update_policy, deletion_policy


def test_update_policy_schema_of_resource_group() -> None:
    from hotc.providers.validation import validate_update_policy_exprs

    group = rt("OS::Heat::ResourceGroup")
    ok = ir({"rolling_update": {"max_batch_size": 2, "min_in_service": "1", "pause_time": 1.5}}, _Line())
    assert validate_update_policy_exprs(group, ok, RES_POS) == []
    bad = ir({"rolling_update": {"max_batch_size": 0}, "batch_create": {"pause": 1}}, _Line())
    codes = sorted(d.code for d in errors(validate_update_policy_exprs(group, bad, RES_POS)))
    assert codes == ["property-constraint", "unknown-property"]
    typo = ir({"rolling_updates": {}}, _Line())
    (d,) = validate_update_policy_exprs(group, typo, RES_POS)
    assert d.code == "unknown-update-policy" and "batch_create, rolling_update" in d.message
    # the autoscaling group takes its rolling updates as a property: no update_policy keys at all
    (d,) = validate_update_policy_exprs(rt("OS::Heat::AutoScalingGroup"), typo, RES_POS)
    assert d.code == "unknown-update-policy" and "none" in d.message
    assert validate_update_policy_exprs(group, FunctionCall("get_param", RES_POS), RES_POS) == []


def test_deletion_policy_snapshot_support() -> None:
    from hotc.providers.validation import deletion_policy_error

    assert deletion_policy_error(rt("OS::Cinder::Volume"), "Snapshot") is None
    assert deletion_policy_error(rt("OS::Nova::Server"), "Snapshot") is None
    msg = deletion_policy_error(rt("OS::Neutron::Port"), "Snapshot")
    assert msg is not None and "not supported" in msg
    assert deletion_policy_error(rt("OS::Neutron::Port"), "Retain") is None
    assert deletion_policy_error(rt("OS::Neutron::Port"), "Keep") is not None
    assert deletion_policy_error(rt("OS::Neutron::Port"), Unknown()) is None
