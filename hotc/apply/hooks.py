"""Hook (breakpoint) nodes in the apply graph (the hooks of each change: :mod:`hotc.planner.hooks`).

:func:`add_hook_nodes` puts one ``hook:HOOK:ADDRESS`` step in front of the step a ``pre-*`` hook guards (it
waits on what that step waited on, and the step waits on it) and one after the step a ``post-*`` hook follows
(it waits on the step, and whatever waited on the step waits on it too). The create and update hooks go with
``apply:ADDRESS``, the delete hooks with ``cleanup:ADDRESS`` / ``forget:ADDRESS``. The executor runs hook
steps off the pool (they hold no cloud-call slot), so while one resource is paused the rest of the graph goes
on wherever it does not depend on it; the wait itself is :func:`hotc.apply.steps.hook.wait_hook`.

A resource an update keeps unchanged has no step, yet reaches ``pre-update`` as in Heat: its hook step waits
on the steps of what it depends on, and the steps of what depends on it (through other unchanged resources
too) wait on the hook, as Heat's update of a dependent waits on the unchanged resource's."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hotc.apply.graph import APPLY, CLEANUP, FORGET, HOOK, ApplyGraph, Step, assemble
from hotc.planner.api import Action, Plan, ResourceChange

_WITH: dict[str, tuple[str, ...]] = {
    APPLY: ("pre-update", "pre-create", "post-create", "post-update"),
    CLEANUP: ("pre-delete", "post-delete"),
    FORGET: ("pre-delete", "post-delete"),
}


def hook_key(hook: str, address: str) -> str:
    return f"{HOOK}:{hook}:{address}"


def hook_of(step: Step) -> str:
    """The hook type of a hook step."""
    return step.key.split(":", 2)[1]


def add_hook_nodes(graph: ApplyGraph, plan: Plan | None = None) -> ApplyGraph:
    """``graph`` with the hook steps of its changes (the same graph when no change has hooks); ``plan``: the
    plan the graph was built from, for the unchanged resources that reach ``pre-update``."""
    guarded = [
        (k, st)
        for k, st in graph.steps.items()
        if st.change is not None and st.change.hooks and st.kind in _WITH
    ]
    kept = [
        c
        for c in (plan.changes if plan is not None else ())
        if c.action is Action.NOOP and not c.deposed and "pre-update" in c.hooks
    ]
    if not guarded and not kept:
        return graph
    steps: dict[str, Step] = dict(graph.steps)
    waits: dict[str, set[str]] = {k: set(v) for k, v in graph.waits_on.items()}
    if kept:
        assert plan is not None
        _add_kept(plan, kept, steps, waits)
    for key, st in guarded:
        assert st.change is not None
        hooks = [h for h in st.change.hooks if h in _WITH[st.kind]]
        pre = [h for h in hooks if h.startswith("pre-")]
        post = [h for h in hooks if h.startswith("post-")]
        before = set(waits[key])
        for h in pre:  # a chain in front of the step: pre-update, then pre-create (a replacement)
            hk = hook_key(h, st.address)
            steps[hk] = Step(hk, HOOK, st.address, st.change)
            waits[hk] = set(before)
            before = {hk}
            waits[key].add(hk)
        after = key
        for h in post:
            hk = hook_key(h, st.address)
            steps[hk] = Step(hk, HOOK, st.address, st.change)
            waits[hk] = {after}
            for k in list(waits):
                if k != hk and key in waits[k] and not k.startswith(f"{HOOK}:"):
                    waits[k].add(hk)
            after = hk
    return assemble(steps, waits)


def _add_kept(
    plan: Plan, kept: list[ResourceChange], steps: dict[str, Step], waits: dict[str, set[str]]
) -> None:
    """The ``pre-update`` steps of resources the plan keeps unchanged (they have no step of their own)."""
    by_addr = {c.address: c for c in plan.changes if not c.deposed}
    stepless = {a for a, c in by_addr.items() if c.action is Action.NOOP}
    users: dict[str, set[str]] = {}
    for c in by_addr.values():
        for dep in c.depends_on:
            users.setdefault(dep, set()).add(c.address)

    def reach(addr: str, nexts: Callable[[str], Iterable[str]]) -> set[str]:
        """The apply steps met going from ``addr`` along ``nexts``, on through unchanged resources (which have
        no step of their own)."""
        out: set[str] = set()
        seen: set[str] = set()
        todo = list(nexts(addr))
        while todo:
            a = todo.pop()
            if a in seen or a == addr:
                continue
            seen.add(a)
            if f"{APPLY}:{a}" in steps:
                out.add(f"{APPLY}:{a}")
            elif a in stepless:
                todo.extend(nexts(a))
        return out

    def below(addr: str) -> set[str]:
        """The steps ``addr``'s update waits on: its dependencies' apply steps, through unchanged ones."""
        return reach(addr, lambda a: by_addr[a].depends_on)

    def above(addr: str) -> set[str]:
        """The apply steps that wait on ``addr``'s update: its dependents', through unchanged ones."""
        return reach(addr, lambda a: users.get(a, ()))

    added = {c.address: hook_key("pre-update", c.address) for c in kept}
    for c in kept:
        hk = added[c.address]
        steps[hk] = Step(hk, HOOK, c.address, c)
        waits[hk] = below(c.address)
    for c in kept:
        hk = added[c.address]
        for k in above(c.address):
            waits[k].add(hk)
        # an unchanged dependent paused too waits on this one, as Heat's update of it does
        for other, ok in added.items():
            if (
                other != c.address
                and f"{APPLY}:{other}" not in steps
                and _reaches(by_addr, stepless, other, c.address)
            ):
                waits[ok].add(hk)


def _reaches(by_addr: dict[str, ResourceChange], stepless: set[str], start: str, target: str) -> bool:
    """Does ``start`` depend on ``target`` through unchanged resources only?"""
    seen: set[str] = set()
    todo = list(by_addr[start].depends_on)
    while todo:
        a = todo.pop()
        if a == target:
            return True
        if a in seen or a not in stepless or a not in by_addr:
            continue
        seen.add(a)
        todo.extend(by_addr[a].depends_on)
    return False
