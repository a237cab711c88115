"""The modules of Heat's functional suite that need cloud services (Nova servers, Cinder, Swift, Keystone, Manila,
notifications) or Heat API features hotc has no counterpart for: listed so that the translation is complete;
each is skipped with its reason. The cloud scenarios hotc supports are tested against the test cloud in
tests/apply/test_cloud_*.py."""

from __future__ import annotations

import pytest

SKIPPED = {
    "test_autoscaling": "AWS::AutoScaling::AutoScalingGroup of Nova servers (a cloud scenario)",
    "test_instance_group": "OS::Heat::InstanceGroup of Nova servers (a cloud scenario)",
    "test_aws_stack": "AWS::CloudFormation::Stack with a template URL in Swift (CFN, a cloud scenario)",
    "test_cancel_update": "a server and a port updated and cancelled (a cloud scenario)",
    "test_keystone_user_with_domain": "Keystone users and domains (a cloud scenario)",
    "test_notifications": "Heat's oslo.messaging notifications: hotc emits none (its events are in the state)",
    "test_purge": "heat-manage purge_deleted of Heat's database: hotc has no database",
    "test_replace_deprecated": "OS::Heat::SoftwareDeployment on servers (a cloud scenario)",
    "test_simultaneous_update": "convergence's update while an update runs: hotc's stack lock refuses it",
    "test_snapshot_restore": "a server's snapshot (a cloud scenario; hotc snapshot is tested on the cloud)",
    "test_software_deployment_group": "OS::Heat::SoftwareDeploymentGroup on servers (a cloud scenario)",
    "test_swiftsignal_update": "OS::Heat::SwiftSignal (Swift, a cloud scenario)",
    "test_translation": "Neutron subnets and networks (a cloud scenario)",
    "test_versionnegotiation": "Heat's REST API version document: hotc has no API",
    "test_conditional_exposure": "resource types hidden by service availability and policy (a cloud scenario)",
    "test_abandon_adopt": "abandon and adopt of a stack's JSON export: hotc has no abandon/adopt (import instead)",
}


@pytest.mark.parametrize("module", sorted(SKIPPED))
def test_module(module: str) -> None:
    pytest.skip(SKIPPED[module])
