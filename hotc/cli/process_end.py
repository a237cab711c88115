"""Ending hotc's own process once a command has written everything, without the interpreter's teardown.

A plan of a large stack holds millions of objects (the template's IR, the desired state, the plan). When the
command returns, the interpreter frees them one by one, and again walks what is left when it shuts down:
about 230 M instructions (2 % of the process) at 10,000 resources and about half a second of CPU at 100,000,
for memory the operating system takes back at once when the process ends.

:func:`end_process` is called by a command as its last step (its output written and flushed, its files
closed). When hotc runs as its own program (:func:`hotc.cli.app.main` called by the console script or
``python -m hotc``, which marks the root context with :class:`OwnProcess`) it flushes the standard streams,
runs the exit handlers the process registered (``atexit``: logging's flush, anything a library added) and ends
the process with the command's exit code. Anywhere else (a test's ``CliRunner``, ``main([...])`` from Python,
a caller's process) it returns and the command ends as usual. It also returns while another thread runs: the
interpreter would wait for that thread, so the process is left to end as usual.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Any

_current_context: Any
try:  # typer >= 0.2x carries its own click
    from typer._click.globals import get_current_context as _current_context
except ImportError:  # pragma: no cover - an older typer runs on the click package
    try:
        from click import get_current_context as _current_context
    except ImportError:
        _current_context = None


class OwnProcess:
    """The root click context's ``obj`` when hotc's process is hotc's alone (see the module docstring)."""

    __slots__ = ()


def own_process() -> bool:
    """Whether the command running now is in hotc's own process (the root context carries OwnProcess)."""
    if _current_context is None:
        return False  # no context to ask: the process ends as usual
    ctx = _current_context(silent=True)
    return ctx is not None and isinstance(ctx.find_root().obj, OwnProcess)


def end_process(code: int = 0) -> None:
    """End hotc's own process now with exit status CODE (see the module docstring); elsewhere, return."""
    if not own_process() or threading.active_count() > 1:
        return
    sys.stdout.flush()  # (a closed pipe raises here, before anything is skipped: the usual error path)
    sys.stderr.flush()

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


__all__ = ["OwnProcess", "end_process", "own_process"]
