"""Hook (breakpoint) nodes in the apply graph (the hooks of each change: :mod:`hotc.planner.hooks`).

:func:`add_hook_nodes` puts one ``hook:HOOK:ADDRESS`` step in front of the step a ``pre-*`` hook guards (it
waits on what that step waited on, and the step waits on it) and one after the step a ``post-*`` hook follows
(it waits on the step, and whatever waited on the step waits on it too). The create and update hooks go with
``apply:ADDRESS``, the delete hooks with ``cleanup:ADDRESS`` / ``forget:ADDRESS``. The executor runs hook
steps off the pool (they hold no cloud-call slot), so while one resource is paused the rest of the graph goes
on wherever it does not depend on it; the wait itself is :func:`hotc.apply.steps.hook.wait_hook`."""

from __future__ import annotations

from hotc.apply.graph import APPLY, CLEANUP, FORGET, HOOK, ApplyGraph, Step, assemble

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


def add_hook_nodes(graph: ApplyGraph) -> ApplyGraph:
    """``graph`` with the hook steps of its changes (the same graph when no change has hooks)."""
    guarded = [
        (k, st)
        for k, st in graph.steps.items()
        if st.change is not None and st.change.hooks and st.kind in _WITH
    ]
    if not guarded:
        return graph
    steps: dict[str, Step] = dict(graph.steps)
    waits: dict[str, set[str]] = {k: set(v) for k, v in graph.waits_on.items()}
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
