"""The apply graph: which steps a plan needs and which steps each waits on (pure functions).

A resource gets up to two steps, as in Heat's convergence engine:

- ``apply:A`` creates (or creates the replacement of) or updates ``A``; it waits on the ``apply`` steps of
  what ``A`` depends on in the desired graph.
- ``cleanup:A`` deletes ``A`` (a DELETE), or the old instances of a replaced ``A`` (its deposed instances).
  It waits on ``apply:A`` (the new instance exists first) and on every step that touches a resource which,
  in the state, depends on ``A``: deletes run in reverse dependency order, and an old instance is deleted
  only after its dependents have been updated to point at the new one.
- ``forget:A`` drops a Retain resource from the state without touching the cloud.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace

from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.api import Action, Plan, ResourceChange
from hotc.state.document import StackState

APPLY = "apply"
CLEANUP = "cleanup"
FORGET = "forget"
BATCH = (
    "batch"  # the end of one batch of a group's rolling update, and the pause after it (hotc.apply.batches)
)
HOOK = "hook"  # a pause at a hook (breakpoint) of the environment until it is cleared (hotc.apply.hooks)


@model
class Step:
    key: str  # "apply:web", "cleanup:web", "forget:web"
    kind: str  # APPLY | CLEANUP | FORGET
    address: str
    change: ResourceChange | None  # None for the cleanup of deposed instances of an unchanged resource

    @property
    def label(self) -> str:
        if self.kind == BATCH:
            return f"batch {self.key.rsplit('#', 1)[-1]} of {self.address}"
        if self.kind == HOOK:
            return f"hook {self.key.split(':', 2)[1]} of {self.address}"
        if self.kind == APPLY and self.change is not None and self.change.import_id is not None:
            return f"adopt {self.address}"
        if self.kind == APPLY and self.change is not None:
            return f"{self.change.action.value} {self.address}"
        if self.kind == CLEANUP and self.change is not None and self.change.action is Action.DELETE:
            return f"delete {self.address}"
        if self.kind == CLEANUP:
            return f"delete old instance of {self.address}"
        return f"forget {self.address}"


@model
class ApplyGraph:
    steps: Mapping[str, Step]  # in a stable order (plan order, then cleanups)
    waits_on: Mapping[str, frozenset[str]]  # step key -> keys it waits on
    dependents: Mapping[str, tuple[str, ...]]  # step key -> keys waiting on it
    height: Mapping[str, int]  # longest chain of steps from this one to the end (itself included)


def _key(kind: str, address: str) -> str:
    return f"{kind}:{address}"


def build_graph(plan: Plan, state: StackState | None) -> ApplyGraph:
    """The steps of ``plan`` against ``state`` and their ordering constraints."""
    resources = state.resources if state is not None else {}
    steps: dict[str, Step] = {}
    deposed_addrs: list[str] = []
    for c in plan.changes:
        if c.deposed:  # an old instance of a replace left by an earlier run: see below
            deposed_addrs.append(c.address)
            continue
        if c.action in (Action.CREATE, Action.UPDATE, Action.REPLACE):
            steps[_key(APPLY, c.address)] = Step(_key(APPLY, c.address), APPLY, c.address, c)
        if c.action in (Action.REPLACE, Action.DELETE):
            steps[_key(CLEANUP, c.address)] = Step(_key(CLEANUP, c.address), CLEANUP, c.address, c)
        if c.temporary and c.action is Action.CREATE:  # a group member that lives for some batches only
            gone = replace(c, action=Action.DELETE, temporary=False)
            steps[_key(CLEANUP, c.address)] = Step(_key(CLEANUP, c.address), CLEANUP, c.address, gone)
        if c.action is Action.FORGET:
            steps[_key(FORGET, c.address)] = Step(_key(FORGET, c.address), FORGET, c.address, c)
    # Old instances left by an earlier run (a replace whose delete failed or never ran) are deleted too,
    # unless the plan forgets the resource.
    by_addr = {c.address: c for c in plan.changes if not c.deposed}
    for addr in deposed_addrs:
        if _key(CLEANUP, addr) not in steps:
            steps[_key(CLEANUP, addr)] = Step(_key(CLEANUP, addr), CLEANUP, addr, None)
    for addr, rs in resources.items():
        prior = by_addr.get(addr)
        if (
            rs.deposed
            and _key(CLEANUP, addr) not in steps
            and (prior is None or prior.action is not Action.FORGET)
        ):
            steps[_key(CLEANUP, addr)] = Step(_key(CLEANUP, addr), CLEANUP, addr, prior)

    waits: dict[str, set[str]] = {k: set() for k in steps}
    for key, st in steps.items():
        if st.kind == APPLY and st.change is not None:
            for dep in st.change.depends_on:
                if _key(APPLY, dep) in steps and dep != st.address:
                    waits[key].add(_key(APPLY, dep))
    # state-side dependents: X depends (in the state) on A
    state_dependents: dict[str, set[str]] = {}
    for addr, rs in resources.items():
        for dep in rs.dependencies:
            state_dependents.setdefault(dep, set()).add(addr)
    for key, st in steps.items():
        if st.kind != CLEANUP:
            continue
        a = st.address
        if _key(APPLY, a) in steps:
            waits[key].add(_key(APPLY, a))
        for x in state_dependents.get(a, ()):
            if x == a:
                continue
            for kind in (APPLY, CLEANUP):
                if _key(kind, x) in steps:
                    waits[key].add(_key(kind, x))
            if _key(APPLY, x) not in steps:
                # a former dependent the plan leaves unchanged is settled once what it needs now is: Heat
                # checks it in its place in the new graph, and deletes A only after that
                waits[key] |= _settled(x, by_addr, steps, set()) - {key}
    # a replaced resource's old instance also waits for the deletes of resources that depended on it but
    # are removed now (covered above), and for desired dependents updated to the new instance
    for key, st in steps.items():
        if st.kind == APPLY and st.change is not None:
            for dep in st.change.depends_on:
                ck = _key(CLEANUP, dep)
                cleanup = steps.get(ck)
                if (
                    cleanup is not None
                    and cleanup.change is not None
                    and cleanup.change.action is Action.REPLACE
                ):
                    waits[ck].add(key)

    return assemble(steps, waits)


def _settled(
    address: str, by_addr: Mapping[str, ResourceChange], steps: Mapping[str, Step], seen: set[str]
) -> set[str]:
    """The apply steps an unchanged resource waits on in the desired graph, through other unchanged ones."""
    found: set[str] = set()
    change = by_addr.get(address)
    if change is None or address in seen:
        return found
    seen.add(address)
    for dep in change.depends_on:
        if _key(APPLY, dep) in steps:
            found.add(_key(APPLY, dep))
        else:
            found |= _settled(dep, by_addr, steps, seen)
    return found


def assemble(steps: Mapping[str, Step], waits: Mapping[str, Iterable[str]]) -> ApplyGraph:
    """The graph of ``steps`` where each waits on ``waits[key]``; raises HotcError on a cycle."""
    frozen = {k: frozenset(waits.get(k, ())) for k in steps}
    dependents: dict[str, list[str]] = {k: [] for k in steps}
    for k, ws in frozen.items():
        for w in ws:
            dependents[w].append(k)
    order = _topo_order(steps, frozen, dependents)
    height: dict[str, int] = {}
    for k in reversed(order):
        height[k] = 1 + max((height[d] for d in dependents[k]), default=0)
    return ApplyGraph(
        steps=steps,
        waits_on=frozen,
        dependents={k: tuple(v) for k, v in dependents.items()},
        height=height,
    )


def id_only_edges(
    graph: ApplyGraph, id_only_parents: Callable[[str], Collection[str]]
) -> frozenset[tuple[str, str]]:
    """The edges ``(waiter, waited)`` of ``graph`` that need only the id of what the waited-on step creates:
    the create of a resource that refers to a resource created in the same run by ``get_resource`` only
    (``id_only_parents(address)``, from the template). Such a create may start as soon as the other
    resource exists and is usable (its driver says so: ``ActionContext.ready_for_dependents``), before its
    create ends. Every other edge waits for the end of the step (updates, replacements, adoptions, hooks,
    deletes)."""

    def plain_create(st: Step | None) -> bool:
        c = st.change if st is not None else None
        return (
            st is not None
            and st.kind == APPLY
            and c is not None
            and c.action is Action.CREATE
            and c.import_id is None
            and not c.temporary
            and not c.deposed
        )

    out: set[tuple[str, str]] = set()
    for key, st in graph.steps.items():
        if not plain_create(st) or not graph.waits_on.get(key):
            continue
        parents = id_only_parents(st.address)
        if not parents:
            continue
        for w in graph.waits_on[key]:
            ws = graph.steps.get(w)
            if plain_create(ws) and ws is not None and ws.address in parents:
                out.add((key, w))
    return frozenset(out)


def _topo_order(
    steps: Mapping[str, Step], waits: Mapping[str, frozenset[str]], dependents: Mapping[str, Iterable[str]]
) -> list[str]:
    indeg = {k: len(v) for k, v in waits.items()}
    ready = [k for k in steps if indeg[k] == 0]
    order: list[str] = []
    while ready:
        k = ready.pop()
        order.append(k)
        for d in dependents[k]:
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    if len(order) != len(steps):
        stuck = sorted(k for k in steps if indeg[k] > 0)
        raise HotcError(
            "the plan's steps wait on each other in a cycle and cannot be ordered: "
            + ", ".join(stuck[:10])
            + ("…" if len(stuck) > 10 else "")
            + "; check the resources' depends_on and references"
        )
    return order
