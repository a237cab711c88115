"""OS::Cinder::Quota (admin-only under Cinder's default policy): a project's block storage quota set (see
:mod:`hotc.providers.openstack.quota_set`). As Heat's ``validate_quotas``, a limit below what the project uses
already (volumes, snapshots, backups, and the gigabytes of volumes and snapshots, or of backups) is refused
before anything is set; -1 (no limit) always passes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import ProviderError, call, with_defaults
from hotc.providers.openstack.quota_set import QuotaDriver
from hotc.providers.schemas.cinder import QUOTA_LIMITS as LIMITS


def below_usage(limits: Mapping[str, int], usage: Mapping[str, Any]) -> list[str]:
    """The limits (other than -1) below the project's usage, as ``key value < in use N`` phrases."""
    out = []
    for key, value in limits.items():
        used = usage.get(key)
        in_use = used.get("in_use") if isinstance(used, Mapping) else None
        if value != -1 and isinstance(in_use, int) and value < in_use:
            out.append(f"{key} {value} < in use {in_use}")
    return out


class CinderQuotaDriver(QuotaDriver):
    what = "block storage quota"
    body_key = "quota_set"
    keys = {k: k for k in LIMITS}

    def adapter(self, conn: Any) -> Any:
        return conn.block_storage

    def path(self, project_id: str) -> str:
        return f"/os-quota-sets/{project_id}"

    def check(self, ctx: ActionContext, conn: Any, project_id: str, limits: Mapping[str, int]) -> None:
        if all(v == -1 for v in limits.values()):
            return
        got = call(
            ctx,
            f"read the block storage usage of project {project_id}",
            self.request,
            conn,
            "GET",
            f"{self.path(project_id)}?usage=True",
        )
        low = below_usage(limits, self.live_limits(got))
        if low:
            raise ProviderError(
                f"the block storage quota of project {project_id} cannot be set below what the project uses: "
                + ", ".join(low)
            )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Cinder::Quota": CinderQuotaDriver()})
