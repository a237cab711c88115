"""OS::Nova::Quota (admin-only under Nova's default policy): a project's compute quota set (see
:mod:`hotc.providers.openstack.quota_set`). The calls ask for microversion 2.1, where Nova takes every limit
Heat's schema has (from 2.36 Nova refuses ``fixed_ips``, ``floating_ips``, ``security_groups`` and
``security_group_rules``, from 2.57 the file injection ones); with Neutron those nova-network limits are kept and
unused."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.quota_set import QuotaDriver
from hotc.providers.schemas.nova import QUOTA_LIMITS as LIMITS


class NovaQuotaDriver(QuotaDriver):
    what = "compute quota"
    body_key = "quota_set"
    keys = {k: k for k in LIMITS}
    headers = {"OpenStack-API-Version": "compute 2.1", "X-OpenStack-Nova-API-Version": "2.1"}

    def adapter(self, conn: Any) -> Any:
        return conn.compute

    def path(self, project_id: str) -> str:
        return f"/os-quota-sets/{project_id}"


DRIVERS: dict[str, Driver] = with_defaults({"OS::Nova::Quota": NovaQuotaDriver()})
