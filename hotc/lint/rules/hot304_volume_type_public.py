"""HOT304: a volume type the template makes is public (every project sees and uses it)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    value = res.get("is_public", True)
    where = res.pos_at("is_public")
    if unknown(value):
        yield cannot_tell("is_public is not known before apply", where)
    elif value is True:
        said = "is_public: true" if res.has("is_public") else "is_public is not given (Heat's default: true)"
        yield finding(f"{said}: every project of the cloud can see and use the volume type", where)


RULE = Rule(
    id="HOT304",
    name="VolumeTypePublic",
    severity=Level.LOW,
    title="Volume type visible to every project",
    types=("OS::Cinder::VolumeType",),
    rationale=(
        "A public volume type (Heat's default) is offered to every project: a type meant for one workload "
        "(a dedicated back end, a QoS class, an encryption key policy) becomes everyone's."
    ),
    fix="Set is_public: false and list the projects that may use the type in projects.",
    good="""
heat_template_version: 2018-08-31
resources:
  vtype:
    type: OS::Cinder::VolumeType
    properties: {name: gold, is_public: false, projects: [8f2b2c1e5a6d4e0f9b7c3d2a1e0f9b8c]}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  vtype:
    type: OS::Cinder::VolumeType
    properties: {name: gold}
""",
    check_resource=check,
)
