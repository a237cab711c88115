"""The live status line of an apply on a terminal ticks every second, not only when an event arrives, and
says "done N of M". Time is a fake clock and the ticker's pause a fake wait: nothing sleeps."""

from __future__ import annotations

import io
import threading
from typing import Any

from rich.console import Console

from hotc.apply.events import resource_event
from hotc.apply.progress import RichProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Status:
    """What ``console.status`` gives: records every text it is asked to show."""

    def __init__(self, text: str) -> None:
        self.texts = [text]
        self.lock = threading.Lock()

    def __enter__(self) -> Status:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def update(self, text: str) -> None:
        with self.lock:
            self.texts.append(text)


class FakeConsole:
    def __init__(self) -> None:
        self.printed: list[str] = []
        self.status_obj: Status | None = None

    def status(self, text: str) -> Status:
        self.status_obj = Status(text)
        return self.status_obj

    def print(self, text: str, **kw: Any) -> None:
        self.printed.append(text)


def test_status_line_counts_done_of_total_and_the_seconds_in_flight() -> None:
    clock = Clock()
    p = RichProgress(Console(file=io.StringIO()), clock=clock)
    p.expect(3)
    assert "done 0 of 3" in p.text()
    p(resource_event("web", "OS::Nova::Server", "CREATE_IN_PROGRESS", "state changed"))
    clock.now += 12
    assert "web 12s" in p.text() and "1 in progress" in p.text()
    p(resource_event("web", "OS::Nova::Server", "CREATE_COMPLETE", "state changed", "abc"))
    p(resource_event("db", "OS::Cinder::Volume", "CREATE_IN_PROGRESS", "state changed"))
    p(resource_event("db", "OS::Cinder::Volume", "CREATE_FAILED", "quota"))
    text = p.text()
    assert "done 2 of 3" in text and "1 failed" in text and "0 in progress" in text


def test_the_ticker_redraws_between_events() -> None:
    clock = Clock()
    pauses: list[float] = []

    def wait(seconds: float) -> bool:  # the ticker's pause: a second passes; stop after five
        pauses.append(seconds)
        clock.now += seconds
        return len(pauses) > 5

    console = FakeConsole()
    p = RichProgress(console, clock=clock, wait=wait)
    p.expect(1)
    p(resource_event("a", "OS::Heat::TestResource", "CREATE_IN_PROGRESS", "state changed"))
    with p:
        pass  # no event arrives while the ticker runs; __exit__ waits for it to stop
    assert console.status_obj is not None
    texts = console.status_obj.texts
    assert pauses[:5] == [1.0] * 5
    shown = [t for t in texts if "a " in t]
    # one redraw per tick, each a second later: a 1s, a 2s, ... a 5s (not frozen at a 0s)
    for second in range(1, 6):
        assert any(f"(a {second}s)" in t for t in shown), texts
    assert all("done 0 of 1" in t for t in texts)


def test_without_a_total_the_count_is_plain() -> None:
    p = RichProgress(Console(file=io.StringIO()), clock=Clock())
    p(resource_event("a", "T", "CREATE_COMPLETE", "state changed"))
    assert "1 done" in p.text()


def test_apply_tells_the_progress_how_many_resources_it_acts_on(tmp_path: Any, monkeypatch: Any) -> None:
    import shutil
    from pathlib import Path

    import hotc.apply.progress as progress
    from tests.clirun import run_hotc

    told: list[int] = []

    class Recorder(progress.PlainProgress):
        def expect(self, total: int) -> None:
            told.append(total)

    monkeypatch.setattr(progress, "progress_for", lambda stream=None: Recorder(stream or io.StringIO()))
    shutil.copy(
        Path(__file__).resolve().parents[2] / "examples" / "quickstart.yaml", tmp_path / "quickstart.yaml"
    )
    res = run_hotc(tmp_path, "apply", "-t", "quickstart.yaml", "--auto-approve")
    assert res.returncode == 0, res.stderr
    assert told == [5]
