"""HOT801: a software config holds a secret written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import literal_secrets
from hotc.lint.view import ResourceView

CONFIG_PROPERTY = {
    "OS::Heat::SoftwareConfig": "config",
    "OS::Heat::StructuredConfig": "config",
    "OS::Heat::CloudConfig": "cloud_config",
    "OS::Heat::SoftwareComponent": "configs",
}


def check(res: ResourceView) -> Iterator[Outcome]:
    prop = CONFIG_PROPERTY[res.type]
    for what, pos in literal_secrets(res.expr(prop), res.template.files):
        yield finding(f"{prop}: {what}", pos or res.pos_at(prop))


RULE = Rule(
    id="HOT801",
    name="SoftwareConfigSecret",
    severity=Level.HIGH,
    title="Secret written in clear in a software config",
    types=tuple(CONFIG_PROPERTY),
    rationale=(
        "A software config is stored by Heat, readable by the project through the API and delivered to the "
        "server through its metadata; a password, token or private key in its text (or in a script it reads "
        "with get_file) is also in every copy of the repository."
    ),
    fix=(
        "Declare the secret as an input of the config and give it in the deployment's input_values from a "
        "hidden parameter (or a generated value); never commit private keys."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: db_password}]
      config: |
        #!/bin/sh
        mysqladmin -u root password "$db_password"
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: |
        #!/bin/sh
        mysqladmin -u root password=Tr0ub4dor3
""",
    check_resource=check,
)
