"""CI gates over a plan: policy rules (``--deny``/``--warn ACTION:TYPE_GLOB[@ADDRESS_GLOB]`` and policy files)
evaluated into findings that travel with the plan (``Plan.policy_findings``, the JSON ``policy`` section),
so hotc's gate, OPA/conftest on the plan JSON, the Markdown comment and SARIF all see the same thing."""

from __future__ import annotations

from collections.abc import Iterable

from hotc.model import model
from hotc.planner.options import DenyRule
from hotc.planner.plan import Action, Plan, PolicyFinding, ResourceChange


@model
class DenyViolation:
    rule: DenyRule
    changes: tuple[ResourceChange, ...]

    def describe(self) -> str:
        items = ", ".join(f"{c.address} ({c.type})" for c in self.changes)
        what = "deny rule" if self.rule.level == "deny" else "warn rule"
        why = f": {self.rule.message}" if self.rule.message else ""
        return f"{what} {self.rule} (from {self.rule.source}) matches {items}{why}"


def change_action_name(c: ResourceChange) -> str:
    return c.action.value


def _hits(plan: Plan, rule: DenyRule) -> tuple[ResourceChange, ...]:
    return tuple(
        c
        for c in plan.changes
        if c.action is not Action.NOOP
        and rule.matches(change_action_name(c), c.rebuild, c.type, c.address)
        and rule.matches_paths(c.changed_paths)
    )


def evaluate_policy(plan: Plan, rules: Iterable[DenyRule]) -> list[DenyViolation]:
    """Every rule (deny or warn) that some planned change matches, with the changes."""
    out: list[DenyViolation] = []
    for rule in rules:
        hits = _hits(plan, rule)
        if hits:
            out.append(DenyViolation(rule, hits))
    return out


def check_deny(plan: Plan, rules: Iterable[DenyRule]) -> list[DenyViolation]:
    """The deny-level rules that some planned change breaks (these fail the gate)."""
    return [v for v in evaluate_policy(plan, rules) if v.rule.level == "deny"]


def findings(violations: Iterable[DenyViolation]) -> tuple[PolicyFinding, ...]:
    out = []
    for v in violations:
        for c in v.changes:
            out.append(
                PolicyFinding(
                    level=v.rule.level,
                    rule=str(v.rule),
                    source=v.rule.source,
                    address=c.address,
                    type=c.type,
                    action="rebuild" if c.action is Action.UPDATE and c.rebuild else c.action.value,
                    message=v.rule.message,
                )
            )
    return tuple(out)
