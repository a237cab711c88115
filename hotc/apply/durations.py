"""How long each type's actions take on this stack, learned from its own events and from the run itself.

:func:`learned` reads a stack's event history: every ``ACTION_IN_PROGRESS`` of a resource followed by its
``ACTION_COMPLETE`` is one observation of ``(type, ACTION)``; the figure kept is the median of the most recent
observations. :class:`Durations` starts from those and takes in each step that completes during the run (the
first servers of a group to finish tell how long the others will take). The executor hands the figure to the
driver as ``ActionContext.expected``, which the waits poll around (``hotc.providers.openstack.polling``).

With at least :data:`MIN_RUNS` observations, :func:`learned` also gives the shortest of them, under
:func:`fastest_key`: the action has not been seen to take less, so a create's first poll after its first second
can come just before it (``ActionContext.fastest``).
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime

from hotc.state.events import Event

ACTIONS = ("CREATE", "UPDATE", "DELETE")
KEEP = 20  # observations kept per (type, action): the most recent ones
MIN_SECONDS = 0.05  # shorter than this is not worth a hint
MAX_SECONDS = 3600.0
MIN_RUNS = 3  # observations needed before the shortest of them says when to poll first
_FASTEST = " fastest"


def key(type_name: str, action: str) -> str:
    return f"{type_name} {action}"


def fastest_key(type_name: str, action: str) -> str:
    """The key of the shortest recent duration of ``(type, action)`` in :func:`learned`'s figures."""
    return key(type_name, action) + _FASTEST


def fastest_of(samples: Iterable[float]) -> float | None:
    """The shortest of the :data:`KEEP` most recent durations, when there are at least :data:`MIN_RUNS`."""
    recent = list(samples)[-KEEP:]
    return min(recent) if len(recent) >= MIN_RUNS else None


def _seconds(ts: str) -> float | None:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def observations(events: Iterable[Event]) -> dict[str, list[float]]:
    """Durations by ``key(type, action)``, oldest first, from a stack's events (in the order they were stored)."""
    started: dict[tuple[str, str], tuple[str, float]] = {}  # (address, action) -> (type, start)
    out: dict[str, list[float]] = {}
    for e in events:
        action, _, status = e.status.partition("_")
        if action not in ACTIONS:
            continue
        t = _seconds(e.time)
        if t is None:
            continue
        if status == "IN_PROGRESS":
            started[(e.address, action)] = (e.type, t)
        elif status == "COMPLETE":
            begun = started.pop((e.address, action), None)
            if begun is not None and begun[0] == e.type:
                d = t - begun[1]
                if MIN_SECONDS <= d <= MAX_SECONDS:
                    out.setdefault(key(e.type, action), []).append(d)
        elif status == "FAILED":
            started.pop((e.address, action), None)
    return out


def learned(events: Iterable[Event]) -> dict[str, float]:
    """The median of the last :data:`KEEP` durations of each ``(type, action)`` in the history, and under
    :func:`fastest_key` the shortest of them when there are at least :data:`MIN_RUNS`."""
    out: dict[str, float] = {}
    for k, v in observations(events).items():
        out[k] = statistics.median(v[-KEEP:])
        fastest = fastest_of(v)
        if fastest is not None:
            out[k + _FASTEST] = fastest
    return out


class Durations:
    """The expected duration per ``(type, action)``: seeded from the history, updated as steps complete."""

    def __init__(self, seed: Mapping[str, float] | None = None) -> None:
        self._lock = threading.Lock()
        given = {k: v for k, v in (seed or {}).items() if v > 0}
        self._seen: dict[str, list[float]] = {k: [v] for k, v in given.items() if not k.endswith(_FASTEST)}
        self._fastest = {k[: -len(_FASTEST)]: v for k, v in given.items() if k.endswith(_FASTEST)}
        self._run: dict[str, list[float]] = {}  # what this run observed

    def fastest(self, type_name: str, action: str) -> float | None:
        """The shortest duration of ``(type, action)`` seen in the history (with :data:`MIN_RUNS`) and in this
        run, or None when neither has enough observations."""
        k = key(type_name, action)
        with self._lock:
            run = self._run.get(k, [])
            before = self._fastest.get(k)
            if before is None:
                return fastest_of(run)
            return min(
                [before, *run]
            )  # a faster run now lowers it at once (the earlier poll is the safe side)

    def expected(self, type_name: str, action: str) -> float | None:
        with self._lock:
            seen = self._seen.get(key(type_name, action))
            return statistics.median(seen) if seen else None

    def observe(self, type_name: str, action: str, seconds: float) -> None:
        if not MIN_SECONDS <= seconds <= MAX_SECONDS:
            return
        with self._lock:
            seen = self._seen.setdefault(key(type_name, action), [])
            seen.append(seconds)
            del seen[:-KEEP]
            run = self._run.setdefault(key(type_name, action), [])
            run.append(seconds)
            del run[:-KEEP]
