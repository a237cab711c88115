"""Record Heat's answers for the oracle's cases into the cache (needs the test cloud).

    .venv/bin/python -m tests.oracle.refresh [--cases 5200] [--wide 4800] [--seed 14] [--threads 4] [--all] [--api-ports P,...]

The test cloud's heat-api serves one request at a time; ``--api-ports`` spreads the requests over extra
heat-api processes started for the run (``heat-wsgi-api --port P -- --config-file .../heat.conf``), which
also keeps the stock one free for other users. Heat's engine is the limit after that: on the shared test
machine a case (validate, create, wait, show, delete) took 1 to 4 seconds.

Asks Heat only about cases the cache lacks, and again about those whose create failed inside Heat's engine
with a 500 (``--all``: every case again, e.g. for a new Heat version; the
file is named after the version Heat reports). Progress is saved every 25 answers, so an interrupted run
loses little; cases whose answer is kept are exactly those the generator still makes."""

from __future__ import annotations

import argparse
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

from tests.oracle import cache
from tests.oracle.generate import Case
from tests.oracle.heat import Heat
from tests.oracle.run import SEED, oracle_cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=5200)
    ap.add_argument(
        "--wide", type=int, default=0, help="how many cases of the wide families (tests/oracle/wide.py)"
    )
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--all", action="store_true")
    ap.add_argument(
        "--api-ports",
        default="",
        help="comma-separated ports of extra heat-api processes to spread the requests over (default: the catalog's)",
    )
    ap.add_argument("--prune", action="store_true", help="drop cached answers of cases no longer generated")
    args = ap.parse_args(argv)
    heat = Heat()
    version = heat.version()
    answers = cache.load(version)
    cases = oracle_cases(args.seed, args.cases, args.wide)
    if args.prune:
        keep = {c.key for c in cases}
        answers = {k: v for k, v in answers.items() if k in keep}
    # a create that failed inside Heat's engine (500) is asked again: mostly the loaded engine, not the case
    todo = [c for c in cases if args.all or c.key not in answers or cache.internal_error(answers[c.key])]
    print(f"Heat {version}: {len(cases)} cases, {len(todo)} to ask, {args.threads} threads", flush=True)
    lock = threading.Lock()
    done = 0

    def ask(case: Case) -> None:
        nonlocal done
        try:
            ans = Heat.ask(local.heat if hasattr(local, "heat") else _bind(), case)
        except Exception as exc:  # noqa: BLE001 - one failed request must not stop the run
            print(f"case {case.index}: {exc!r}", file=sys.stderr, flush=True)
            return
        with lock:
            answers[case.key] = ans
            done += 1
            if done % 25 == 0:
                cache.save(answers, version)
                print(f"{done}/{len(todo)}", flush=True)

    local = threading.local()

    ports = [int(p) for p in args.api_ports.split(",") if p]
    counter = iter(range(1_000_000))

    def _bind() -> Heat:
        n = next(counter)
        local.heat = Heat(api_port=ports[n % len(ports)] if ports else None)
        return local.heat

    with ThreadPoolExecutor(args.threads) as pool:
        for f in as_completed([pool.submit(ask, c) for c in todo]):
            f.result()
    cache.save(answers, version)
    print(f"saved {len(answers)} answers to {cache.path_for(version)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
