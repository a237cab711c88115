"""``allowed_pattern`` matched as Heat matches it (Python's ``re``, ``re.match`` with the match running to the end of
the value), in bounded time.

A pattern with nested quantifiers (``(a+)+$``) backtracks exponentially on a value that almost matches: forty
``a`` and a ``b`` keep ``re`` busy for hours, and one template would stop a CI gate that validates pull requests.
``re`` cannot be interrupted, so a pattern that may backtrack that way (a repeat over something that itself
varies or has alternatives, a back-reference, three or more variable repeats, or two against a long value:
their cost is a power of the value's length) is matched in a forked child
process limited to :data:`PATTERN_CPU_SECONDS` of CPU; a child that does not answer in time is killed and the
match is :class:`PatternTooExpensive`. Every other pattern is matched here directly (its cost is polynomial of a
low degree in the value's length). Answers are memoised per (pattern, value).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import resource
import select
import signal
import time
from typing import Any

#: CPU seconds a match may take in its child process. A pattern that needs more backtracks without end in
#: practice (a well-formed one matches a parameter value in microseconds).
PATTERN_CPU_SECONDS = 0.5
#: A wall-clock backstop for the child (the machine may be busy: CPU time is what is limited).
_WALL_SECONDS = 10.0

_sre: Any = importlib.import_module("re._parser")
_REPEATS: Any = {_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", _sre.MAX_REPEAT)}


class PatternTooExpensive(Exception):
    """Matching the pattern against the value did not finish within the bound."""


def _shape(pattern: str) -> tuple[bool, int]:
    """(whether ``pattern`` may backtrack exponentially: a variable repeat or alternatives inside a repeat of
    more than one item, or a back-reference; how many variable repeats it has: ``n`` of them in a row can
    cost the value's length to the ``n``)."""
    try:
        parsed = _sre.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return True, 0
    variable = 0
    # (subpattern, inside a repeat of more than one item)
    work: list[tuple[Any, bool]] = [(parsed, False)]
    while work:
        items, in_repeat = work.pop()
        for op, av in items:
            if op in _REPEATS:
                lo, hi, sub = av
                if hi != lo:
                    variable += 1
                    if in_repeat:
                        return True, variable  # a variable repeat inside a repeat
                work.append((sub, in_repeat or hi > 1))
            elif op is _sre.BRANCH:
                if in_repeat:
                    return True, variable  # alternatives inside a repeat
                work.extend((b, in_repeat) for b in av[1])
            elif op is _sre.SUBPATTERN:
                work.append((av[-1], in_repeat))
            elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
                work.append((av[1], in_repeat))
            elif op is getattr(_sre, "ATOMIC_GROUP", None):
                work.append((av, in_repeat))
            elif op is _sre.GROUPREF or op is _sre.GROUPREF_EXISTS:
                return True, variable
    return False, variable


#: Values up to this length are matched directly by a pattern with two variable repeats (at most about the
#: square of the length in steps).
_SHORT = 256


def _whole(pattern: str, value: str) -> bool:
    m = re.match(pattern, value)
    return m is not None and m.end() == len(value)


def _bounded(pattern: str, value: str) -> bool:
    """:func:`_whole` in a forked child with a CPU limit; raises PatternTooExpensive when it does not finish."""
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        raise PatternTooExpensive from None
    if pid == 0:  # the child: match, answer, exit (never back into the caller's code)
        code = 3
        try:
            os.close(r)
            # SIGPROF's default action ends the process: after PATTERN_CPU_SECONDS of CPU, wherever re is
            signal.signal(signal.SIGPROF, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_PROF, PATTERN_CPU_SECONDS)
            resource.setrlimit(resource.RLIMIT_CPU, (2, 3))  # a backstop
            os.write(w, b"1" if _whole(pattern, value) else b"0")
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    answer = b""
    try:
        deadline = time.monotonic() + _WALL_SECONDS
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                answer = os.read(r, 1)
                break
    finally:
        os.close(r)
        if not answer:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.waitpid(pid, 0)
    if answer not in (b"0", b"1"):
        raise PatternTooExpensive
    return answer == b"1"


@functools.lru_cache(maxsize=4096)
def _shape_cached(pattern: str) -> tuple[bool, int]:
    return _shape(pattern)


def _risky(pattern: str, value: str) -> bool:
    nested, variable = _shape_cached(pattern)
    return nested or variable >= 3 or (variable == 2 and len(value) > _SHORT)


@functools.lru_cache(maxsize=4096)
def _answer(pattern: str, value: str) -> bool | None:
    """:func:`matches_whole`, with None for too expensive (remembered too: the child is not run again)."""
    if not _risky(pattern, value) or not hasattr(os, "fork"):
        return _whole(pattern, value)
    try:
        return _bounded(pattern, value)
    except PatternTooExpensive:
        return None


def matches_whole(pattern: str, value: str) -> bool:
    """True when ``re.match(pattern, value)`` matches all of ``value`` (Heat's ``AllowedPattern``). Raises
    :class:`PatternTooExpensive` when a pattern that may backtrack without end does not finish within
    :data:`PATTERN_CPU_SECONDS` of CPU (and ``re.error`` for a pattern that is not valid)."""
    re.compile(pattern)  # an invalid pattern raises here, as re.match would
    got = _answer(pattern, value)
    if got is None:
        raise PatternTooExpensive
    return got
