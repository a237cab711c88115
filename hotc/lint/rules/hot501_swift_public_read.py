"""HOT501: a Swift container is readable by anyone (X-Container-Read .r:*)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def acl_items(value: object) -> list[str]:
    return [p.strip() for p in value.split(",")] if isinstance(value, str) else []


def check(res: ResourceView) -> Iterator[Outcome]:
    acl = res.get("X-Container-Read", None)
    where = res.pos_at("X-Container-Read")
    if unknown(acl):
        yield cannot_tell("X-Container-Read is not known before apply", where)
        return
    public = [a for a in acl_items(acl) if a in (".r:*", ".r:*.*")]
    if public:
        yield finding(f"X-Container-Read {acl!r}: every object can be read by anyone, with no token", where)


RULE = Rule(
    id="HOT501",
    name="SwiftContainerPublicRead",
    severity=Level.HIGH,
    title="Swift container readable by anyone",
    types=("OS::Swift::Container",),
    rationale=(
        "The referrer ACL .r:* lets any HTTP client read every object of the container without a token: "
        "backups, logs or uploads put there later become public."
    ),
    fix=(
        "Drop .r:* from X-Container-Read; give read access to projects or users (PROJECT:USER), or share "
        "single objects with temporary URLs."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  bucket:
    type: OS::Swift::Container
    properties: {X-Container-Read: "8f2b2c1e5a6d4e0f9b7c3d2a1e0f9b8c:*"}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  bucket:
    type: OS::Swift::Container
    properties: {X-Container-Read: ".r:*"}
""",
    check_resource=check,
)
