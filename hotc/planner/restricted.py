"""Heat's ``restricted_actions`` (``resource_registry: resources: NAME_PATTERN: {restricted_actions: [update,
replace]}``): a resource whose plan needs a restricted action makes the plan fail, as Heat's update fails with
ResourceActionRestricted. It is Heat's ``prevent_destroy``: ``replace`` forbids a replacement, ``update`` an
in-place update. Patterns match names as Heat does (fnmatch), in the environment of the stack the resource
lives in (a nested stack or a group's members see the settings given for their parent resource)."""

from __future__ import annotations

import re
from typing import Any

from hotc.errors import Diagnostic, HotcError, error
from hotc.planner.desired import DesiredStack
from hotc.planner.plan import Action, Plan

_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def restricted_for(registry: Any, address: str) -> frozenset[str]:
    """The restricted actions of the resource at ``address``: walk the address down the nested registries
    (``a.b``: ``b`` in the child environment of ``a``; ``g[2]``: member ``2`` in the child of ``g``)."""
    names = [name or idx for name, idx in _SEGMENT.findall(address)]
    reg = registry
    for parent in names[:-1]:
        if reg is None:
            return frozenset()
        reg = reg.child(parent, None)
    if reg is None or not names:
        return frozenset()
    acts: frozenset[str] = reg.restricted_actions(names[-1])
    return acts


def restricted_errors(desired: DesiredStack, plan: Plan) -> list[Diagnostic]:
    registry = getattr(desired, "registry", None)
    if registry is None or not getattr(registry, "resources", None):
        return []
    out: list[Diagnostic] = []
    for c in plan.changes:
        if c.deposed:
            continue
        if c.action is Action.UPDATE:
            needed = "update"
        elif c.action is Action.REPLACE:
            needed = "replace"
        else:
            continue
        if needed in restricted_for(registry, c.address):
            res = desired.resources.get(c.address)
            why = f" ({c.reason_detail})" if c.reason_detail else ""
            out.append(
                error(
                    f"{needed.capitalize()} to resource {c.address} is restricted{why}: the environment's "
                    f"resource_registry sets restricted_actions [{needed}] for it. Change the template so it "
                    f"needs no {needed}, or lift the restriction in the environment",
                    res.pos if res is not None else None,
                    code="restricted-action",
                )
            )
    return out


def check_restricted(desired: DesiredStack, plan: Plan) -> None:
    errs = restricted_errors(desired, plan)
    if errs:
        raise HotcError(
            f"{len(errs)} planned change(s) need an action the environment restricts; nothing was planned",
            diagnostics=tuple(errs),
        )
