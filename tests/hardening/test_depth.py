"""Depth: a chain of conditions, a ``json`` parameter and a template value nested past the bounds of
:mod:`hotc.parser.limits` are refused with a positioned error in validate, plan and apply; at the bounds they work
(no RecursionError anywhere); plan's value comparison handles values nested far deeper than any template can be
(a state or a cloud can give them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hotc.parser.limits import MAX_CONDITION_DEPTH, MAX_NESTING_DEPTH
from hotc.planner.diff import detail_paths, settle_unknowns, unmask, values_equal
from hotc.values import Unknown
from tests.clirun import Result, run_hotc

HEAD = "heat_template_version: 2018-08-31\n"


def _cmd(tmp: Path, mode: str, *extra: str) -> Result:
    state = str(tmp / "state")
    args = {
        "validate": ("validate", "-t", "t.yaml"),
        "plan": ("plan", "-t", "t.yaml", "--backend", state),
        "apply": ("apply", "-t", "t.yaml", "--backend", state, "--auto-approve"),
        "destroy": ("destroy", "t", "--backend", state, "--auto-approve"),
    }[mode]
    res = run_hotc(tmp, *args, *extra)
    out = res.stdout + res.stderr
    assert "Traceback" not in out and "RecursionError" not in out, out[-3000:]
    return res


def _chain(links: int) -> str:
    lines = [HEAD.rstrip(), "conditions:", "  c0: true"]
    lines += [f"  c{i}: {{not: c{i - 1}}}" for i in range(1, links)]
    lines += [
        "resources:",
        f"  v: {{type: OS::Heat::Value, condition: c{links - 1}, properties: {{value: 1}}}}",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("mode", ["validate", "plan", "apply"])
def test_a_chain_of_3000_conditions_is_refused_where_it_crosses_the_bound(tmp_path: Path, mode: str) -> None:
    (tmp_path / "t.yaml").write_text(_chain(3000))
    res = _cmd(tmp_path, mode)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    # c0 is 2 deep (``true`` and the reference), each {not: c} adds 4: c50 is the first past 200
    assert (
        f"t.yaml:53:3: error: condition 'c50' is 201 levels deep with the conditions it names (the most hotc "
        f"resolves is {MAX_CONDITION_DEPTH})" in out
    ), out
    assert not list((tmp_path / "state").rglob("*.json")) if (tmp_path / "state").exists() else True


def test_a_chain_at_the_bound_plans_and_applies(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(_chain(49))  # c48: 194 levels, and true (an even number of nots)
    for mode in ("validate", "plan", "apply"):
        res = _cmd(tmp_path, mode)
        assert res.returncode == 0, res.stdout + res.stderr
    assert "1 created" in res.stdout


def test_a_deep_chain_nothing_asks_for_is_a_warning(tmp_path: Path) -> None:
    text = _chain(3000).replace(", condition: c2999", "")
    (tmp_path / "t.yaml").write_text(text)
    res = _cmd(tmp_path, "plan")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "t.yaml:53:3: warning: condition 'c50' is 201 levels deep" in res.stdout + res.stderr


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def _json_param(default: str) -> str:
    return HEAD + (
        f"parameters:\n  p: {{type: json, default: '{default}'}}\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: p}}}\n"
    )


@pytest.mark.parametrize("mode", ["validate", "plan", "apply"])
def test_a_json_parameter_nested_3000_levels(tmp_path: Path, mode: str) -> None:
    (tmp_path / "t.yaml").write_text(_json_param(_nested(3000)))
    res = _cmd(tmp_path, mode)
    out = res.stdout + res.stderr
    # validate warns as Heat's validate does for an invalid default; plan and apply refuse it
    assert res.returncode == (0 if mode == "validate" else 1), out
    assert (
        "t.yaml:3:3: " in out and f"nests lists or mappings more than {MAX_NESTING_DEPTH} levels deep" in out
    )


def test_a_json_parameter_value_given_on_the_command_line_nested_too_deep(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(_json_param("{}"))
    res = _cmd(tmp_path, "plan", "--parameter", "p=" + (_nested(5000)))
    out = res.stdout + res.stderr
    assert res.returncode == 1 and f"more than {MAX_NESTING_DEPTH} levels deep" in out, out


def test_a_json_parameter_at_the_bound_plans_and_applies(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(_json_param(_nested(MAX_NESTING_DEPTH - 1)))
    for mode in ("validate", "plan", "apply"):
        res = _cmd(tmp_path, mode)
        assert res.returncode == 0, res.stdout + res.stderr


def _value_template(depth: int, leaf: int) -> str:
    v = str(leaf)
    for _ in range(depth):
        v = "{a: " + v + "}"
    return HEAD + f"resources:\n  v: {{type: OS::Heat::Value, properties: {{value: {v}}}}}\n"


@pytest.mark.parametrize("mode", ["validate", "plan", "apply"])
def test_a_template_value_400_levels_deep_is_refused_where_it_crosses(tmp_path: Path, mode: str) -> None:
    (tmp_path / "t.yaml").write_text(_value_template(400, 1))
    res = _cmd(tmp_path, mode)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    # the document's 201st level: the top mapping, resources, v and properties are 4 of them, then the
    # value's 197th {a: ...}
    col = len("  v: {type: OS::Heat::Value, properties: {value: ") + 1 + 196 * len("{a: ")
    assert f"t.yaml:3:{col}: error: lists and mappings nest more than {MAX_NESTING_DEPTH} levels deep" in out


def test_a_value_at_the_bound_plans_applies_updates_and_destroys(tmp_path: Path) -> None:
    depth = MAX_NESTING_DEPTH - 4  # with resources, v, properties and the top-level mapping
    (tmp_path / "t.yaml").write_text(_value_template(depth, 1))
    for mode in ("validate", "plan", "apply"):
        assert _cmd(tmp_path, mode).returncode == 0
    (tmp_path / "t.yaml").write_text(_value_template(depth, 2))
    res = _cmd(tmp_path, "plan")
    assert res.returncode == 0 and "update" in res.stdout, res.stdout + res.stderr
    for mode in ("apply", "destroy"):
        assert _cmd(tmp_path, mode).returncode == 0


def _deep_map(depth: int, leaf: Any) -> Any:
    v = leaf
    for _ in range(depth):
        v = {"a": v}
    return v


def test_value_comparison_does_not_recurse() -> None:
    # far deeper than the recursion limit: values from a state or a cloud are not bounded by the parser
    before, after = _deep_map(3000, 1), _deep_map(3000, 2)
    assert values_equal(before, _deep_map(3000, 1))
    assert not values_equal(before, after)
    assert values_equal(unmask(before, after), before)
    unknown = _deep_map(3000, Unknown.of("x"))
    assert values_equal(settle_unknowns(unknown, before, lambda _w: True), before)
    assert not values_equal(settle_unknowns(unknown, before, lambda _w: False), before)
    assert detail_paths(None, {"value": before}, {"value": after}, ["value"]) == ["value" + ".a" * 3000]


def test_value_comparison_keeps_its_answers() -> None:
    assert values_equal({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert not values_equal([1], {"a": 1}) and not values_equal(1, True) and values_equal(1, 1.0)
    assert not values_equal({"a": [1]}, {"a": [1, 2]}) and not values_equal({"a": 1}, {"b": 1})
    assert detail_paths(None, {"v": _deep_map(3, 1)}, {"v": _deep_map(3, 2)}, ["v"]) == ["v.a.a.a"]
