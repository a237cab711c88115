"""hotc.planner.jsontext writes exactly what json.dumps(indent=N, ...) writes (the plan's JSON and plan files
are byte-identical to what the standard library made)."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hotc.planner.jsontext import dumps_indented
from hotc.planner.planfile import plan_to_data
from hotc.planner.render.json import plan_json, render_json
from tests.planner.test_render import _mixed_plan, _two_tier_plan


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Odd:
    def __str__(self) -> str:
        return "odd-object"


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
_keys = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans(), st.none(), st.floats(-3, 3))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(_keys, inner, max_size=4),
    ),
    max_leaves=30,
)


def _same(value: Any, indent: int, **kw: Any) -> None:
    try:
        want = json.dumps(value, indent=indent, **kw)
    except TypeError:  # keys of several types cannot be sorted: refused by both
        with pytest.raises(TypeError):
            dumps_indented(value, indent, **kw)
        return
    assert dumps_indented(value, indent, **kw) == want


@settings(max_examples=150, deadline=None)
@given(_values, st.sampled_from([1, 2, 4]), st.booleans())
def test_any_value_as_json_dumps(value: Any, indent: int, ascii_only: bool) -> None:
    _same(value, indent, ensure_ascii=ascii_only)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _values, max_size=5), st.booleans())
def test_sorted_keys_as_json_dumps(value: dict[str, Any], ascii_only: bool) -> None:
    _same(value, 1, sort_keys=True, ensure_ascii=ascii_only)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        [[], {}, [{}]],
        {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"j": {"k": 1}}}}}}}}}}},
        {3: "int key", 2.5: "float key", True: "bool", False: "false", None: "none"},
        {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "big": 10**30, "neg": -0.0},
        {"é": "ünïcode ✓", "ctl": "\x00\x1f\u2028", "quote": 'a"b\\c'},
        OrderedDict([("z", 1), ("a", (1, 2))]),
        {"enum": Colour.RED, "int_enum": Level.HIGH, Colour.RED: "enum key"},
    ],
)
@pytest.mark.parametrize("ascii_only", [True, False])
def test_edge_values(value: Any, ascii_only: bool) -> None:
    _same(value, 2, ensure_ascii=ascii_only)


def test_default_and_its_absence() -> None:
    value = {"x": [Odd(), {"y": Odd()}], "s": {1, 2} and frozenset()}
    _same(value, 2, default=str)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"x": Odd()}, 2)
    with pytest.raises(TypeError):
        json.dumps({"x": Odd()}, indent=2)


def test_bad_keys_are_refused_as_json_dumps_does() -> None:
    with pytest.raises(TypeError, match="keys must be"):
        dumps_indented({(1, 2): "tuple key"}, 2)
    with pytest.raises(TypeError):
        json.dumps({(1, 2): "tuple key"}, indent=2)


@pytest.mark.parametrize("make", [_two_tier_plan, _mixed_plan])
def test_plan_json_and_plan_file_text_unchanged(make: Any) -> None:
    """The plan's --format json and the saved plan file are what json.dumps wrote before."""
    plan = make()
    assert render_json(plan) == (
        json.dumps(plan_json(plan), indent=2, sort_keys=False, ensure_ascii=False, default=str) + "\n"
    )
    doc = {"hotc_saved_plan": 1, "plan": plan_to_data(plan)}
    assert dumps_indented(doc, 1, sort_keys=True, ensure_ascii=False) == json.dumps(
        doc, indent=1, sort_keys=True, ensure_ascii=False
    )
