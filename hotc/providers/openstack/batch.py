"""Reading many resources of one type with one list call (a refresh at scale).

A driver with the :class:`ListRead` mixin lists its objects once per refresh, filtered by hotc's lineage tag where
the API filters by tag (Neutron, Octavia, Glance) and by project elsewhere (Nova, Cinder), and turns each listed
object into the same :class:`~hotc.providers.base.Outcome` its ``read`` gives (``read_outcome``). What the list
does not hold (an adopted object without hotc's stamp, one in a transitional status, or a list the cloud
refused) is left to the caller, which reads those one by one with ``read`` (in parallel).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hotc.providers.base import ActionContext, Outcome
from hotc.providers.openstack.common import TAG_LINEAGE, ProviderError, call
from hotc.providers.shared_lookup import once

# (context of one resource, its physical id, its recorded properties with defaults)
Item = tuple[ActionContext, str, Mapping[str, Any]]


def lineage_tag(ctx: ActionContext) -> str:
    return f"{TAG_LINEAGE}={ctx.lineage}"


def shared(ctx: ActionContext, key: Any, fetch: Any) -> Any:
    """``fetch()``, once per refresh when the context carries a cache (``ActionContext.cache``)."""
    cache = ctx.cache
    if cache is None:
        return fetch()
    return once(cache, key, fetch)


class ListRead:
    """``read_many``: one list call for every resource of the type (see the module)."""

    list_what = "resources"

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        """The objects of this type a list call gives (hotc's, at least)."""
        raise NotImplementedError

    def listed_usable(self, obj: Any) -> bool:
        """Whether a listed object can be reported as is (not in a transitional status, not being deleted)."""
        return True

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        raise NotImplementedError

    def read_many(self, items: Sequence[Item]) -> dict[str, Outcome]:
        """Outcomes of the items the list call found (by physical id); the others are not in the result."""
        if not items:
            return {}
        ctx0 = items[0][0]
        conn = ctx0.cloud()
        what = getattr(self, "plural", "") or self.list_what
        try:
            listed = call(ctx0, f"list {what}", lambda: list(self.list_live(ctx0, conn)))
        except ProviderError as exc:
            ctx0.log(f"list {what}: {exc}; reading them one by one")
            return {}
        by_id = {str(o.id): o for o in listed}
        out: dict[str, Outcome] = {}
        for ctx, pid, props in items:
            obj = by_id.get(pid)
            if obj is not None and self.listed_usable(obj):
                out[pid] = self.read_outcome(ctx, conn, obj, props)
        return out
