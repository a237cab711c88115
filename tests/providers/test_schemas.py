"""Resource-type schemas: the registry and per-type facts taken from Heat's schema tables
(heat-hot.md §2.6), plus the type-specific replace/rebuild rules and update checks."""

from __future__ import annotations

import pytest

from hotc.parser.ir import MISSING
from hotc.providers.base import PropSchema, ResourceType
from hotc.providers.registry import all_schemas, get_schema
from hotc.values import Unknown

EXPECTED_TYPES = {
    "OS::Nova::Server": "compute",
    "OS::Nova::KeyPair": "compute",
    "OS::Nova::Flavor": "compute",
    "OS::Nova::ServerGroup": "compute",
    "OS::Nova::Quota": "compute",
    "OS::Neutron::Quota": "network",
    "OS::Cinder::Quota": "block-storage",
    "OS::Octavia::Quota": "load-balancer",
    "OS::Neutron::Net": "network",
    "OS::Neutron::Subnet": "network",
    "OS::Neutron::Router": "network",
    "OS::Neutron::RouterInterface": "network",
    "OS::Neutron::Port": "network",
    "OS::Neutron::FloatingIP": "network",
    "OS::Neutron::FloatingIPAssociation": "network",
    "OS::Neutron::SecurityGroup": "network",
    "OS::Neutron::SecurityGroupRule": "network",
    "OS::Cinder::Volume": "block-storage",
    "OS::Cinder::VolumeAttachment": "compute",
    "OS::Cinder::VolumeType": "block-storage",
    "OS::Cinder::QoSSpecs": "block-storage",
    "OS::Cinder::QoSAssociation": "block-storage",
    "OS::Cinder::EncryptedVolumeType": "block-storage",
    "OS::Neutron::RouterGateway": "network",
    "OS::Neutron::QoSPolicy": "network",
    "OS::Neutron::QoSBandwidthLimitRule": "network",
    "OS::Neutron::QoSDscpMarkingRule": "network",
    "OS::Neutron::QoSMinimumBandwidthRule": "network",
    "OS::Neutron::QoSMinimumPacketRateRule": "network",
    "OS::Neutron::Trunk": "network",
    "OS::Neutron::SubnetPool": "network",
    "OS::Neutron::AddressScope": "network",
    "OS::Neutron::ProviderNet": "network",
    "OS::Keystone::Project": "identity",
    "OS::Keystone::Role": "identity",
    "OS::Barbican::Secret": "key-manager",
    "OS::Barbican::Order": "key-manager",
    "OS::Barbican::GenericContainer": "key-manager",
    "OS::Barbican::CertificateContainer": "key-manager",
    "OS::Barbican::RSAContainer": "key-manager",
    "OS::Keystone::User": "identity",
    "OS::Keystone::Group": "identity",
    "OS::Keystone::UserRoleAssignment": "identity",
    "OS::Keystone::GroupRoleAssignment": "identity",
    "OS::Octavia::LoadBalancer": "load-balancer",
    "OS::Octavia::Listener": "load-balancer",
    "OS::Octavia::Pool": "load-balancer",
    "OS::Octavia::PoolMember": "load-balancer",
    "OS::Octavia::HealthMonitor": "load-balancer",
    "OS::Octavia::L7Policy": "load-balancer",
    "OS::Octavia::L7Rule": "load-balancer",
    "OS::Octavia::Flavor": "load-balancer",
    "OS::Octavia::FlavorProfile": "load-balancer",
    "OS::Glance::WebImage": "image",
    "OS::Swift::Container": "object-store",
    "OS::Heat::RandomString": None,
    "OS::Heat::Value": None,
    "OS::Heat::None": None,
    "OS::Heat::TestResource": None,
    "OS::Heat::ResourceGroup": None,
    "OS::Heat::AutoScalingGroup": None,
    "OS::Heat::ScalingPolicy": None,
    "OS::Heat::SoftwareConfig": None,
    "OS::Heat::SoftwareDeployment": None,
    "OS::Heat::StructuredConfig": None,
    "OS::Heat::StructuredDeployment": None,
    "OS::Heat::CloudConfig": None,
    "OS::Heat::MultipartMime": None,
    "OS::Heat::WaitCondition": None,
    "OS::Heat::WaitConditionHandle": None,
    "OS::Heat::SwiftSignal": None,
    "OS::Heat::SwiftSignalHandle": None,
    "OS::Heat::UpdateWaitConditionHandle": None,
    "AWS::CloudFormation::WaitCondition": None,
    "AWS::CloudFormation::WaitConditionHandle": None,
    "OS::Heat::Stack": "orchestration",
    "OS::Heat::SoftwareDeploymentGroup": None,
    "OS::Heat::SoftwareDeployments": None,
    "OS::Heat::StructuredDeploymentGroup": None,
    "OS::Heat::StructuredDeployments": None,
    "OS::Heat::SoftwareComponent": None,
    "OS::Heat::DeployedServer": None,
    # Aodh (tests/cloud/85-aodh.sh); the CombinationAlarm placeholder makes nothing
    **{
        f"OS::Aodh::{n}": "alarming"
        for n in (
            "EventAlarm CompositeAlarm LBMemberHealthAlarm PrometheusAlarm GnocchiResourcesAlarm "
            "GnocchiAggregationByMetricsAlarm GnocchiAggregationByResourcesAlarm Alarm"
        ).split()
    },
    "OS::Aodh::CombinationAlarm": None,
    # Mistral (tests/cloud/86-mistral.sh)
    **{f"OS::Mistral::{n}": "workflowv2" for n in ("Workflow", "CronTrigger", "ExternalResource")},
    # Manila (tests/cloud/88-manila.sh)
    **{f"OS::Manila::{n}": "sharev2" for n in ("Share", "ShareType", "ShareNetwork", "SecurityService")},
    # Designate (tests/cloud/87-designate.sh); Domain and Record are Heat's hidden placeholders
    "OS::Designate::Zone": "dns",
    "OS::Designate::RecordSet": "dns",
    "OS::Designate::Domain": None,
    "OS::Designate::Record": None,
}


def schema(name: str) -> ResourceType:
    rtype = get_schema(name)
    assert rtype is not None, name
    return rtype


def test_registry_has_exactly_the_seed_types() -> None:
    assert set(all_schemas()) == set(EXPECTED_TYPES)
    assert get_schema("OS::Nova::Nope") is None
    assert get_schema("app.yaml") is None


@pytest.mark.parametrize(("name", "service"), sorted(EXPECTED_TYPES.items()))
def test_every_type_is_well_formed(name: str, service: str | None) -> None:
    rtype = schema(name)
    assert rtype.name == name
    assert rtype.service == service
    assert "show" in rtype.attributes
    assert rtype.heat_class.startswith(("heat.engine.resources.openstack.", "heat.engine.resources.aws."))

    def walk(path: str, prop: PropSchema) -> None:
        assert prop.type in {"string", "integer", "number", "boolean", "list", "map", "any"}, path
        if prop.item is not None:
            assert prop.type == "list", path
            walk(path + "[]", prop.item)
        if prop.schema is not None:
            assert prop.type == "map", path
            for k, sub in prop.schema.items():
                walk(f"{path}.{k}", sub)
        if prop.set_like:
            assert prop.type == "list", path
        if prop.alias_of is not None:
            assert prop.hidden, path
        if prop.default is not MISSING:
            assert not prop.required, path

    for key, prop in rtype.properties.items():
        walk(key, prop)
        if prop.alias_of is not None:
            assert prop.alias_of in rtype.properties, key


UPDATABLE = {
    "OS::Nova::Server": (
        {"name", "flavor", "image", "metadata", "networks", "user_data", "admin_pass", "tags"},
        {
            "availability_zone",
            "key_name",
            "security_groups",
            "block_device_mapping_v2",
            "user_data_format",
            "scheduler_hints",
            "config_drive",
        },
    ),
    "OS::Nova::KeyPair": (set(), {"name", "public_key", "save_private_key", "type", "user"}),
    "OS::Nova::Flavor": ({"tenants", "extra_specs"}, {"ram", "vcpus", "disk", "name", "is_public"}),
    "OS::Neutron::Net": (
        {"name", "shared", "admin_state_up", "tags", "qos_policy"},
        {"tenant_id", "availability_zone_hints"},
    ),
    "OS::Neutron::Subnet": (
        {"name", "gateway_ip", "allocation_pools", "host_routes", "dns_nameservers"},
        {"network", "cidr", "ip_version", "ipv6_ra_mode", "subnetpool", "prefixlen"},
    ),
    "OS::Neutron::Router": (
        {"external_gateway_info", "name", "admin_state_up"},
        {"distributed", "ha", "tenant_id"},
    ),
    "OS::Neutron::RouterInterface": (set(), {"router", "subnet", "port"}),
    "OS::Neutron::Port": (
        {"fixed_ips", "security_groups", "name", "allowed_address_pairs", "binding:vnic_type"},
        {"network", "mac_address"},
    ),
    "OS::Neutron::FloatingIP": (
        {"port_id", "fixed_ip_address", "dns_name"},
        {"floating_network", "floating_ip_address", "value_specs"},
    ),
    "OS::Neutron::FloatingIPAssociation": ({"floatingip_id", "port_id", "fixed_ip_address"}, set()),
    "OS::Neutron::SecurityGroup": ({"name", "description", "rules", "stateful"}, set()),
    "OS::Cinder::Volume": (
        {"size", "name", "description", "metadata", "volume_type", "read_only", "backup_id"},
        {"image", "snapshot_id", "availability_zone", "source_volid"},
    ),
    "OS::Cinder::VolumeAttachment": ({"instance_uuid", "volume_id", "mountpoint"}, set()),
    "OS::Octavia::LoadBalancer": (
        {"name", "description", "admin_state_up"},
        {"vip_subnet", "provider", "flavor"},
    ),
    "OS::Octavia::Listener": (
        {"default_pool", "connection_limit", "allowed_cidrs"},
        {"protocol", "protocol_port", "loadbalancer"},
    ),
    "OS::Octavia::Pool": (
        {"lb_algorithm", "session_persistence", "name"},
        {"protocol", "listener", "loadbalancer"},
    ),
    "OS::Octavia::PoolMember": ({"weight", "admin_state_up", "tags"}, {"address", "protocol_port", "pool"}),
    "OS::Octavia::HealthMonitor": ({"delay", "timeout", "max_retries", "url_path"}, {"type", "pool"}),
    "OS::Glance::WebImage": ({"tags", "visibility", "protected"}, {"location", "disk_format", "name"}),
    "OS::Heat::RandomString": (set(), {"length", "character_classes", "salt"}),
    "OS::Heat::Value": ({"value", "type"}, set()),
    "OS::Heat::ResourceGroup": ({"count", "resource_def", "removal_policies"}, {"index_var"}),
    "OS::Heat::AutoScalingGroup": ({"resource", "max_size", "min_size", "rolling_updates"}, set()),
    "OS::Heat::ScalingPolicy": ({"scaling_adjustment", "adjustment_type"}, {"auto_scaling_group_id"}),
    "OS::Heat::SoftwareDeployment": (
        {"config", "input_values", "actions", "name"},
        {"server", "signal_transport"},
    ),
    "OS::Heat::StructuredDeployment": ({"config", "input_values"}, {"server", "input_key"}),
    "OS::Heat::WaitCondition": ({"count"}, {"handle", "timeout"}),
    "OS::Heat::Stack": ({"context", "template", "parameters", "timeout"}, set()),
    "OS::Heat::TestResource": ({"value", "update_replace", "fail"}, {"update_replace_value"}),
}


@pytest.mark.parametrize("name", sorted(UPDATABLE))
def test_update_allowed_matches_heat(name: str) -> None:
    yes, no = UPDATABLE[name]
    rtype = schema(name)
    assert yes <= rtype.update_allowed, yes - rtype.update_allowed
    assert not (no & rtype.update_allowed), no & rtype.update_allowed


@pytest.mark.parametrize(
    "name",
    [
        "OS::Neutron::SecurityGroupRule",
        "OS::Swift::Container",
        "OS::Heat::SoftwareConfig",
        "OS::Heat::StructuredConfig",
        "OS::Heat::CloudConfig",
        "OS::Heat::MultipartMime",
        "OS::Heat::WaitConditionHandle",
        "OS::Nova::KeyPair",
        "OS::Neutron::RouterInterface",
    ],
)
def test_types_with_nothing_updatable(name: str) -> None:
    rtype = schema(name)
    assert rtype.properties
    assert rtype.update_allowed == frozenset()


def test_only_a_trunks_parent_port_is_immutable() -> None:
    """Heat's one immutable property among these types: a trunk's parent ``port`` (a change fails the update)."""
    assert {(n, p) for n, t in all_schemas().items() for p in t.immutable} == {("OS::Neutron::Trunk", "port")}


def test_required_and_defaults_from_the_tables() -> None:
    server = schema("OS::Nova::Server")
    assert server.properties["flavor"].required
    assert server.properties["user_data_update_policy"].default == "REPLACE"
    assert server.properties["image_update_policy"].default == "REBUILD"
    assert server.properties["flavor_update_policy"].default == "RESIZE"
    assert server.properties["user_data"].default == ""
    assert server.properties["security_groups"].default == []
    sgr = schema("OS::Neutron::SecurityGroupRule")
    assert sgr.properties["protocol"].default == "tcp"
    assert sgr.properties["direction"].default == "ingress"
    assert schema("OS::Neutron::Subnet").properties["ip_version"].default == 4
    assert schema("OS::Heat::RandomString").properties["length"].default == 32
    assert schema("OS::Octavia::Listener").properties["connection_limit"].default == -1
    assert schema("OS::Heat::ResourceGroup").properties["resource_def"].required
    rd = schema("OS::Heat::ResourceGroup").properties["resource_def"].schema
    assert rd is not None and rd["type"].required


def test_nested_list_schemas() -> None:
    nets = schema("OS::Nova::Server").properties["networks"]
    assert nets.set_like and nets.item is not None and nets.item.schema is not None
    assert {"network", "port", "fixed_ip", "subnet", "floating_ip", "tag", "allocate_network"} <= set(
        nets.item.schema
    )
    assert nets.item.schema["uuid"].hidden and nets.item.schema["uuid"].alias_of == "network"
    rules = schema("OS::Neutron::SecurityGroup").properties["rules"]
    assert rules.set_like and rules.item is not None and rules.item.schema is not None
    assert rules.item.schema["direction"].default == "ingress"
    pools = schema("OS::Neutron::Subnet").properties["allocation_pools"]
    assert pools.item is not None and pools.item.schema is not None
    assert pools.item.schema["start"].required and pools.item.schema["end"].required
    pairs = schema("OS::Neutron::Port").properties["allowed_address_pairs"]
    assert pairs.item is not None and pairs.item.schema is not None
    assert pairs.item.schema["ip_address"].required and not pairs.item.schema["mac_address"].required
    # not set-like: a server's security_groups is not update_allowed, Heat compares it as a list
    assert not schema("OS::Nova::Server").properties["security_groups"].set_like


def test_constraints_recorded() -> None:
    listener = schema("OS::Octavia::Listener").properties
    kinds = {c.kind: c.spec for c in listener["protocol_port"].constraints}
    assert kinds == {"range": {"min": 1, "max": 65535}}
    assert {c.kind for c in listener["loadbalancer"].constraints} == {"custom_constraint"}
    keypair = schema("OS::Nova::KeyPair").properties["name"]
    assert keypair.constraints[0].kind == "length" and keypair.constraints[0].spec == {"min": 1, "max": 255}
    proto = schema("OS::Neutron::SecurityGroupRule").properties["protocol"].constraints[0]
    assert (
        proto.kind == "allowed_values" and "tcp" in proto.spec and 6 in proto.spec and 256 not in proto.spec
    )


def test_hidden_legacy_names_are_aliases() -> None:
    assert schema("OS::Neutron::Port").properties["network_id"].alias_of == "network"
    assert schema("OS::Neutron::Subnet").properties["network_id"].alias_of == "network"
    assert schema("OS::Neutron::RouterInterface").properties["subnet_id"].alias_of == "subnet"
    assert schema("OS::Neutron::FloatingIP").properties["floating_network_id"].alias_of == "floating_network"
    assert schema("OS::Cinder::Volume").properties["imageRef"].alias_of == "image"


def test_attributes() -> None:
    assert {"addresses", "networks", "first_address", "show"} <= set(schema("OS::Nova::Server").attributes)
    assert set(schema("OS::Heat::RandomString").attributes) == {"show", "value"}
    assert set(schema("OS::Neutron::RouterInterface").attributes) == {"show"}
    assert {"vip_address", "vip_port_id"} <= set(schema("OS::Octavia::LoadBalancer").attributes)


# ------------------------------------------------------------------------------------- type-specific rules

SERVER_BASE = {
    "flavor": "m1.small",
    "image": "cirros",
    "user_data": "#!/bin/sh\necho 1",
    "user_data_update_policy": "REPLACE",
    "image_update_policy": "REBUILD",
    "flavor_update_policy": "RESIZE",
}


def run_rules(rules: tuple, old: dict, new: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [hit for rule in rules for hit in rule(old, new)]


def test_server_user_data_replace_policy() -> None:
    server = schema("OS::Nova::Server")
    new = {**SERVER_BASE, "user_data": "#!/bin/sh\necho 2"}
    assert [p for p, _ in run_rules(server.replace_rules, SERVER_BASE, new)] == ["user_data"]
    assert run_rules(server.rebuild_rules, SERVER_BASE, new) == []
    # unchanged user_data forces nothing
    assert run_rules(server.replace_rules, SERVER_BASE, dict(SERVER_BASE)) == []


def test_server_user_data_ignore_and_rebuild_policies() -> None:
    server = schema("OS::Nova::Server")
    old = {**SERVER_BASE, "user_data_update_policy": "IGNORE"}
    new = {**old, "user_data": "changed"}
    assert run_rules(server.replace_rules, old, new) == []
    assert run_rules(server.rebuild_rules, old, new) == []
    old = {**SERVER_BASE, "user_data_update_policy": "REBUILD"}
    new = {**old, "user_data": "changed"}
    assert run_rules(server.replace_rules, old, new) == []
    assert [p for p, _ in run_rules(server.rebuild_rules, old, new)] == ["user_data"]


def test_server_user_data_policy_defaults_to_replace_when_absent() -> None:
    server = schema("OS::Nova::Server")
    old = {"flavor": "f", "user_data": "a"}
    assert [p for p, _ in run_rules(server.replace_rules, old, {"flavor": "f", "user_data": "b"})] == [
        "user_data"
    ]


def test_server_policy_switch_to_ignore_with_the_same_update_applies_new_policy() -> None:
    # Heat reads the policy from the new properties first
    server = schema("OS::Nova::Server")
    new = {**SERVER_BASE, "user_data": "changed", "user_data_update_policy": "IGNORE"}
    assert run_rules(server.replace_rules, SERVER_BASE, new) == []


def test_server_unknown_user_data_is_treated_as_changed() -> None:
    server = schema("OS::Nova::Server")
    new = {**SERVER_BASE, "user_data": Unknown.of("port", ("fixed_ips",))}
    assert [p for p, _ in run_rules(server.replace_rules, SERVER_BASE, new)] == ["user_data"]


def test_server_image_change_is_rebuild_unless_replace_policy() -> None:
    server = schema("OS::Nova::Server")
    new = {**SERVER_BASE, "image": "ubuntu"}
    assert run_rules(server.replace_rules, SERVER_BASE, new) == []
    rebuild = run_rules(server.rebuild_rules, SERVER_BASE, new)
    assert [p for p, _ in rebuild] == ["image"] and "root disk" in rebuild[0][1]
    keep = {**new, "image_update_policy": "REBUILD_PRESERVE_EPHEMERAL"}
    assert [p for p, _ in run_rules(server.rebuild_rules, SERVER_BASE, keep)] == ["image"]
    repl = {**new, "image_update_policy": "REPLACE"}
    assert [p for p, _ in run_rules(server.replace_rules, SERVER_BASE, repl)] == ["image"]
    assert run_rules(server.rebuild_rules, SERVER_BASE, repl) == []


def test_server_flavor_resize_vs_replace() -> None:
    server = schema("OS::Nova::Server")
    new = {**SERVER_BASE, "flavor": "m1.large"}
    assert run_rules(server.replace_rules, SERVER_BASE, new) == []
    assert run_rules(server.rebuild_rules, SERVER_BASE, new) == []
    repl = {**new, "flavor_update_policy": "REPLACE"}
    assert [p for p, _ in run_rules(server.replace_rules, SERVER_BASE, repl)] == ["flavor"]


def test_volume_shrink_is_an_update_error_and_growth_is_not() -> None:
    volume = schema("OS::Cinder::Volume")
    assert [p for p, _ in run_rules(volume.update_checks, {"size": 10}, {"size": 5})] == ["size"]
    assert run_rules(volume.update_checks, {"size": 10}, {"size": 20}) == []
    assert run_rules(volume.update_checks, {"size": 10}, {"size": Unknown()}) == []
    assert run_rules(volume.update_checks, {"size": None}, {"size": 5}) == []


def test_subnet_update_checks() -> None:
    subnet = schema("OS::Neutron::Subnet")
    assert [
        p for p, _ in run_rules(subnet.update_checks, {"gateway_ip": "10.0.0.1"}, {"gateway_ip": "auto"})
    ] == ["gateway_ip"]
    assert run_rules(subnet.update_checks, {"gateway_ip": "10.0.0.1"}, {"gateway_ip": "10.0.0.254"}) == []
    assert [p for p, _ in run_rules(subnet.update_checks, {"segment": "a"}, {"segment": "b"})] == ["segment"]
    assert run_rules(subnet.update_checks, {"segment": None}, {"segment": "b"}) == []


def test_remote_stack_region_change_replaces() -> None:
    stack = schema("OS::Heat::Stack")
    old = {"context": {"region_name": "r1"}, "template": "t"}
    assert [p for p, _ in run_rules(stack.replace_rules, old, {**old, "context": {"region_name": "r2"}})] == [
        "context.region_name"
    ]
    assert (
        run_rules(stack.replace_rules, old, {**old, "context": {"region_name": "r1", "insecure": True}}) == []
    )


def test_test_resource_update_replace() -> None:
    tr = schema("OS::Heat::TestResource")
    assert run_rules(tr.replace_rules, {"value": "a"}, {"value": "b", "update_replace": True})
    assert not run_rules(tr.replace_rules, {"value": "a"}, {"value": "b", "update_replace": False})


def test_port_replace_always_and_none_resource() -> None:
    port = schema("OS::Neutron::Port")
    assert port.always_replace is not None
    assert port.always_replace({"replacement_policy": "REPLACE_ALWAYS"})
    assert port.always_replace({"replacement_policy": "AUTO"}) is None
    none = schema("OS::Heat::None")
    assert none.never_updates and none.accepts_any_properties
    assert not schema("OS::Nova::Server").never_updates


def test_software_deployment_replace_on_change_inputs() -> None:
    from hotc.providers.schemas.heat import deployment_input_replace

    inputs = [{"name": "port", "replace_on_change": True, "default": 80}, {"name": "greeting"}]
    assert deployment_input_replace(inputs, inputs, {"port": 80}, {"port": 80, "greeting": "x"}) == []
    hits = deployment_input_replace(inputs, inputs, {}, {"port": 8080})
    assert [p for p, _ in hits] == ["input_values.port"]
    # a plain input change is an in-place re-run, not a replacement
    assert deployment_input_replace(inputs, inputs, {"greeting": "a"}, {"greeting": "b"}) == []
    # an input the old config did not declare never replaces
    assert deployment_input_replace([{"name": "greeting"}], inputs, {}, {"port": 1}) == []
    assert deployment_input_replace(inputs, inputs, {"port": 80}, {"port": Unknown()})


def test_failed_resources_replace_rules_follow_needs_replace_failed() -> None:
    server = schema("OS::Nova::Server").failed_replace
    assert server is not None
    assert server(None) and server({"status": "ERROR"}) and server({"status": "SOFT_DELETED"})
    assert not server({"status": "ACTIVE"})
    subnet = schema("OS::Neutron::Subnet").failed_replace
    assert subnet is not None and subnet(None) and not subnet({"id": "x"})  # no status field: update in place
    port = schema("OS::Neutron::Port").failed_replace
    assert port is not None and port({"status": "ERROR"}) and not port({"status": "DOWN"})
    volume = schema("OS::Cinder::Volume").failed_replace
    assert volume is not None and volume({"status": "deleting"}) and not volume({"status": "available"})
    assert schema("OS::Octavia::Pool").failed_replace is None  # Heat's default: always replace
