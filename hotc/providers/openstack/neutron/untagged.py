"""What the Neutron types without tags share (address scopes and QoS rules carry neither tags nor a free text
field for hotc's stamp): a create whose answer was lost is found again only by a name hotc generated, and
adoption after a killed run likewise (a name the template gives is not evidence enough: something else may
carry it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext
from hotc.providers.openstack.common import adopt_by_generated_name, call, is_generated_name, newest
from hotc.providers.openstack.neutron.base import NeutronDriver


class UntaggedNamed(NeutronDriver):
    """A :class:`NeutronDriver` of an untaggable kind that has a ``name``: found again by a generated name."""

    tagged = False

    def _find_just_made(self, ctx: ActionContext, conn: Any, name: str | None) -> Any:
        if not name or not is_generated_name(ctx, name):
            return None
        found = call(ctx, f"search {self.what}", lambda: list(self._proxy(conn, "list")(name=name)))
        return newest(found)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        conn = ctx.cloud()
        return adopt_by_generated_name(ctx, props, self.what, lambda: self._proxy(conn, "list")())
