"""Progress of an apply: a live display (rich) on a terminal, plain lines otherwise.

Both receive every event as it is stored (from worker threads) and print one line per resource transition;
the live display adds a status line with what is in flight and the counts so far ("done N of M"), redrawn
every second.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from hotc.apply.events import STACK_TYPE
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
        self._status: Any = None

    def expect(self, total: int) -> None:
        """The number of resources the run will act on: the status line says "done N of M"."""
        with self._lock:
            self._total = total

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
        return (
            f"[bold]applying[/bold]: {count}"
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
