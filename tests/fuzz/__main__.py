"""The long fuzz run, on demand: ``python -m tests.fuzz --cases 20000 --plan-cases 2000``.

Prints the figures (tracebacks, hangs over 5 s of CPU, processes over 500 MB, errors without a position) and
every finding with the command that replays it. Exit status 1 when anything was found.
``--replay N`` writes case N's files to a directory and prints the hotc commands to run on them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

from tests.fuzz.mutate import Mutator
from tests.fuzz.runner import Pool, describe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--cases", type=int, default=20000, help="validate cases")
    ap.add_argument("--plan-cases", type=int, default=2000, help="plan cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-corpus", action="store_true", help="mutate only the built-in seeds")
    ap.add_argument("--replay", type=int, default=None, help="write case N to a directory and stop")
    ap.add_argument("--show", type=int, default=20, help="findings to print in full")
    ap.add_argument(
        "--fork",
        action="store_true",
        help="run each case in a forked child (slower; by default a case runs inside its worker, which is "
        "replaced after any finding)",
    )
    a = ap.parse_args(argv)
    mut = Mutator(a.seed, use_corpus=not a.no_corpus)
    if a.replay is not None:
        case = mut.make_case(a.replay)
        d = Path(tempfile.mkdtemp(prefix=f"hotc-fuzz-case{a.replay}-"))
        for name, data in case.files.items():
            (d / name).write_bytes(data)
        envs = "".join(f" -e {e}" for e in case.environments)
        print(f"case {a.replay} (from {case.seed_name}; mutations: {', '.join(case.mutations)}) in {d}")
        print(f"  cd {d} && mkfifo fifo && ln -s /dev/zero zero && mkdir dir")
        print(f"  hotc validate -t t.yaml{envs}\n  hotc plan -t t.yaml{envs} --backend {d}/state")
        return 0
    print(f"fuzz: seed {a.seed}, {len(mut.seeds)} seed templates, {a.workers} workers", flush=True)
    # plan cases use other indexes than the validate ones, so they are other templates; made lazily
    work = itertools.chain(
        (("validate", c) for c in mut.cases(a.cases)),
        (("plan", c) for c in mut.cases(a.plan_cases, start=10_000_000)),
    )
    with Pool(a.workers, inproc=not a.fork) as pool:
        s = pool.run(work, progress=True)
    print(s.report())
    for f in s.findings[: a.show]:
        print("\n" + describe(f, a.seed))
    if len(s.findings) > a.show:
        print(f"\n... and {len(s.findings) - a.show} more findings")
    return 1 if s.findings else 0


if __name__ == "__main__":
    sys.exit(main())
