"""``allowed_pattern`` with nested quantifiers does not keep hotc busy: the match runs with a CPU bound and a
pattern that backtracks past it is "pattern too expensive", positioned. Every other answer is ``re.match``'s
(Heat's semantics: the match must reach the end of the value)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from hotc.parser.patterns import PatternTooExpensive, matches_whole
from tests.fuzz.runner import Pool

HEAD = "heat_template_version: 2018-08-31\n"


def _template(pattern: str, default: str) -> str:
    return HEAD + (
        "parameters:\n"
        "  p:\n"
        "    type: string\n"
        f"    default: '{default}'\n"
        "    constraints:\n"
        f"      - allowed_pattern: '{pattern}'\n"
        "resources:\n"
        "  v: {type: OS::Heat::Value, properties: {value: {get_param: p}}}\n"
    )


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    with Pool(1, env={"HOTC_FUZZ_WALL": "60"}) as p:
        yield p


@pytest.mark.parametrize("mode", ["validate", "plan"])
@pytest.mark.parametrize(
    "pattern", ["(a+)+$", "(a|a)+$", "(a|aa)+$", "(.*a){30}$", "(a?){40}a{40}", "a?" * 40 + "a" * 40]
)
def test_a_pattern_that_backtracks_without_end_is_too_expensive(pool: Pool, mode: str, pattern: str) -> None:
    res = pool.run_case(mode, {"t.yaml": _template(pattern, "a" * 40 + "b").encode()})
    # the worker's CPU limit (5 s) would report a hang: the bound is well under it
    assert res["kind"] == "ok", (res["kind"], res.get("detail"), res.get("output"))
    out = res["output"]
    assert "t.yaml:5:14: " in out and "pattern too expensive" in out and "(allowed_pattern at 7:9)" in out, (
        out
    )
    if mode == "plan":
        assert res["exit"] == 1


def test_a_nested_pattern_that_finishes_answers_as_re_does(pool: Pool) -> None:
    ok = pool.run_case("plan", {"t.yaml": _template("(ab|c)+$", "ababc").encode()})
    assert ok["kind"] == "ok" and ok["exit"] == 0, ok.get("output")
    bad = pool.run_case("plan", {"t.yaml": _template("(ab|c)+$", "abx").encode()})
    assert bad["exit"] == 1 and 'does not match pattern "(ab|c)+$"' in bad["output"], bad.get("output")


PATTERNS = [
    "^[a-z]+$", "[a-z0-9-]{1,63}", "(ab|c)+", "(a+)+", "^([a-z0-9]+\\.)*[a-z]+$", "\\d+(\\.\\d+)?", "a|ab",
    "(?i)abc", "(a)\\1", "x*y*z*", "[[:alpha:]]", "^$", ".*", "(?=a)a+", "a{2,}?b", "a?b?", "(a?){3}a{3}",
]  # fmt: skip
VALUES = ["", "a", "ab", "abc", "aa", "aab", "ABC", "a.b.c", "12.5", "1.", "xyz", "-", "[:", "ababc"]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_matches_whole_is_re_match_to_the_end() -> None:
    for p in PATTERNS:
        for v in VALUES:
            m = re.match(p, v)
            assert matches_whole(p, v) == (m is not None and m.end() == len(v)), (p, v)


def test_matches_whole_raises_for_exponential_backtracking() -> None:
    with pytest.raises(PatternTooExpensive):
        matches_whole("(a+)+$", "a" * 40 + "b")
    with pytest.raises(re.error):
        matches_whole("(", "a")
