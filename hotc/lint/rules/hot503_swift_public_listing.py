"""HOT503: a Swift container's object names can be listed by anyone (.rlistings)."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules.hot501_swift_public_read import acl_items
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    acl = res.get("X-Container-Read", None)
    where = res.pos_at("X-Container-Read")
    if unknown(acl):
        yield cannot_tell("X-Container-Read is not known before apply", where)
        return
    if ".rlistings" in acl_items(acl):
        yield finding(f"X-Container-Read {acl!r}: anyone can list the names of every object", where)


RULE = Rule(
    id="HOT503",
    name="SwiftContainerPublicListing",
    severity=Level.LOW,
    title="Swift container listing open to anyone",
    types=("OS::Swift::Container",),
    rationale=(
        ".rlistings lets anyone list the container: object names (often dates, user names, file names) leak, "
        "and every object of a public container is found without guessing."
    ),
    fix="Drop .rlistings from X-Container-Read; publish an index object if visitors need one.",
    good="""
heat_template_version: 2018-08-31
resources:
  site:
    type: OS::Swift::Container
    properties: {X-Container-Read: ".r:*", X-Container-Meta: {Web-Index: index.html}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  site:
    type: OS::Swift::Container
    properties: {X-Container-Read: ".r:*,.rlistings"}
""",
    check_resource=check,
)
