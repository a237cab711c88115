"""OS::Neutron::Quota (admin-only under Neutron's default policy): a project's network quota (see
:mod:`hotc.providers.openstack.quota_set`); Heat's property names are Neutron's API keys. The delete resets the
project's quota: Heat's passes its own resource id (the name it generated) to Neutron's reset instead of the
project, so under Heat the limits stay."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.quota_set import QuotaDriver
from hotc.providers.schemas.neutron import QUOTA_LIMITS as LIMITS


class NeutronQuotaDriver(QuotaDriver):
    what = "network quota"
    body_key = "quota"
    keys = {k: k for k in LIMITS}

    def adapter(self, conn: Any) -> Any:
        return conn.network

    def path(self, project_id: str) -> str:
        return f"/quotas/{project_id}"


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::Quota": NeutronQuotaDriver()})
