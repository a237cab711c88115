"""The fuzz harness's bounded budget for the normal test suite: a few hundred mutated templates (the seeds the
tests write and the shared corpus) and hostile ones (YAML tags on every node kind, nesting at and past each
bound, regular expressions with nested quantifiers, amplifying functions) through ``hotc validate`` and
``hotc plan``, each in a bounded worker. Not one traceback, hang over 5 s of CPU, process over 500 MB or error
without a position. The long run is ``python -m tests.fuzz --cases 20000 --plan-cases 2000`` (or
``bench/bench_fuzz.py``)."""

from __future__ import annotations

import os

from tests.fuzz.mutate import SEEDS, Mutator
from tests.fuzz.runner import Pool, describe

SEED = int(os.environ.get("HOTC_FUZZ_SEED", "20261201"))
VALIDATE_CASES = int(os.environ.get("HOTC_FUZZ_CASES", "240"))
PLAN_CASES = int(os.environ.get("HOTC_FUZZ_PLAN_CASES", "40"))


def test_fuzz_budget_finds_nothing() -> None:
    mut = Mutator(SEED)
    work = [("validate", c) for c in mut.cases(VALIDATE_CASES)]
    work += [("plan", c) for c in mut.cases(PLAN_CASES, start=10_000_000)]
    with Pool(2) as pool:
        s = pool.run(work)
    print(s.report())
    assert s.cases("validate") == VALIDATE_CASES and s.cases("plan") == PLAN_CASES
    # every hostile class (tags on every node kind, depth at and past the bounds, nested-quantifier patterns,
    # amplifying functions) is in the budget
    assert set(s.classes) == {"tag", "depth", "regex", "amplify"}, s.classes
    assert not s.findings, "\n\n".join(describe(f, SEED) for f in s.findings[:10])


def test_the_harness_detects_what_it_must() -> None:
    """The classifier is not blind: a hang, a blow-up and an unpositioned error are each reported."""
    from tests.fuzz.zygote import classify_output

    assert (
        classify_output(
            1, "", "t.yaml:3:5: error: bad\nerror: t.yaml: the template has 1 error(s); nothing was planned"
        )[0]
        == "ok"
    )
    assert classify_output(1, "", "error: something went wrong")[0] == "no-position"
    refused = (
        't.yaml:21:9: warning: "digest" is not a function in heat_template_version 2013-05-23\n'
        "error: t.yaml: the template has 1 error(s); nothing was planned (see the warning above)"
    )
    assert classify_output(1, "", refused)[0] == "ok"
    assert classify_output(1, "", refused.split("\n")[1])[0] == "no-position"
    assert classify_output(1, "", "Traceback (most recent call last):\n  File ...")[0] == "traceback"
    case = {"t.yaml": SEEDS[0].encode()}
    # a case that surely needs more than the CPU limit (300 resources to plan; a warm worker plans a tiny seed
    # in under the timer's resolution), and limits so low that any real case crosses them: the harness must
    # report it, in both worker modes
    big = "heat_template_version: 2018-08-31\nresources:\n" + "".join(
        f"  r{i}: {{type: OS::Heat::Value, properties: {{value: {{list_join: ['-', [a, b, c]]}}}}}}\n"
        for i in range(300)
    )
    slow = {"t.yaml": big.encode()}
    for inproc in (False, True):
        with Pool(1, env={"HOTC_FUZZ_CPU": "0.005", "HOTC_FUZZ_WALL": "30"}, inproc=inproc) as pool:
            assert pool.run_case("plan", slow)["kind"] == "hang"
        with Pool(1, env={"HOTC_FUZZ_RSS_MB": "1"}, inproc=inproc) as pool:
            assert pool.run_case("validate", case)["kind"] == "memory"
