"""Amplification: functions whose result multiplies the template's size (``str_replace`` over many placeholders,
``list_join`` and ``list_concat`` of many copies, ``repeat`` over long lists) are refused before the value is
built, with the function's position, once the value would pass MAX_VALUE_SIZE (Heat's max_json_body_size). Run
through plan and apply in a bounded worker: a case that runs long or grows large fails the test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hotc.parser.limits import MAX_VALUE_SIZE
from tests.fuzz.runner import Pool

HEAD = "heat_template_version: 2018-08-31\n"


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    with Pool(1, env={"HOTC_FUZZ_WALL": "60"}) as p:
        yield p


def _value(expr: str, params: str = "") -> str:
    return (
        HEAD + params + f"resources:\n  v:\n    type: OS::Heat::Value\n    properties:\n      value: {expr}\n"
    )


BIG = "parameters:\n  p: {type: string, default: '" + "y" * 1000 + "'}\n"
CASES = {
    # 20,000 placeholders, each replaced by 1,000 characters: 20 MB from a 60 kB template
    "str_replace": _value("{str_replace: {template: '" + "$a" * 20000 + "', params: {$a: {get_param: p}}}}", BIG),
    # nested: each level multiplies by 100
    "nested-str_replace": _value(
        "{str_replace: {template: '" + "$b" * 100 + "', params: {$b: {str_replace: {template: '"
        + "$a" * 100 + "', params: {$a: {get_param: p}}}}}}}",
        BIG,
    ),
    "list_join": _value("{list_join: ['', [" + ", ".join(["{get_param: p}"] * 2000) + "]]}", BIG),
    "repeat": _value(
        "{repeat: {for_each: {<%a%>: " + str(list(range(100))) + ", <%b%>: " + str(list(range(100)))
        + ", <%c%>: " + str(list(range(100))) + "}, template: '<%a%><%b%><%c%>'}}"
    ),
    # 200 copies of a 3,000-item list: 600,000 items, and a quadratic search for the unique ones
    "list_concat_unique": _value(
        "{list_concat_unique: [" + ", ".join(["{get_param: l}"] * 200) + "]}",
        "parameters:\n  l: {type: json, default: " + str(list(range(3000))) + "}\n",
    ),
}  # fmt: skip


@pytest.mark.parametrize("mode", ["plan", "apply"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_amplifying_functions_are_refused_at_their_position(pool: Pool, mode: str, name: str) -> None:
    res = pool.run_case(mode, {"t.yaml": CASES[name].encode()})
    assert res["kind"] == "ok", (res["kind"], res.get("detail"), res.get("output"))
    out = res["output"]
    assert res["exit"] == 1, out
    line = (
        CASES[name].splitlines().index("      value: " + CASES[name].split("      value: ")[1].rstrip("\n"))
        + 1
    )
    assert f"t.yaml:{line}:14: " in out, out
    assert f"the most an evaluated value may hold is {MAX_VALUE_SIZE} bytes" in out, out


def test_values_under_the_bound_are_made(pool: Pool) -> None:
    text = _value("{str_replace: {template: '" + "$a" * 500 + "', params: {$a: {get_param: p}}}}", BIG)
    res = pool.run_case("apply", {"t.yaml": text.encode()})
    assert res["kind"] == "ok" and res["exit"] == 0, res.get("output")
    text = _value("{list_concat_unique: [[1, 1.0, true, a, [1], [1]], [a, {k: v}, {k: v}, 2]]}")
    res = pool.run_case("apply", {"t.yaml": text.encode()})
    assert res["kind"] == "ok" and res["exit"] == 0, res.get("output")
