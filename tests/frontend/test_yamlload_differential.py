"""The decoder's fast event path against its node path, and both against PyYAML, on generated YAML.

``test_yamlload_decode`` holds the decoder to PyYAML over the shared corpus and hand-written corner cases. This
file adds the inputs nobody wrote by hand: the benchmark's generated template (the shape every speed figure is
measured on) and hypothesis-generated documents built from YAML 1.1's tricky scalars (booleans such as
``yes``/``On``, octal/hex/sexagesimal integers, floats, nulls, timestamps, merge and value keys, quoted twins of
all of them), block and flow collections nested in each other, duplicate keys, and now and then an anchor, an
alias or an explicit tag (which the event path hands to the node path). Wherever the event path answers, its
data (types included), every position and every diagnostic must be the node path's; a syntax error must be one
on both paths; and what :func:`load_yaml_text` gives must be what stock PyYAML gives."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotc.errors import Severity
from hotc.parser.yamlload import _UNUSUAL, _from_nodes, _from_pulled, _from_pushed, load_yaml_text
from tests.frontend.test_yamlload_decode import _check_positions, _same, _same_positions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_validate import generate  # type: ignore[import-not-found]  # noqa: E402


def _event_path(decode: Any, text: str) -> Any:
    try:
        return decode(text, "g.yaml")
    except (yaml.YAMLError, ValueError) as exc:  # a syntax error; a malformed number (``0b_``)
        return ("error", f"{type(exc).__name__}: {exc}")


def _paths_agree(text: str) -> bool:
    """The event path, pushed and pulled, and the node path give the same answer; True when the event path
    decoded it."""
    pushed = _event_path(_from_pushed, text)
    pulled = _event_path(_from_pulled, text)
    if pulled[0] == "error":
        assert pushed == pulled
        try:
            _from_nodes(text, "g.yaml", 10**6, True)
        except (yaml.YAMLError, ValueError) as node_exc:
            assert f"{type(node_exc).__name__}: {node_exc}" == pulled[1]
            return False
        raise AssertionError(f"only the event path fails: {pulled[1]}")
    assert pushed[0] != "error", pushed
    if pulled[0] is _UNUSUAL:
        assert pushed == (_UNUSUAL, [])
        return False  # the node path decodes it (or reports what is wrong: an undefined alias...)
    assert pushed[0] is not _UNUSUAL
    node_data, node_diags = _from_nodes(text, "g.yaml", 10**6, True)
    for ev_data, ev_diags in (pushed, pulled):
        _same(ev_data, node_data)
        _same_positions(ev_data, node_data)
        assert ev_diags == node_diags
    return True


_CLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _RefLoader(_CLoader):  # type: ignore[misc,valid-type]
    """libyaml's SafeLoader as it comes (Heat loads templates with it), except that timestamps stay strings.
    (Stock PyYAML's pure-Python scanner differs from libyaml on tabs after indicators: generated documents
    find such cases, so the reference here is the C loader the decoder is built on.)"""


_RefLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def _check(text: str) -> int:
    """:func:`load_yaml_text` gives what libyaml's SafeLoader gives, and every position is its node's mark."""
    try:
        expected = yaml.load(text, Loader=_RefLoader)  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, ValueError, TypeError, KeyError, RecursionError):
        data, diags = load_yaml_text(text, "f")
        assert data is None and diags and diags[0].severity is Severity.ERROR, "PyYAML fails, so must we"
        return 0
    data, diags = load_yaml_text(text, "f")
    assert data is not None or expected is None, [str(d) for d in diags]
    _same(data, expected)
    if data is None:
        return 0
    return _check_positions(data, yaml.compose(text, Loader=_CLoader), set())


def test_the_generated_benchmark_template_decodes_alike_on_both_paths() -> None:
    text = generate(400)
    assert _paths_agree(text)
    assert _check(text) > 4_000  # and like PyYAML, position by position


# ------------------------------------------------------------------------------------------- hypothesis

#: Plain scalars each YAML 1.1 resolver claims (or nearly claims), and strings that look like them.
_TRICKY = [
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "n",
    "True",
    "FALSE",
    "tRUE",
    "~",
    "null",
    "Null",
    "NULL",
    "nul",
    "0",
    "7",
    "017",
    "0o17",
    "0x1f",
    "0b101",
    "1_000",
    "+12",
    "-3",
    "00",
    "09",
    "1:30",
    "190:20:30",
    "-0",
    "1.5",
    "1e3",
    "1.0e+3",
    ".inf",
    "-.Inf",
    ".NaN",
    ".5",
    "1.",
    "6.8523015e+5",
    "685_230.15",
    "2016-10-14",
    "2001-12-14t21:59:43.10-05:00",
    "2002-12-14 21:59:43.10 -5",
    "2016-1-1",
    "<<",
    "=",
    "a",
    "net0",
    "OS::Nova::Server",
    "get_param",
    "10.0.0.0/24",
    "x y",
    "é",
    "☃",
    "--",
    "a:b",
    "a#b",
]

#: Scalars that are not valid plain text where they stand (indicators, reserved characters): syntax errors that
#: both paths must report alike, or (quoted) ordinary strings.
_BREAKING = ["-", "?x", "%x", "@x", "`x", "|x", ">x", "!x", "&x", "*x", "[x", "{x", "a: b", "x #c", "\t"]

_KEYS = ["a", "b", "type", "properties", "1", "true", "~", "2016-10-14", "yes", "0x1f", "a", "b"]


def _scalar(draw: Any) -> str:
    pick = draw(st.integers(0, 9))  # hypothesis draws the bounds often: the rare cases sit in between
    if pick == 5:
        token = draw(st.sampled_from(_BREAKING))
    elif pick == 6:
        token = draw(st.text("abyn01:.-_ ~é'\"#\\", max_size=6))
    else:
        token = draw(st.sampled_from(_TRICKY))
    style = draw(st.sampled_from(["plain", "plain", "single", "double"]))
    if style == "single":
        return "'" + token.replace("'", "''") + "'"
    if style == "double":
        return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return token


def _key(draw: Any) -> str:
    return draw(st.sampled_from(_KEYS)) if draw(st.booleans()) else _scalar(draw)


def _prefix(draw: Any) -> str:
    """Now and then an anchor or an explicit tag (the event path leaves those to the node path)."""
    return (
        draw(st.sampled_from(["&x ", "&y ", "!!str ", "! ", "!t "])) if draw(st.integers(0, 19)) == 11 else ""
    )


def _flow(draw: Any, depth: int) -> str:
    kind = draw(
        st.sampled_from(["scalar", "scalar", "map", "seq", "alias"] if depth else ["scalar", "alias"])
    )
    if kind == "alias":
        return draw(st.sampled_from(["*x", "*y"])) if draw(st.integers(0, 9)) == 5 else _scalar(draw)
    if kind == "scalar":
        return _prefix(draw) + _scalar(draw)
    n = draw(st.integers(0, 3))
    if kind == "seq":
        return "[" + ", ".join(_flow(draw, depth - 1) for _ in range(n)) + "]"
    return "{" + ", ".join(f"{_key(draw)}: {_flow(draw, depth - 1)}" for _ in range(n)) + "}"


def _block(draw: Any, depth: int, indent: int) -> list[str]:
    """Lines of a block mapping or sequence at ``indent``; values are flow text or nested blocks."""
    pad = " " * indent
    lines: list[str] = []
    as_seq = draw(st.booleans())
    for _ in range(draw(st.integers(1, 4))):
        head = f"{pad}- " if as_seq else f"{pad}{_key(draw)}: "
        if depth and draw(st.integers(0, 2)) == 0:
            lines.append(
                head.rstrip() if not as_seq or draw(st.booleans()) else head + _prefix(draw).rstrip()
            )
            lines += _block(draw, depth - 1, indent + draw(st.sampled_from([1, 2, 4])))
        else:
            lines.append(head + _flow(draw, depth))
    return lines


@st.composite
def _documents(draw: Any) -> str:
    lines = _block(draw, 3, 0)
    if draw(st.integers(0, 9)) == 5:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["---", "...", "# c", "", "\t"])))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_generated_documents_decode_alike_on_both_paths_and_like_pyyaml(text: str) -> None:
    _paths_agree(text)
    _check(text)


def test_the_generator_reaches_the_event_path() -> None:
    # the property above means little if every document went to the node path or failed to parse
    answered = []

    @settings(max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_documents())
    def count(text: str) -> None:
        answered.append(_paths_agree(text))

    count()
    assert sum(answered) > 0.3 * len(answered), (sum(answered), len(answered))
