"""Every rule over its own examples: the bad template is reported, the good one is not; the rule set covers the
services it should, and the examples are valid templates for hotc's own schemas (so the property names the rules
read are the real ones)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hotc.cli import root
from hotc.errors import Severity
from hotc.lint.api import Kind, Rule, all_rules, run_rules
from hotc.parser.api import load_stack

RULES = all_rules()


def _run(tmp_path: Path, rule: Rule, text: str, env: str = "") -> list[tuple[Kind, str]]:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    envs = []
    if env:
        (tmp_path / "env.yaml").write_text(textwrap.dedent(env).lstrip("\n"))
        envs.append(str(tmp_path / "env.yaml"))
    stack, diags = load_stack(str(path), envs, {}, {}, require_values=False, checks=root.type_checks())
    errors = [str(d) for d in diags if d.severity is Severity.ERROR]
    assert stack is not None and not errors, f"{rule.id}'s example is not a valid template: {errors}"
    report = run_rules(stack, rules=[rule])
    return [(f.kind, f.message) for f in report.findings if f.rule.id == rule.id]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_bad_example_is_reported(tmp_path: Path, rule: Rule) -> None:
    found = _run(tmp_path, rule, rule.bad, rule.bad_env)
    assert any(kind is Kind.FINDING for kind, _ in found), found


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_good_example_passes(tmp_path: Path, rule: Rule) -> None:
    found = _run(tmp_path, rule, rule.good, rule.good_env)
    assert not [m for kind, m in found if kind is Kind.FINDING]


def test_the_rule_set() -> None:
    assert len(RULES) >= 25
    assert len({r.id for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
    services = {t.split("::")[1] for r in RULES for t in r.types if t != "*"} | {
        "Template" for r in RULES if not r.types
    }
    assert {
        "Nova",
        "Neutron",
        "Cinder",
        "Octavia",
        "Swift",
        "Keystone",
        "Barbican",
        "Heat",
        "Template",
    } <= services
    for r in RULES:
        assert (r.check_resource is None) != (r.check_template is None), r.id
        assert bool(r.types) == (r.check_resource is not None), r.id
        assert r.title and r.rationale and r.fix and r.help_uri.endswith("#" + r.id.lower())


def test_rules_read_types_hotc_knows() -> None:
    from hotc.providers.registry import get_schema

    unknown = {t for r in RULES for t in r.types if t != "*" and get_schema(t) is None}
    # the one type hotc has no schema for yet is Heat's OS::Neutron::RBACPolicy (its property names are Heat's)
    assert unknown <= {"OS::Neutron::RBACPolicy"}
