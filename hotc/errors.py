"""Errors and diagnostics shared by every layer.

A :class:`Diagnostic` is an error or warning as a value, carrying the source position it is about.
A :class:`HotcError` is raised at I/O edges (CLI, backends, providers) when an operation cannot go on;
the CLI prints it without a traceback and exits non-zero.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from enum import Enum
from typing import NamedTuple

from hotc.model import model


class Pos(NamedTuple):
    """A position in a source file: 1-based line and column.

    A named tuple (immutable, like the frozen dataclass it was): decoding makes one for every key, value and
    item of a template (about 260,000 at 10,000 resources), and a tuple is built by one C call
    (``tuple.__new__(Pos, (file, line, col))``) where a slotted frozen model takes four. Equality and hashing are
    the tuple's: by file, line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@model(slots=True)
class Diagnostic:
    """One error or warning about an input, with the most specific position available."""

    severity: Severity
    message: str
    pos: Pos | None = None
    code: str = ""

    def __str__(self) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        return f"{where}{self.severity.value}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "severity": self.severity.value,
            "message": self.message,
            "file": self.pos.file if self.pos else None,
            "line": self.pos.line if self.pos else None,
            "col": self.pos.col if self.pos else None,
            "code": self.code,
        }


def error(message: str, pos: Pos | None = None, code: str = "") -> Diagnostic:
    return Diagnostic(Severity.ERROR, message, pos, code)


def warning(message: str, pos: Pos | None = None, code: str = "") -> Diagnostic:
    return Diagnostic(Severity.WARNING, message, pos, code)


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diags)


class HotcError(Exception):
    """An operation failed for a reason the user can act on. Printed without a traceback.

    ``exit_code`` is the process exit status the CLI uses (1 unless a command documents another).
    """

    def __init__(self, message: str, *, exit_code: int = 1, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.diagnostics = diagnostics


def did_you_mean(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """`` Did you mean 'X'?`` (with its leading space) when ``word`` is close to some of ``choices`` (the three
    closest, difflib's ratio), else ''. For messages about a name that does not exist."""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=3, cutoff=cutoff)
    if not close:
        return ""
    return " Did you mean " + " or ".join(repr(c) for c in close) + "?"
