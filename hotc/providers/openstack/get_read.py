"""``GetRead``: the ``read`` of a driver whose object one GET gives, read the same way a list call's object is
(:class:`~hotc.providers.openstack.batch.ListRead.read_outcome`): the GET, None when the cloud answers 404,
else the outcome. A driver gives what it reads (``read_what``, for the call's label) and the GET
(``get_live``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Outcome
from hotc.providers.openstack.common import get_or_none


class GetRead:
    read_what = "object"

    def get_live(self, conn: Any, physical_id: str) -> Any:
        """The object ``physical_id`` names (the SDK's ``get_*``: raises NotFound when it is gone)."""
        raise NotImplementedError

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        raise NotImplementedError

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        obj = get_or_none(ctx, f"read {self.read_what} {physical_id}", self.get_live, conn, physical_id)
        return None if obj is None else self.read_outcome(ctx, conn, obj, props)
