"""OS::Barbican::Secret: a secret stored in Barbican, named by its reference (the physical id, as in Heat).

The body is the one Heat's client sends: a payload with no content type is stored as ``text/plain``; a given
content type and encoding go as given; an empty payload is refused as Heat's client refuses it. Barbican keeps a
secret as it was stored, so no property changes in place (Heat replaces the secret for any change, and so does
hotc's plan); what can change outside hotc is the secret's existence (a secret deleted outside is made again).
``decrypted_payload`` is read live with every read and is a sensitive attribute (masked in output,
encrypted in the state); the ``payload`` property is sensitive too (its schema says so), and neither appears in
a plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.barbican.common import (
    payload,
    same_time,
)
from hotc.providers.openstack.barbican.object_driver import BarbicanDriver
from hotc.providers.openstack.common import (
    ProviderError,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps

KIND = "secrets"
DECRYPTED = "decrypted_payload"


def secret_body(name: str, props: Mapping[str, Any]) -> dict[str, Any]:
    """The create request Heat's client makes of the properties."""
    text = props.get("payload")
    if text is not None and not isinstance(text, str):
        raise ProviderError("create secret: Invalid Payload Type")
    if text is not None and not text:
        raise ProviderError("create secret: Invalid Payload: Cannot Be Empty String")
    body: dict[str, Any] = {
        "name": name,
        "algorithm": props.get("algorithm"),
        "mode": props.get("mode"),
        "bit_length": props.get("bit_length"),
        "secret_type": props.get("secret_type"),
        "expiration": props.get("expiration"),
    }
    ctype, enc = props.get("payload_content_type"), props.get("payload_content_encoding")
    if ctype or enc:
        body.update(payload=text, payload_content_type=ctype, payload_content_encoding=enc)
    elif text is not None:
        body.update(payload=text, payload_content_type="text/plain")
    return {k: v for k, v in body.items() if v is not None}


class SecretDriver(BarbicanDriver):
    list_what = kind = KIND
    noun, ref_field = "secret", "secret_ref"

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        ref = self.post_once(ctx, props, lambda name: secret_body(name, props), "create secret")
        return self.read_created(ctx, ref, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, obj: Any, props: Mapping[str, Any]) -> Outcome:
        meta: dict[str, Any] = obj.data
        types = meta.get("content_types") or {}
        ctype = types.get("default") if isinstance(types, Mapping) else None
        lp = LiveProps(ctx, conn, props)
        lp.name(meta.get("name"))
        for key in ("algorithm", "mode", "secret_type"):
            lp.text(key, meta.get(key))
        lp.put("bit_length", meta.get("bit_length"))
        if "expiration" in props:
            given = props.get("expiration")
            live = meta.get("expiration")
            lp.put("expiration", given if (given == live or same_time(given, live)) else live)
        # the encoding and the payload cannot be read back as given: the refresh keeps what was recorded
        lp.put("payload_content_type", ctype)
        attrs = {
            "status": meta.get("status"),
            DECRYPTED: payload(ctx, conn, obj.id, ctype) if ctype else None,
            "show": meta,
        }
        return replace(
            Outcome(str(meta.get("secret_ref") or obj.id), attrs),
            properties=lp.result(),
            sensitive_attributes=(DECRYPTED,),
        )


DRIVERS: dict[str, Driver] = with_defaults({"OS::Barbican::Secret": SecretDriver()})
