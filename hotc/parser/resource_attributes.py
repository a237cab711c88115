"""The attribute names of each resource type OpenStack Heat 27 knows, for checking ``get_attr`` offline.

Heat's validate (``GetAtt.validate``) rejects ``get_attr`` of an attribute missing from the type's attributes
schema ("The Referenced Attribute (web outptu) is incorrect."). This is those names, written down as data
(read from Heat 27.0.1's resource plugins: each one's attributes schema plus the base ``show``). Types whose
class answers attributes beyond its schema (groups, deployments, OS::Heat::None, AWS::CloudFormation::Stack)
are not listed: any attribute name is accepted on them. Where hotc has a provider schema
(:mod:`hotc.providers.schemas`), that schema's attributes are used and agree with these.
"""

from __future__ import annotations

from typing import Final

#: type name -> attribute names
RESOURCE_ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "AWS::AutoScaling::AutoScalingGroup": frozenset({"InstanceList", "show"}),
    "AWS::AutoScaling::LaunchConfiguration": frozenset({"show"}),
    "AWS::AutoScaling::ScalingPolicy": frozenset({"AlarmUrl", "show"}),
    "AWS::CloudFormation::WaitCondition": frozenset({"Data", "show"}),
    "AWS::CloudFormation::WaitConditionHandle": frozenset({"show"}),
    "AWS::EC2::EIP": frozenset({"AllocationId", "show"}),
    "AWS::EC2::EIPAssociation": frozenset({"show"}),
    "AWS::EC2::Instance": frozenset(
        {"AvailabilityZone", "PrivateDnsName", "PrivateIp", "PublicDnsName", "PublicIp", "show"}
    ),
    "AWS::EC2::InternetGateway": frozenset({"show"}),
    "AWS::EC2::NetworkInterface": frozenset({"PrivateIpAddress", "show"}),
    "AWS::EC2::RouteTable": frozenset({"show"}),
    "AWS::EC2::SecurityGroup": frozenset({"show"}),
    "AWS::EC2::Subnet": frozenset({"AvailabilityZone", "show"}),
    "AWS::EC2::SubnetRouteTableAssociation": frozenset({"show"}),
    "AWS::EC2::VPC": frozenset({"show"}),
    "AWS::EC2::VPCGatewayAttachment": frozenset({"show"}),
    "AWS::EC2::Volume": frozenset({"show"}),
    "AWS::EC2::VolumeAttachment": frozenset({"show"}),
    "AWS::ElasticLoadBalancing::LoadBalancer": frozenset(
        {
            "CanonicalHostedZoneName",
            "CanonicalHostedZoneNameID",
            "DNSName",
            "SourceSecurityGroup.GroupName",
            "SourceSecurityGroup.OwnerAlias",
            "show",
        }
    ),
    "AWS::IAM::AccessKey": frozenset({"SecretAccessKey", "UserName", "show"}),
    "AWS::IAM::User": frozenset({"show"}),
    "AWS::S3::Bucket": frozenset({"DomainName", "WebsiteURL", "show"}),
    "OS::Aodh::Alarm": frozenset({"show"}),
    "OS::Aodh::CompositeAlarm": frozenset({"show"}),
    "OS::Aodh::EventAlarm": frozenset({"show"}),
    "OS::Aodh::GnocchiAggregationByMetricsAlarm": frozenset({"show"}),
    "OS::Aodh::GnocchiAggregationByResourcesAlarm": frozenset({"show"}),
    "OS::Aodh::GnocchiResourcesAlarm": frozenset({"show"}),
    "OS::Aodh::LBMemberHealthAlarm": frozenset({"show"}),
    "OS::Aodh::PrometheusAlarm": frozenset({"show"}),
    "OS::Barbican::CertificateContainer": frozenset(
        {"consumers", "container_ref", "secret_refs", "show", "status"}
    ),
    "OS::Barbican::GenericContainer": frozenset(
        {"consumers", "container_ref", "secret_refs", "show", "status"}
    ),
    "OS::Barbican::Order": frozenset(
        {
            "certificate",
            "container_ref",
            "intermediates",
            "order_ref",
            "private_key",
            "public_key",
            "secret_ref",
            "show",
            "status",
        }
    ),
    "OS::Barbican::RSAContainer": frozenset({"consumers", "container_ref", "secret_refs", "show", "status"}),
    "OS::Barbican::Secret": frozenset({"decrypted_payload", "show", "status"}),
    "OS::Blazar::Host": frozenset(
        {
            "cpu_info",
            "created_at",
            "extra_capability",
            "hypervisor_hostname",
            "hypervisor_type",
            "hypervisor_version",
            "local_gb",
            "memory_mb",
            "reservable",
            "service_name",
            "show",
            "status",
            "trust_id",
            "updated_at",
            "vcpus",
        }
    ),
    "OS::Blazar::Lease": frozenset(
        {
            "created_at",
            "degraded",
            "end_date",
            "events",
            "name",
            "project_id",
            "reservations",
            "show",
            "start_date",
            "status",
            "trust_id",
            "updated_at",
            "user_id",
        }
    ),
    "OS::Cinder::EncryptedVolumeType": frozenset({"show"}),
    "OS::Cinder::QoSAssociation": frozenset({"show"}),
    "OS::Cinder::QoSSpecs": frozenset({"show"}),
    "OS::Cinder::Quota": frozenset({"show"}),
    "OS::Cinder::Volume": frozenset(
        {
            "attachments",
            "attachments_list",
            "availability_zone",
            "bootable",
            "created_at",
            "display_description",
            "display_name",
            "encrypted",
            "metadata",
            "metadata_values",
            "multiattach",
            "show",
            "size",
            "snapshot_id",
            "source_volid",
            "status",
            "volume_type",
        }
    ),
    "OS::Cinder::VolumeAttachment": frozenset({"show"}),
    "OS::Cinder::VolumeType": frozenset({"show"}),
    "OS::Designate::RecordSet": frozenset({"show"}),
    "OS::Designate::Zone": frozenset({"serial", "show"}),
    "OS::Glance::WebImage": frozenset({"show"}),
    "OS::Heat::AccessPolicy": frozenset({"show"}),
    "OS::Heat::CloudConfig": frozenset({"config", "show"}),
    "OS::Heat::Delay": frozenset({"show"}),
    "OS::Heat::DeployedServer": frozenset({"name", "os_collect_config", "show"}),
    "OS::Heat::InstanceGroup": frozenset({"InstanceList", "show"}),
    "OS::Heat::MultipartMime": frozenset({"config", "show"}),
    "OS::Heat::RandomString": frozenset({"show", "value"}),
    "OS::Heat::ScalingPolicy": frozenset({"alarm_url", "show", "signal_url"}),
    "OS::Heat::SoftwareComponent": frozenset({"config", "show"}),
    "OS::Heat::SoftwareConfig": frozenset({"config", "show"}),
    "OS::Heat::Stack": frozenset({"outputs", "show", "stack_name"}),
    "OS::Heat::StructuredConfig": frozenset({"config", "show"}),
    "OS::Heat::SwiftSignal": frozenset({"data", "show"}),
    "OS::Heat::SwiftSignalHandle": frozenset({"curl_cli", "endpoint", "show", "token"}),
    "OS::Heat::TestResource": frozenset({"output", "show"}),
    "OS::Heat::UpdateWaitConditionHandle": frozenset({"show"}),
    "OS::Heat::Value": frozenset({"show", "value"}),
    "OS::Heat::WaitCondition": frozenset({"data", "show"}),
    "OS::Heat::WaitConditionHandle": frozenset({"curl_cli", "endpoint", "show", "signal", "token"}),
    "OS::Ironic::Port": frozenset(
        {
            "address",
            "extra",
            "internal_info",
            "is_smartnic",
            "local_link_connection",
            "node_uuid",
            "physical_network",
            "portgroup_uuid",
            "pxe_enabled",
            "show",
        }
    ),
    "OS::Keystone::Domain": frozenset({"show"}),
    "OS::Keystone::Endpoint": frozenset({"show"}),
    "OS::Keystone::Group": frozenset({"show"}),
    "OS::Keystone::GroupRoleAssignment": frozenset({"show"}),
    "OS::Keystone::Project": frozenset({"domain_id", "enabled", "is_domain", "name", "parent_id", "show"}),
    "OS::Keystone::Region": frozenset({"show"}),
    "OS::Keystone::Role": frozenset({"show"}),
    "OS::Keystone::Service": frozenset({"show"}),
    "OS::Keystone::User": frozenset(
        {"default_project_id", "domain_id", "enabled", "name", "password_expires_at", "show"}
    ),
    "OS::Keystone::UserRoleAssignment": frozenset({"show"}),
    "OS::Magnum::Cluster": frozenset(
        {
            "api_address",
            "cluster_template_id",
            "coe_version",
            "container_version",
            "create_timeout",
            "discovery_url",
            "keypair",
            "master_addresses",
            "master_count",
            "name",
            "node_addresses",
            "node_count",
            "show",
            "stack_id",
            "status",
            "status_reason",
        }
    ),
    "OS::Magnum::ClusterTemplate": frozenset({"show"}),
    "OS::Manila::SecurityService": frozenset({"show"}),
    "OS::Manila::Share": frozenset(
        {
            "availability_zone",
            "created_at",
            "export_locations",
            "host",
            "project_id",
            "share_server_id",
            "show",
            "status",
        }
    ),
    "OS::Manila::ShareNetwork": frozenset({"cidr", "ip_version", "network_type", "segmentation_id", "show"}),
    "OS::Manila::ShareType": frozenset({"show"}),
    "OS::Mistral::CronTrigger": frozenset({"next_execution_time", "remaining_executions", "show"}),
    "OS::Mistral::ExternalResource": frozenset({"output", "show"}),
    "OS::Mistral::Workflow": frozenset({"alarm_url", "data", "executions", "show"}),
    "OS::Neutron::AddressScope": frozenset({"show"}),
    "OS::Neutron::ExtraRoute": frozenset({"show"}),
    "OS::Neutron::ExtraRouteSet": frozenset({"show"}),
    "OS::Neutron::Firewall": frozenset(
        {
            "admin_state_up",
            "description",
            "firewall_policy_id",
            "name",
            "shared",
            "show",
            "status",
            "tenant_id",
        }
    ),
    "OS::Neutron::FirewallPolicy": frozenset(
        {"audited", "description", "firewall_rules", "name", "shared", "show", "tenant_id"}
    ),
    "OS::Neutron::FirewallRule": frozenset(
        {
            "action",
            "description",
            "destination_ip_address",
            "destination_port",
            "enabled",
            "firewall_policy_id",
            "ip_version",
            "name",
            "position",
            "protocol",
            "shared",
            "show",
            "source_ip_address",
            "source_port",
            "tenant_id",
        }
    ),
    "OS::Neutron::FloatingIP": frozenset(
        {
            "fixed_ip_address",
            "floating_ip_address",
            "floating_network_id",
            "port_id",
            "router_id",
            "show",
            "tenant_id",
        }
    ),
    "OS::Neutron::FloatingIPAssociation": frozenset({"show"}),
    "OS::Neutron::FloatingIPPortForward": frozenset({"show"}),
    "OS::Neutron::FlowClassifier": frozenset({"show"}),
    "OS::Neutron::IKEPolicy": frozenset(
        {
            "auth_algorithm",
            "description",
            "encryption_algorithm",
            "ike_version",
            "lifetime",
            "name",
            "pfs",
            "phase1_negotiation_mode",
            "show",
            "tenant_id",
        }
    ),
    "OS::Neutron::IPsecPolicy": frozenset(
        {
            "auth_algorithm",
            "description",
            "encapsulation_mode",
            "encryption_algorithm",
            "lifetime",
            "name",
            "pfs",
            "show",
            "tenant_id",
            "transform_protocol",
        }
    ),
    "OS::Neutron::IPsecSiteConnection": frozenset(
        {
            "admin_state_up",
            "auth_mode",
            "description",
            "dpd",
            "ikepolicy_id",
            "initiator",
            "ipsecpolicy_id",
            "mtu",
            "name",
            "peer_address",
            "peer_cidrs",
            "peer_id",
            "psk",
            "route_mode",
            "show",
            "status",
            "tenant_id",
            "vpnservice_id",
        }
    ),
    "OS::Neutron::L2Gateway": frozenset({"show"}),
    "OS::Neutron::L2GatewayConnection": frozenset({"show"}),
    "OS::Neutron::MeteringLabel": frozenset({"description", "name", "shared", "show"}),
    "OS::Neutron::MeteringRule": frozenset(
        {"direction", "excluded", "metering_label_id", "remote_ip_prefix", "show"}
    ),
    "OS::Neutron::Net": frozenset(
        {
            "admin_state_up",
            "l2_adjacency",
            "mtu",
            "name",
            "port_security_enabled",
            "qos_policy_id",
            "segments",
            "show",
            "status",
            "subnets",
            "tenant_id",
        }
    ),
    "OS::Neutron::NetworkGateway": frozenset({"default", "show"}),
    "OS::Neutron::Port": frozenset(
        {
            "admin_state_up",
            "allowed_address_pairs",
            "device_id",
            "device_owner",
            "dns_assignment",
            "fixed_ips",
            "mac_address",
            "name",
            "network",
            "network_id",
            "port_security_enabled",
            "propagate_uplink_status",
            "qos_policy_id",
            "security_groups",
            "show",
            "status",
            "subnets",
            "tenant_id",
        }
    ),
    "OS::Neutron::PortChain": frozenset({"show"}),
    "OS::Neutron::PortPair": frozenset({"show"}),
    "OS::Neutron::PortPairGroup": frozenset({"show"}),
    "OS::Neutron::ProviderNet": frozenset({"segments", "show", "status", "subnets"}),
    "OS::Neutron::QoSBandwidthLimitRule": frozenset({"show"}),
    "OS::Neutron::QoSDscpMarkingRule": frozenset({"show"}),
    "OS::Neutron::QoSMinimumBandwidthRule": frozenset({"show"}),
    "OS::Neutron::QoSMinimumPacketRateRule": frozenset({"show"}),
    "OS::Neutron::QoSPolicy": frozenset({"rules", "show"}),
    "OS::Neutron::Quota": frozenset({"show"}),
    "OS::Neutron::RBACPolicy": frozenset({"show"}),
    "OS::Neutron::Router": frozenset(
        {"admin_state_up", "external_gateway_info", "name", "show", "status", "tenant_id"}
    ),
    "OS::Neutron::RouterInterface": frozenset({"show"}),
    "OS::Neutron::SecurityGroup": frozenset({"show"}),
    "OS::Neutron::SecurityGroupRule": frozenset({"show"}),
    "OS::Neutron::Segment": frozenset({"show"}),
    "OS::Neutron::Subnet": frozenset(
        {
            "allocation_pools",
            "cidr",
            "dns_nameservers",
            "enable_dhcp",
            "gateway_ip",
            "host_routes",
            "ip_version",
            "name",
            "network_id",
            "show",
            "tenant_id",
        }
    ),
    "OS::Neutron::SubnetPool": frozenset({"show"}),
    "OS::Neutron::TaaS::TapFlow": frozenset({"show"}),
    "OS::Neutron::TaaS::TapService": frozenset({"show"}),
    "OS::Neutron::Trunk": frozenset({"port_id", "show"}),
    "OS::Neutron::VPNService": frozenset(
        {"admin_state_up", "description", "name", "router_id", "show", "status", "subnet_id", "tenant_id"}
    ),
    "OS::Nova::Flavor": frozenset({"extra_specs", "is_public", "show"}),
    "OS::Nova::HostAggregate": frozenset({"show"}),
    "OS::Nova::KeyPair": frozenset({"private_key", "public_key", "show"}),
    "OS::Nova::Quota": frozenset({"show"}),
    "OS::Nova::Server": frozenset(
        {
            "accessIPv4",
            "accessIPv6",
            "addresses",
            "console_urls",
            "first_address",
            "instance_name",
            "name",
            "networks",
            "os_collect_config",
            "show",
            "tags",
        }
    ),
    "OS::Nova::ServerGroup": frozenset({"show"}),
    "OS::Octavia::AvailabilityZone": frozenset({"availability_zone_profile_id", "show"}),
    "OS::Octavia::AvailabilityZoneProfile": frozenset({"show"}),
    "OS::Octavia::Flavor": frozenset({"flavor_profile_id", "show"}),
    "OS::Octavia::FlavorProfile": frozenset({"show"}),
    "OS::Octavia::HealthMonitor": frozenset({"pools", "show"}),
    "OS::Octavia::L7Policy": frozenset({"rules", "show"}),
    "OS::Octavia::L7Rule": frozenset({"show"}),
    "OS::Octavia::Listener": frozenset({"default_pool_id", "loadbalancers", "show"}),
    "OS::Octavia::LoadBalancer": frozenset(
        {"flavor_id", "pools", "show", "vip_address", "vip_port_id", "vip_subnet_id"}
    ),
    "OS::Octavia::Pool": frozenset({"healthmonitor_id", "listeners", "members", "show"}),
    "OS::Octavia::PoolMember": frozenset({"show"}),
    "OS::Octavia::Quota": frozenset({"show"}),
    "OS::Swift::Container": frozenset(
        {"BytesUsed", "DomainName", "HeadContainer", "ObjectCount", "RootURL", "WebsiteURL", "show"}
    ),
    "OS::Trove::Cluster": frozenset({"instances", "ip", "show"}),
    "OS::Trove::Instance": frozenset({"hostname", "href", "show"}),
    "OS::Zaqar::MistralTrigger": frozenset({"show"}),
    "OS::Zaqar::Queue": frozenset({"href", "queue_id", "show"}),
    "OS::Zaqar::SignedQueueURL": frozenset(
        {"expires", "methods", "paths", "project", "query_str", "show", "signature"}
    ),
    "OS::Zaqar::Subscription": frozenset({"show"}),
    "OS::Zun::Container": frozenset({"addresses", "name", "show"}),
}
