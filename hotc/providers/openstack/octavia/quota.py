"""OS::Octavia::Quota (admin-only under Octavia's default policy): a project's load-balancer quota (see
:mod:`hotc.providers.openstack.quota_set`). Heat's ``loadbalancer`` and ``healthmonitor`` are sent and read as
Octavia's current keys ``load_balancer`` and ``health_monitor`` (the old ones are deprecated aliases)."""

from __future__ import annotations

from typing import Any

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.quota_set import QuotaDriver


class OctaviaQuotaDriver(QuotaDriver):
    what = "load-balancer quota"
    body_key = "quota"
    keys = {
        "healthmonitor": "health_monitor",
        "listener": "listener",
        "loadbalancer": "load_balancer",
        "pool": "pool",
        "member": "member",
    }

    def adapter(self, conn: Any) -> Any:
        return conn.load_balancer

    def path(self, project_id: str) -> str:
        return f"/lbaas/quotas/{project_id}"


DRIVERS: dict[str, Driver] = with_defaults({"OS::Octavia::Quota": OctaviaQuotaDriver()})
