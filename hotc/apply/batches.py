"""Running a group's batches in order (the plan's :class:`~hotc.planner.plan.GroupRollout`).

:func:`add_batch_gates` adds one ``batch:GROUP#N`` step per batch to the apply graph: it waits on every step of
batch N (the creates and updates of its members, the deletion of members it removes and of the old instances
of members it replaces), and every step of batch N+1 waits on it. Running the gate step waits the batch's
``pause_time`` (through an injectable :data:`Pause`, interruptible by Ctrl-C/SIGTERM). So batch N+1 starts
only when batch N is complete and the pause is over, and a failure (which stops the executor scheduling
anything new) stops every later batch.

Inside a batch the usual order holds: a replacement is created before its old instance is deleted, and the
old instance waits for the resources depending on it. When such a deletion waits on something that itself
waits on a later batch (a resource outside the group reading every member), it is left out of the gate: it
runs once its dependents are done, which only keeps more members in service.

:func:`batch_report` says, after a run, which batches completed, failed, were interrupted or never started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping

from hotc.apply.graph import APPLY, BATCH, CLEANUP, FORGET, ApplyGraph, Step, assemble
from hotc.model import model
from hotc.planner.api import GroupBatch, GroupRollout, Plan

#: waits ``seconds`` unless ``stop`` is set first (then returns at once)
Pause = Callable[[float, threading.Event], None]


def wait_or_stop(seconds: float, stop: threading.Event) -> None:
    """The default :data:`Pause`: an Event wait, so a cancel (Ctrl-C, SIGTERM) ends it at once."""
    stop.wait(seconds)


@model
class Gate:
    rollout: GroupRollout
    batch: GroupBatch

    @property
    def last(self) -> bool:
        return self.batch.number == len(self.rollout.batches)


@model
class BatchOutcome:
    group: str
    number: int
    of: int
    status: str  # complete | failed | interrupted | not started
    members: tuple[str, ...]


def gate_key(group: str, number: int) -> str:
    return f"{BATCH}:{group}#{number}"


def gates_of(plan: Plan) -> dict[str, Gate]:
    return {
        gate_key(r.address, b.number): Gate(r, b)
        for r in plan.groups
        if len(r.batches) > 0
        for b in r.batches
    }


def _batch_steps(graph: ApplyGraph, batch: GroupBatch) -> list[str]:
    keys: list[str] = []
    for a in batch.apply:
        if f"{APPLY}:{a}" in graph.steps:
            keys.append(f"{APPLY}:{a}")
    for a in batch.cleanup:
        for kind in (CLEANUP, FORGET):
            if f"{kind}:{a}" in graph.steps:
                keys.append(f"{kind}:{a}")
    return keys


def add_batch_gates(graph: ApplyGraph, plan: Plan) -> ApplyGraph:
    """``graph`` with the batch gates of ``plan``'s groups (the same graph when no group has batches)."""
    gates = gates_of(plan)
    if not gates:
        return graph
    steps: dict[str, Step] = dict(graph.steps)
    waits: dict[str, set[str]] = {k: set(v) for k, v in graph.waits_on.items()}
    for r in plan.groups:
        if not r.batches:
            continue
        per_batch = [_batch_steps(graph, b) for b in r.batches]
        for n, b in enumerate(r.batches):
            key = gate_key(r.address, b.number)
            steps[key] = Step(key, BATCH, r.address, None)
            waits[key] = set()
            later = {k for ks in per_batch[n + 1 :] for k in ks}
            for k in per_batch[n]:
                if k.startswith(f"{APPLY}:") or not (_ancestors(waits, k) & later):
                    waits[key].add(k)
            if n > 0:
                previous = gate_key(r.address, r.batches[n - 1].number)
                for k in per_batch[n]:
                    waits[k].add(previous)
                waits[key].add(previous)
    return assemble(steps, waits)


def _ancestors(waits: Mapping[str, Iterable[str]], key: str) -> set[str]:
    seen: set[str] = set()
    todo = list(waits.get(key, ()))
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        todo.extend(waits.get(k, ()))
    return seen


def batch_report(
    plan: Plan, graph: ApplyGraph, started: Iterable[str], done: Iterable[str], failed: Iterable[str]
) -> tuple[BatchOutcome, ...]:
    """Per batch: complete (its gate ran), failed (one of its steps failed), interrupted (some of it ran), or
    not started."""
    started_s, done_s, failed_s = set(started), set(done), set(failed)
    out: list[BatchOutcome] = []
    for r in plan.groups:
        for b in r.batches:
            keys = set(_batch_steps(graph, b))
            gate = gate_key(r.address, b.number)
            if keys & failed_s:
                status = "failed"
            elif gate in done_s or (keys and keys <= done_s and gate not in graph.steps):
                status = "complete"
            elif keys & started_s or gate in started_s:
                status = "interrupted"
            else:
                status = "not started"
            out.append(BatchOutcome(r.address, b.number, len(r.batches), status, b.members))
    return tuple(out)
