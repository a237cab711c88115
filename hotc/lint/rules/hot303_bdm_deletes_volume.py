"""HOT303: a server's block device mapping deletes an existing volume when the server is deleted."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    for prop in ("block_device_mapping", "block_device_mapping_v2"):
        mappings = res.get(prop, [])
        if not isinstance(mappings, list):
            continue
        for i, bdm in enumerate(mappings):
            if not isinstance(bdm, dict) or bdm.get("volume_id") in (None, ""):
                continue  # a volume Nova makes from an image or a snapshot is the server's own
            flag = bdm.get("delete_on_termination")
            where = res.pos_at(prop, i, "delete_on_termination")
            if unknown(flag):
                yield cannot_tell("delete_on_termination is not known before apply", where)
            elif flag is True:
                yield finding(
                    f"{prop}[{i}]: delete_on_termination: true deletes the existing volume "
                    "with the server (a replacement of the server deletes it too)",
                    where,
                )


RULE = Rule(
    id="HOT303",
    name="BlockDeviceDeletesVolume",
    severity=Level.MEDIUM,
    title="Existing volume deleted with the server",
    types=("OS::Nova::Server",),
    rationale=(
        "delete_on_termination: true on a mapping of an existing volume (volume_id) makes Nova delete that volume "
        "when the server goes: a server replaced because its image, key or network changed takes its data with it."
    ),
    fix="Leave delete_on_termination false for volumes given by volume_id; delete data volumes explicitly.",
    good="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      flavor: m1.small
      block_device_mapping_v2: [{volume_id: 6c0a, boot_index: 0, delete_on_termination: false}]
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      flavor: m1.small
      block_device_mapping_v2: [{volume_id: 6c0a, boot_index: 0, delete_on_termination: true}]
""",
    check_resource=check,
)
