"""Progress of an apply: a live display (rich) on a terminal, plain lines otherwise.

Both receive every event as it is stored (from worker threads) and print one line per resource transition;
the live display adds a status line with what is in flight and the counts so far ("done N of M"), redrawn
every second.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Collection, Mapping
from typing import IO, Any

from hotc.apply.durations import key as duration_key
from hotc.apply.events import STACK_TYPE
from hotc.planner.api import Action
from hotc.state.events import Event


def _line(e: Event, elapsed: float | None = None) -> str:
    pid = f" [id={e.physical_id}]" if e.physical_id and e.status.endswith("_COMPLETE") else ""
    took = f" after {elapsed:.1f}s" if elapsed is not None else ""
    reason = ""
    if e.reason and not e.status.endswith("_COMPLETE") and e.reason != "state changed":
        reason = f": {e.reason}"
    elif e.reason and e.status.endswith("_COMPLETE") and e.reason not in ("state changed",):
        reason = f" ({e.reason})"
    return f"{e.address}: {e.status}{took}{pid}{reason}"


_VERBS = {
    "CREATE": "creating",
    "UPDATE": "updating",
    "DELETE": "deleting",
    "SUSPEND": "suspending",
    "RESUME": "resuming",
    "CHECK": "checking",
    "SIGNAL": "signalling",
    "ADOPT": "adopting",
}
HEARTBEAT_SECONDS = 20.0
TICK_SECONDS = 1.0  # the live status line's redraw: its elapsed seconds count on between events


def still_line(address: str, action: str, elapsed: float) -> str:
    """``web: still creating… 20 s elapsed``."""
    return f"{address}: still {_VERBS.get(action, action.lower() + 'ing')}… {int(elapsed)} s elapsed"


# --------------------------------------------------------------------------------------- time left (ETA)

Steps = dict[
    str, tuple[float | None, tuple[str, ...]]
]  # address -> (expected seconds, addresses it waits on)


def plan_steps(plan: Any, durations: Mapping[str, float]) -> Steps:
    """The plan's steps for :func:`time_left`: each resource the run acts on, with its expected seconds from
    ``durations`` (``"TYPE ACTION"`` -> seconds: the stack's history, :func:`hotc.apply.durations.learned`;
    None when the history has no figure for it) and what it waits on (a create or update on what it depends
    on; a delete on the deletes of what depends on it). A replace costs its create and its delete."""
    acting = [c for c in plan.changes if c.action not in (Action.NOOP, Action.FORGET)]
    deleted_by: dict[str, list[str]] = {}
    for c in acting:
        if c.action is Action.DELETE:
            for d in c.depends_on:
                deleted_by.setdefault(d, []).append(c.address)
    steps: Steps = {}
    for c in acting:
        if c.import_id is not None:
            seconds: float | None = 0.0  # an import reads the object: no history figure needed
        else:
            names = {Action.REPLACE: ("CREATE", "DELETE"), Action.DELETE: ("DELETE",)}.get(
                c.action, ("CREATE",) if c.action is Action.CREATE else ("UPDATE",)
            )
            figures = [durations.get(duration_key(c.type, n)) for n in names]
            seconds = None if any(f is None for f in figures) else sum(f for f in figures if f is not None)
        waits = tuple(deleted_by.get(c.address, ())) if c.action is Action.DELETE else tuple(c.depends_on)
        if c.address in steps:  # a deposed instance's delete beside the address's other change
            before, other = steps[c.address]
            seconds = None if before is None or seconds is None else before + seconds
            waits = tuple(dict.fromkeys((*other, *waits)))
        steps[c.address] = (seconds, waits)
    return steps


def time_left(
    steps: Mapping[str, tuple[float | None, Collection[str]]],
    done: Collection[str],
    running: Mapping[str, float],
    parallelism: int = 1,
) -> float | None:
    """Seconds the run still needs: the longest chain of remaining work along the waits (a running step
    counts what is left of its expected time, never below zero), or the remaining work spread over
    ``parallelism`` workers when that is longer. None when a step not yet done has no expected duration
    (the estimate is given only once the history covers every remaining step)."""
    left: dict[str, float] = {}
    for address, (expected, _waits) in steps.items():
        if address in done:
            continue
        if expected is None:
            return None
        left[address] = max(expected - running[address], 0.0) if address in running else expected
    if not left:
        return 0.0
    waits = {a: [w for w in steps[a][1] if w in left and w != a] for a in left}
    waiting_on_me: dict[str, list[str]] = {}
    for a, ws in waits.items():
        for w in ws:
            waiting_on_me.setdefault(w, []).append(a)
    pending = {a: len(ws) for a, ws in waits.items()}
    ready = [a for a, n in pending.items() if n == 0]
    finish: dict[str, float] = {}
    while ready:  # the longest path, in a topological order of the remaining steps
        a = ready.pop()
        finish[a] = left[a] + max((finish[w] for w in waits[a]), default=0.0)
        for b in waiting_on_me.get(a, ()):
            pending[b] -= 1
            if pending[b] == 0:
                ready.append(b)
    for a in left:  # a cycle (never in a valid plan): its steps count on their own
        finish.setdefault(a, left[a])
    return max(max(finish.values()), sum(left.values()) / max(parallelism, 1))


def left_text(seconds: float) -> str:
    """``about 40 s left``, ``about 3 min left``."""
    if seconds < 1:
        return "under a second left"
    if seconds < 90:
        return f"about {round(seconds)} s left"
    return f"about {round(seconds / 60)} min left"


class PlainProgress:
    """One line per event, for logs and pipes; every ``heartbeat`` seconds one "still creating… N s elapsed"
    line per resource in flight, so a CI log shows a long create is alive (0 turns the heartbeat off)."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        heartbeat: float = HEARTBEAT_SECONDS,
        clock: Any = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}
        self._actions: dict[str, str] = {}
        self._heartbeat = heartbeat
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PlainProgress:
        if self._heartbeat > 0:
            self._thread = threading.Thread(target=self._beat_loop, name="hotc-heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return None

    def _beat_loop(self) -> None:
        while not self._stop.wait(self._heartbeat):
            self.beat()

    def beat(self) -> None:
        """Print one "still …" line for every resource in flight."""
        with self._lock:
            now = self._clock()
            for address in sorted(self._started):
                action = self._actions.get(address, "CREATE")
                self.stream.write(still_line(address, action, now - self._started[address]) + "\n")
            if self._started:
                self.stream.flush()

    def __call__(self, e: Event) -> None:
        if e.type == STACK_TYPE:
            return
        with self._lock:
            elapsed = None
            if e.status.endswith("_IN_PROGRESS"):
                self._started[e.address] = self._clock()
                self._actions[e.address] = e.status.split("_", 1)[0]
            elif e.address in self._started:
                elapsed = self._clock() - self._started.pop(e.address)
                self._actions.pop(e.address, None)
            self.stream.write(_line(e, elapsed) + "\n")
            self.stream.flush()

    def log(self, address: str, message: str) -> None:
        with self._lock:
            self.stream.write(f"{address}: {message}\n")
            self.stream.flush()

    def expect(self, total: int) -> None:
        """The number of resources the run will act on (the plain lines need not say it)."""

    def expect_steps(self, steps: Steps, parallelism: int) -> None:
        """The steps' expected durations (the plain lines give no estimate)."""


class RichProgress:
    """Event lines plus a live status line: what is in flight with its time so far, "done N of M", failures.

    The status line is redrawn every ``tick`` seconds by a ticker thread, not only when an event arrives, so
    a resource that takes a minute is seen counting its seconds. ``clock``, ``wait`` (the ticker's pause:
    returns True to stop) and ``console`` are injectable; :meth:`text` is the line as it stands."""

    def __init__(
        self,
        console: Any = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        tick: float = TICK_SECONDS,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        if console is None:
            # heavy: rich only when progress is shown
            from rich.console import Console

            console = Console()
        self.console = console
        self._lock = threading.Lock()
        self._clock = clock
        self._tick = tick
        self._stop = threading.Event()
        self._wait = wait if wait is not None else self._stop.wait
        self._thread: threading.Thread | None = None
        self._started: dict[str, float] = {}
        self._finished: set[str] = set()
        self._failed: set[str] = set()
        self._total: int | None = None
        self._steps: Steps = {}
        self._parallelism = 1
        self._status: Any = None

    def expect(self, total: int) -> None:
        """The number of resources the run will act on: the status line says "done N of M"."""
        with self._lock:
            self._total = total

    def expect_steps(self, steps: Steps, parallelism: int) -> None:
        """The run's steps with their expected durations (:func:`plan_steps`): the status line adds the time
        left (:func:`time_left`) when the stack's history covers every remaining step."""
        with self._lock:
            self._steps = dict(steps)
            self._parallelism = parallelism

    def text(self) -> str:
        """The status line now (rich markup)."""
        with self._lock:
            return self._text()

    def _text(self) -> str:
        # heavy: rich only when progress is shown
        from rich.markup import escape

        busy = sorted(self._started, key=lambda a: (self._started[a], a))
        now = self._clock()
        shown = ", ".join(f"{escape(a)} {int(now - self._started[a])}s" for a in busy[:4]) + (
            f" and {len(busy) - 4} more" if len(busy) > 4 else ""
        )
        done = len(self._finished)
        count = (
            f"done {min(done, self._total)} of {self._total}" if self._total is not None else f"{done} done"
        )
        eta = ""
        if self._steps and self._total is not None and done < self._total:
            left = time_left(
                self._steps,
                self._finished,
                {a: now - t for a, t in self._started.items()},
                self._parallelism,
            )
            eta = f", {left_text(left)}" if left is not None else ""
        return (
            f"[bold]applying[/bold]: {count}{eta}"
            + f", {len(busy)} in progress"
            + (f" ({shown})" if busy else "")
            + (f", [red]{len(self._failed)} failed[/red]" if self._failed else "")
        )

    def refresh(self) -> None:
        """Redraw the status line (the ticker calls this every ``tick`` seconds)."""
        with self._lock:
            if self._status is not None:
                self._status.update(self._text())

    def _tick_loop(self) -> None:
        while not self._wait(self._tick):
            self.refresh()

    def __enter__(self) -> RichProgress:
        self._status = self.console.status(self._text())
        self._status.__enter__()
        self._thread = threading.Thread(target=self._tick_loop, name="hotc-progress-tick", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._status is not None:
            self._status.__exit__(*exc)
            self._status = None

    def __call__(self, e: Event) -> None:
        if e.type == STACK_TYPE:
            return
        # heavy: rich only when progress is shown
        from rich.markup import escape

        with self._lock:
            elapsed = None
            if e.status.endswith("_IN_PROGRESS"):
                self._started[e.address] = self._clock()
            elif e.address in self._started:
                elapsed = self._clock() - self._started.pop(e.address)
            if e.status.endswith("_COMPLETE") or e.status.endswith("_SKIPPED"):
                self._finished.add(e.address)
                style = "green"
            elif e.status.endswith("_FAILED"):
                self._failed.add(e.address)
                self._finished.add(e.address)
                style = "red"
            else:
                style = "yellow"
            self.console.print(f"[{style}]{escape(_line(e, elapsed))}[/{style}]", highlight=False)
            if self._status is not None:
                self._status.update(self._text())

    def log(self, address: str, message: str) -> None:
        # heavy: rich only when progress is shown
        from rich.markup import escape

        self.console.print(f"[dim]{escape(address)}: {escape(message)}[/dim]", highlight=False)


def progress_for(stream: IO[str] | None = None) -> PlainProgress | RichProgress:
    """The live display on a terminal, plain lines otherwise."""
    s = stream or sys.stdout
    if s.isatty():
        return RichProgress()
    return PlainProgress(s)
