"""References collected once by the parser (hotc.parser.references): the same answer as a plain recursive walk
over every expression of the shared corpus, stored on each resource and output, collected again when a part is
replaced, and the two facts the checks skip work by (a get_attr inside; an if or a computed name inside)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from hotc.parser import functions as F
from hotc.parser.ir import NO_REFS, FunctionCall, ListExpr, Literal, MapExpr
from hotc.parser.references import collect, output_refs, resource_refs
from hotc.parser.template import parse_template
from hotc.parser.versions import PSEUDO_PARAMETERS
from hotc.parser.yamlload import load_document, load_yaml_text
from tests.corpus.corpus import WHAT, find_corpus
from tests.inputs import missing_input


def _walk(e: Any, out: list[tuple[str, str, Any]]) -> None:
    """An independent statement of what a reference is: depth first, in source order."""
    if isinstance(e, Literal):
        return
    if isinstance(e, ListExpr):
        for i in e.items:
            _walk(i, out)
        return
    if isinstance(e, MapExpr):
        for _, v in e.items:
            _walk(v, out)
        return
    lit = lambda x: x.value if isinstance(x, Literal) and isinstance(x.value, str) else None  # noqa: E731
    if isinstance(e, F.GetResource | F.GetAttr):
        if lit(e.resource) is not None:
            out.append(("resource", lit(e.resource), e.pos))
            if isinstance(e, F.GetResource):
                return
    elif isinstance(e, F.GetParam):
        if e.static_name() is not None and e.static_name() not in PSEUDO_PARAMETERS:
            out.append(("param", e.static_name(), e.pos))
    elif isinstance(e, F.ConditionName):
        out.append(("condition", e.condition, e.pos))
    elif isinstance(e, F.GetFile) and lit(e.path) is not None:
        out.append(("file", lit(e.path), e.pos))
    elif isinstance(e, F.Ref) and lit(e.target) is not None:
        out.append(("ref", lit(e.target), e.pos))
    if isinstance(e, FunctionCall):
        for c in e.children():
            _walk(c, out)


def _templates() -> list[Path]:
    corpus = find_corpus(Path(__file__).resolve().parents[1] / "corpus" / "x")
    if corpus is None:
        missing_input(WHAT)
    return sorted(corpus.rglob("*.yaml"))


def test_collected_references_are_a_plain_walks_over_the_corpus() -> None:
    checked = with_refs = 0
    for path in _templates():
        data, _ = load_document(path.read_text(encoding="utf-8", errors="replace"), str(path), max_size=None)
        t, _ = parse_template(data, str(path)) if isinstance(data, dict) else (None, [])
        if t is None:
            continue
        for r in t.resources.values():
            rr = resource_refs(r)
            assert rr is r.refs  # stored by the parser, not collected again
            parts = (r.properties, r.metadata, r.update_policy, r.deletion_policy, r.external_id, r.condition)
            got = (
                rr.properties,
                rr.metadata,
                rr.update_policy,
                rr.deletion_policy,
                rr.external_id,
                rr.condition,
            )
            for e, refs in zip(parts, got, strict=True):
                want: list[tuple[str, str, Any]] = []
                if e is not None:
                    _walk(e, want)
                assert list(refs.items) == want, (path, r.name)
                # collected while the part was built (properties, metadata, update_policy): the answer of a
                # separate walk, flags included
                assert refs == (collect(e) if e is not None else NO_REFS), (path, r.name)
                checked += 1
                with_refs += bool(want)
        for o in t.outputs.values():
            orefs = output_refs(o)
            assert orefs is o.refs
            want = []
            if o.value is not None:
                _walk(o.value, want)
            assert list(orefs.value.items) == want
    assert checked > 2000 and with_refs > 500  # the corpus really exercised it


def _resource(text: str) -> Any:
    data, diags = load_yaml_text(text, "t.yaml")
    t, _ = parse_template(data, "t.yaml")
    assert t is not None
    return t


def test_the_flags_say_where_a_get_attr_or_a_context_matters() -> None:
    t = _resource(
        "heat_template_version: 2018-08-31\n"
        "parameters: {p: {type: string}}\n"
        "conditions: {c: {equals: [{get_param: p}, x]}}\n"
        "resources:\n"
        "  a: {type: OS::Heat::RandomString, properties: {length: 8}}\n"
        "  b:\n"
        "    type: OS::Heat::Value\n"
        "    properties: {value: {get_resource: a}}\n"
        "    metadata: {ip: {get_attr: [a, value]}}\n"
        "  c:\n"
        "    type: OS::Heat::Value\n"
        "    properties: {value: {if: [c, {get_param: p}, {get_resource: {get_param: p}}]}}\n"
    )
    a, b, c = (resource_refs(t.resources[n]) for n in "abc")
    assert a.properties.items == () and not a.properties.get_attr and not a.properties.contextual
    assert b.properties.names("resource") == {"a"} and not b.properties.get_attr
    assert b.metadata.get_attr and b.metadata.of("resource")[0][0] == "a"
    assert c.properties.contextual and c.properties.names("condition") == {"c"}
    assert c.properties.names("param") == {"p"}


def test_a_replaced_part_is_collected_again() -> None:
    t = _resource(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  a: {type: OS::Heat::RandomString}\n"
        "  b: {type: OS::Heat::Value, properties: {value: {get_resource: a}}}\n"
    )
    b = t.resources["b"]
    other = t.resources["a"]
    moved = dataclasses.replace(
        b, properties=MapExpr((("value", F.GetResource("get_resource", None, Literal("zz"))),))
    )
    assert resource_refs(b).properties.names("resource") == {"a"}
    assert resource_refs(moved).properties.names("resource") == {"zz"}
    assert resource_refs(other).properties.items == ()


_SNIPPETS = [
    "{get_param: p}",
    "{get_param: OS::stack_name}",
    "{get_resource: r}",
    "{get_attr: [r, a, 0, b]}",
    "{get_attr: [1, a]}",
    "{get_attr: [{get_param: p}, a]}",
    "{list_join: ['-', [{get_param: p}, {get_resource: r}, {get_param: OS::stack_id}, x]]}",
    "{list_join: ['-', [{get_attr: [r, a]}]]}",
    "{a: [{get_param: p}, {b: {get_resource: r}}], c: {get_attr: [s, x]}, d: {get_file: f.txt}}",
    "{if: [c, {get_param: p}, {get_resource: {get_param: q}}]}",
    "{str_replace: {template: $x, params: {$x: {get_attr: [r, a]}}}}",
    "[{get_param: [p, 0]}, {get_param: 5}, {get_resource: 7}, {Ref: r}]",
    "{get_param: [p, {get_param: q}]}",
    "plain",
    "{not_a_function: {get_param: p}}",
]


@pytest.mark.parametrize("snippet", _SNIPPETS)
@pytest.mark.parametrize("date", ["2013-05-23", "2016-10-14", "2021-04-16"])
def test_references_collected_while_building_are_a_separate_walks(snippet: str, date: str) -> None:
    """parse_expr_refs collects while it builds (the short cuts included, taken from the second parse of a
    shape on): the answer of references.collect over the built expression, flags included."""
    from hotc.parser.expr import parse_expr_refs
    from hotc.parser.versions import version_named

    data, _ = load_yaml_text(f"{snippet}\n", "t.yaml")
    for _ in range(2):
        expr, _diags, refs = parse_expr_refs(data, version_named(date), where="properties")
        assert refs == collect(expr)
