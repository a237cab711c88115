"""The oracle's case set: the generator's cases for a seed, without repeats, in generation order."""

from __future__ import annotations

from tests.oracle.generate import Case, generate_one

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
