"""OS::Heat::SoftwareDeploymentGroup (and its deprecated alias OS::Heat::SoftwareDeployments): one
SoftwareDeployment per entry of ``servers``; see :mod:`hotc.providers.native.deployment_group_mixin`."""

from __future__ import annotations

from hotc.providers.native.deployment_group_mixin import DeploymentGroupMixin
from hotc.providers.native.software_deployment import SoftwareDeploymentDriver


class SoftwareDeploymentGroupDriver(DeploymentGroupMixin):
    member = SoftwareDeploymentDriver()
