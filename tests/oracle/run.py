"""The oracle's case set: the generator's cases for a seed, without repeats, in generation order."""

from __future__ import annotations

from tests.oracle.generate import Case, generate_one
from tests.oracle.wide import WIDE_START

#: The seed of the committed cache and of the CI test.
SEED = 14


def unique_cases(seed: int, count: int) -> list[Case]:
    seen: set[str] = set()
    out: list[Case] = []
    i = 0
    while len(out) < count:
        c = generate_one(seed, i)
        i += 1
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


def wide_cases(seed: int, count: int) -> list[Case]:
    """The first ``count`` cases of the wide families (indexes from WIDE_START), without repeats."""
    seen: set[str] = set()
    out: list[Case] = []
    i = WIDE_START
    while len(out) < count:
        c = generate_one(seed, i)
        i += 1
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


def oracle_cases(seed: int, count: int, wide: int = 0) -> list[Case]:
    """The first families' ``count`` cases, then the wide families' ``wide``."""
    return unique_cases(seed, count) + (wide_cases(seed, wide) if wide else [])
