"""HOT002: a hidden or secret-looking parameter has a default."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_name
from hotc.lint.view import TemplateView
from hotc.parser.api import MISSING

IDENTITY = re.compile(r"(?i)(user_?name|user|login|account)$")


def check(view: TemplateView) -> Iterator[Outcome]:
    for name, param in view.template.parameters.items():
        default = param.default
        if default is MISSING or default is None or default == "" or default == [] or default == {}:
            continue
        named = param.type in ("string", "json") and secret_name(name)
        hidden_text = param.hidden and param.type in ("string", "json", "comma_delimited_list")
        if not named and not (hidden_text and not IDENTITY.search(name)):
            continue  # a hidden user name with a default is an identity, not a secret
        why = "hidden" if param.hidden else "named like a secret"
        yield finding(
            f"parameter {name} is {why} and has a default: the secret is written in the template, "
            "and a stack made without the parameter uses it",
            param.pos,
            name,
        )


RULE = Rule(
    id="HOT002",
    name="SecretParameterDefault",
    severity=Level.HIGH,
    title="Secret parameter with a default",
    types=(),
    rationale=(
        "A default of a hidden (or password-like) parameter is a secret in the repository, and every stack "
        "made without giving the parameter shares the same well-known value."
    ),
    fix="Remove the default: require the value (an environment file kept out of the repository, -P, a vault).",
    good="""
heat_template_version: 2018-08-31
parameters:
  admin_password: {type: string, hidden: true}
resources: {}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  admin_password: {type: string, hidden: true, default: changeit-2024}
resources: {}
""",
    check_template=check,
)
