"""Heat-native resource types done in-process (no cloud): RandomString, Value, None, TestResource, the
software-config family and the signal types (wait conditions, Swift signals). ``DRIVERS`` maps type names to driver
instances.

A driver's module is imported when its type is first looked up (``DRIVERS[name]``, ``DRIVERS.get(name)``): asking
whether a type is native (``name in DRIVERS``) or validating a template of random strings does not import the
deployment or signal machinery (thread pools, the signal store's helpers)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from hotc.providers.base import Driver

# type name -> (module of hotc.providers.native, driver class); one driver instance per type name
_TABLE: Mapping[str, tuple[str, str]] = {
    "OS::Heat::RandomString": ("random_string", "RandomStringDriver"),
    "OS::Heat::Value": ("value", "ValueDriver"),
    "OS::Heat::None": ("none", "NoneDriver"),
    "OS::Heat::TestResource": ("test_resource", "HeatTestResourceDriver"),
    "OS::Heat::SoftwareConfig": ("software_config", "SoftwareConfigDriver"),
    "OS::Heat::StructuredConfig": ("software_config", "StructuredConfigDriver"),
    "OS::Heat::CloudConfig": ("software_config", "CloudConfigDriver"),
    "OS::Heat::MultipartMime": ("software_config", "MultipartMimeDriver"),
    "OS::Heat::SoftwareComponent": ("software_component", "SoftwareComponentDriver"),
    # signals, over the signal store (hotc.state.signal_store)
    "OS::Heat::WaitConditionHandle": ("wait_condition_handle", "WaitConditionHandleDriver"),
    "OS::Heat::WaitCondition": ("wait_condition", "WaitConditionDriver"),
    "OS::Heat::SwiftSignalHandle": ("swift_signal_handle", "SwiftSignalHandleDriver"),
    "OS::Heat::SwiftSignal": ("swift_signal", "SwiftSignalDriver"),
    "AWS::CloudFormation::WaitConditionHandle": ("aws_wait_condition_handle", "AwsWaitConditionHandleDriver"),
    "OS::Heat::UpdateWaitConditionHandle": ("aws_wait_condition_handle", "AwsWaitConditionHandleDriver"),
    "AWS::CloudFormation::WaitCondition": ("aws_wait_condition", "AwsWaitConditionDriver"),
    # software deployments, through the server's metadata object in the signal store
    "OS::Heat::SoftwareDeployment": ("software_deployment", "SoftwareDeploymentDriver"),
    "OS::Heat::StructuredDeployment": ("structured_deployment", "StructuredDeploymentDriver"),
    "OS::Heat::SoftwareDeploymentGroup": ("software_deployment_group", "SoftwareDeploymentGroupDriver"),
    "OS::Heat::SoftwareDeployments": ("software_deployment_group", "SoftwareDeploymentGroupDriver"),
    "OS::Heat::StructuredDeploymentGroup": ("structured_deployment_group", "StructuredDeploymentGroupDriver"),
    "OS::Heat::StructuredDeployments": ("structured_deployment_group", "StructuredDeploymentGroupDriver"),
    "OS::Heat::DeployedServer": ("deployed_server", "DeployedServerDriver"),
    # scaling: the policy's URLs into the signal store (its signals are executed by hotc.apply.scaling)
    "OS::Heat::ScalingPolicy": ("scaling_policy", "ScalingPolicyDriver"),
}


class _Drivers(Mapping[str, Driver]):
    """The table's drivers, each made (and its module imported) on first look-up, then kept."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[str, Driver] = {}

    def __getitem__(self, type_name: str) -> Driver:
        made = self._made.get(type_name)
        if made is None:
            module, cls = _TABLE[type_name]  # KeyError for a type that is not native
            driver: Driver = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
            made = self._made.setdefault(type_name, driver)  # two threads at once keep one of the two
        return made

    def __contains__(self, type_name: object) -> bool:
        return type_name in _TABLE

    def __iter__(self) -> Iterator[str]:
        return iter(_TABLE)

    def __len__(self) -> int:
        return len(_TABLE)


DRIVERS: Mapping[str, Driver] = _Drivers()
