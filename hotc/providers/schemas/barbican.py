"""OS::Barbican::* resource types (service ``key-manager``), as Heat 27 declares them.

No property of these types is ``update_allowed`` in Heat: every change replaces the secret, order or container
(Barbican stores secrets and containers immutable). The physical id (what ``get_resource`` gives) is the
object's reference, the URI Barbican names it by (``http://…/v1/secrets/UUID``), as in Heat.

A secret's payload is a secret whatever the template gives it from: the ``payload`` of a Secret and the
``pass_phrase`` of an Order are sensitive properties, and the attributes that carry key material (a Secret's
``decrypted_payload``, an Order's ``private_key``) are sensitive attributes: masked in every plan and output,
encrypted in the state.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import AttrSchema, ResourceType
from hotc.providers.schemas._dsl import allowed, attrs, custom, integer, list_, map_, range_, string
from hotc.providers.schemas._rules import known

SERVICE = "key-manager"

SECRET_TYPES = ("symmetric", "public", "private", "certificate", "passphrase", "opaque")


def secret_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Secret.validate``: a content type needs a payload; ``application/octet-stream`` needs the
    ``base64`` encoding and a payload that decodes; an encoding is only for ``application/octet-stream``."""
    ctype, enc, payload = (
        props.get("payload_content_type"),
        props.get("payload_content_encoding"),
        props.get("payload"),
    )
    if not known(ctype, enc, payload):
        return []
    if ctype:
        if not payload:
            return [("payload_content_type", "payload_content_type cannot be specified without payload.")]
        if ctype == "application/octet-stream":
            if not enc:
                return [
                    (
                        "payload_content_encoding",
                        "Property unspecified. For 'application/octet-stream' value of "
                        "'payload_content_type' property, 'payload_content_encoding' property must be specified.",
                    )
                ]
            try:
                base64.b64decode(str(payload))
            except (binascii.Error, ValueError):
                return [
                    (
                        "payload",
                        f"Invalid payload for specified '{enc}' value of 'payload_content_encoding' property.",
                    )
                ]
    if enc and (not ctype or ctype == "text/plain"):
        return [
            (
                "payload_content_encoding",
                "payload_content_encoding property should only be specified for payload_content_type with "
                "value application/octet-stream.",
            )
        ]
    return []


SECRET = ResourceType(
    name="OS::Barbican::Secret",
    properties={
        "name": string(),
        "payload": string(sensitive=True),
        "secret_type": string(default="opaque", constraints=(allowed(*SECRET_TYPES),)),
        "payload_content_type": string(constraints=(allowed("text/plain", "application/octet-stream"),)),
        "payload_content_encoding": string(constraints=(allowed("base64"),)),
        "expiration": string(constraints=(custom("expiration"),)),
        "algorithm": string(),
        "bit_length": integer(constraints=(range_(min=0),)),
        "mode": string(),
    },
    attributes={
        **attrs(status="string"),
        "decrypted_payload": AttrSchema(
            description="the decrypted secret payload", type="string", sensitive=True
        ),
    },
    validators=(secret_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.barbican.secret.Secret",
)

ORDER_TYPES = ("key", "asymmetric", "certificate")
REQUEST_TYPES = ("stored-key", "simple-cmc", "custom")
#: the properties each type of order takes besides ``type`` (Heat's ``ALLOWED_PROPERTIES_FOR_TYPE``)
ORDER_PROPERTIES: Mapping[str, tuple[str, ...]] = {
    "key": ("name", "algorithm", "bit_length", "mode", "payload_content_type", "expiration"),
    "asymmetric": (
        "name",
        "algorithm",
        "bit_length",
        "mode",
        "pass_phrase",
        "payload_content_type",
        "expiration",
    ),
    "certificate": (
        "name",
        "request_type",
        "subject_dn",
        "source_container_ref",
        "ca_id",
        "profile",
        "request_data",
    ),
}


def order_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Order.validate``: key and asymmetric orders need ``algorithm`` and ``bit_length``; a certificate
    order's ``profile`` needs ``ca_id``; each type takes only its own properties."""
    otype = props.get("type")
    if not known(*props.values()) or otype not in ORDER_PROPERTIES:
        return []
    if otype != "certificate":
        if props.get("algorithm") is None or props.get("bit_length") is None:
            return [
                (
                    "type",
                    f"Properties algorithm and bit_length are required for {otype} type of order.",
                )
            ]
    elif props.get("profile") and not props.get("ca_id"):
        return [("profile", "profile cannot be specified without ca_id.")]
    declared = sorted(k for k, v in props.items() if k != "type" and v is not None)
    allowed_props = sorted(ORDER_PROPERTIES[str(otype)])
    extra = sorted(set(declared) - set(allowed_props))
    if extra:
        return [
            (
                extra[0],
                f"Unexpected properties: {', '.join(extra)}. Only these properties are allowed for {otype} type "
                f"of order: {', '.join(allowed_props)}.",
            )
        ]
    return []


def _payload_attr(what: str, *, sensitive: bool = False) -> AttrSchema:
    return AttrSchema(
        description=f"the payload of the created {what}, if available", type="string", sensitive=sensitive
    )


ORDER = ResourceType(
    name="OS::Barbican::Order",
    properties={
        "name": string(),
        "payload_content_type": string(),
        "expiration": string(constraints=(custom("expiration"),)),
        "algorithm": string(),
        "bit_length": integer(),
        "mode": string(),
        "type": string(required=True, constraints=(allowed(*ORDER_TYPES),)),
        "request_type": string(constraints=(allowed(*REQUEST_TYPES),)),
        "subject_dn": string(),
        "source_container_ref": string(constraints=(custom("barbican.container"),)),
        "ca_id": string(),
        "profile": string(),
        "request_data": string(),
        "pass_phrase": string(sensitive=True),
    },
    attributes={
        **attrs(status="string", order_ref="string", secret_ref="string", container_ref="string"),
        "public_key": _payload_attr("public key"),
        "private_key": _payload_attr("private key", sensitive=True),
        "certificate": _payload_attr("certificate"),
        "intermediates": _payload_attr("intermediates"),
    },
    validators=(order_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.barbican.order.Order",
)


def _container_attrs() -> dict[str, AttrSchema]:
    return attrs(status="string", container_ref="string", secret_refs="map", consumers="list")


def _unique_refs(refs: list[Any]) -> list[tuple[str, str]]:
    if not known(refs):
        return []
    given = [r for r in refs if r is not None]
    if len(given) != len(set(map(str, given))):
        return [("secrets", "Duplicate refs are not allowed.")]
    return []


def generic_container_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``GenericContainer.validate``: no secret twice."""
    secrets = props.get("secrets") or []
    if not known(secrets):
        return []
    return _unique_refs([s.get("ref") for s in secrets if isinstance(s, Mapping)])


GENERIC_CONTAINER = ResourceType(
    name="OS::Barbican::GenericContainer",
    properties={
        "name": string(),
        "secrets": list_(
            map_(
                {
                    "name": string(required=True),
                    "ref": string(required=True, constraints=(custom("barbican.secret"),)),
                }
            )
        ),
    },
    attributes=_container_attrs(),
    validators=(generic_container_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.barbican.container.GenericContainer",
)

#: the secret reference properties of the typed containers, by Barbican's name for the secret in the container
CERTIFICATE_REFS: Mapping[str, str] = {
    "certificate_ref": "certificate",
    "private_key_ref": "private_key",
    "private_key_passphrase_ref": "private_key_passphrase",
    "intermediates_ref": "intermediates",
}
RSA_REFS: Mapping[str, str] = {
    "private_key_ref": "private_key",
    "private_key_passphrase_ref": "private_key_passphrase",
    "public_key_ref": "public_key",
}


def _refs_validate(keys: Mapping[str, str]) -> Any:
    def validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Mirrors ``GenericContainer.validate`` with the typed containers' ``get_refs``: no secret twice."""
        return _unique_refs([props.get(k) for k in keys])

    return validate


def _typed_container(name: str, keys: Mapping[str, str], cls: str) -> ResourceType:
    return ResourceType(
        name=name,
        properties={
            "name": string(),
            **{k: string(constraints=(custom("barbican.secret"),)) for k in keys},
        },
        attributes=_container_attrs(),
        validators=(_refs_validate(keys),),
        service=SERVICE,
        heat_class=f"heat.engine.resources.openstack.barbican.container.{cls}",
    )


CERTIFICATE_CONTAINER = _typed_container(
    "OS::Barbican::CertificateContainer", CERTIFICATE_REFS, "CertificateContainer"
)
RSA_CONTAINER = _typed_container("OS::Barbican::RSAContainer", RSA_REFS, "RSAContainer")

TYPES = (SECRET, ORDER, GENERIC_CONTAINER, CERTIFICATE_CONTAINER, RSA_CONTAINER)
