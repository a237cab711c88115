"""How many actions the executor keeps in flight: up to ``--parallelism``, less while the cloud says it is busy.

The cloud's own signals lower the limit: a driver call answered 429 (rate limited), 503 (unavailable) or 409
(busy), or an answer much slower than the run's usual (:data:`SLOW_FACTOR` times the median of the answers so
far, and at least :data:`SLOW_SECONDS`), reach :meth:`Throttle.congested` through ``ActionContext.congested``.
Each signal halves the limit (down to :data:`FLOOR`), at most once per :data:`COOLDOWN` seconds so that one burst
counts once; every action that completes while no signal came raises it by one again, up to ``--parallelism``
(additive increase, multiplicative decrease, as TCP does). Actions in flight are never stopped: a lower limit
only holds back the next ones.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from collections.abc import Callable

FLOOR = 2  # the limit never goes below this (one slow call must not serialise the run)
COOLDOWN = 2.0  # seconds: signals closer together than this count once
SLOW_FACTOR = 8.0  # an answer this many times slower than the median of the run's answers is a signal
SLOW_SECONDS = 5.0  # ... when it also took at least this long
SAMPLES = 200  # answers kept for the median


class Throttle:
    def __init__(self, parallelism: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.maximum = max(1, parallelism)
        self._limit = float(self.maximum)
        self._clock = clock
        self._lock = threading.Lock()
        self._last_signal = -1e18
        self._latencies: deque[float] = deque(maxlen=SAMPLES)
        self.signals: list[str] = []  # why the limit was lowered, in order (reported in the log)

    @property
    def limit(self) -> int:
        with self._lock:
            return max(1, int(self._limit))

    def congested(self, reason: str) -> bool:
        """The cloud said it is busy: halve the limit (once per cooldown). True when the limit was lowered."""
        with self._lock:
            now = self._clock()
            if now - self._last_signal < COOLDOWN:
                return False
            self._last_signal = now
            lowered = max(float(min(FLOOR, self.maximum)), self._limit / 2)
            if lowered >= self._limit:
                return False
            self._limit = lowered
            self.signals.append(f"{reason}: at most {int(lowered)} actions in flight")
            return True

    def answered(self, seconds: float) -> str | None:
        """A cloud call returned after ``seconds``: the reason to call :meth:`congested` when it was slow."""
        with self._lock:
            median = statistics.median(self._latencies) if len(self._latencies) >= 10 else None
            self._latencies.append(seconds)
        if median is not None and seconds >= SLOW_SECONDS and seconds >= SLOW_FACTOR * median:
            return f"a cloud call took {seconds:.1f} s (usually {median:.2f} s)"
        return None

    def completed(self) -> None:
        """An action completed: raise the limit by one (after a cooldown since the last signal)."""
        with self._lock:
            if self._clock() - self._last_signal >= COOLDOWN:
                self._limit = min(float(self.maximum), self._limit + 1)
