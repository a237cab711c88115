"""Progress of an apply: a live display (rich) on a terminal, plain lines otherwise.

Both receive every event as it is stored (from worker threads) and print one line per resource transition;
the live display adds a status line with what is in flight and the counts so far.
"""

from __future__ import annotations

import sys
import threading
import time
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


class PlainProgress:
    """One line per event, for logs and pipes."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __call__(self, e: Event) -> None:
        if e.type == STACK_TYPE:
            return
        with self._lock:
            elapsed = None
            if e.status.endswith("_IN_PROGRESS"):
                self._started[e.address] = time.monotonic()
            elif e.address in self._started:
                elapsed = time.monotonic() - self._started.pop(e.address)
            self.stream.write(_line(e, elapsed) + "\n")
            self.stream.flush()

    def log(self, address: str, message: str) -> None:
        with self._lock:
            self.stream.write(f"{address}: {message}\n")
            self.stream.flush()


class RichProgress:
    """Event lines plus a live status line (spinner, resources in flight, counts)."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console()
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}
        self._done = 0
        self._failed = 0
        self._status: Any = None

    def _text(self) -> str:
        busy = sorted(self._started)
        shown = ", ".join(busy[:4]) + (f" and {len(busy) - 4} more" if len(busy) > 4 else "")
        return (
            f"[bold]applying[/bold]: {len(busy)} in progress"
            + (f" ({shown})" if busy else "")
            + f", {self._done} done"
            + (f", [red]{self._failed} failed[/red]" if self._failed else "")
        )

    def __enter__(self) -> RichProgress:
        self._status = self.console.status(self._text())
        self._status.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._status is not None:
            self._status.__exit__(*exc)

    def __call__(self, e: Event) -> None:
        if e.type == STACK_TYPE:
            return
        from rich.markup import escape

        with self._lock:
            elapsed = None
            if e.status.endswith("_IN_PROGRESS"):
                self._started[e.address] = time.monotonic()
            elif e.address in self._started:
                elapsed = time.monotonic() - self._started.pop(e.address)
            if e.status.endswith("_COMPLETE") or e.status.endswith("_SKIPPED"):
                self._done += 1
                style = "green"
            elif e.status.endswith("_FAILED"):
                self._failed += 1
                style = "red"
            else:
                style = "yellow"
            self.console.print(f"[{style}]{escape(_line(e, elapsed))}[/{style}]", highlight=False)
            if self._status is not None:
                self._status.update(self._text())

    def log(self, address: str, message: str) -> None:
        from rich.markup import escape

        self.console.print(f"[dim]{escape(address)}: {escape(message)}[/dim]", highlight=False)


def progress_for(stream: IO[str] | None = None) -> PlainProgress | RichProgress:
    """The live display on a terminal, plain lines otherwise."""
    s = stream or sys.stdout
    if s.isatty():
        return RichProgress()
    return PlainProgress(s)
