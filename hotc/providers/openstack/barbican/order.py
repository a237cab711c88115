"""OS::Barbican::Order: Barbican generates a key (``key``), a key pair (``asymmetric``) or a certificate; the
order is named by its reference (the physical id, as in Heat) and the create waits until Barbican's worker has
made what it ordered (ACTIVE), or fails with Barbican's reason (ERROR).

As in Heat, the order is the resource: deleting it deletes the order only, and the secret or container it made
stays in Barbican (``secret_ref``/``container_ref`` name them). The attributes ``public_key``, ``private_key``,
``certificate`` and ``intermediates`` are the payloads of the secrets in the order's container (None for a key
order, which has none); ``private_key`` is a sensitive attribute (masked in output, encrypted in the state), and so
is the ``pass_phrase`` property. No property is ``update_allowed`` in Heat: any change orders anew (a replace).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.barbican.common import (
    get_json,
    payload,
    same_time,
)
from hotc.providers.openstack.barbican.object_driver import BarbicanDriver
from hotc.providers.openstack.common import (
    wait_for,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps

KIND = "orders"
#: the attributes that are payloads of the secrets in the order's container, by the secret's name there
PAYLOADS = ("public_key", "private_key", "certificate", "intermediates")
SECRET_ATTRS = ("private_key",)
#: properties reported from the order's ``meta`` (``pass_phrase`` is never shown back)
META = (
    "algorithm",
    "bit_length",
    "mode",
    "payload_content_type",
    "expiration",
    "request_type",
    "subject_dn",
    "source_container_ref",
    "ca_id",
    "profile",
    "request_data",
)


def order_body(name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """The create request Heat's client makes: ``type`` and every other given property in ``meta``."""
    meta = {k: v for k, v in props.items() if k != "type" and v is not None}
    meta["name"] = name  # the name of the secret (or container) the order makes
    return {"type": props.get("type"), "meta": meta}


def failure(order: Mapping[str, Any], address: str) -> str | None:
    if str(order.get("status") or "").upper() != "ERROR":
        return None
    return f"Order '{address}' failed: {order.get('error_status_code')} - {order.get('error_reason')}"


class OrderDriver(BarbicanDriver):
    list_what = kind = KIND
    noun, ref_field = "order", "order_ref"
    name_filter = False

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        ref = self.post_once(ctx, props, lambda name: order_body(name, props), "create order")
        wait_for(
            ctx,
            f"order {ref}",
            lambda: get_json(ctx, conn, KIND, ref, "order"),
            lambda o: o is not None and str(o.get("status") or "").upper() == "ACTIVE",
            lambda o: failure(o, ctx.address),
        )
        return self.read_created(ctx, ref, props)

    def listed_usable(self, obj: Any) -> bool:
        return str(obj.data.get("status") or "").upper() != "PENDING"

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        data: dict[str, Any] = obj.data
        meta = data.get("meta") or {}
        lp = LiveProps(ctx, conn, props)
        lp.name(meta.get("name"))
        lp.text("type", data.get("type"))
        for key in META:
            given = props.get(key)
            if key not in meta or meta.get(key) == given:
                lp.put(key, given)  # what Barbican does not show back is kept as recorded
            elif key == "expiration":
                lp.put(key, given if same_time(given, meta.get(key)) else meta.get(key))
            else:
                lp.chosen(key, meta.get(key))
        attrs: dict[str, Any] = {
            "status": data.get("status"),
            "order_ref": data.get("order_ref"),
            "secret_ref": data.get("secret_ref"),
            "container_ref": data.get("container_ref"),
            "show": data,
        }
        attrs.update(self._payloads(ctx, conn, data.get("container_ref")))
        return replace(
            Outcome(str(data.get("order_ref") or obj.id), attrs),
            properties=lp.result(),
            sensitive_attributes=SECRET_ATTRS,
        )

    def _payloads(self, ctx: ActionContext, conn: Any, container_ref: Any) -> dict[str, Any]:
        """The payloads of the secrets in the order's container, as Heat reads them (None without a container)."""
        out: dict[str, Any] = dict.fromkeys(PAYLOADS)
        if not container_ref:
            return out
        container = get_json(ctx, conn, "containers", container_ref, "container")
        for ref in (container or {}).get("secret_refs") or []:
            if isinstance(ref, Mapping) and ref.get("name") in out and ref.get("secret_ref"):
                out[str(ref["name"])] = payload(ctx, conn, ref["secret_ref"])
        return out


DRIVERS: dict[str, Driver] = with_defaults({"OS::Barbican::Order": OrderDriver()})
