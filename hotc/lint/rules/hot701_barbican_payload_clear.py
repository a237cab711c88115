"""HOT701: a Barbican secret's payload is written in clear in the template."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_property
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for _is_finding, message, pos in secret_property(res, "payload", "the secret"):
        yield finding(message, pos)


RULE = Rule(
    id="HOT701",
    name="BarbicanPayloadInClear",
    severity=Level.CRITICAL,
    title="Barbican secret payload written in clear",
    types=("OS::Barbican::Secret",),
    rationale=(
        "Barbican protects a secret at rest and behind its ACLs; a payload written in the template (or taken "
        "from a parameter that is not hidden) is already out, in the repository, stack show and the plan."
    ),
    fix=(
        "Take the payload from a hidden parameter with no default, generate it (OS::Heat::RandomString, an "
        "OS::Barbican::Order), or store the secret outside the stack and pass its reference."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  tls_key: {type: string, hidden: true}
resources:
  secret:
    type: OS::Barbican::Secret
    properties: {name: tls-key, payload: {get_param: tls_key}, payload_content_type: text/plain}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  secret:
    type: OS::Barbican::Secret
    properties: {name: api-token, payload: 0c8f4e2a9b7d, payload_content_type: text/plain}
""",
    check_resource=check,
)
