"""HOT202: a server's user_data holds a secret written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import literal_secrets
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for prop in ("user_data", "personality"):  # personality: files Nova injects (deprecated), as readable
        for what, pos in literal_secrets(res.expr(prop), res.template.files):
            yield finding(f"{prop}: {what}", pos or res.pos_at(prop))


RULE = Rule(
    id="HOT202",
    name="UserDataSecret",
    severity=Level.HIGH,
    title="Secret written in clear in user_data",
    types=("OS::Nova::Server",),
    rationale=(
        "user_data is readable by every process on the instance through the metadata service and the config "
        "drive, is stored by Nova and shown by server show to the project: a password, token or private key "
        "written in it (or in a script it reads with get_file) is not a secret."
    ),
    fix=(
        "Pass the secret from a hidden parameter through str_replace params (so it is not in the repository), "
        "or better fetch it at boot from Barbican; never commit private keys."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      user_data_format: RAW
      user_data:
        str_replace:
          template: |
            #!/bin/sh
            mysqladmin -u root password "$DB_PASSWORD"
          params:
            $DB_PASSWORD: {get_param: db_password}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.small
      user_data_format: RAW
      user_data: |
        #!/bin/sh
        export DB_PASSWORD=s3cr3t-Pa55
""",
    check_resource=check,
)
