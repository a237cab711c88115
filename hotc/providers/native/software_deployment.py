"""OS::Heat::SoftwareDeployment: runs a software config on a server through the in-instance agents
(os-collect-config, the heat-config hooks, heat-config-notify) over the signal store; see
:mod:`hotc.providers.native.deployment_mixin`."""

from __future__ import annotations

from hotc.providers.native.deployment_mixin import DeploymentMixin


class SoftwareDeploymentDriver(DeploymentMixin):
    pass
