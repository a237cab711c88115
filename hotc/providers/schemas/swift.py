"""OS::Swift::* resource types (service ``object-store``)."""

from __future__ import annotations

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import attrs, boolean, map_, string

CONTAINER = ResourceType(
    name="OS::Swift::Container",
    properties={
        # Nothing is update_allowed: any change replaces the container (and deleting a non-empty one fails
        # unless PurgeOnDelete is true).
        "name": string(),
        "X-Container-Read": string(),
        "X-Container-Write": string(),
        "X-Container-Meta": map_(default={}),
        "X-Account-Meta": map_(default={}),
        "PurgeOnDelete": boolean(default=False),
    },
    attributes=attrs("DomainName", "WebsiteURL", "RootURL", "ObjectCount", "BytesUsed", "HeadContainer"),
    service="object-store",
    heat_class="heat.engine.resources.openstack.swift.container.SwiftContainer",
)

TYPES = (CONTAINER,)
