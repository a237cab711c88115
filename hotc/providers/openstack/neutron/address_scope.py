"""OS::Neutron::AddressScope (untagged: Neutron takes no tags on address scopes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import _put
from hotc.providers.openstack.neutron.untagged import UntaggedNamed


class AddressScopeDriver(UntaggedNamed):
    kind, plural, what = "address_scope", "address_scopes", "address scope"
    simple = {"name": "name", "shared": "shared"}

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "ip_version", props.get("ip_version"))
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.put("shared", raw.get("shared"))
        lp.put("ip_version", raw.get("ip_version"))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::AddressScope": AddressScopeDriver()})
