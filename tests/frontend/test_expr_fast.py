"""The expression builder's short cuts give exactly what the grammar path gives.

``hotc.parser.expr`` builds ``{get_param: NAME}`` / ``{get_resource: NAME}`` directly instead of parsing the
token stream with the grammar; these tests build the same snippets through the grammar and compare the IR
(every field, positions included), for every template version."""

from __future__ import annotations

import pytest

from hotc.errors import Pos
from hotc.parser import expr as E
from hotc.parser import functions as F
from hotc.parser.grammar import START_CALL, grammar
from hotc.parser.ir import ListExpr, Literal, MapExpr
from hotc.parser.versions import VERSIONS, version_named
from hotc.parser.yamlload import load_yaml_text


@pytest.mark.parametrize("date", VERSIONS)
@pytest.mark.parametrize("name", ["get_param", "get_resource"])
def test_scalar_call_short_cut_equals_grammar_path(date: str, name: str) -> None:
    version = version_named(date)
    data, _ = load_yaml_text(f"{{{name}: web}}\n", "t.yaml")
    mpos, kpos, vpos = data.pos, data.key_pos[name], data.value_pos[name]
    table = grammar().normal_table(version)
    fast = E._SCALAR_CALLS[table[name]](name, mpos, E._lit("web", vpos))
    diags: list = []
    slow = E._build_call(
        grammar().parse_scalar_call(data, name, "web", mpos, kpos, vpos, version, START_CALL),
        version,
        mpos,
        diags,
    )
    assert diags == []
    assert fast == slow
    assert type(fast.children().__next__()) is Literal
    built, d2 = E.parse_expr(data, version, where="properties")
    assert built == slow and d2 == []


def test_literal_data_keeps_every_position() -> None:
    text = "a: [1, x, {get_param: p}]\nb: {c: true}\n"
    data, _ = load_yaml_text(text, "t.yaml")
    e, diags = E.parse_expr(data, version_named("rocky"), where="properties")
    assert diags == []
    assert isinstance(e, MapExpr) and e.pos == Pos("t.yaml", 1, 1)
    assert e.key_pos == (Pos("t.yaml", 1, 1), Pos("t.yaml", 2, 1))
    a = e.get("a")
    assert isinstance(a, ListExpr) and a.pos == Pos("t.yaml", 1, 4)
    assert a.items[0] == Literal(1, Pos("t.yaml", 1, 5))
    assert a.items[1] == Literal("x", Pos("t.yaml", 1, 8))
    assert a.items[2] == F.GetParam("get_param", Pos("t.yaml", 1, 11), Literal("p", Pos("t.yaml", 1, 23)))
    assert e.get("b") == MapExpr(
        (("c", Literal(True, Pos("t.yaml", 2, 8))),), Pos("t.yaml", 2, 4), (Pos("t.yaml", 2, 5),)
    )


def test_parsing_calls_leaves_no_cyclic_garbage() -> None:
    """Flattening a call for the grammar must not build reference cycles: they kept every flattened subtree
    alive until the cyclic collector ran (hundreds of thousands of objects on a large template)."""
    import gc

    text = "".join(f"- {{get_attr: [port{i}, fixed_ips, 0, ip_address]}}\n" for i in range(200))
    data, _ = load_yaml_text(text, "t.yaml")
    version = version_named("rocky")
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        built = [E.parse_expr(item, version, where="properties")[0] for item in data]
        unreachable = gc.collect()  # while automatic collection is off, so nothing was collected before
    finally:
        if was:
            gc.enable()
    assert all(isinstance(b, F.GetAttr) for b in built)
    assert unreachable < 50


_ATTR_LISTS = [
    "[web]",
    "[web, first_address]",
    "[port, fixed_ips, 0, ip_address]",
    "[web, networks, private, 0]",
    "[web, 1.5]",
    "[web, true, null]",
    "[1, web]",
    "[web, attr, [nested]]",  # not all scalars: always the grammar path
]


@pytest.mark.parametrize("date", VERSIONS)
@pytest.mark.parametrize("arg", _ATTR_LISTS)
def test_get_attr_of_scalars_short_cut_equals_grammar_path(date: str, arg: str) -> None:
    """``{get_attr: [scalars…]}`` is built directly once the grammar has parsed its token shape; the node (every
    field, positions included) and the diagnostics are those of the grammar path, and a shape the grammar
    refuses is never taken by the short cut."""
    version = version_named(date)
    data, _ = load_yaml_text(f"{{get_attr: {arg}}}\n", "t.yaml")
    table = grammar().normal_table(version)
    term = table.get("get_attr")
    if term is None:
        pytest.skip("no get_attr in this version")
    diags: list = []
    slow = E._build_call(grammar().parse(data, data.pos, version, START_CALL), version, data.pos, diags)
    items = data["get_attr"]
    fast = E._get_attr_of_scalars("get_attr", items, data.pos, version, term)
    scalars = all(not isinstance(i, list | dict) for i in items)
    if diags or not scalars:
        assert fast is None  # refused (or not all scalars): the grammar path reports it
    else:
        assert scalars and fast is not None  # parsed once above: the short cut is taken from now on
        assert fast == slow
        assert [type(c) for c in fast.children()] == [type(c) for c in slow.children()]
    built, d2 = E.parse_expr(data, version, where="properties")
    assert built == slow and d2 == diags


_JOIN_ARGS = [
    "['-', [a, b]]",
    "['-', [{get_param: prefix}, net0]]",
    "[',', [{get_resource: r}, 1, 2.5, true, null]]",
    "['', []]",
    "['-', [a], [b, {get_param: p}]]",  # several lists: JoinMultiple from 2015-10-15, refused before
    "[1, [a, b]]",  # a delimiter that is not a string: refused by the grammar
    "['-', [{get_attr: [r, a]}]]",  # not a scalar call inside: always the grammar path
    "['-', [{get_param: [p, 0]}]]",
    "['-', [{not_a_function: x}]]",
    "['-', [[nested]]]",
    "['-', {get_param: items}]",
    "['-']",
    "['-', [a], x]",
]


@pytest.mark.parametrize("date", VERSIONS)
@pytest.mark.parametrize("arg", _JOIN_ARGS)
def test_list_join_short_cut_equals_grammar_path(date: str, arg: str) -> None:
    """``{list_join: [DELIM, [scalars and scalar calls…]…]}`` is built directly once the grammar has parsed its
    token shape: the node (every field, positions included) and the diagnostics are those of the grammar path;
    a shape the grammar refuses is never taken by the short cut."""
    version = version_named(date)
    data, _ = load_yaml_text(f"{{list_join: {arg}}}\n", "t.yaml")
    table = grammar().normal_table(version)
    term = table.get("list_join")
    assert term is not None
    diags: list = []
    slow = E._build_call(grammar().parse(data, data.pos, version, START_CALL), version, data.pos, diags)
    args = data["list_join"]
    fast = (
        E._list_join_of_simple_lists("list_join", args, data.pos, version, term, table, E._Sink())
        if isinstance(args, list)
        else None
    )
    simple = (
        isinstance(args, list)
        and len(args) >= 2
        and isinstance(args[0], str)
        and all(
            isinstance(lst, list)
            and all(
                not isinstance(i, list | dict)
                or (
                    isinstance(i, dict)
                    and list(i) in (["get_param"], ["get_resource"])
                    and isinstance(*i.values(), str)
                )
                for i in lst
            )
            for lst in args[1:]
        )
    )
    if diags or not simple:
        assert fast is None  # refused (or not simple): the grammar path reports it
    else:
        assert fast is not None  # parsed once above: the short cut is taken from now on
        assert fast == slow
        assert [type(c) for c in fast.children()] == [type(c) for c in slow.children()]
    built, d2 = E.parse_expr(data, version, where="properties")
    assert built == slow and d2 == diags


def _corpus_and_generated() -> list[tuple[str, str]]:
    """(path, text) of every template of the shared corpus, and the benchmark's generated template."""
    from pathlib import Path

    from bench.bench_validate import generate
    from tests.corpus.corpus import WHAT, find_corpus
    from tests.inputs import missing_input

    corpus = find_corpus(Path(__file__).resolve().parents[1] / "corpus" / "x")
    if corpus is None:
        missing_input(WHAT)
    out = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in sorted(corpus.rglob("*.yaml"))]
    return [*out, ("generated.yaml", generate(200))]


def test_short_cuts_build_the_corpus_as_the_grammar_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every template of the shared corpus (and the generated benchmark template) gives the same IR (every
    node and position) and the same diagnostics with the short cuts as with every call through the grammar."""
    from hotc.parser.template import parse_template
    from hotc.parser.yamlload import load_document

    docs = []
    for path, text in _corpus_and_generated():
        data, _ = load_document(text, path, max_size=None)
        if data is not None:
            docs.append((path, data))
    with monkeypatch.context() as m:
        m.setattr(E, "_SCALAR_CALLS", {})
        m.setattr(E, "_get_attr_of_scalars", lambda *a: None)
        m.setattr(E, "_list_join_of_simple_lists", lambda *a: None)
        slow = [parse_template(data, path) for path, data in docs]  # also parses every shape once
    fast = [parse_template(data, path) for path, data in docs]
    assert len(docs) > 100
    for (path, _), s, f in zip(docs, slow, fast, strict=True):
        assert f == s, path
