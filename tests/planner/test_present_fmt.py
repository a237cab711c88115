"""``fmt``'s one-line text of lists and maps, written directly (``present._one_line``), is exactly what the JSON
encoder made of them (sorted keys, ``", "``/``": "``, unicode kept, Unknown as "(known after apply)", a masked
map as "(sensitive)"), for any value; what it does not handle (keys that are not strings, NaN, the
infinities, other types) it leaves to the encoder."""

from __future__ import annotations

import json
import math
from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hotc.planner.present import KNOWN_AFTER_APPLY, MASK_KEY, SENSITIVE, _one_line, _plain, fmt
from hotc.values import Unknown

ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)


def reference(value: Any, limit: int = 200) -> str:
    """What fmt gave through the encoder alone."""
    if isinstance(value, Unknown):
        return KNOWN_AFTER_APPLY
    if value == SENSITIVE:
        return SENSITIVE
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    text = ENCODER.encode(_plain(value))
    return text[: limit - 3] + "..." if len(text) > limit else text


scalars = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["", SENSITIVE, "é", "\u2028", '"q"', "\\", "\x00", "ünï", "\U0001f600"]),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.builds(lambda a: Unknown.of(a), st.sampled_from(["a", "b"])),
    st.just(date(2026, 12, 1)),
)
keys = st.one_of(st.text(max_size=5), st.sampled_from(["b", "a", "A", "é", MASK_KEY]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=4),
        st.dictionaries(st.one_of(st.integers(), st.booleans(), st.none()), inner, min_size=1, max_size=2),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_fmt_is_what_the_encoder_made(value: Any) -> None:
    try:
        expected = reference(value)
    except TypeError:  # keys the encoder cannot sort (None and 0): fmt fails the same way
        with pytest.raises(TypeError):
            fmt(value)
        return
    assert fmt(value) == expected
    assert fmt(value, limit=12) == reference(value, limit=12)


@settings(max_examples=300, deadline=None)
@given(values)
def test_one_line_is_the_encoders_text_or_leaves_it_to_the_encoder(value: Any) -> None:
    one = _one_line(value)
    if one is not None:
        assert one == ENCODER.encode(_plain(value))


def test_what_is_left_to_the_encoder() -> None:
    assert _one_line({1: "x"}) is None  # a key that is not a string
    assert _one_line([math.nan]) is None and _one_line([math.inf]) is None
    assert _one_line([date(2026, 12, 1)]) is None
    assert _one_line([(1,)]) is None  # inside a tuple, the encoder's default=str (an Unknown's repr)
    assert _one_line([{"a": Unknown.of("x"), "b": {MASK_KEY: True}}, [1, 2.5, None, True]]) == (
        '[{"a": "(known after apply)", "b": "(sensitive)"}, [1, 2.5, null, true]]'
    )
