"""The differential oracle, bounded: the first cases of the generator's seed through hotc
(validate, plan, apply, output), offline, compared with the test cloud's Heat 27 answers cached in
tests/oracle/data/. The large run is bench/bench_oracle.py; the refresh is ``python -m tests.oracle.refresh``."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracle import cache
from tests.oracle.compare import compare, normalise
from tests.oracle.generate import Case, generate
from tests.oracle.heat import Heat
from tests.oracle.hotc_side import ask_hotc
from tests.oracle.known import reason_for
from tests.oracle.report import agreement, run_cases, tables
from tests.oracle.run import SEED, oracle_cases, unique_cases

BOUNDED = 250
#: the first cases of the wide families (tests/oracle/wide.py), which take turns: each family has 20
WIDE_BOUNDED = 100
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def answers() -> dict[str, dict[str, object]]:
    got = cache.load()
    assert got, f"no cached Heat answers in {cache.path_for()}: run python -m tests.oracle.refresh"
    return got


def test_the_generator_is_a_pure_function_of_seed_and_index() -> None:
    a, b = generate(SEED, 40), generate(SEED, 40)
    assert [c.key for c in a] == [c.key for c in b]
    assert len({c.key for c in generate(SEED + 1, 40)} & {c.key for c in a}) < 10


def test_every_bounded_case_has_a_cached_heat_answer(answers: dict[str, dict[str, object]]) -> None:
    missing = [c.index for c in oracle_cases(SEED, BOUNDED, WIDE_BOUNDED) if c.key not in answers]
    assert not missing, f"cases {missing[:10]}... have no Heat answer: run python -m tests.oracle.refresh"


def test_hotc_agrees_with_heat_on_the_bounded_run(
    tmp_path: Path, answers: dict[str, dict[str, object]]
) -> None:
    results, _ = run_cases(oracle_cases(SEED, BOUNDED, WIDE_BOUNDED), answers, tmp_path)
    assert len(results) >= (BOUNDED + WIDE_BOUNDED) * 0.95
    assert {r.case.family for r in results} >= {"w:values", "w:params", "w:order", "w:conditions", "w:yaql"}
    unexplained = [
        r
        for r in results
        if not r.verdict.agree and reason_for(r.verdict.cause, r.case.function, r.case.key) is None
    ]
    assert not unexplained, "disagreements with Heat of no known class:\n" + tables(unexplained, samples=3)
    assert agreement(results) >= 0.995, tables(results)


def test_the_comparison_can_fail() -> None:
    """A wrong output value, a missing output error and a verdict flip are each disagreements."""
    case = unique_cases(SEED, 1)[0]
    heat = {"v": "ok", "c": "ok", "o": {"a": ["v", [1, 2]], "b": ["e", "boom"]}}
    assert compare(case, heat, heat).agree
    assert not compare(case, heat, {**heat, "o": {"a": ["v", [2, 1]], "b": ["e", "x"]}}).agree
    assert not compare(case, heat, {**heat, "o": {"a": ["v", [1, 2]], "b": ["v", None]}}).agree
    assert not compare(case, heat, {"v": "error", "c": "skip"}).agree
    assert not compare(case, heat, {"v": "ok", "c": "error"}).agree
    # type-exact: true, 1 and 1.0 differ (Python's == does not tell them apart); so does the order of map keys
    for heat_value, hotc_value, cause in (
        (1, True, "type only"),
        (1.0, 1, "type only"),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, "map key order only"),
    ):
        got = compare(case, {**heat, "o": {"a": ["v", heat_value]}}, {**heat, "o": {"a": ["v", hotc_value]}})
        assert not got.agree and cause in got.cause, (heat_value, hotc_value, got)


def test_only_a_yaql_keys_result_may_differ_in_order_alone() -> None:
    """A reordered list is a disagreement; from yaql's keys() (a set in Heat) it is its own class."""
    base = unique_cases(SEED, 1)[0]
    keys = dataclasses.replace(
        base, template="outputs:\n  o: {value: {yaql: {expression: $.data.keys(), data: {a: 1, b: 2}}}}\n"
    )
    plain = dataclasses.replace(base, template="outputs:\n  o: {value: [a, b]}\n")
    heat = {"v": "ok", "c": "ok", "o": {"o": ["v", ["b", "a"]]}}
    hotc = {"v": "ok", "c": "ok", "o": {"o": ["v", ["a", "b"]]}}
    got = compare(keys, heat, hotc)
    assert not got.agree and got.cause.startswith("output: values differ in order only")
    assert reason_for(got.cause, "yaql") is not None
    got = compare(plain, heat, hotc)
    assert not got.agree and got.cause == "output: values differ"
    assert not compare(keys, heat, {**hotc, "o": {"o": ["v", ["a", "c"]]}}).cause.endswith("(a yaql set)")


def test_physical_names_and_ids_compare_by_shape() -> None:
    s = "fo-0123456789"
    assert normalise(f"{s}-v1-abcdefghijkl", s) == normalise(f"{s}-v1-zyxwvutsrqpo", s)
    assert normalise(f"{s}-v1-abcdefghijkl", s) != normalise(f"{s}-v2-abcdefghijkl", s)
    assert normalise("6eaf22e3-1901-440e-b621-748ca7447194", s) == "<uuid>"


_HASHSEED_PROBE = """
import json, sys
from tests.oracle.run import unique_cases
from tests.oracle.hotc_side import ask_hotc
cases = [c for c in unique_cases(14, 400) if c.function in ("yaql", "list_concat_unique", "conditions", "map_merge", "env:json", "param:json")][:25]
print(json.dumps([ask_hotc(c) for c in cases], sort_keys=True))
"""


def test_hotc_answers_do_not_depend_on_the_hash_seed() -> None:
    """Set order must not leak into values or messages: the same cases under two PYTHONHASHSEEDs."""
    outs = []
    for seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed, NO_COLOR="1")
        env.pop("HOTC_BACKEND", None)
        r = subprocess.run(
            [sys.executable, "-c", _HASHSEED_PROBE],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        # scratch directories differ from run to run; everything else must not
        outs.append(json.loads(re.sub(r"/tmp/[^ )\"]*/", "/TMP/", r.stdout.strip().splitlines()[-1])))
    assert len(outs[0]) >= 20
    assert outs[0] == outs[1]


@pytest.mark.cloud
@pytest.mark.xdist_group("cloud")
def test_heat_answers_as_cached(cloud: object, answers: dict[str, dict[str, object]]) -> None:
    """The cache is Heat's answer: a few cached cases asked again give the same verdicts and values."""
    heat = Heat()
    assert heat.version() == cache.HEAT_VERSION
    picked: list[Case] = [c for c in unique_cases(SEED, 60) if c.key in answers][:6]
    for case in picked:
        again = heat.ask(case)
        assert compare(case, answers[case.key], again).agree, (case.index, answers[case.key], again)
    assert ask_hotc(picked[0])["v"] in ("ok", "error")
