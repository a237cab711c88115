"""OS::Neutron::ProviderNet: a network with its provider attributes (``provider:network_type``, ...) and
``router:external``; admin-only under Neutron's default policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put

# Heat property -> Neutron field
PROVIDER_FIELDS = {
    "network_type": "provider:network_type",
    "physical_network": "provider:physical_network",
    "segmentation_id": "provider:segmentation_id",
    "router_external": "router:external",
}


class ProviderNetDriver(NeutronDriver):
    kind, plural, what = "network", "networks", "provider network"
    simple = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "shared": "shared",
        "port_security_enabled": "port_security_enabled",
        "dns_domain": "dns_domain",
        "availability_zone_hints": "availability_zone_hints",
        **PROVIDER_FIELDS,
    }
    attribute_names = ("status", "subnets", "segments")

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        for prop, field in PROVIDER_FIELDS.items():
            lp.text(prop, raw.get(field))
        for key in ("admin_state_up", "shared", "port_security_enabled"):
            lp.put(key, raw.get(key))
        lp.text("dns_domain", raw.get("dns_domain") or "")
        lp.put("availability_zone_hints", list(raw.get("availability_zone_hints") or []))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::ProviderNet": ProviderNetDriver()})
