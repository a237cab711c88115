"""Heat's hooks (breakpoints): ``resource_registry: resources: NAME_PATTERN: {hooks: [pre-create, ...]}``.

A resource whose name matches a pattern (fnmatch, as Heat's ``matches_hook``) pauses at each hook its action
reaches, until the hook is cleared (``hotc hook clear``; Heat's ``openstack stack hook clear``). A nested
stack's resources and a group's members match the patterns given under their parent resource's entry (Heat
hands a nested stack the settings of every pattern matching the parent's name, one level down).

Which hooks an action reaches, as Heat's ``Resource.create``, ``update`` and ``delete`` do:

- a create: ``pre-create`` before it, ``post-create`` after it;
- an in-place update: ``pre-update`` and ``post-update``;
- a replacement: ``pre-update`` (Heat reaches it before it finds that the update replaces), then the create of
  the new instance (``pre-create``, ``post-create``) and the delete of the old one (``pre-delete``,
  ``post-delete``);
- a delete (and a Retain resource forgotten): ``pre-delete`` and ``post-delete``.

The plan records, per change, the hooks its apply will pause at (:attr:`ResourceChange.hooks`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.restricted import _SEGMENT

HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete")
PRE = ("pre-create", "pre-update", "pre-delete")

_REACHED: dict[Action, tuple[str, ...]] = {
    Action.CREATE: ("pre-create", "post-create"),
    Action.UPDATE: ("pre-update", "post-update"),
    Action.REPLACE: ("pre-update", "pre-create", "post-create", "pre-delete", "post-delete"),
    Action.DELETE: ("pre-delete", "post-delete"),
    Action.FORGET: ("pre-delete", "post-delete"),
}


def hooks_for(registry: Any, address: str) -> frozenset[str]:
    """The hooks set for the resource at ``address``: ``a.b`` is ``b`` in the child environment of ``a``,
    ``g[2]`` member ``2`` in the child of ``g``."""
    names = [name or idx for name, idx in _SEGMENT.findall(address)]
    reg = registry
    for parent in names[:-1]:
        if reg is None:
            return frozenset()
        reg = reg.child(parent, None)
    if reg is None or not names:
        return frozenset()
    return frozenset(h for h in reg.hooks_for(names[-1]) if h in HOOK_TYPES)


def reached(change: ResourceChange, matched: frozenset[str]) -> tuple[str, ...]:
    """The hooks of ``matched`` that ``change`` reaches, in the order it reaches them."""
    if change.import_id is not None:
        return ()  # adopting an existing object creates nothing (Heat's adopt reaches no hook)
    order = _REACHED.get(change.action, ())
    if change.action is Action.CREATE and change.temporary:
        order = (*order, "pre-delete", "post-delete")
    return tuple(h for h in order if h in matched)


def with_hooks(desired: Any, plan: Plan) -> Plan:
    """``plan`` with each change's hooks (the same plan when the environment sets none)."""
    registry = getattr(desired, "registry", None)
    if registry is None or not getattr(registry, "resources", None):
        return plan
    changed = False
    out: list[ResourceChange] = []
    for c in plan.changes:
        hooks = reached(c, hooks_for(registry, c.address))
        if hooks != c.hooks:
            c = replace(c, hooks=hooks)
            changed = True
        out.append(c)
    return replace(plan, changes=tuple(out)) if changed else plan


def pauses(plan: Plan) -> list[tuple[str, str]]:
    """(address, hook) of every pause the plan's apply will make, in plan order."""
    return [(c.address, h) for c in plan.changes for h in c.hooks]


def pause_lines(plan: Plan) -> list[str]:
    """One line per resource the apply pauses at: its hooks and how to clear the first."""
    out: list[str] = []
    for c in plan.changes:
        if c.hooks:
            out.append(
                f"{c.address} ({c.type}): pauses at {', '.join(c.hooks)}; "
                f"clear with: hotc hook clear {plan.stack_name} {c.address} --{c.hooks[0]}"
            )
    return out
