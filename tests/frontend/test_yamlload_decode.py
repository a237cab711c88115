"""The fast YAML decoder (hotc.parser.yamlload) against PyYAML itself.

The decoder walks libyaml's composed node tree directly instead of going through PyYAML's constructor, and
short-cuts the resolver. These tests hold it to PyYAML's SafeLoader: the decoded data (types included) must
be identical (YAML timestamps kept as strings, as Heat does), and every position (of each mapping, list, key,
value and list item) must be the start mark libyaml gives that node. They run over every YAML file of the
shared corpus and over hand-written YAML 1.1 corner cases (booleans, octal/hex/sexagesimal, merge keys,
anchors and aliases, explicit ``!!`` tags, duplicate and unhashable keys)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from hotc.errors import Pos, Severity
from hotc.parser.yamlload import (
    _UNUSUAL,
    PosDict,
    PosList,
    _from_nodes,
    _from_pulled,
    _from_pushed,
    load_yaml_text,
)
from tests.corpus.corpus import WHAT, find_corpus
from tests.inputs import missing_input


class _RefLoader(yaml.SafeLoader):
    """Stock PyYAML SafeLoader, except that timestamps stay strings."""


_RefLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def _reference(text: str) -> tuple[bool, Any]:
    try:
        return True, yaml.load(text, Loader=_RefLoader)  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, ValueError, TypeError, KeyError, RecursionError):
        return False, None


def _same(a: Any, b: Any, path: str = "$", seen: set[tuple[int, int]] | None = None) -> None:
    """Deep equality that also insists on equal types (True is not 1), equal key order and NaN == NaN
    (recursive structures, made with aliases, are followed once)."""
    seen = set() if seen is None else seen
    if isinstance(a, dict | list):
        if (id(a), id(b)) in seen:
            return
        seen.add((id(a), id(b)))
    assert (
        type(a) is type(b)
        or (isinstance(a, dict) and isinstance(b, dict))
        or (isinstance(a, list) and isinstance(b, list))
    ), f"{path}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            _same(a[k], b[k], f"{path}.{k}", seen)
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]", seen)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), path
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _mark(node: yaml.Node) -> Pos:
    return Pos("f", node.start_mark.line + 1, node.start_mark.column + 1)


def _check_positions(data: Any, node: yaml.Node, seen: set[int]) -> int:
    """Positions of ``data`` equal the marks of ``node`` (an independently composed tree); returns the number of
    positions compared. Mappings with merge keys are compared only where keys line up one to one."""
    if id(node) in seen:
        return 0
    seen.add(id(node))
    n = 0
    if isinstance(node, yaml.MappingNode) and isinstance(data, PosDict):
        assert data.pos == _mark(node)
        n += 1
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            return n
        last: dict[Any, tuple[yaml.Node, yaml.Node]] = {}
        for k, v in node.value:
            # only string keys: a plain ``yes`` (True) and a quoted ``'yes'`` have the same text
            if (
                isinstance(k, yaml.ScalarNode)
                and k.tag == "tag:yaml.org,2002:str"
                and k.value in data.key_pos
            ):
                last[k.value] = (k, v)
        for key, (knode, vnode) in last.items():
            if key in data and type(key) is str:
                assert data.key_pos[key] == _mark(knode), f"key {key!r}"
                assert data.value_pos[key] == _mark(vnode), f"value of {key!r}"
                n += 2 + _check_positions(data[key], vnode, seen)
    elif isinstance(node, yaml.SequenceNode) and isinstance(data, PosList):
        assert data.pos == _mark(node)
        assert data.item_pos == [_mark(c) for c in node.value]
        n += 1 + len(node.value)
        for item, child in zip(data, node.value, strict=True):
            n += _check_positions(item, child, seen)
    return n


def _check(text: str) -> int:
    ok, expected = _reference(text)
    data, diags = load_yaml_text(text, "f")
    if not ok:
        assert data is None and diags and diags[0].severity is Severity.ERROR, "PyYAML fails, so must we"
        return 0
    assert data is not None or expected is None, [str(d) for d in diags]
    _same(data, expected)
    if data is None:
        return 0
    node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return _check_positions(data, node, set())


CASES = {
    "booleans": "a: [yes, no, on, off, y, n, Yes, NO, True, false, TRUE, On, oFF]\n",
    "numbers": "a: [0, 7, 017, 0o17, 0x1f, 0b101, 1_000, +12, -3, 1:30, 190:20:30, 00, 09, 1.5, 1e3, .inf, -.Inf, .nan]\n",
    "nulls": "a: [~, null, Null, NULL, '', ]\nb:\nc: !!null ''\n",
    "strings": "a: ['yes', \"017\", '2016-10-14', plain text, \"esc\\tape\", |\n    literal\n    block\n  , >\n    folded\n    text\n]\n",
    "timestamps": "heat_template_version: 2016-10-14\nt: 2001-12-14t21:59:43.10-05:00\nu: 2002-12-14\n",
    "merge": "base: &b {x: 1, y: 2}\nother: &o {z: 3}\nm:\n  <<: [*b, *o]\n  y: 20\nn: {<<: *b, w: 0}\n",
    "aliases": "a: &x [1, {k: v}]\nb: *x\nc: &s scalar\nd: *s\n",
    "tags": "a: !!str 123\nb: !!int '42'\nc: !!float '1'\nd: !!binary aGVsbG8=\ne: !!set {x, y}\nf: !!omap [{a: 1}, {b: 2}]\n"
    "g: !!pairs [{a: 1}, {a: 2}]\nh: !!map {k: v}\ni: !!seq [1]\nj: !!bool 'yes'\n",
    "keys": "1: int key\ntrue: bool key\n~: null key\n2016-10-14: date key\n'q': quoted\n",
    "duplicates": "a: 1\nb: 2\na: 3\n",
    "nested": "resources:\n  r:\n    type: T\n    properties:\n      l:\n        - a\n        - {get_attr: [x, y, 0]}\n        - - deep\n",
    "value_key": "a: {=: v}\n",
    "bad_tag": "a: !!str {k: v}\n",
    "bad_map_tag": "a: !!map [1, 2]\n",
    "bad_bool": "a: !!bool maybe\n",
    "unknown_tag": "a: !custom x\n",
    "recursive": "a: &r [1, *r]\n",
    "empty": "",
    "scalar_doc": "just a string\n",
    "unicode": "a: \u00e9t\u00e9\nb: \u00b2\nc: '\u2603'\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_corner_cases_decode_like_pyyaml(name: str) -> None:
    _check(CASES[name])


def test_duplicate_key_warns_with_both_positions() -> None:
    data, diags = load_yaml_text("a: 1\nb: 2\na: 3\n", "f")
    assert data == {"a": 3, "b": 2}
    assert [(d.severity, d.pos, d.code) for d in diags] == [
        (Severity.WARNING, Pos("f", 3, 1), "duplicate-key")
    ]
    assert "first defined at 1:1" in diags[0].message


def test_unhashable_key_is_an_error_and_the_rest_decodes() -> None:
    data, diags = load_yaml_text("? [a, b]\n: v\nc: d\n", "f")
    assert data == {"c": "d"}
    assert [(d.severity, d.pos) for d in diags] == [(Severity.ERROR, Pos("f", 1, 3))]


def test_aliases_share_one_object_as_in_pyyaml() -> None:
    data, _ = load_yaml_text("a: &x [1, {k: v}]\nb: *x\nr: &r [*r]\n", "f")
    assert data["a"] is data["b"]
    assert data["r"][0] is data["r"]


def test_positions_of_a_template() -> None:
    text = "resources:\n  r:\n    type: T\n    properties: {a: [x, {get_param: p}]}\n"
    data, _ = load_yaml_text(text, "t.yaml")
    props = data["resources"]["r"]["properties"]
    assert data["resources"]["r"].key_pos["properties"] == Pos("t.yaml", 4, 5)
    assert data["resources"]["r"].value_pos["properties"] == Pos("t.yaml", 4, 17)
    assert props.pos == Pos("t.yaml", 4, 17)
    assert props["a"].item_pos == [Pos("t.yaml", 4, 22), Pos("t.yaml", 4, 25)]
    assert props["a"][1].key_pos["get_param"] == Pos("t.yaml", 4, 26)


def _corpus_yaml_files() -> list[Path]:
    corpus = find_corpus(Path(__file__))
    if corpus is None:
        return []
    return sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def test_every_corpus_yaml_decodes_like_pyyaml() -> None:
    files = _corpus_yaml_files()
    if not files:
        missing_input(WHAT)
    compared = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        try:
            compared += _check(text)
        except AssertionError as exc:
            raise AssertionError(f"{path}: {exc}") from exc
    assert len(files) > 600
    assert compared > 40_000


# -------------------------------------------------------------------- the event path and the node path


def _same_positions(a: Any, b: Any, path: str = "$") -> None:
    if isinstance(a, dict):
        assert (a.pos, a.key_pos, a.value_pos) == (b.pos, b.key_pos, b.value_pos), path
        for k in a:
            _same_positions(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert (a.pos, a.item_pos) == (b.pos, b.item_pos), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same_positions(x, y, f"{path}[{i}]")


@pytest.mark.parametrize("from_events", [_from_pushed, _from_pulled], ids=["pushed", "pulled"])
def test_the_event_path_decodes_every_plain_corpus_file_as_the_node_path_does(from_events: Any) -> None:
    # most documents are decoded from libyaml's event stream (no node tree), pushed (libyaml calls the
    # builder: the process's only thread) or pulled (event objects); the rest go through the node path: all
    # must give the same data, positions and diagnostics wherever the event path answers
    files = _corpus_yaml_files()
    if not files:
        missing_input(WHAT)
    by_events = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        try:
            ev_data, ev_diags = from_events(text, str(path))
        except yaml.YAMLError:
            with pytest.raises(yaml.YAMLError):
                _from_nodes(text, str(path), 10**6, True)
            continue
        if ev_data is _UNUSUAL:
            continue
        by_events += 1
        node_data, node_diags = _from_nodes(text, str(path), 10**6, True)
        _same(ev_data, node_data)
        _same_positions(ev_data, node_data)
        assert ev_diags == node_diags, path
    assert by_events > 0.9 * len(files), (by_events, len(files))


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1}\nc: *x\n",  # anchor and alias
        "a: !!str 1\n",  # explicit tag
        "a: !!set {x, y}\n",
        "base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n",  # merge key
        "? [a, b]\n: c\n",  # a key that is a list
        "a: 1\n---\nb: 2\n",  # two documents
    ],
)
def test_unusual_documents_go_through_the_node_path(text: str) -> None:
    assert _from_pushed(text, "t.yaml") == (_UNUSUAL, [])
    assert _from_pulled(text, "t.yaml") == (_UNUSUAL, [])
    data, diags = load_yaml_text(text, "t.yaml")  # decoded as the node path decodes it
    try:
        want, want_diags = _from_nodes(text, "t.yaml", 10**6, True)
    except yaml.YAMLError:
        assert data is None and diags and diags[0].severity is Severity.ERROR
        return
    _same(data, want)
    _same_positions(data, want)
    assert diags == want_diags
