"""HOT702: a Barbican order's pass_phrase is written in clear."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_property
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for _is_finding, message, pos in secret_property(res, "pass_phrase", "the private key's pass phrase"):
        yield finding(message, pos)


RULE = Rule(
    id="HOT702",
    name="BarbicanPassPhraseInClear",
    severity=Level.HIGH,
    title="Barbican order pass phrase written in clear",
    types=("OS::Barbican::Order",),
    rationale=(
        "The pass phrase protects the private key Barbican generates; written in the template or taken from a "
        "parameter that is not hidden, it protects nothing."
    ),
    fix="Take pass_phrase from a hidden parameter with no default, or from an OS::Heat::RandomString.",
    good="""
heat_template_version: 2018-08-31
parameters:
  key_pass: {type: string, hidden: true}
resources:
  order:
    type: OS::Barbican::Order
    properties: {type: asymmetric, algorithm: rsa, bit_length: 2048, pass_phrase: {get_param: key_pass}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  order:
    type: OS::Barbican::Order
    properties: {type: asymmetric, algorithm: rsa, bit_length: 2048, pass_phrase: letmein123}
""",
    check_resource=check,
)
