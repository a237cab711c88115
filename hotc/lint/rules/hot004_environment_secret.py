"""HOT004: an environment file holds the value of a secret parameter."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hotc.lint.rule import Level, Outcome, Rule, finding
from hotc.lint.rules._common import secret_name
from hotc.lint.view import TemplateView


def check(view: TemplateView) -> Iterator[Outcome]:
    env = view.environment
    if view.nested or env is None:
        return
    params = view.template.parameters
    for section, values_attr, pos_attr in (
        ("parameters", "parameters", "parameter_pos"),
        ("parameter_defaults", "parameter_defaults", "default_pos"),
    ):
        values: Mapping[str, Any] = getattr(env, values_attr, {}) or {}
        positions: Mapping[str, Any] = getattr(env, pos_attr, {}) or {}
        for name, value in values.items():
            param = params.get(name)
            hidden = param is not None and param.hidden
            if not hidden and not secret_name(name):
                continue
            if not isinstance(value, str | int | float) or isinstance(value, bool) or not str(value).strip():
                continue
            pos = positions.get(name)
            if pos is None or str(pos.file).startswith("<"):
                continue
            what = "hidden parameter" if hidden else "parameter named like a secret"
            yield finding(
                f"{section} sets {what} {name} in the environment file: the secret is in clear in that file",
                pos,
                name,
            )


RULE = Rule(
    id="HOT004",
    name="EnvironmentFileSecret",
    severity=Level.MEDIUM,
    title="Secret value in an environment file",
    types=(),
    rationale=(
        "An environment file given with -e is usually kept next to the template, in the same repository: a "
        "password written in its parameters or parameter_defaults is then in every clone and every CI log "
        "that prints it."
    ),
    fix=(
        "Give secrets at run time (--parameter, --parameter-file from a secret store or a CI secret), or keep "
        "the environment file that holds them out of version control and suppress the finding with that reason."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
resources: {}
""",
    bad="""
heat_template_version: 2018-08-31
parameters:
  db_password: {type: string, hidden: true}
resources: {}
""",
    check_template=check,
    good_env="""
parameter_defaults:
  db_name: wordpress
""",
    bad_env="""
parameter_defaults:
  db_password: Sup3r-s3cret
""",
)
