"""HOT001: a parameter named like a secret is not hidden."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_name
from hotc.lint.view import TemplateView


def check(view: TemplateView) -> Iterator[Outcome]:
    for name, param in view.template.parameters.items():
        if param.hidden or param.type not in ("string", "json") or not secret_name(name):
            continue
        yield finding(
            f"parameter {name} looks like a secret but is not hidden: its value is shown by stack show, "
            "in events and in the plan",
            param.pos,
            name,
        )


RULE = Rule(
    id="HOT001",
    name="SecretParameterNotHidden",
    severity=Level.MEDIUM,
    title="Secret-looking parameter not hidden",
    types=(),
    rationale=(
        "Heat and hotc mask only hidden parameters: a password, token or key given to a parameter without "
        "hidden: true is printed by stack show, parameter listings, plan output and the state."
    ),
    fix="Add hidden: true to the parameter (and remove any default: HOT002).",
    good="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
  db_password_length: {type: number, default: 16}
resources: {}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string}
resources: {}
""",
    check_template=check,
)
