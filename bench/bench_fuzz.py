"""The long fuzz run: ``python bench/bench_fuzz.py [--cases N --plan-cases M --seed S --workers W]``.

Prints how many validate and plan cases ran and what they found (tracebacks, hangs over 5 s, processes over
500 MB, errors without a position), the same figures for each hostile class (YAML tags on every node kind,
nesting at and past each bound, regular expressions with nested quantifiers, amplifying functions: a fifth of
the cases), with the command that replays each finding. Same as ``python -m tests.fuzz``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.__main__ import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
