"""OS::Keystone::* resource types (service ``identity``; Keystone's default policy makes them admin-only)."""

from __future__ import annotations

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import attrs, boolean, custom, list_, string

SERVICE = "identity"

PROJECT = ResourceType(
    name="OS::Keystone::Project",
    properties={
        "name": string(update=True),
        "domain": string(default="default", update=True, constraints=(custom("keystone.domain"),)),
        "description": string(default="", update=True),
        "enabled": boolean(default=True, update=True),
        "parent": string(constraints=(custom("keystone.project"),)),
        "tags": list_(default=[], update=True),
    },
    attributes=attrs(
        name="string", parent_id="string", domain_id="string", enabled="boolean", is_domain="boolean"
    ),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.project.KeystoneProject",
)

ROLE = ResourceType(
    name="OS::Keystone::Role",
    properties={
        "name": string(update=True),
        "domain": string(constraints=(custom("keystone.domain"),)),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.keystone.role.KeystoneRole",
)

TYPES = (PROJECT, ROLE)
