"""The resource type names OpenStack Heat 27 knows, with their support status.

Heat registers its resource plugins by name (each plugin module's ``resource_mapping``). This is that name
list, written down as data (the names and statuses were read from openstack/heat at the 27.x series):

- ``SUPPORTED`` / ``DEPRECATED`` / ``UNSUPPORTED``: real plugins (UNSUPPORTED = "use at your own risk");
- ``HIDDEN``: retired types that Heat keeps as placeholders (mostly ``NoneResource``): a template using them
  still validates and creates nothing useful, so hotc accepts them with a warning;
- any other name is unknown: "The Resource Type (X) could not be found." unless an environment maps it.

Property schemas live in :mod:`hotc.providers`; this module knows names only.
"""

from __future__ import annotations

from typing import Final

SUPPORTED: Final = "supported"
DEPRECATED: Final = "deprecated"
UNSUPPORTED: Final = "unsupported"
HIDDEN: Final = "hidden"

#: name -> support status
RESOURCE_TYPES: Final[dict[str, str]] = {
    "AWS::AutoScaling::AutoScalingGroup": SUPPORTED,
    "AWS::AutoScaling::LaunchConfiguration": SUPPORTED,
    "AWS::AutoScaling::ScalingPolicy": SUPPORTED,
    "AWS::CloudFormation::Stack": SUPPORTED,
    "AWS::CloudFormation::WaitCondition": SUPPORTED,
    "AWS::CloudFormation::WaitConditionHandle": SUPPORTED,
    "AWS::EC2::EIP": SUPPORTED,
    "AWS::EC2::EIPAssociation": SUPPORTED,
    "AWS::EC2::Instance": SUPPORTED,
    "AWS::EC2::InternetGateway": SUPPORTED,
    "AWS::EC2::NetworkInterface": SUPPORTED,
    "AWS::EC2::RouteTable": SUPPORTED,
    "AWS::EC2::SecurityGroup": SUPPORTED,
    "AWS::EC2::Subnet": SUPPORTED,
    "AWS::EC2::SubnetRouteTableAssociation": SUPPORTED,
    "AWS::EC2::VPC": SUPPORTED,
    "AWS::EC2::VPCGatewayAttachment": SUPPORTED,
    "AWS::EC2::Volume": SUPPORTED,
    "AWS::EC2::VolumeAttachment": SUPPORTED,
    "AWS::ElasticLoadBalancing::LoadBalancer": SUPPORTED,
    "AWS::IAM::AccessKey": SUPPORTED,
    "AWS::IAM::User": SUPPORTED,
    "AWS::S3::Bucket": SUPPORTED,
    "OS::Aodh::Alarm": DEPRECATED,
    "OS::Aodh::CombinationAlarm": HIDDEN,
    "OS::Aodh::CompositeAlarm": SUPPORTED,
    "OS::Aodh::EventAlarm": SUPPORTED,
    "OS::Aodh::GnocchiAggregationByMetricsAlarm": SUPPORTED,
    "OS::Aodh::GnocchiAggregationByResourcesAlarm": SUPPORTED,
    "OS::Aodh::GnocchiResourcesAlarm": SUPPORTED,
    "OS::Aodh::LBMemberHealthAlarm": SUPPORTED,
    "OS::Aodh::PrometheusAlarm": SUPPORTED,
    "OS::Barbican::CertificateContainer": SUPPORTED,
    "OS::Barbican::GenericContainer": SUPPORTED,
    "OS::Barbican::Order": SUPPORTED,
    "OS::Barbican::RSAContainer": SUPPORTED,
    "OS::Barbican::Secret": SUPPORTED,
    "OS::Blazar::Host": SUPPORTED,
    "OS::Blazar::Lease": SUPPORTED,
    "OS::Cinder::EncryptedVolumeType": SUPPORTED,
    "OS::Cinder::QoSAssociation": SUPPORTED,
    "OS::Cinder::QoSSpecs": SUPPORTED,
    "OS::Cinder::Quota": SUPPORTED,
    "OS::Cinder::Volume": SUPPORTED,
    "OS::Cinder::VolumeAttachment": SUPPORTED,
    "OS::Cinder::VolumeType": SUPPORTED,
    "OS::Designate::Domain": HIDDEN,
    "OS::Designate::Record": HIDDEN,
    "OS::Designate::RecordSet": SUPPORTED,
    "OS::Designate::Zone": SUPPORTED,
    "OS::Glance::Image": HIDDEN,
    "OS::Glance::WebImage": SUPPORTED,
    "OS::Heat::AccessPolicy": SUPPORTED,
    "OS::Heat::AutoScalingGroup": SUPPORTED,
    "OS::Heat::CloudConfig": SUPPORTED,
    "OS::Heat::Delay": SUPPORTED,
    "OS::Heat::DeployedServer": SUPPORTED,
    "OS::Heat::HARestarter": HIDDEN,
    "OS::Heat::InstanceGroup": SUPPORTED,
    "OS::Heat::MultipartMime": SUPPORTED,
    "OS::Heat::None": SUPPORTED,
    "OS::Heat::RandomString": SUPPORTED,
    "OS::Heat::ResourceChain": SUPPORTED,
    "OS::Heat::ResourceGroup": SUPPORTED,
    "OS::Heat::ScalingPolicy": SUPPORTED,
    "OS::Heat::SoftwareComponent": SUPPORTED,
    "OS::Heat::SoftwareConfig": SUPPORTED,
    "OS::Heat::SoftwareDeployment": SUPPORTED,
    "OS::Heat::SoftwareDeploymentGroup": SUPPORTED,
    "OS::Heat::SoftwareDeployments": HIDDEN,
    "OS::Heat::Stack": SUPPORTED,
    "OS::Heat::StructuredConfig": SUPPORTED,
    "OS::Heat::StructuredDeployment": SUPPORTED,
    "OS::Heat::StructuredDeploymentGroup": SUPPORTED,
    "OS::Heat::StructuredDeployments": HIDDEN,
    "OS::Heat::SwiftSignal": SUPPORTED,
    "OS::Heat::SwiftSignalHandle": SUPPORTED,
    "OS::Heat::TestResource": SUPPORTED,
    "OS::Heat::UpdateWaitConditionHandle": SUPPORTED,
    "OS::Heat::Value": SUPPORTED,
    "OS::Heat::WaitCondition": SUPPORTED,
    "OS::Heat::WaitConditionHandle": SUPPORTED,
    "OS::Ironic::Port": SUPPORTED,
    "OS::Keystone::Domain": SUPPORTED,
    "OS::Keystone::Endpoint": SUPPORTED,
    "OS::Keystone::Group": SUPPORTED,
    "OS::Keystone::GroupRoleAssignment": SUPPORTED,
    "OS::Keystone::Project": SUPPORTED,
    "OS::Keystone::Region": SUPPORTED,
    "OS::Keystone::Role": SUPPORTED,
    "OS::Keystone::Service": SUPPORTED,
    "OS::Keystone::User": SUPPORTED,
    "OS::Keystone::UserRoleAssignment": SUPPORTED,
    "OS::Magnum::Bay": HIDDEN,
    "OS::Magnum::BayModel": HIDDEN,
    "OS::Magnum::Cluster": SUPPORTED,
    "OS::Magnum::ClusterTemplate": SUPPORTED,
    "OS::Manila::SecurityService": SUPPORTED,
    "OS::Manila::Share": SUPPORTED,
    "OS::Manila::ShareNetwork": SUPPORTED,
    "OS::Manila::ShareType": SUPPORTED,
    "OS::Mistral::CronTrigger": SUPPORTED,
    "OS::Mistral::ExternalResource": SUPPORTED,
    "OS::Mistral::Workflow": SUPPORTED,
    "OS::Monasca::AlarmDefinition": HIDDEN,
    "OS::Monasca::Notification": HIDDEN,
    "OS::Neutron::AddressScope": SUPPORTED,
    "OS::Neutron::ExtraRoute": UNSUPPORTED,
    "OS::Neutron::ExtraRouteSet": SUPPORTED,
    "OS::Neutron::Firewall": SUPPORTED,
    "OS::Neutron::FirewallPolicy": SUPPORTED,
    "OS::Neutron::FirewallRule": SUPPORTED,
    "OS::Neutron::FloatingIP": SUPPORTED,
    "OS::Neutron::FloatingIPAssociation": SUPPORTED,
    "OS::Neutron::FloatingIPPortForward": SUPPORTED,
    "OS::Neutron::FlowClassifier": UNSUPPORTED,
    "OS::Neutron::HealthMonitor": HIDDEN,
    "OS::Neutron::IKEPolicy": SUPPORTED,
    "OS::Neutron::IPsecPolicy": SUPPORTED,
    "OS::Neutron::IPsecSiteConnection": SUPPORTED,
    "OS::Neutron::L2Gateway": SUPPORTED,
    "OS::Neutron::L2GatewayConnection": SUPPORTED,
    "OS::Neutron::LBaaS::HealthMonitor": HIDDEN,
    "OS::Neutron::LBaaS::L7Policy": HIDDEN,
    "OS::Neutron::LBaaS::L7Rule": HIDDEN,
    "OS::Neutron::LBaaS::Listener": HIDDEN,
    "OS::Neutron::LBaaS::LoadBalancer": HIDDEN,
    "OS::Neutron::LBaaS::Pool": HIDDEN,
    "OS::Neutron::LBaaS::PoolMember": HIDDEN,
    "OS::Neutron::LoadBalancer": HIDDEN,
    "OS::Neutron::MeteringLabel": SUPPORTED,
    "OS::Neutron::MeteringRule": SUPPORTED,
    "OS::Neutron::Net": SUPPORTED,
    "OS::Neutron::NetworkGateway": SUPPORTED,
    "OS::Neutron::Pool": HIDDEN,
    "OS::Neutron::PoolMember": HIDDEN,
    "OS::Neutron::Port": SUPPORTED,
    "OS::Neutron::PortChain": UNSUPPORTED,
    "OS::Neutron::PortPair": UNSUPPORTED,
    "OS::Neutron::PortPairGroup": UNSUPPORTED,
    "OS::Neutron::ProviderNet": SUPPORTED,
    "OS::Neutron::QoSBandwidthLimitRule": SUPPORTED,
    "OS::Neutron::QoSDscpMarkingRule": SUPPORTED,
    "OS::Neutron::QoSMinimumBandwidthRule": SUPPORTED,
    "OS::Neutron::QoSMinimumPacketRateRule": SUPPORTED,
    "OS::Neutron::QoSPolicy": SUPPORTED,
    "OS::Neutron::Quota": SUPPORTED,
    "OS::Neutron::RBACPolicy": SUPPORTED,
    "OS::Neutron::Router": SUPPORTED,
    "OS::Neutron::RouterGateway": HIDDEN,
    "OS::Neutron::RouterInterface": SUPPORTED,
    "OS::Neutron::SecurityGroup": SUPPORTED,
    "OS::Neutron::SecurityGroupRule": SUPPORTED,
    "OS::Neutron::Segment": SUPPORTED,
    "OS::Neutron::Subnet": SUPPORTED,
    "OS::Neutron::SubnetPool": SUPPORTED,
    "OS::Neutron::TaaS::TapFlow": SUPPORTED,
    "OS::Neutron::TaaS::TapService": SUPPORTED,
    "OS::Neutron::Trunk": SUPPORTED,
    "OS::Neutron::VPNService": SUPPORTED,
    "OS::Nova::Flavor": SUPPORTED,
    "OS::Nova::FloatingIP": HIDDEN,
    "OS::Nova::FloatingIPAssociation": HIDDEN,
    "OS::Nova::HostAggregate": SUPPORTED,
    "OS::Nova::KeyPair": SUPPORTED,
    "OS::Nova::Quota": SUPPORTED,
    "OS::Nova::Server": SUPPORTED,
    "OS::Nova::ServerGroup": SUPPORTED,
    "OS::Octavia::AvailabilityZone": SUPPORTED,
    "OS::Octavia::AvailabilityZoneProfile": SUPPORTED,
    "OS::Octavia::Flavor": SUPPORTED,
    "OS::Octavia::FlavorProfile": SUPPORTED,
    "OS::Octavia::HealthMonitor": SUPPORTED,
    "OS::Octavia::L7Policy": SUPPORTED,
    "OS::Octavia::L7Rule": SUPPORTED,
    "OS::Octavia::Listener": SUPPORTED,
    "OS::Octavia::LoadBalancer": SUPPORTED,
    "OS::Octavia::Pool": SUPPORTED,
    "OS::Octavia::PoolMember": SUPPORTED,
    "OS::Octavia::Quota": SUPPORTED,
    "OS::Sahara::Cluster": HIDDEN,
    "OS::Sahara::ClusterTemplate": HIDDEN,
    "OS::Sahara::DataSource": HIDDEN,
    "OS::Sahara::ImageRegistry": HIDDEN,
    "OS::Sahara::Job": HIDDEN,
    "OS::Sahara::JobBinary": HIDDEN,
    "OS::Sahara::NodeGroupTemplate": HIDDEN,
    "OS::Senlin::Cluster": SUPPORTED,
    "OS::Senlin::Node": SUPPORTED,
    "OS::Senlin::Policy": SUPPORTED,
    "OS::Senlin::Profile": SUPPORTED,
    "OS::Senlin::Receiver": SUPPORTED,
    "OS::Swift::Container": SUPPORTED,
    "OS::Trove::Cluster": SUPPORTED,
    "OS::Trove::Instance": SUPPORTED,
    "OS::Vitrage::Template": HIDDEN,
    "OS::Zaqar::MistralTrigger": SUPPORTED,
    "OS::Zaqar::Queue": SUPPORTED,
    "OS::Zaqar::SignedQueueURL": SUPPORTED,
    "OS::Zaqar::Subscription": SUPPORTED,
    "OS::Zun::Container": SUPPORTED,
}

#: types whose class implements a snapshot on delete (``deletion_policy: Snapshot`` is valid only for them)
SNAPSHOT_TYPES: Final[frozenset[str]] = frozenset(
    {"OS::Nova::Server", "OS::Heat::DeployedServer", "OS::Cinder::Volume", "AWS::EC2::Volume"}
)

#: types that take a nested template (their templates are loaded and validated like template resources)
STACK_TYPES: Final[frozenset[str]] = frozenset({"OS::Heat::Stack", "AWS::CloudFormation::Stack"})

#: types whose members are defined by a nested resource definition (ResourceGroup's resource_def, ...)
GROUP_TYPES: Final[frozenset[str]] = frozenset(
    {"OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup", "OS::Heat::ResourceChain"}
)


#: ``update_policy`` keys each type accepts (Heat's ``update_policy_schema``); every other type accepts none
UPDATE_POLICY_KEYS: Final[dict[str, frozenset[str]]] = {
    "OS::Heat::ResourceGroup": frozenset({"rolling_update", "batch_create"}),
    "OS::Heat::SoftwareDeploymentGroup": frozenset({"rolling_update", "batch_create"}),
    "OS::Heat::StructuredDeploymentGroup": frozenset({"rolling_update", "batch_create"}),
    "OS::Heat::SoftwareDeployments": frozenset({"rolling_update", "batch_create"}),
    "OS::Heat::StructuredDeployments": frozenset({"rolling_update", "batch_create"}),
    "OS::Heat::InstanceGroup": frozenset({"RollingUpdate"}),
    "AWS::AutoScaling::AutoScalingGroup": frozenset({"AutoScalingRollingUpdate"}),
}


def update_policy_keys(name: str) -> frozenset[str]:
    return UPDATE_POLICY_KEYS.get(name, frozenset())


def status(name: str) -> str | None:
    """The support status of a built-in type, or None when Heat 27 has no such type."""
    return RESOURCE_TYPES.get(name)


def is_known(name: str) -> bool:
    return name in RESOURCE_TYPES


def not_found_message(name: str) -> str:
    """Heat's wording, plus what to do."""
    hint = ""
    stripped = name.strip().rstrip(",")
    if stripped != name and stripped in RESOURCE_TYPES:
        hint = f" (did you mean {stripped}?)"
    else:
        lower = {k.lower(): k for k in RESOURCE_TYPES}
        if name.lower() in lower:
            hint = f" (did you mean {lower[name.lower()]}?)"
    return (
        f"The Resource Type ({name}) could not be found.{hint} It is not a type Heat provides; map it in an "
        "environment's resource_registry (to a type or a template file) or fix the name"
    )


#: HIDDEN types whose Heat plugin still works (hidden from Heat's type list, deprecated, not a placeholder):
#: name -> what to use instead
HIDDEN_WORKING: Final[dict[str, str]] = {
    "OS::Neutron::RouterGateway": "the external_gateway_info property of OS::Neutron::Router",
}


def hidden_message(name: str) -> str:
    if name in HIDDEN_WORKING:
        return (
            f"resource type {name} is deprecated and hidden in Heat (it still works, in Heat and in hotc); "
            f"use {HIDDEN_WORKING[name]}"
        )
    return (
        f"resource type {name} is retired in Heat: it is kept only as a placeholder that does nothing; "
        "use its replacement"
    )
