"""OS::Cinder::* resource types (service ``block-storage``, the catalog's ``volumev3``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import allowed, attrs, boolean, custom, integer, list_, map_, range_, string
from hotc.providers.schemas._quota import quota_type
from hotc.providers.schemas._rules import changed, failed_replace_on_status, known

SERVICE = "block-storage"


def volume_shrink_check(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``CinderVolume.handle_update``: a smaller ``size`` raises NotSupported("Shrinking volume"), so
    the whole update fails; hotc reports it at plan time. (Heat compares with the live size; the planner compares
    with the size in state, which a refresh keeps current.)"""
    if not changed(old, new, "size"):
        return []
    before, after = old.get("size"), new.get("size")
    if known(before, after) and isinstance(before, int) and isinstance(after, int) and after < before:
        return [("size", f"a volume cannot shrink (size {before} → {after}); Cinder only extends volumes")]
    return []


def volume_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``CinderVolume.validate`` / ``_validate_create_sources``: ``image`` and ``imageRef`` conflict;
    unless restoring from ``backup_id``, a volume without ``size`` needs exactly one of ``snapshot_id`` or
    ``source_volid`` (and nothing else), and a sized one at most one of image/imageRef/source_volid/snapshot_id."""
    keys = ("image", "imageRef", "snapshot_id", "source_volid", "size", "backup_id")
    if not known(*(props.get(k) for k in keys)):
        return []
    out: list[tuple[str, str]] = []
    if props.get("image") and props.get("imageRef"):
        out.append(("image", "image and imageRef cannot both be given"))
    if props.get("backup_id"):
        return out
    exclusive = [k for k in ("snapshot_id", "source_volid", "image", "imageRef") if props.get(k)]
    no_size_ok = [k for k in ("snapshot_id", "source_volid") if props.get(k)]
    size = props.get("size")
    if size is None and (len(no_size_ok) != 1 or len(exclusive) != 1):
        out.append(
            (
                "size",
                "without backup_id or size, exactly one of source_volid or snapshot_id must be given"
                f" (given: {', '.join(exclusive) or 'none'})",
            )
        )
    elif size and len(exclusive) > 1:
        out.append(
            (
                "size",
                f"only one of image, imageRef, source_volid, snapshot_id may be given (given: {', '.join(exclusive)})",
            )
        )
    return out


VOLUME = ResourceType(
    name="OS::Cinder::Volume",
    properties={
        "availability_zone": string(),
        "size": integer(update=True, constraints=(range_(min=1),)),
        "snapshot_id": string(constraints=(custom("cinder.snapshot"),)),
        "backup_id": string(update=True, constraints=(custom("cinder.backup"),)),
        "name": string(update=True),
        "description": string(update=True),
        "volume_type": string(update=True, constraints=(custom("cinder.vtype"),)),
        "metadata": map_(default={}, update=True),
        "imageRef": string(hidden=True, alias_of="image"),
        "image": string(constraints=(custom("glance.image"),)),
        "source_volid": string(constraints=(custom("cinder.volume"),)),
        "scheduler_hints": map_(),
        "read_only": boolean(update=True),
        "multiattach": boolean(default=False, hidden=True),
    },
    attributes=attrs(
        "availability_zone",
        "size",
        "snapshot_id",
        "display_name",
        "display_description",
        "volume_type",
        "metadata",
        "source_volid",
        "status",
        "created_at",
        "bootable",
        "metadata_values",
        "encrypted",
        "attachments",
        "attachments_list",
        "multiattach",
        stable=("availability_zone", "created_at", "snapshot_id", "source_volid"),
    ),
    update_checks=(volume_shrink_check,),
    validators=(volume_validate,),
    snapshot_delete=True,
    # CinderVolume.needs_replace_failed: only an error / deleting (or vanished) volume is replaced.
    failed_replace=failed_replace_on_status("error", "deleting"),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.volume.CinderVolume",
)

VOLUME_ATTACHMENT = ResourceType(
    name="OS::Cinder::VolumeAttachment",
    properties={
        "instance_uuid": string(required=True, update=True),
        "volume_id": string(required=True, update=True, constraints=(custom("cinder.volume"),)),
        "mountpoint": string(update=True),
    },
    attributes=attrs(),
    # Heat's handle_update detaches the volume and attaches it again (to the new server/volume/device).
    service="compute",
    heat_class="heat.engine.resources.openstack.cinder.volume.CinderVolumeAttachment",
)


def volume_type_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``CinderVolumeType.validate``: ``projects`` cannot be given to a public volume type."""
    projects, public = props.get("projects"), props.get("is_public", True)
    if projects and known(projects, public) and public:
        return [("projects", 'can not specify property "projects" if the volume type is public')]
    return []


VOLUME_TYPE = ResourceType(
    name="OS::Cinder::VolumeType",
    properties={
        "name": string(required=True, update=True),
        "metadata": map_(update=True),
        "is_public": boolean(default=True, update=True),
        "description": string(update=True),
        "projects": list_(
            string(constraints=(custom("keystone.project"),)), default=[], update=True, set_like=True
        ),
    },
    attributes=attrs(),
    validators=(volume_type_validate,),
    # a volume type has no status to fail in: one left FAILED or IN_PROGRESS (a killed run) is kept while it
    # exists with the desired properties; replacing it would make a second type of the same name, which
    # Cinder refuses (409), so the stack could never converge
    failed_replace=lambda live: live is None,
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.volume_type.CinderVolumeType",
)

QOS_SPECS = ResourceType(
    name="OS::Cinder::QoSSpecs",
    properties={
        "name": string(),
        "specs": map_(required=True, update=True),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.qos_specs.QoSSpecs",
)

QOS_ASSOCIATION = ResourceType(
    name="OS::Cinder::QoSAssociation",
    properties={
        "qos_specs": string(required=True, constraints=(custom("cinder.qos_specs"),)),
        "volume_types": list_(
            string(constraints=(custom("cinder.vtype"),)), required=True, update=True, set_like=True
        ),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.qos_specs.QoSAssociation",
)

ENCRYPTED_VOLUME_TYPE = ResourceType(
    name="OS::Cinder::EncryptedVolumeType",
    properties={
        "provider": string(required=True, update=True),
        "control_location": string(
            default="front-end", update=True, constraints=(allowed("front-end", "back-end"),)
        ),
        "cipher": string(update=True, constraints=(allowed("aes-xts-plain64", "aes-cbc-essiv"),)),
        "key_size": integer(update=True),
        "volume_type": string(required=True, constraints=(custom("cinder.vtype"),)),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.encrypted_volume_type.CinderEncryptedVolumeType",
)

# the limits of a project's block storage quota set (OS::Cinder::Quota's properties beside project)
QUOTA_LIMITS = ("gigabytes", "volumes", "backups", "backup_gigabytes", "snapshots")

# CinderQuota: the limits of a project's block storage quota set
QUOTA = quota_type(
    "OS::Cinder::Quota",
    QUOTA_LIMITS,
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.cinder.quota.CinderQuota",
)

TYPES = (VOLUME, VOLUME_ATTACHMENT, VOLUME_TYPE, QOS_SPECS, QOS_ASSOCIATION, ENCRYPTED_VOLUME_TYPE, QUOTA)
