"""A plan's cost: how long apply should take along its critical path, and each change's blast radius.

Durations per resource type and action come from the stack's own event history (the median of measured
``*_IN_PROGRESS`` → ``*_COMPLETE`` intervals) when there is one, else from built-in defaults measured on the
project's test cloud. The estimate assumes unbounded parallelism along the graph (hotc starts each action
when what it needs is done), so it is the critical path's length: a lower bound on wall time.

The blast radius of a change is every other change the plan makes *because of it*: a resource whose planned
properties read an address that is replaced or updated (its ``after`` waits on it, or it depends on it and
is itself replaced). Pure functions over the Plan; event history is passed in as data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from hotc.model import model
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.values import Unknown

# Seconds per (type, action) when the stack has no history: rough medians of the test cloud and typical
# clouds (servers build, volumes allocate, load balancers provision their amphorae).
_DEFAULTS: dict[str, float] = {
    "OS::Nova::Server": 40.0,
    "OS::Cinder::Volume": 8.0,
    "OS::Cinder::VolumeAttachment": 10.0,
    "OS::Octavia::LoadBalancer": 90.0,
    "OS::Octavia::Listener": 10.0,
    "OS::Octavia::Pool": 10.0,
    "OS::Octavia::PoolMember": 8.0,
    "OS::Octavia::HealthMonitor": 8.0,
    "OS::Glance::WebImage": 20.0,
    "OS::Neutron::Router": 4.0,
    "OS::Neutron::RouterInterface": 4.0,
    "OS::Neutron::FloatingIP": 3.0,
}
_DEFAULT_OPENSTACK = 2.0
_DEFAULT_NATIVE = 0.05  # OS::Heat::* types that live in-process
_DELETE_FACTOR = 0.5


@model(slots=True)
class Estimate:
    seconds: float
    critical_path: tuple[str, ...]  # addresses, in order
    measured_types: tuple[str, ...]  # types whose durations come from the stack's own history


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def measured_durations(events: Iterable[Any]) -> dict[tuple[str, str], float]:
    """Median seconds per (type, ACTION) from events (objects with ``address``, ``type``, ``status``,
    ``time``): each ``X_IN_PROGRESS`` paired with the next ``X_COMPLETE`` of the same address."""
    started: dict[tuple[str, str], datetime] = {}
    samples: dict[tuple[str, str], list[float]] = {}
    for e in events:
        action, _, status = str(e.status).partition("_")
        t = _parse_time(str(e.time))
        if t is None:
            continue
        key = (str(e.address), action)
        if status == "IN_PROGRESS":
            started[key] = t
        elif status == "COMPLETE" and key in started:
            samples.setdefault((str(e.type), action), []).append((t - started.pop(key)).total_seconds())
    if not samples:
        return {}
    import statistics  # lazy: only when the stack has recorded durations (start-up time)

    return {k: statistics.median(v) for k, v in samples.items() if v}


_EVENT_ACTION = {Action.CREATE: "CREATE", Action.UPDATE: "UPDATE", Action.DELETE: "DELETE"}


def _duration(c: ResourceChange, measured: Mapping[tuple[str, str], float]) -> tuple[float, bool]:
    if c.action in (Action.NOOP, Action.FORGET):
        return 0.0, False
    if c.import_id is not None:
        return 0.5, False
    action = _EVENT_ACTION.get(c.action, "CREATE")
    hit = measured.get((c.type, action))
    if hit is None and action == "UPDATE":
        hit = measured.get((c.type, "CREATE"))
    if hit is not None:
        seconds, from_history = hit, True
    else:
        base = _DEFAULTS.get(
            c.type, _DEFAULT_NATIVE if c.type.startswith("OS::Heat::") else _DEFAULT_OPENSTACK
        )
        seconds, from_history = (base * _DELETE_FACTOR if c.action is Action.DELETE else base), False
    # a replace costs its create on the critical path: dependents wait for the new instance, and the old one
    # is deleted at the end, off the path
    return seconds, from_history


def _done(
    a: str,
    changes: Mapping[str, ResourceChange],
    cost: Mapping[str, float],
    finish: dict[str, float],
    best_prev: dict[str, str | None],
    visiting: set[str],
) -> float:
    """When the change at ``a`` finishes at the earliest (its longest chain of dependencies), noting in
    ``best_prev`` the dependency on that chain. Only changes that are not deletes are in ``cost``, so a
    dependency is on a chain when it is there; ``finish`` holds those already worked out (the changes come in
    a creation order: most dependencies are). (A function of its own, not a closure calling itself: such a
    closure is a reference cycle, which keeps the whole plan alive until the cyclic collector runs.)"""
    if a in finish:
        return finish[a]
    if a in visiting:  # a cycle cannot be planned; stay finite anyway
        return 0.0
    visiting.add(a)
    prev, start = None, 0.0
    for d in changes[a].depends_on:
        t = finish.get(d)
        if t is None:
            if d not in cost:
                continue  # not in the plan, or deleted: off every chain
            t = _done(d, changes, cost, finish, best_prev, visiting)
        if t > start or prev is None:
            prev, start = d, max(start, t)
    visiting.discard(a)
    finish[a] = t = start + cost[a]
    best_prev[a] = prev
    return t


def estimate(plan: Plan, measured: Mapping[tuple[str, str], float] | None = None) -> Estimate:
    """The critical path of the plan's changes (longest chain of durations along ``depends_on``)."""
    measured = measured or {}
    changes = {c.address: c for c in plan.changes if not c.deposed}
    cost: dict[str, float] = {}  # of every change that is not a delete (the deletes' come after)
    delete_cost: dict[str, float] = {}
    used: set[str] = set()
    durations: dict[tuple[str, Action], tuple[float, bool]] = {}  # one per type and action (not an import)
    creates: list[str] = []  # (in the plan's order)
    for a, c in changes.items():
        if c.action is not Action.DELETE:
            creates.append(a)
        if c.import_id is None:
            known = durations.get((c.type, c.action))
            if known is None:
                known = durations[(c.type, c.action)] = _duration(c, measured)
            seconds, hist = known
        else:
            seconds, hist = _duration(c, measured)
        if c.action is Action.DELETE:
            delete_cost[a] = seconds
        else:
            cost[a] = seconds
        if hist:
            used.add(c.type)
    finish: dict[str, float] = {}
    best_prev: dict[str, str | None] = {}
    visiting: set[str] = set()
    for a in creates:
        if a not in finish:  # (most are, by the time they come: the changes are in a creation order)
            _done(a, changes, cost, finish, best_prev, visiting)
    end = max(creates, key=finish.__getitem__, default=None)
    path: list[str] = []
    while end is not None:
        path.append(end)
        end = best_prev.get(end)
    total = finish[path[0]] if path else 0.0
    path = [a for a in path if changes[a].action is not Action.NOOP]
    # deletes run after the creates they block, in reverse dependency order: count the longest delete chain
    total += max(delete_cost.values(), default=0.0)
    return Estimate(round(total, 2), tuple(reversed(path)), tuple(sorted(used)))


def _waits_on(value: Any, out: set[str]) -> None:
    if isinstance(value, Unknown):
        out.update(w.address for w in value.waits_on)
    elif isinstance(value, Mapping):
        for v in value.values():
            _waits_on(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _waits_on(v, out)


def blast_radius(plan: Plan) -> dict[str, list[tuple[str, str]]]:
    """For each replaced or updated address: the other changes it causes, as ``(address, why)``.

    A change is caused by X when its planned values wait on X (they are known only after X's new instance
    exists), or when it depends on X and is replaced or updated while its own template did not change."""
    changes = {c.address: c for c in plan.changes}
    out: dict[str, list[tuple[str, str]]] = {}
    for c in plan.changes:
        if c.action not in (Action.UPDATE, Action.REPLACE):
            continue
        waits: set[str] = set()
        _waits_on(c.after, waits)
        for cause in sorted(waits):
            src = changes.get(cause)
            if src is None or src.action not in (Action.UPDATE, Action.REPLACE, Action.CREATE):
                continue
            why = f"{c.action.value}d because its properties read {cause}, which is {src.action.value}d"
            out.setdefault(cause, []).append((c.address, why))
    return out


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {round(seconds)} s"
    return f"about {round(seconds / 60)} min"
