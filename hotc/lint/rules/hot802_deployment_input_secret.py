"""HOT802: a software deployment passes a secret written in clear as an input value."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import literal_secrets
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for what, pos in literal_secrets(res.expr("input_values"), res.template.files):
        yield finding(f"input_values: {what}", pos or res.pos_at("input_values"))


RULE = Rule(
    id="HOT802",
    name="DeploymentInputSecret",
    severity=Level.HIGH,
    title="Secret written in clear in a deployment's input_values",
    types=(
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::StructuredDeployment",
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
    ),
    rationale=(
        "input_values are stored with the deployment and handed to the server's agent; a secret written there "
        "literally is in the repository and readable through the API."
    ),
    fix="Give secret inputs from hidden parameters (get_param) or generated values (get_attr of a RandomString).",
    good="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
resources:
  deploy:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: 3c1e
      server: 9a2f
      input_values: {db_password: {get_param: db_password}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  deploy:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: 3c1e
      server: 9a2f
      input_values: {db_password: Sup3rS3cret}
""",
    check_resource=check,
)
