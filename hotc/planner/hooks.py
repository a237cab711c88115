"""Heat's hooks (breakpoints): ``resource_registry: resources: NAME_PATTERN: {hooks: [pre-create, ...]}``.

A resource whose name matches a pattern (fnmatch, as Heat's ``matches_hook``) pauses at each hook its action
reaches, until the hook is cleared (``hotc hook clear``; Heat's ``openstack stack hook clear``). A nested
stack's resources and a group's members match the patterns given under their parent resource's entry (Heat
hands a nested stack the settings of every pattern matching the parent's name, one level down).

Which hooks an action reaches depends, as in Heat (``Resource.create``, ``update`` and ``delete`` in
``heat/engine/resource.py``), on the action of the stack the resource is in:

- the create hooks (``pre-create``, ``post-create``) are reached only while that stack is being created: the
  first apply of a stack, or a nested stack (template resource, group) that the plan creates (every resource
  in it created). A resource
  added by a later update, or the new instance of a replacement, is created without them;
- the delete hooks (``pre-delete``, ``post-delete``) only while that stack is being deleted: ``hotc destroy``
  (with the environments stored with the stack), or a nested stack the plan deletes. A resource removed by an
  update, or the old instance of a replacement, is deleted without them; a Retain resource forgotten by a
  destroy reaches them too (Heat's ``delete`` pauses before it looks at the deletion policy);
- ``pre-update`` on every resource an update keeps, changed or not (Heat hands each one to ``update``, which
  pauses before it compares the definitions), a replacement included (Heat reaches the hook before it finds
  that the update replaces); ``post-update`` only after an update in place (an unchanged resource returns
  before it, a replacement leaves by another way).

A rollback plans as an update of the stack (its way back to the last good template is one); the rollback of
a stack's first create, a destroy plan, reaches no hook (Heat's stack action is then ``ROLLBACK``).

The plan records, per change, the hooks its apply will pause at (:attr:`ResourceChange.hooks`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.restricted import _SEGMENT

HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete")
PRE = ("pre-create", "pre-update", "pre-delete")

CREATE = "CREATE"  # the stack (or nested stack) is being created
UPDATE = "UPDATE"  # ... updated (a rollback too)
DELETE = "DELETE"  # ... deleted
REPLACE = "REPLACE"  # a nested stack replaced: its new resources are created, its old ones deleted
NONE = ""  # no hook is reached (a refresh, the rollback of a first create, a nested stack left in place)

_REACHED: dict[tuple[str, Action], tuple[str, ...]] = {
    (CREATE, Action.CREATE): ("pre-create", "post-create"),
    (REPLACE, Action.CREATE): ("pre-create", "post-create"),
    (REPLACE, Action.REPLACE): ("pre-create", "post-create", "pre-delete", "post-delete"),
    (REPLACE, Action.DELETE): ("pre-delete", "post-delete"),
    (UPDATE, Action.NOOP): ("pre-update",),
    (UPDATE, Action.UPDATE): ("pre-update", "post-update"),
    (UPDATE, Action.REPLACE): ("pre-update",),
    (DELETE, Action.DELETE): ("pre-delete", "post-delete"),
    (DELETE, Action.FORGET): ("pre-delete", "post-delete"),
}


def stack_action(mode: str, has_resources: bool) -> str:
    """The action of the top stack a plan of ``mode`` carries out (``has_resources``: the state records some)."""
    if mode == "destroy":
        return DELETE
    if mode != "normal":
        return NONE
    return UPDATE if has_resources else CREATE


def parent_address(address: str) -> str | None:
    """The address of the resource whose nested stack holds ``address`` (``a.b`` -> ``a``, ``g[2]`` -> ``g``)."""
    last = None
    for m in _SEGMENT.finditer(address):
        last = m
    if last is None or last.start() == 0:
        return None
    return address[: last.start()].rstrip(".") or None


def _nested_action(outer: str, parent: Action | None) -> str:
    """The action of the nested stack of a resource whose change is ``parent``, in a stack doing ``outer``."""
    if outer in (CREATE, NONE):
        return outer
    if parent is Action.FORGET:
        return NONE  # a Retain parent leaves its nested stack as it is
    if outer == DELETE or parent is Action.DELETE:
        return DELETE
    if parent is Action.CREATE:
        return CREATE
    if parent is Action.REPLACE:
        return REPLACE
    return UPDATE


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


def reached(change: ResourceChange, matched: frozenset[str], action: str = CREATE) -> tuple[str, ...]:
    """The hooks of ``matched`` that ``change`` reaches, in the order it reaches them, when the stack it is in
    does ``action`` (:func:`stack_action`)."""
    if change.import_id is not None or change.deposed or not matched:
        return ()  # adopting creates nothing (Heat's adopt reaches no hook); an old instance is no resource
    order = _REACHED.get((action, change.action), ())
    return tuple(h for h in order if h in matched)


def with_hooks(desired: Any, plan: Plan, action: str) -> Plan:
    """``plan`` with each change's hooks (the same plan when the environment sets none); ``action``: what the
    plan does to the top stack (:func:`stack_action`)."""
    registry = getattr(desired, "registry", None)
    if registry is None or not getattr(registry, "resources", None):
        return plan
    actions = {c.address: c.action for c in plan.changes if not c.deposed}
    memo: dict[str, str] = {}

    def action_of(address: str) -> str:
        """The action of the stack that holds ``address``."""
        if address in memo:
            return memo[address]
        parent = parent_address(address)
        if parent is None:
            got = action
        else:
            got = _nested_action(action_of(parent), actions.get(parent) or _made_or_removed(parent))
        memo[address] = got
        return got

    def _made_or_removed(parent: str) -> Action | None:
        """A nested stack flattened into the plan (no change of its own): created when the plan creates every
        resource in it, deleted when it deletes every one."""
        inside = {a for addr, a in actions.items() if addr.startswith((parent + ".", parent + "["))}
        if inside == {Action.CREATE}:
            return Action.CREATE
        if inside == {Action.DELETE} or inside == {Action.DELETE, Action.FORGET}:
            return Action.DELETE
        return None

    changed = False
    out: list[ResourceChange] = []
    for c in plan.changes:
        hooks = reached(c, hooks_for(registry, c.address), action_of(c.address))
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
