"""YAML alias expansion is bounded exactly: a document whose aliases repeat more values than the bound is
refused with a positioned error naming the file, one under it decodes as PyYAML decodes it (hypothesis over
the shape of nested anchors)."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hotc.parser.yamlload import DEFAULT_MAX_TEMPLATE_SIZE, load_document, max_values_for


def _doc(depth: int, width: int) -> str:
    lines = ["heat_template_version: 2018-08-31", f"x0: &a0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, depth):
        lines.append(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def _repeated(depth: int, width: int) -> int:
    """How many values the aliases repeat: level i holds ``width`` copies of level i-1."""
    size, total = 1 + width, 0
    for _ in range(1, depth):
        total += width * size
        size = 1 + width * size
    return total


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(1, 12), width=st.integers(1, 12))
def test_alias_expansion_is_bounded_exactly(depth: int, width: int) -> None:
    text = _doc(depth, width)
    bound = max_values_for(DEFAULT_MAX_TEMPLATE_SIZE)
    data, diags = load_document(text, "t.yaml")
    if _repeated(depth, width) > bound:
        assert data is None
        (d,) = diags
        assert d.pos is not None and d.pos.file == "t.yaml" and "YAML aliases" in d.message
    else:
        assert data is not None and not diags
        want = yaml.safe_load(text)
        assert {k: v for k, v in data.items() if k != "heat_template_version"} == {
            k: v for k, v in want.items() if k != "heat_template_version"
        }


def test_the_bound_follows_the_size_limit() -> None:
    text = _doc(5, 12)  # about 296,000 repeated values
    assert _repeated(5, 12) == 296_112
    assert load_document(text, "t.yaml")[0] is None
    assert load_document(text, "t.yaml", max_size=4 * 1024 * 1024)[0] is not None
