"""Run the ``hotc`` command line in-process, the way the console script does (``hotc.cli.app.main``).

A ``python -m hotc`` subprocess costs about a second of interpreter and import start-up per call; use one only
where a separate process is the point (signals, another process reading while an apply runs, the entry point
itself). :func:`run_hotc` gives the same ``returncode``/``stdout``/``stderr`` as ``subprocess.run``: it runs in
``cwd`` with ``NO_COLOR=1`` and without ``HOTC_BACKEND``/``HOTC_SIGNAL_STORE``, stdin from ``input`` (never a terminal), and restores
the working directory, environment and standard streams afterwards.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from hotc.cli.app import main


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


class _Stdin(io.StringIO):
    def isatty(self) -> bool:
        return False


def run_hotc(cwd: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    out, err = io.StringIO(), io.StringIO()
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_stdin = sys.stdin
    code = 0
    try:
        for name in ("HOTC_BACKEND", "HOTC_SIGNAL_STORE"):
            os.environ.pop(name, None)
        os.environ["NO_COLOR"] = "1"
        os.environ.update(env or {})
        os.chdir(cwd)
        sys.stdin = _Stdin(input or "")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return Result(code, out.getvalue(), err.getvalue())
