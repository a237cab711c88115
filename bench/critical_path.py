"""hotc's wall time against the critical-path bound of one phase, from the timeline ``bench_cloud.py`` records.

The timeline (``bench_cloud.py --probe``) has one row per executor step: ``key``, ``label``, ``start`` and ``end``
(seconds from the process start), ``waits`` (the keys of the steps it waited on), ``spans`` (``[start, end]`` of
each of its cloud calls, and of each wait for a status-board list answering one of its polls), ``sleeps`` (how
many times it slept between polls or retries); plus the rows ``(process)`` (its ``end``: the process's wall) and
``(outside steps ...)`` (``calls``, ``api``: the cloud calls made before and between steps: planning, look-ups).

**A step's cloud time** is a lower bound of the time the cloud itself took for it: for a step that polled, from
its first call's start to the end of its last-but-one call (the cloud was not done then) plus its last call's
duration (someone has to ask once more); for a step that did not, the time covered by its calls (their union).
**The bound** is the longest chain of cloud time along the dependency graph (``waits``): no scheduler could end
the steps sooner. (The look-ups before the first step are left out of it: they are shown as part of the gap.)
A create that needs only another create's id may start once that one is released (``early_waits``: the keys of
such parents; ``released``: when a step let its id-only dependents go, e.g. a Neutron object after its POST):
along such an edge the chain counts the parent's cloud time up to its release, not to its end.

When the wall exceeds the bound by more than ``GAP`` (15 %), the report names where the time went, along the
realised critical path (from the step that ended last, back through the parent each step waited for longest):
before the first step (process start-up, planning, look-ups), between a parent's finish and a dependent's
start (scheduling), polling (the time between a step's last two polls: how late the poll that saw the end
came), hotc inside the steps (the rest of their time: state writes, building requests), after the last step.

Pure: no clock, no I/O; :func:`report` returns the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

GAP = 0.15  # a wall more than this much over the bound is explained


def _spans(row: Mapping[str, Any], until: float | None = None) -> list[tuple[float, float]]:
    """The step's cloud calls, sorted; with ``until``, only what of them came before it."""
    spans = sorted((float(s), float(e)) for s, e in row.get("spans") or ())
    if until is None:
        return spans
    return [(s, min(e, until)) for s, e in spans if s < until]


def _union(spans: Sequence[tuple[float, float]]) -> float:
    total, reach = 0.0, float("-inf")
    for s, e in spans:
        if e <= reach:
            continue
        total += e - max(s, reach)
        reach = e
    return total


def cloud_time(row: Mapping[str, Any], until: float | None = None) -> float:
    """The cloud's own time of one step (see the module docstring); with ``until``, of its part before then."""
    spans = _spans(row, until)
    if not spans:
        return 0.0
    if int(row.get("sleeps") or 0) > 0 and len(spans) >= 2:
        penultimate_end = max(e for _s, e in spans[:-1])
        last = spans[-1]
        return max(0.0, penultimate_end - spans[0][0]) + (last[1] - last[0])
    return _union(spans)


def polling_loss(row: Mapping[str, Any], until: float | None = None) -> float:
    """How late the poll that saw a step's end came: the time between its last two calls (0 without polling)."""
    spans = _spans(row, until)
    if int(row.get("sleeps") or 0) == 0 or len(spans) < 2:
        return 0.0
    return max(0.0, spans[-1][0] - max(e for _s, e in spans[:-1]))


@dataclass(frozen=True)
class Analysis:
    wall: float
    bound: float
    chain: tuple[str, ...]  # labels of the chain that makes the bound
    parts: tuple[
        tuple[str, float], ...
    ]  # where the wall went along the realised critical path (largest first)

    @property
    def gap(self) -> float:
        return self.wall - self.bound


def _steps(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(r.get("key") or r["step"]): r for r in rows if not str(r["step"]).startswith("(")}


def analyse(rows: Sequence[Mapping[str, Any]], wall: float | None = None) -> Analysis | None:
    """The bound and the decomposition of ``wall`` (default: the process's own) for one phase's timeline;
    None when the phase ran no step (a check)."""
    steps = _steps(rows)
    proc = next((r for r in rows if r["step"] == "(process)"), None)
    if not steps:
        return None
    if wall is None:
        wall = float(proc["end"]) if proc is not None else max(float(r["end"]) for r in steps.values())

    def early(child: Mapping[str, Any], parent_key: str) -> float | None:
        """When ``child`` could start after ``parent_key`` along an id-only edge (its release), else None."""
        released = steps[parent_key].get("released")
        if parent_key in (child.get("early_waits") or ()) and released is not None:
            return float(released)
        return None

    # the bound: the longest chain of cloud time (steps in start order: a parent starts before its dependent)
    best: dict[str, tuple[float, tuple[str, ...]]] = {}
    entry: dict[str, tuple[float, tuple[str, ...]]] = {}  # the chain up to a step's start
    for key, row in sorted(steps.items(), key=lambda kv: float(kv[1]["start"])):
        options = []
        for w in row.get("waits") or ():
            if w not in best:
                continue
            at = early(row, w)
            if at is None:
                options.append(best[w])
            else:
                options.append(
                    (
                        entry[w][0] + cloud_time(steps[w], at),
                        (*entry[w][1], str(steps[w]["step"]) + " (released)"),
                    )
                )
        entry[key] = max(options, key=lambda b: b[0], default=(0.0, ()))
        best[key] = (entry[key][0] + cloud_time(row), (*entry[key][1], str(row["step"])))
    bound, chain = max(best.values(), key=lambda b: b[0])

    def until(child: Mapping[str, Any], parent: Mapping[str, Any]) -> float:
        """The moment ``child`` could start as far as ``parent`` goes: its release or its end."""
        at = early(child, str(parent.get("key") or parent["step"]))
        return float(parent["end"]) if at is None else at

    # the realised critical path: from the step that ended last, back through the parent that let it go last
    last = max(steps.values(), key=lambda r: float(r["end"]))
    path = [last]
    while True:
        parents = [steps[w] for w in path[-1].get("waits") or () if w in steps]
        if not parents:
            break
        child = path[-1]
        path.append(max(parents, key=lambda r: until(child, r)))
    path.reverse()
    # each step of the path counts up to the moment its successor could start (the last one: its end)
    ends = [until(child, parent) for parent, child in zip(path, path[1:], strict=False)] + [
        float(last["end"])
    ]
    first_start = float(path[0]["start"])
    scheduling = sum(
        max(0.0, float(child["start"]) - end) for end, child in zip(ends, path[1:], strict=False)
    )
    polling = sum(polling_loss(r, end) for r, end in zip(path, ends, strict=True))
    inside = (
        sum(end - float(r["start"]) - cloud_time(r, end) for r, end in zip(path, ends, strict=True)) - polling
    )
    end = float(proc["end"]) if proc is not None else wall  # the process's own end (its clock)
    after = max(0.0, end - float(last["end"]))
    outside = next((r for r in rows if str(r["step"]).startswith("(outside")), None)
    before_label = "before the first step"
    if outside is not None:
        before_label += f" (start-up, planning; {int(outside.get('calls') or 0)} cloud calls, {float(outside.get('api') or 0):.2f} s)"
    parts = [
        (
            before_label,
            first_start + max(0.0, wall - float(proc["end"])) if proc is not None else first_start,
        ),
        ("between a parent's finish and a dependent's start", scheduling),
        ("polling (between a step's last two polls)", polling),
        ("hotc inside the steps", max(0.0, inside)),
        ("after the last step", after),
    ]
    parts.sort(key=lambda p: -p[1])
    return Analysis(wall, bound, chain, tuple(parts))


def report(name: str, rows: Sequence[Mapping[str, Any]], wall: float | None = None) -> str:
    """One phase's line: hotc's wall beside the critical-path bound, and, when the wall is more than ``GAP``
    over it, where the time went."""
    a = analyse(rows, wall)
    if a is None:
        return f"hotc {name}: no executor step (nothing to bound)"
    over = a.gap / a.bound if a.bound > 0 else float("inf")
    line = (
        f"hotc {name}: wall {a.wall:.2f} s, critical-path bound {a.bound:.2f} s "
        f"(cloud time along {' -> '.join(a.chain[:6])}{' -> ...' if len(a.chain) > 6 else ''})"
    )
    if over <= GAP:
        return line + f", within {GAP:.0%}"
    where = "; ".join(f"{what} {secs:.2f} s" for what, secs in a.parts if secs >= 0.005)
    pct = "" if a.bound <= 0 else f" ({over:.0%} over the bound)"
    return line + f"\n  gap {a.gap:.2f} s{pct}: {where}"


__all__ = ["GAP", "Analysis", "analyse", "cloud_time", "polling_loss", "report"]
