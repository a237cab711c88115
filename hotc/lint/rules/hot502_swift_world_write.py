"""HOT502: a Swift container can be written by anyone, or by every authenticated user."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules.hot501_swift_public_read import acl_items
from hotc.lint.view import ResourceView, unknown

OPEN_WRITE = (".r:*", "*", "*:*", ".r:*.*")


def check(res: ResourceView) -> Iterator[Outcome]:
    acl = res.get("X-Container-Write", None)
    where = res.pos_at("X-Container-Write")
    if unknown(acl):
        yield cannot_tell("X-Container-Write is not known before apply", where)
        return
    wide = [a for a in acl_items(acl) if a in OPEN_WRITE]
    if wide:
        yield finding(
            f"X-Container-Write {acl!r}: objects can be written, replaced and deleted by "
            + ("anyone" if any(a.startswith(".r:") for a in wide) else "every user of the cloud"),
            where,
        )


RULE = Rule(
    id="HOT502",
    name="SwiftContainerWorldWrite",
    severity=Level.CRITICAL,
    title="Swift container writable by anyone",
    types=("OS::Swift::Container",),
    rationale=(
        "A write ACL of *:* (every user of every project) or a referrer ACL lets others replace or delete the "
        "container's objects: served content can be swapped for malware, backups erased."
    ),
    fix="Give write access to the project or the users that upload (PROJECT:USER), or use temporary URLs.",
    good="""
heat_template_version: 2018-08-31
resources:
  bucket:
    type: OS::Swift::Container
    properties: {X-Container-Write: "8f2b2c1e5a6d4e0f9b7c3d2a1e0f9b8c:uploader"}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  bucket:
    type: OS::Swift::Container
    properties: {X-Container-Write: "*:*"}
""",
    check_resource=check,
)
