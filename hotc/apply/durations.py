"""How long each type's actions take on this stack, learned from its own events and from the run itself.

:func:`learned` reads a stack's event history: every ``ACTION_IN_PROGRESS`` of a resource followed by its
``ACTION_COMPLETE`` is one observation of ``(type, ACTION)``; the figure kept is the median of the most recent
observations. :class:`Durations` starts from those and takes in each step that completes during the run (the
first servers of a group to finish tell how long the others will take). The executor hands the figure to the
driver as ``ActionContext.expected``, which the waits poll around (``hotc.providers.openstack.polling``).
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


def key(type_name: str, action: str) -> str:
    return f"{type_name} {action}"


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
    """The median of the last :data:`KEEP` durations of each ``(type, action)`` in the history."""
    return {k: statistics.median(v[-KEEP:]) for k, v in observations(events).items()}


class Durations:
    """The expected duration per ``(type, action)``: seeded from the history, updated as steps complete."""

    def __init__(self, seed: Mapping[str, float] | None = None) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, list[float]] = {k: [v] for k, v in (seed or {}).items() if v > 0}

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
