"""The expression grammar: positions in errors, contexts (conditions), the text form, the parse cache,
grammar/functions.toml consistency, Unknown propagation and references."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.errors import Pos
from hotc.parser import functions as F
from hotc.parser.evaluate import EvalError, evaluate, evaluate_condition, file_paths, references
from hotc.parser.expr import parse_expr
from hotc.parser.grammar import grammar
from hotc.parser.ir import ListExpr, Literal, MapExpr
from hotc.parser.versions import VERSIONS, version_named
from hotc.parser.yamlload import load_document
from hotc.values import Unknown, WaitsOn
from tests.frontend.test_functions_support import ctx, parse

ROCKY = version_named("rocky")

TEMPLATE = """\
heat_template_version: rocky
resources:
  srv:
    type: OS::Nova::Server
    properties:
      name: {get_param: name}
      networks:
        - port: {get_resource: port}
        - network: {get_attr: web}
      user_data:
        str_replace:
          template: "x"
          params: [a]
      meta:
        Ref: old
"""


def _props(text: str = TEMPLATE) -> object:
    doc, diags = load_document(text, "tmpl.yaml")
    assert doc is not None and not diags
    return doc["resources"]["srv"]["properties"]


# ------------------------------------------------------------------------------------------ positions


def test_errors_carry_file_line_col() -> None:
    _, diags = parse_expr(_props(), ROCKY, where="properties", file="tmpl.yaml")
    text = sorted(str(d) for d in diags)
    assert any(t.startswith("tmpl.yaml:9:31: error:") and '"get_attr"' in t for t in text), text
    assert any(t.startswith("tmpl.yaml:13:19: error:") and '"str_replace"' in t for t in text), text
    assert any(t.startswith("tmpl.yaml:15:9: error:") and '"Ref" is not supported' in t for t in text), text
    assert len(diags) == 3


def test_nodes_carry_positions() -> None:
    expr, diags = parse_expr(_props(TEMPLATE.split("        - network")[0]), ROCKY, where="properties")
    assert not diags
    assert isinstance(expr, MapExpr)
    name = expr.get("name")
    assert isinstance(name, F.GetParam)
    assert name.pos == Pos("tmpl.yaml", 6, 13)
    assert isinstance(name.param, Literal) and name.param.pos == Pos("tmpl.yaml", 6, 25)
    nets = expr.get("networks")
    assert isinstance(nets, ListExpr) and nets.items[0].pos == Pos("tmpl.yaml", 8, 11)
    port = nets.items[0]
    assert isinstance(port, MapExpr)
    call = port.get("port")
    assert isinstance(call, F.GetResource) and call.pos == Pos("tmpl.yaml", 8, 17)


def test_eval_error_has_position() -> None:
    expr, errors, _ = parse("{str_replace_strict: {template: a, params: {b: c}}}")
    assert not errors and expr is not None
    with pytest.raises(EvalError) as info:
        evaluate(expr, ctx())
    assert str(info.value.diagnostic).startswith("t.yaml:1:1: error: The following params were not found")


# ------------------------------------------------------------------------------------------- contexts


@pytest.mark.parametrize(
    ("text", "where", "error"),
    [
        ("{equals: [{get_param: name}, web]}", "conditions", None),
        ("{and: [a, {not: b}, {or: [true, c]}]}", "conditions", None),
        ("{equals: [{get_attr: [r, x]}, 1]}", "conditions", '"get_attr" is invalid in this context'),
        ("{get_resource: r}", "conditions", '"get_resource" is invalid in this context'),
        ("{if: [a, b, c]}", "conditions", '"if" is invalid in this context'),
        ("{equals: [{str_split: [',', a]}, [a]]}", "conditions", '"str_split" is invalid in this context'),
        ("{not: {equals: [{'Fn::Select': [0, [a]]}, a]}}", "conditions", '"Fn::Select" is not supported'),
        ("{contains: [a, [a]]}", "conditions", None),
        ("{yaql: {expression: 'true'}}", "conditions", None),
        ("my_condition", "conditions", "must be a boolean or a condition function"),
        ("[a]", "conditions", "must be a boolean or a condition function"),
        ("true", "conditions", None),
        ("{nosuch: 1}", "conditions", "invalid condition"),
        ("my_condition", "condition_ref", None),
        ("{not: my_condition}", "condition_ref", None),
        ("{not: null}", "condition_ref", 'invalid arguments to "not"'),
        ("{not: [x]}", "condition_ref", None),  # read as Heat reads it; "Invalid condition" when evaluated
        ("{and: [true]}", "condition_ref", 'invalid arguments to "and"'),
        ("{equals: [a, a]}", "properties", None),  # plain data outside conditions
    ],
)
def test_condition_contexts(text: str, where: str, error: str | None) -> None:
    _, errors, _ = parse(text, "rocky", where=where)
    if error is None:
        assert not errors, errors
    else:
        assert any(error in e for e in errors), errors


def test_condition_functions_by_version() -> None:
    # yaql and contains became condition functions in pike (2017-09-01)
    _, errors, _ = parse("{contains: [a, [a]]}", "2017-02-24", where="conditions")
    assert errors and "invalid condition" in errors[0]
    _, errors, _ = parse("{yaql: {expression: 'true'}}", "2017-02-24", where="conditions")
    assert any('"yaql" is invalid in this context' in e for e in errors), errors
    _, errors, _ = parse("{equals: [a, a]}", "2016-04-08", where="conditions")
    assert any("2016-10-14 or later" in e for e in errors), errors


def test_condition_evaluation() -> None:
    c = ctx(conditions={"a": True, "b": False})
    cases = {
        "{equals: [{get_param: name}, web]}": True,
        "{equals: ['1', 1]}": False,
        "{equals: [1, 1.0]}": True,
        "{not: a}": False,
        "{and: [a, {not: b}]}": True,
        "{or: [b, b]}": False,
        "{or: [b, a, missing]}": True,  # short-circuits before the undefined name
        "{contains: [web, [web, db]]}": True,
        "{yaql: {expression: '$.data.x > 1', data: {x: 2}}}": True,
    }
    for text, expected in cases.items():
        expr, errors, _ = parse(text, where="conditions")
        assert not errors and expr is not None, (text, errors)
        assert evaluate_condition(expr, c, definition=True) is expected, text
    expr, errors, _ = parse("{and: [a, missing]}", where="conditions")
    with pytest.raises(EvalError, match='Invalid condition "missing"'):
        evaluate_condition(expr, c)
    expr, _, _ = parse("{get_param: name}", where="conditions")
    with pytest.raises(EvalError, match="must evaluate to a boolean"):
        evaluate_condition(expr, c, definition=True)
    expr, _, _ = parse("a", where="condition_ref")
    assert evaluate_condition(expr, c) is True


# ------------------------------------------------------------------------------------ text form, cache


def test_text_form_equals_yaml_form() -> None:
    text_expr, errors, _ = parse("{get_attr: [web, first_address]}")
    assert not errors
    assert isinstance(text_expr, F.GetAttr)
    assert text_expr.pos == Pos("t.yaml", 1, 1)
    assert text_expr.resource == Literal("web", Pos("t.yaml", 1, 13))
    _, errors, _ = parse("{get_attr: [web, first_address]")
    assert errors and "YAML syntax error" in errors[0]


def test_cache_gives_fresh_positions_and_values() -> None:
    """The same shape hits the parse cache; values and positions still come from the new data."""
    doc, _ = load_document("a: {get_param: x}\nb:\n  get_param: yy\n", "c.yaml")
    assert doc is not None
    a, _ = parse_expr(doc["a"], ROCKY, where="properties", pos=doc.pos_of("a"))
    b, _ = parse_expr(doc["b"], ROCKY, where="properties", pos=doc.pos_of("b"))
    assert isinstance(a, F.GetParam) and isinstance(b, F.GetParam)
    assert a.param == Literal("x", Pos("c.yaml", 1, 16))
    assert b.param == Literal("yy", Pos("c.yaml", 3, 14))
    # errors are cached by shape too, and positioned on the new data
    _, d1, _ = parse("{get_attr: one}")
    _, d2, _ = parse("\n\n  {get_attr: two}")
    assert d1[0].startswith("t.yaml:1:12:") and d2[0].startswith("t.yaml:3:14:")
    assert '"one"' in d1[0] and '"two"' in d2[0]


def test_plain_data_needs_no_parse() -> None:
    expr, errors, warnings = parse("{a: [1, {b: c}], get_param: x}")
    assert not errors and not warnings
    assert isinstance(expr, MapExpr) and dict(expr.items)["get_param"] == Literal("x", Pos("t.yaml", 1, 29))


def test_function_of_a_later_version_is_data_with_a_warning() -> None:
    expr, errors, warnings = parse("{str_split: [',', 'a,b']}", "2015-04-30")
    assert not errors
    assert isinstance(expr, MapExpr)
    assert warnings and "introduced in heat_template_version 2015-10-15" in warnings[0]
    _, _, warnings = parse("{map_merge: [{a: {list_concat: [[1]]}}]}", "2016-04-08")
    assert warnings and "list_concat" in warnings[0] and "2017-09-01" in warnings[0]


# --------------------------------------------------------------------------------- grammar consistency


def test_functions_toml_and_grammar_agree() -> None:
    g = grammar()
    grammar_text = (Path(__file__).resolve().parents[2] / "grammar" / "hot.lark").read_text()
    used = set()
    for spec in g.functions.values():
        for _, term in spec.versions + spec.condition:
            assert term in g.terminals, f"{spec.name}: terminal {term} is not in hot.lark"
            used.add(term)
        for since, _ in spec.versions + spec.condition:
            assert since in VERSIONS
    declared = {t for t in g.terminals if t.startswith(("FN_", "CFN_"))} - {"FN_INVALID"}
    assert declared == used, declared ^ used
    assert "%declare" in grammar_text


def test_every_version_table_matches_heat_matrix() -> None:
    """Spot-check heat-hot.md §1.4."""
    g = grammar()
    t = {v: g.normal_table(version_named(v)) for v in VERSIONS}
    assert "repeat" not in t["2014-10-16"] and t["2015-04-30"]["repeat"] == "FN_REPEAT"
    assert t["2016-10-14"]["repeat"] == "FN_REPEAT_MAP" and t["2017-09-01"]["repeat"] == "FN_REPEAT_NESTED"
    assert t["2013-05-23"]["get_attr"] == "FN_GET_ATTR_SELECT"
    assert t["2015-04-30"]["get_attr"] == "FN_GET_ATTR_PATH"
    assert t["2015-10-15"]["get_attr"] == "FN_GET_ATTR_ALL"
    assert t["2018-08-31"] == t["2018-03-02"]  # rocky is identical to queens
    assert t["2021-04-16"]["if"] == "FN_IF_NULLABLE" and t["2018-08-31"]["if"] == "FN_IF"
    assert t["2015-04-30"]["Fn::Select"] == "FN_SELECT" and t["2015-10-15"]["Fn::Select"] == "FN_REMOVED"
    for name in ("Ref", "Fn::Join", "Fn::Split", "Fn::Base64", "Fn::GetAZs", "Fn::MemberListToMap"):
        assert t["2013-05-23"][name] != "FN_REMOVED"
        assert all(t[v][name] == "FN_REMOVED" for v in VERSIONS[1:]), name
    assert "equals" not in t["2021-04-16"]
    assert set(g.condition_table(version_named("newton"))) == {"get_param", "equals", "not", "and", "or"}
    assert set(g.condition_table(version_named("pike"))) == {
        "get_param",
        "equals",
        "not",
        "and",
        "or",
        "yaql",
        "contains",
    }
    assert g.condition_table(version_named("2016-04-08")) == {}


def test_grammar_is_package_data() -> None:
    import importlib.resources

    files = importlib.resources.files("hotc").joinpath("grammar")
    assert files.joinpath("hot.lark").is_file() and files.joinpath("functions.toml").is_file()


# ------------------------------------------------------------------------------------------- unknowns


def _unknown(*waits: str) -> set[str]:
    return set(waits)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{list_join: [',', [a, {get_attr: [web, ip]}]]}", {"web.ip"}),
        (
            "{str_replace: {template: 'x $A $B', params: {$A: {get_attr: [a, ip]}, $B: {get_resource: b}}}}",
            {"a.ip", "b.id"},
        ),
        ("{map_merge: [{x: 1}, {get_attr: [web, meta]}]}", {"web.meta"}),
        ("{list_concat: [[1], {get_attr: [web, l]}]}", {"web.l"}),
        ("{yaql: {expression: '$.data', data: {get_resource: web}}}", {"web.id"}),
        ("{digest: [sha256, {get_resource: web}]}", {"web.id"}),
        (
            "{if: [{equals: [{get_param: unknown_param}, x]}, {get_resource: a}, {get_resource: b}]}",
            {"parameter unknown_param.id", "a.id", "b.id"},
        ),
        ("{contains: [{get_resource: web}, [a]]}", {"web.id"}),
        ("{get_attr: [{get_attr: [a, name]}, ip]}", {"a.name"}),
    ],
)
def test_functions_over_unknown_are_unknown(text: str, expected: set[str]) -> None:
    expr, errors, _ = parse(text)
    assert not errors and expr is not None
    params = {"unknown_param": Unknown(frozenset({WaitsOn("parameter unknown_param")}))}
    value = evaluate(expr, ctx(parameters=params))
    assert isinstance(value, Unknown), value
    assert {str(w) for w in value.waits_on} == expected


def test_known_parts_stay_known() -> None:
    value = evaluate(
        parse("{a: [1, {get_resource: web}], b: {map_merge: [{k: {get_resource: db}}]}}")[0], ctx()
    )
    assert value["a"][0] == 1 and isinstance(value["a"][1], Unknown)
    assert isinstance(value["b"]["k"], Unknown)  # map_merge keeps known keys with unknown values
    # a known condition takes only its branch, whatever the other one waits on
    value = evaluate(parse("{if: [true, x, {get_resource: web}]}")[0], ctx())
    assert value == "x"
    value = evaluate(
        parse("{and: [false, {equals: [{get_param: u}, 1]}]}", where="conditions")[0],
        ctx(parameters={"u": Unknown()}),
    )
    assert value is False
    value = evaluate(parse("{map_replace: [{a: {get_resource: r}}, {keys: {a: b}}]}")[0], ctx())
    assert list(value) == ["b"] and isinstance(value["b"], Unknown)
    value = evaluate(
        parse("{repeat: {template: {p: '%x%', id: {get_resource: r}}, for_each: {'%x%': [a]}}}")[0], ctx()
    )
    assert value[0]["p"] == "a" and isinstance(value[0]["id"], Unknown)


# ----------------------------------------------------------------------------------------- references


def test_references() -> None:
    expr, errors, _ = parse(
        "{a: {get_param: name}, b: {get_attr: [web, ip]}, c: {get_resource: db}, d: {get_file: f.sh},"
        " e: {if: [cond1, {get_param: [cfg, a]}, {get_param: 'OS::stack_name'}]}, f: {get_param: {get_param: x}}}"
    )
    assert not errors and expr is not None
    refs = [(k, n) for k, n, _ in references(expr)]
    assert refs == [
        ("param", "name"),
        ("resource", "web"),
        ("resource", "db"),
        ("file", "f.sh"),
        ("condition", "cond1"),
        ("param", "cfg"),
        ("param", "x"),
    ]
    assert file_paths(expr) == ["f.sh"]
    assert all(p is not None and p.file == "t.yaml" for _, _, p in references(expr))
    expr, _, _ = parse("{and: [c1, {not: c2}]}", where="conditions")
    assert [(k, n) for k, n, _ in references(expr)] == [("condition", "c1"), ("condition", "c2")]
    expr, _, _ = parse("{Ref: thing}", "2013-05-23")
    assert [(k, n) for k, n, _ in references(expr)] == [("ref", "thing")]


def test_references_follow_only_the_taken_branch_with_a_context() -> None:
    expr, errors, _ = parse("{if: [has_fip, {get_attr: [fip, ip]}, {get_resource: port}]}")
    assert not errors and expr is not None
    assert [(k, n) for k, n, _ in references(expr)] == [
        ("condition", "has_fip"),
        ("resource", "fip"),
        ("resource", "port"),
    ]
    off = ctx(conditions={"has_fip": False})
    assert [(k, n) for k, n, _ in references(expr, off)] == [("condition", "has_fip"), ("resource", "port")]
    on = ctx(conditions={"has_fip": True})
    assert [(k, n) for k, n, _ in references(expr, on)] == [("condition", "has_fip"), ("resource", "fip")]
    unknown = ctx(conditions={"has_fip": Unknown()})
    assert len(list(references(expr, unknown))) == 3


def test_references_with_a_context_resolve_computed_resource_names() -> None:
    expr, errors, _ = parse("{get_attr: [{get_param: name}, ip]}")
    assert not errors and expr is not None
    assert [(k, n) for k, n, _ in references(expr)] == [("param", "name")]
    assert [(k, n) for k, n, _ in references(expr, ctx())] == [("resource", "web"), ("param", "name")]


# --------------------------------------------------------------------------------------------- fuzzing

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_NAMES = sorted(grammar().functions) + [
    "template",
    "params",
    "for_each",
    "permutations",
    "expression",
    "data",
    "keys",
    "values",
    "host",
    "port",
    "query",
    "x",
    "",
]
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.sampled_from(["a", "", ",", "web", "name", "sha256", "%x%", "cond1", "$.data"]),
)
_data = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_NAMES), inner, min_size=1, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=_data,
    version=st.sampled_from(VERSIONS),
    where=st.sampled_from(["properties", "conditions", "condition_ref", "outputs"]),
)
def test_random_snippets_never_crash(data: object, version: str, where: str) -> None:
    """Any decoded data parses to an Expr plus diagnostics, and evaluates to a value or an EvalError."""
    v = version_named(version)
    expr, diags = parse_expr(data, v, where=where, pos=Pos("f.yaml", 1, 1))
    assert all(d.pos is not None for d in diags)
    c = ctx(
        version,
        conditions={"cond1": True},
        resource_names=frozenset({"web"}),
        files={"a": "b"},
        facade={"metadata": {}},
    )
    try:
        evaluate(expr, c)
        list(references(expr, c))
    except EvalError as exc:
        assert exc.diagnostic.message


def test_keyword_keys_read_from_the_grammar_text_are_the_terminals_lark_builds() -> None:
    # the keyword table is read from hot.lark's text so that lark loads only when a shape must be parsed
    g = grammar()
    from_lark = {t for t in g.terminals if t.startswith("K_")}
    assert from_lark and set(g.keywords.values()) == from_lark
    assert all(g.keywords[t[2:].lower()] == t for t in from_lark)


def test_a_template_of_one_function_form_validates_without_importing_lark(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  n: {type: string, default: x}\n"
        "resources:\n  r:\n    type: OS::Heat::Value\n    properties: {value: {get_param: n}}\n"
        "  s:\n    type: OS::Heat::Value\n    properties: {value: {get_resource: r}}\n"
    )
    code = (
        "import sys\nfrom hotc.cli.app import main\n"
        "try:\n    main(['validate', '-t', 't.yaml'])\nexcept SystemExit as e:\n    assert not e.code\n"
        "print('lark' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout
