"""The differential oracle at scale: the generator's cases (tests/oracle/generate.py, seed 14) through hotc
(validate, plan -o, apply of that plan, output --format json), compared with the test cloud's Heat 27 answers
recorded in tests/oracle/data/ (refresh: ``python -m tests.oracle.refresh --cases N``).

    .venv/bin/python bench/bench_oracle.py [--cases 5200] [--wide 4800] [--seed 14] [--samples 2] [--jobs N]

Prints the agreement table by Heat's verdict, by function/feature, by heat_template_version and by the
generator's intent, then the disagreements grouped by cause (each with example cases), then the run's figures.
Cases the cache has no answer for are counted and left out (run the refresh for them). The cases are shared out
round-robin over ``--jobs`` processes (default: one per core); the figures do not depend on it."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.oracle import cache  # noqa: E402
from tests.oracle.generate import WIDE_START, Case  # noqa: E402
from tests.oracle.report import Result, agreement, run_cases, tables  # noqa: E402
from tests.oracle.run import SEED, oracle_cases  # noqa: E402


def _run_share(cases: list[Case], answers: dict[str, dict[str, Any]]) -> tuple[list[Result], list[Case]]:
    """One process's share of the cases, in a directory of its own."""
    with tempfile.TemporaryDirectory(prefix="bench-oracle-") as root:
        return run_cases(cases, answers, Path(root))


def run_all(
    cases: list[Case], answers: dict[str, dict[str, Any]], jobs: int
) -> tuple[list[Result], list[Case]]:
    """Every case through hotc, over ``jobs`` processes; results and missing cases in the cases' order."""
    if jobs <= 1:
        return _run_share(cases, answers)
    shares = [cases[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(_run_share, share, {c.key: answers[c.key] for c in share if c.key in answers})
            for share in shares
        ]
        parts = [f.result() for f in futures]
    order = {c.key: i for i, c in enumerate(cases)}
    results = sorted((r for rs, _m in parts for r in rs), key=lambda r: order[r.case.key])
    missing = sorted((c for _rs, m in parts for c in m), key=lambda c: order[c.key])
    return results, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=5200)
    ap.add_argument(
        "--wide", type=int, default=4800, help="how many cases of the wide families (tests/oracle/wide.py)"
    )
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    args = ap.parse_args()
    answers = cache.load()
    cases = oracle_cases(args.seed, args.cases, args.wide)
    t0 = time.perf_counter()
    results, missing = run_all(cases, answers, args.jobs)
    took = time.perf_counter() - t0
    print(
        f"Heat {cache.HEAT_VERSION} (cache {cache.path_for().name}), seed {args.seed}: {len(cases)} cases generated, "
        f"{len(results)} with Heat's answer, {len(missing)} not in the cache"
    )
    print()
    print(tables(results, args.samples))
    print()
    print(
        f"hotc side: {len(results)} cases in {took:.1f} s over {args.jobs} processes "
        f"({1000 * took / max(1, len(results)):.0f} ms of wall per case)"
    )
    old = [r for r in results if r.case.index < WIDE_START]
    new = [r for r in results if r.case.index >= WIDE_START]
    print(
        f"the first families: {100 * agreement(old):.2f}% on {len(old)} cases; "
        f"the wide families: {100 * agreement(new):.2f}% on {len(new)} cases"
    )
    families: dict[str, list[Result]] = {}
    for r in results:
        families.setdefault(r.case.family, []).append(r)
    weakest = min((agreement(rs), f) for f, rs in families.items()) if families else (0.0, "none")
    met = agreement(results) >= 0.999 and len(results) >= 10000 and weakest[0] >= 0.995
    print(
        f"agreement: {100 * agreement(results):.2f}% on {len(results)} cases, weakest family {weakest[1]} at "
        f"{100 * weakest[0]:.2f}% (the project's bar, >= 99.9% on >= 10,000 cases and >= 99.5% in each "
        f"family: {'met' if met else 'not met'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
