"""Heat-native resource types done in-process (no cloud): RandomString, Value, None, TestResource, the
software-config family and the signal types (wait conditions, Swift signals). ``DRIVERS`` maps type names to driver instances."""

from __future__ import annotations

from collections.abc import Mapping

from hotc.providers.base import Driver
from hotc.providers.native.aws_wait_condition import AwsWaitConditionDriver
from hotc.providers.native.aws_wait_condition_handle import AwsWaitConditionHandleDriver
from hotc.providers.native.deployed_server import DeployedServerDriver
from hotc.providers.native.none import NoneDriver
from hotc.providers.native.random_string import RandomStringDriver
from hotc.providers.native.scaling_policy import ScalingPolicyDriver
from hotc.providers.native.software_component import SoftwareComponentDriver
from hotc.providers.native.software_config import (
    CloudConfigDriver,
    MultipartMimeDriver,
    SoftwareConfigDriver,
    StructuredConfigDriver,
)
from hotc.providers.native.software_deployment import SoftwareDeploymentDriver
from hotc.providers.native.software_deployment_group import SoftwareDeploymentGroupDriver
from hotc.providers.native.structured_deployment import StructuredDeploymentDriver
from hotc.providers.native.structured_deployment_group import StructuredDeploymentGroupDriver
from hotc.providers.native.swift_signal import SwiftSignalDriver
from hotc.providers.native.swift_signal_handle import SwiftSignalHandleDriver
from hotc.providers.native.test_resource import HeatTestResourceDriver
from hotc.providers.native.value import ValueDriver
from hotc.providers.native.wait_condition import WaitConditionDriver
from hotc.providers.native.wait_condition_handle import WaitConditionHandleDriver

DRIVERS: Mapping[str, Driver] = {
    "OS::Heat::RandomString": RandomStringDriver(),
    "OS::Heat::Value": ValueDriver(),
    "OS::Heat::None": NoneDriver(),
    "OS::Heat::TestResource": HeatTestResourceDriver(),
    "OS::Heat::SoftwareConfig": SoftwareConfigDriver(),
    "OS::Heat::StructuredConfig": StructuredConfigDriver(),
    "OS::Heat::CloudConfig": CloudConfigDriver(),
    "OS::Heat::MultipartMime": MultipartMimeDriver(),
    "OS::Heat::SoftwareComponent": SoftwareComponentDriver(),
    # signals, over the signal store (hotc.state.signal_store)
    "OS::Heat::WaitConditionHandle": WaitConditionHandleDriver(),
    "OS::Heat::WaitCondition": WaitConditionDriver(),
    "OS::Heat::SwiftSignalHandle": SwiftSignalHandleDriver(),
    "OS::Heat::SwiftSignal": SwiftSignalDriver(),
    "AWS::CloudFormation::WaitConditionHandle": AwsWaitConditionHandleDriver(),
    "OS::Heat::UpdateWaitConditionHandle": AwsWaitConditionHandleDriver(),
    "AWS::CloudFormation::WaitCondition": AwsWaitConditionDriver(),
    # software deployments, through the server's metadata object in the signal store
    "OS::Heat::SoftwareDeployment": SoftwareDeploymentDriver(),
    "OS::Heat::StructuredDeployment": StructuredDeploymentDriver(),
    "OS::Heat::SoftwareDeploymentGroup": SoftwareDeploymentGroupDriver(),
    "OS::Heat::SoftwareDeployments": SoftwareDeploymentGroupDriver(),
    "OS::Heat::StructuredDeploymentGroup": StructuredDeploymentGroupDriver(),
    "OS::Heat::StructuredDeployments": StructuredDeploymentGroupDriver(),
    "OS::Heat::DeployedServer": DeployedServerDriver(),
    # scaling: the policy's URLs into the signal store (its signals are executed by hotc.apply.scaling)
    "OS::Heat::ScalingPolicy": ScalingPolicyDriver(),
}
