"""OS::Designate::* (service ``dns``), as Heat 27 declares them (``heat/engine/resources/openstack/designate/``).

- ``Zone``: ``name`` is required and a change of it, of ``type`` or of ``attributes`` replaces the zone;
  ``ttl``, ``description``, ``email`` and the primaries are updated in place. ``masters`` is the deprecated
  name of ``primaries``: Heat moves ``primaries`` into ``masters`` (what Designate's API takes) and refuses both
  at once. A PRIMARY zone needs ``email``, a SECONDARY one its primaries (``masters`` after that move).
- ``RecordSet``: ``ttl``, ``description`` and ``records`` are updated in place; ``name``, ``type`` and ``zone``
  replace it.
- ``Domain`` and ``Record``: Designate's v1 API is gone and Heat 27 keeps these names hidden, as placeholders
  (its NoneResource) that take any properties and make nothing; so does hotc.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    attrs,
    custom,
    integer,
    length_,
    list_,
    map_,
    range_,
    string,
)
from hotc.providers.schemas._rules import known

SERVICE = "dns"
_HEAT = "heat.engine.resources.openstack.designate."

ZONE_TYPES = ("PRIMARY", "SECONDARY")
RECORD_TYPES = (
    "A",
    "AAAA",
    "CNAME",
    "MX",
    "SRV",
    "TXT",
    "SPF",
    "NS",
    "PTR",
    "SSHFP",
    "SOA",
    "CAA",
    "CERT",
    "NAPTR",
)
_TTL = (range_(min=1, max=2147483647),)


def primaries(props: Mapping[str, Any]) -> Any:
    """The zone's primary servers as Heat sends them (``masters``): ``primaries``, else the deprecated ``masters``."""
    given = props.get("primaries")
    return given if given is not None else props.get("masters")


def zone_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Heat's translation of ``primaries`` into ``masters`` (both at once is an error), then its ``validate``: a
    PRIMARY zone needs ``email``, a SECONDARY zone its primaries."""
    out: list[tuple[str, str]] = []
    new, old = props.get("primaries"), props.get("masters")
    if known(new, old) and new and old:
        out.append(
            ("primaries", "Cannot define the following properties at the same time: masters, primaries")
        )
    zone_type = props.get("type", "PRIMARY")
    if not known(zone_type):
        return out
    if zone_type == "PRIMARY" and known(props.get("email")) and not props.get("email"):
        out.append(("email", "Property email is required for zone type PRIMARY"))
    if zone_type == "SECONDARY" and known(new, old) and not (new or old):
        out.append(("masters", "Property masters is required for zone type SECONDARY"))
    return out


ZONE = ResourceType(
    name="OS::Designate::Zone",
    properties={
        "name": string(required=True, constraints=(length_(max=255),)),
        "ttl": integer(update=True, constraints=_TTL),
        "description": string(update=True, constraints=(length_(max=160),)),
        "email": string(update=True),
        "type": string(default="PRIMARY", constraints=(allowed(*ZONE_TYPES),)),
        "masters": list_(update=True, deprecated=True),
        "primaries": list_(update=True),
        "attributes": map_(),
    },
    attributes=attrs(serial="string"),
    validators=(zone_validate,),
    service=SERVICE,
    heat_class=_HEAT + "zone.DesignateZone",
)

RECORD_SET = ResourceType(
    name="OS::Designate::RecordSet",
    properties={
        "name": string(constraints=(length_(max=255),)),
        "ttl": integer(update=True, constraints=_TTL),
        "description": string(update=True, constraints=(length_(max=160),)),
        "type": string(required=True, constraints=(allowed(*RECORD_TYPES),)),
        "records": list_(required=True, update=True),
        "zone": string(required=True, constraints=(custom("designate.zone"),)),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class=_HEAT + "recordset.DesignateRecordSet",
)


def _placeholder(name: str, heat_class: str, instead: str) -> ResourceType:
    return ResourceType(
        name=name,
        properties={},
        attributes=attrs(),
        never_updates=True,
        accepts_any_properties=True,
        support="hidden",
        description=f"removed with Designate's v1 API: a placeholder (as OS::Heat::None); use {instead}",
        heat_class=heat_class,
    )


DOMAIN = _placeholder("OS::Designate::Domain", _HEAT + "domain.DesignateDomain", "OS::Designate::Zone")
RECORD = _placeholder("OS::Designate::Record", _HEAT + "record.DesignateRecord", "OS::Designate::RecordSet")

TYPES = (ZONE, RECORD_SET, DOMAIN, RECORD)
