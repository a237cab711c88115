"""CI gates over a plan: ``--deny ACTION:TYPE_GLOB`` rules (and the same rules from a policy file)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hotc.planner.options import DenyRule
from hotc.planner.plan import Action, Plan, ResourceChange


@dataclass(frozen=True)
class DenyViolation:
    rule: DenyRule
    changes: tuple[ResourceChange, ...]

    def describe(self) -> str:
        items = ", ".join(f"{c.address} ({c.type})" for c in self.changes)
        return f"deny rule {self.rule} (from {self.rule.source}) is violated by: {items}"


def change_action_name(c: ResourceChange) -> str:
    return c.action.value


def check_deny(plan: Plan, rules: Iterable[DenyRule]) -> list[DenyViolation]:
    """Every rule that some planned change breaks, with the changes that break it."""
    out: list[DenyViolation] = []
    for rule in rules:
        hits = tuple(
            c
            for c in plan.changes
            if c.action is not Action.NOOP and rule.matches(change_action_name(c), c.rebuild, c.type)
        )
        if hits:
            out.append(DenyViolation(rule, hits))
    return out
