"""OS::Heat::StructuredDeploymentGroup (and its deprecated alias OS::Heat::StructuredDeployments): one
StructuredDeployment per entry of ``servers`` (``input_key`` and ``input_values_validate`` go to every member);
see :mod:`hotc.providers.native.deployment_group_mixin`."""

from __future__ import annotations

from hotc.providers.native.deployment_group_mixin import DeploymentGroupMixin
from hotc.providers.native.structured_deployment import StructuredDeploymentDriver


class StructuredDeploymentGroupDriver(DeploymentGroupMixin):
    member = StructuredDeploymentDriver()
