"""Cascade deletes: a parent whose delete removes its children with it (an Octavia load balancer deleted with
``cascade``) goes first when the plan deletes it together with those children, instead of last.

Deleting an Octavia chain child by child (health monitor, members, pool, listener, then the load balancer) is
one LB-ACTIVE round trip per child on the critical path; deleting the load balancer with ``cascade`` removes
them all in one call. Heat does the former; the result in the cloud is the same, and the plan still lists
every delete: each child keeps its own delete step, which now runs after the parent's and finds its object
gone (the driver's delete of a gone object is a no-op, so a child that turns out not to belong to the parent
is deleted normally there).

The rewrite (pure, on the apply graph): for a parent P deleted outright (not replaced) whose driver names the
types its delete cascades to (``cascades``), its children C are the resources that depend on P, in the state,
through a chain of such types, and are deleted outright too (Delete policy, no other step). Then P's delete
waits on everything P or any child waited on outside C (what had to go before the children goes before P),
and each child's delete waits on P's (what waits on a child, such as the server behind a pool member, still
waits until that child is gone). A rewrite that would order steps in a cycle is not made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hotc.apply.graph import APPLY, CLEANUP, FORGET, ApplyGraph, assemble
from hotc.errors import HotcError
from hotc.planner.api import Action
from hotc.state.document import StackState


def _outright(graph: ApplyGraph, state: StackState, addr: str) -> bool:
    """``addr`` is deleted outright: a DELETE cleanup, no apply/forget step, no old instances, Delete policy."""
    step = graph.steps.get(f"{CLEANUP}:{addr}")
    rs = state.resources.get(addr)
    return (
        step is not None
        and step.change is not None
        and step.change.action is Action.DELETE
        and not step.change.deposed
        and f"{APPLY}:{addr}" not in graph.steps
        and f"{FORGET}:{addr}" not in graph.steps
        and rs is not None
        and not rs.deposed
        and rs.physical_id is not None
        and (rs.deletion_policy or "Delete") == "Delete"
    )


def cascade_children(
    graph: ApplyGraph, state: StackState, cascades: Callable[[str], frozenset[str]]
) -> dict[str, tuple[str, ...]]:
    """parent address -> the children its delete removes with it (see the module's docstring)."""
    dependents: dict[str, set[str]] = {}
    for addr, rs in state.resources.items():
        for dep in rs.dependencies:
            if dep != addr:
                dependents.setdefault(dep, set()).add(addr)
    found: dict[str, tuple[str, ...]] = {}
    for addr, rs in state.resources.items():
        types = cascades(rs.type)
        if not types or not _outright(graph, state, addr):
            continue
        children: list[str] = []
        seen = {addr}
        todo = sorted(dependents.get(addr, ()))
        while todo:
            x = todo.pop(0)
            if x in seen:
                continue
            seen.add(x)
            if state.resources[x].type in types and _outright(graph, state, x):
                children.append(x)
                todo.extend(sorted(dependents.get(x, ())))
        if children:
            found[addr] = tuple(children)
    return found


def with_cascades(
    graph: ApplyGraph, state: StackState, cascades: Callable[[str], frozenset[str]]
) -> tuple[ApplyGraph, dict[str, str]]:
    """The graph with each cascading parent's delete first (see the module's docstring), and child address ->
    parent address for the children whose delete the parent's makes."""
    families = cascade_children(graph, state, cascades)
    if not families:
        return graph, {}
    waits: dict[str, set[str]] = {k: set(v) for k, v in graph.waits_on.items()}
    parent_of: dict[str, str] = {}
    for parent, family_children in families.items():
        children = [c for c in family_children if c not in parent_of]  # a child goes with one parent
        if not children:
            continue
        pkey = f"{CLEANUP}:{parent}"
        family = {pkey} | {f"{CLEANUP}:{c}" for c in children}
        trial = {k: set(v) for k, v in waits.items()}
        before = set().union(*(trial[k] for k in family)) - family
        trial[pkey] = before
        for c in children:
            trial[f"{CLEANUP}:{c}"] = {pkey}
        try:
            assemble(graph.steps, trial)
        except HotcError:  # something outside must go between two children: keep the child-by-child order
            continue
        waits = trial
        for c in children:
            parent_of.setdefault(c, parent)
    if not parent_of:
        return graph, {}
    return assemble(graph.steps, waits), parent_of


def driver_cascades(drivers: Callable[[str], Any]) -> Callable[[str], frozenset[str]]:
    """type -> the types its driver's delete removes with it (the driver's optional ``cascades``)."""
    memo: dict[str, frozenset[str]] = {}

    def get(type_name: str) -> frozenset[str]:
        if type_name not in memo:
            driver = drivers(type_name)
            memo[type_name] = frozenset(getattr(driver, "cascades", None) or ())
        return memo[type_name]

    return get
