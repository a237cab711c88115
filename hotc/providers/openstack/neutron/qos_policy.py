"""OS::Neutron::QoSPolicy (tagged like the other Neutron resources; its ``rules`` attribute lists the rules)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ActionContext, Driver
from hotc.providers.openstack.common import plain, with_defaults
from hotc.providers.openstack.live import LiveProps
from hotc.providers.openstack.neutron.base import NeutronDriver, _put


class QoSPolicyDriver(NeutronDriver):
    kind, plural, what = "qos_policy", "qos_policies", "QoS policy"
    simple = {"name": "name", "description": "description", "shared": "shared"}

    def create_body(self, ctx: ActionContext, conn: Any, props: Mapping[str, Any]) -> dict[str, Any]:
        body = super().create_body(ctx, conn, props)
        _put(body, "project_id", props.get("tenant_id"))
        return body

    def attributes(self, ctx: ActionContext, conn: Any, res: Any) -> dict[str, Any]:
        return {"rules": plain(res.to_dict(original_names=True).get("rules") or [])}

    def live_properties(self, lp: LiveProps, raw: Mapping[str, Any]) -> None:
        lp.text("description", raw.get("description") or "")
        lp.put("shared", raw.get("shared"))
        lp.put("tenant_id", raw.get("project_id") or raw.get("tenant_id"))


DRIVERS: dict[str, Driver] = with_defaults({"OS::Neutron::QoSPolicy": QoSPolicyDriver()})
