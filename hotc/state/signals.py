"""Turn SIGTERM (and SIGINT) into exceptions while an operation holds a lock, so ``with backend.lock(...)``
releases the lock on the way out instead of dying with it held."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


def _raise_exit(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def exit_on_signals() -> Iterator[None]:
    """Within the block: SIGTERM raises ``SystemExit(143)``, SIGINT raises ``KeyboardInterrupt``.
    Previous handlers are restored afterwards. A no-op outside the main thread (Python only delivers
    signals there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old_term = signal.signal(signal.SIGTERM, _raise_exit)
    old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)
