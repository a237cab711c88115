"""OS::Glance::* resource types (service ``image``)."""

from __future__ import annotations

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import allowed, attrs, boolean, integer, list_, map_, pattern, range_, string

_UUID = pattern("^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$")

WEB_IMAGE = ResourceType(
    name="OS::Glance::WebImage",
    properties={
        "name": string(),
        "id": string(),
        "min_disk": integer(default=0, constraints=(range_(min=0),)),
        "min_ram": integer(default=0, constraints=(range_(min=0),)),
        "protected": boolean(default=False, update=True),
        "disk_format": string(
            required=True,
            constraints=(
                allowed("ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop"),
            ),
        ),
        "container_format": string(
            required=True, constraints=(allowed("ami", "ari", "aki", "bare", "ovf", "ova", "docker"),)
        ),
        "location": string(required=True),
        "tags": list_(update=True, set_like=True),
        "architecture": string(update=True),
        "kernel_id": string(update=True, constraints=(_UUID,)),
        "os_distro": string(update=True),
        "os_version": string(update=True),
        "owner": string(update=True),
        "extra_properties": map_(default={}, update=True),
        "visibility": string(
            default="private", update=True, constraints=(allowed("public", "private", "community", "shared"),)
        ),
        "ramdisk_id": string(update=True, constraints=(_UUID,)),
        "active": boolean(default=True, update=True),
        "members": list_(string(), update=True, set_like=True),
    },
    attributes=attrs(),
    service="image",
    heat_class="heat.engine.resources.openstack.glance.image.GlanceWebImage",
)

TYPES = (WEB_IMAGE,)
