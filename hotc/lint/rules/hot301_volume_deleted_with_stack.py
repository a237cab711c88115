"""HOT301: a volume that holds data is deleted with the stack (no Retain or Snapshot deletion policy)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def _holds_data(res: ResourceView) -> str | None:
    """Why the volume holds data: attached to a server, or restored from a snapshot, backup or volume."""
    for source in ("snapshot_id", "backup_id", "source_volid"):
        value = res.get(source, None)
        if value not in (None, "") and not unknown(value):
            return f"it is made from {source}"
    tv = res.template
    for att in tv.referrers(res.name, ("OS::Cinder::VolumeAttachment",), "volume_id"):
        return f"{att.name} attaches it to a server"
    for prop in ("block_device_mapping", "block_device_mapping_v2"):
        for server in tv.referrers(res.name, ("OS::Nova::Server",), prop):
            return f"server {server.name} uses it in {prop}"
    return None


def check(res: ResourceView) -> Iterator[Outcome]:
    why = _holds_data(res)
    if why is None:
        return
    policy = res.deletion_policy()
    where = res.pos
    if unknown(policy):
        yield cannot_tell("the deletion_policy is not known before apply", where)
    elif policy == "Delete":
        yield finding(
            f"the volume holds data ({why}) and is deleted with the stack or on replacement: "
            "no deletion_policy Retain or Snapshot",
            where,
        )


RULE = Rule(
    id="HOT301",
    name="DataVolumeDeletedWithStack",
    severity=Level.MEDIUM,
    title="Data volume without a Retain or Snapshot deletion policy",
    types=("OS::Cinder::Volume",),
    rationale=(
        "A volume attached to a server holds data that outlives the server. With the default deletion policy "
        "(Delete) a stack delete, a mistaken template change that replaces the volume or a removed resource "
        "destroys it with no backup."
    ),
    fix=(
        "Give the volume deletion_policy: Snapshot (Heat makes a Cinder backup before deleting it) or Retain "
        "(it stays when the stack goes)."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  data:
    type: OS::Cinder::Volume
    deletion_policy: Snapshot
    properties: {size: 10}
  attach:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: 5b1f, volume_id: {get_resource: data}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  data:
    type: OS::Cinder::Volume
    properties: {size: 10}
  attach:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: 5b1f, volume_id: {get_resource: data}}
""",
    check_resource=check,
)
