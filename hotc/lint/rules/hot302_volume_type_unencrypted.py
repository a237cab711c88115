"""HOT302: a volume type the template makes has no encryption."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    if res.template.referrers(res.name, ("OS::Cinder::EncryptedVolumeType",), "volume_type"):
        return
    yield finding(
        "no OS::Cinder::EncryptedVolumeType of this template encrypts the volume type: its volumes are stored "
        "in clear on the back end",
        res.pos,
    )


RULE = Rule(
    id="HOT302",
    name="VolumeTypeUnencrypted",
    severity=Level.MEDIUM,
    title="Volume type without encryption",
    types=("OS::Cinder::VolumeType",),
    rationale=(
        "Volumes of a type with no encryption spec are written in clear to the storage back end: whoever reads "
        "the disks, a snapshot or a backup reads the data."
    ),
    fix=(
        "Add an OS::Cinder::EncryptedVolumeType for the type (provider luks, cipher aes-xts-plain64, key_size "
        "256); Nova and Cinder then use keys held in Barbican."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  vtype:
    type: OS::Cinder::VolumeType
    properties: {name: secure}
  vtype_encryption:
    type: OS::Cinder::EncryptedVolumeType
    properties:
      provider: luks
      cipher: aes-xts-plain64
      key_size: 256
      volume_type: {get_resource: vtype}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  vtype:
    type: OS::Cinder::VolumeType
    properties: {name: plain}
""",
    check_resource=check,
)
