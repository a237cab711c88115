"""HOT203: a server's metadata (or a resource's metadata section) holds a secret written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import literal_secrets
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    files = res.template.files
    for what, pos in literal_secrets(res.expr("metadata"), files):
        yield finding(f"metadata: {what}", pos or res.pos_at("metadata"))
    if not res.name.endswith("[*]"):
        for what, pos in literal_secrets(res.resource.metadata, files):
            yield finding(f"the resource's metadata section: {what}", pos or res.pos)


RULE = Rule(
    id="HOT203",
    name="MetadataSecret",
    severity=Level.HIGH,
    title="Secret written in clear in server metadata",
    types=("OS::Nova::Server",),
    rationale=(
        "A server's metadata property is readable from inside the instance through the metadata service and by "
        "anyone in the project through the API; the resource's metadata section is served to the instance's "
        "agents (os-collect-config, cfn-init). Neither is a place for a password or a key."
    ),
    fix="Pass secrets from hidden parameters, or keep them in Barbican and give the instance a reference.",
    good="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      metadata: {role: web, password_length: "16"}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      metadata: {role: web, api_token: 4f3c2b1a0e9d8c7b}
""",
    check_resource=check,
)
