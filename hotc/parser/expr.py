"""Building expressions (:data:`hotc.parser.ir.Expr`) from decoded template data.

    parse_expr(data, version, *, where, pos=None, file="") -> (Expr, [Diagnostic])
    parse_expr_text(text, version, *, where="outputs", file="<expr>") -> (Expr | None, [Diagnostic])

``data`` is what :func:`hotc.parser.yamlload.load_document` produced (PosDict/PosList/scalars); positions in
diagnostics come from those containers (``pos`` is the fallback position of ``data`` itself). ``where``
is the context the snippet sits in (see :data:`WHERES`); it decides which functions are allowed.

Map keys are strings, as in Heat once it has stored the template: Heat keeps a stack's template as JSON, so
a YAML key that is not a string (``map_replace: [..., {values: {2: two}}]``, ``{true: x}``, ``{~: y}``) is
the JSON key ``"2"``, ``"true"``, ``"null"`` by the time anything is evaluated (the differential oracle's
answers: Heat 27 does not replace the integer value 2 there).

As in Heat (heat-hot.md §1.3): a mapping with exactly one key that is a function of the template's version
is a call; any other mapping is plain data (keys are never evaluated). Calls are parsed by the grammar
(:mod:`hotc.parser.grammar`); literal data around them is built directly.

Errors never raise: each is a diagnostic with the position of the offending node, and the faulty call
becomes ``Literal(None)`` (a removed/invalid function keeps its node: it fails when evaluated).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hotc.errors import Diagnostic, Pos, error, warning
from hotc.parser import functions as F
from hotc.parser import versions as V
from hotc.parser.grammar import (
    START_CALL,
    START_CONDITION,
    START_CONDITION_REF,
    Leaf,
    ParseResult,
    describe_found,
    grammar,
)
from hotc.parser.ir import NO_REFS, Expr, ListExpr, Literal, MapExpr, Ref, Refs, TemplateVersion
from hotc.parser.references import collect
from hotc.parser.spelling import spelling_warning
from hotc.parser.versions import PSEUDO_PARAMETERS
from hotc.parser.yamlload import PosDict, PosList, load_yaml_text
from hotc.parser.yaqlsupport import yaql_syntax_error

if TYPE_CHECKING:  # lark is imported only when an expression needs the parser (start-up time)
    from lark import Tree

# A parse tree's children are lark Trees (rules) and Tokens (leaf indices); a Token is a str, a Tree is not, so
# the builder tells them apart without importing lark.

#: Contexts a snippet can be parsed in:
#:
#: - ``properties``, ``metadata``, ``update_policy``, ``deletion_policy``, ``external_id``, ``outputs``,
#:   ``value``: every function of the version (resource fields, output values);
#: - ``conditions``: one definition in the ``conditions:`` section: a boolean or a condition function
#:   (get_param, equals, not, and, or; yaql and contains from 2017-09-01); any other function is an error
#:   ("invalid in this context"); a bare string at the top level is an error; inside not/and/or a string is
#:   the name of another condition;
#: - ``condition_ref``: a resource's or output's ``condition:``: a condition name (string), a boolean or an
#:   inline condition expression;
#: - ``literal``: no functions at all (every mapping is data), e.g. parameter defaults.
WHERES: frozenset[str] = frozenset(
    {
        "properties",
        "metadata",
        "update_policy",
        "deletion_policy",
        "external_id",
        "outputs",
        "value",
        "conditions",
        "condition_ref",
        "literal",
    }
)

_CONDITION_WHERES = {"conditions": START_CONDITION, "condition_ref": START_CONDITION_REF}
#: the contexts that allow every function of the version (built by :func:`_build` alone)
_EVERY_FUNCTION = WHERES - {"literal", *_CONDITION_WHERES}


def parse_expr(
    data: Any,
    version: TemplateVersion,
    *,
    where: str,
    pos: Pos | None = None,
    file: str = "",
) -> tuple[Expr, list[Diagnostic]]:
    """Build the expression for ``data`` in context ``where`` (see :data:`WHERES`)."""
    return _parse(data, version, where, pos, file, _Sink())


def parse_expr_refs(
    data: Any,
    version: TemplateVersion,
    *,
    where: str,
    pos: Pos | None = None,
    file: str = "",
) -> tuple[Expr, list[Diagnostic], Refs]:
    """:func:`parse_expr`, and what the expression refers to: the answer of
    :func:`hotc.parser.references.collect` for it, collected while it is built (no second walk) where the
    context allows every function of the version (tests/frontend/test_references_once.py holds them equal)."""
    sink = _Sink()
    if pos is not None and where in _EVERY_FUNCTION:  # what _parse does for these contexts, one call fewer
        sink.built = True
        diags: list[Diagnostic] = []
        return _build(data, pos, version, grammar().normal_table(version), diags, sink), diags, sink.refs()
    expr, diags = _parse(data, version, where, pos, file, sink)
    if sink.built:
        return expr, diags, sink.refs()
    return expr, diags, collect(expr)


class _Sink:
    """What an expression being built refers to, in source order (see :func:`hotc.parser.references.collect`):
    references, whether a get_attr is inside, whether a context could change the answer. ``built``: the
    expression was built by :func:`_build` (the sink then holds its references)."""

    __slots__ = ("items", "get_attr", "contextual", "built")

    def __init__(self) -> None:
        self.items: list[Ref] = []
        self.get_attr = False
        self.contextual = False
        self.built = False

    def add(self, e: Expr) -> None:
        """The references of ``e``, a call built by the grammar."""
        r = collect(e)
        if r is not NO_REFS:
            self.items += r.items
            self.get_attr = self.get_attr or r.get_attr
            self.contextual = self.contextual or r.contextual

    def refs(self) -> Refs:
        if not self.items and not self.get_attr and not self.contextual:
            return NO_REFS
        return Refs(tuple(self.items), self.get_attr, self.contextual)


def _parse(
    data: Any, version: TemplateVersion, where: str, pos: Pos | None, file: str, sink: _Sink
) -> tuple[Expr, list[Diagnostic]]:
    if where not in WHERES:
        raise ValueError(f"parse_expr: unknown context {where!r}; use one of {sorted(WHERES)}")
    if pos is None:
        pos = getattr(data, "pos", None) or (Pos(file, 1, 1) if file else None)
    diags: list[Diagnostic] = []
    if where == "literal":
        return _literal(data, pos), diags
    start = _CONDITION_WHERES.get(where)
    if start is not None:
        if where == "condition_ref" and isinstance(data, str):
            return F.ConditionName("condition", pos, data), diags
        if isinstance(data, bool):
            return Literal(data, pos), diags
        if not V.has_conditions(version):
            diags.append(
                error(
                    f"conditions need heat_template_version 2016-10-14 or later (this is {version.written})",
                    pos,
                )
            )
            return Literal(None, pos), diags
        if where == "conditions" and not isinstance(data, dict):
            diags.append(
                error(
                    f"a condition must be a boolean or a condition function (equals, not, and, or, get_param…), "
                    f"not {_kind(data)}",
                    pos,
                    code="condition",
                )
            )
            return Literal(None, pos), diags
        return _parse_call(data, pos, version, start, diags), diags
    table = grammar().normal_table(version)
    sink.built = True
    return _build(data, pos, version, table, diags, sink), diags


def parse_expr_text(
    text: str, version: TemplateVersion, *, where: str = "outputs", file: str = "<expr>"
) -> tuple[Expr | None, list[Diagnostic]]:
    """Parse the text form of an expression (YAML flow style, e.g. ``{get_attr: [web, first_address]}``)."""
    data, diags = load_yaml_text(text, file)
    if diags and data is None:
        return None, diags
    expr, more = parse_expr(data, version, where=where, pos=Pos(file, 1, 1), file=file)
    return expr, diags + more


# ------------------------------------------------------------------------------------- literal data


def _kind(data: Any) -> str:
    if isinstance(data, dict):
        return "a map"
    if isinstance(data, list):
        return "a list"
    if isinstance(data, str):
        return f'the string "{data}"'
    if data is None:
        return "null"
    return f"{type(data).__name__} {data!r}"


def json_key(key: Any) -> Any:
    """A map key as Heat has it after its JSON round trip of the template (see the module's docstring)."""
    if type(key) is str:
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        if key != key:
            return "NaN"
        return "Infinity" if key == float("inf") else "-Infinity" if key == float("-inf") else repr(key)
    return str(key)


def _literal(data: Any, pos: Pos | None) -> Expr:
    if isinstance(data, dict):
        vp = getattr(data, "value_pos", None) or {}
        kp = getattr(data, "key_pos", None) or {}
        mpos = getattr(data, "pos", None) or pos
        return MapExpr(
            tuple((json_key(k), _literal(v, vp.get(k, mpos))) for k, v in data.items()),
            mpos,
            tuple(kp.get(k, mpos) for k in data),
        )
    if isinstance(data, list):
        ip = getattr(data, "item_pos", None) or ()
        lpos = getattr(data, "pos", None) or pos
        return ListExpr(tuple(_literal(v, ip[i] if i < len(ip) else lpos) for i, v in enumerate(data)), lpos)
    return Literal(data, pos)


# Frozen slots dataclasses built through their slot descriptors: about 2.5x cheaper than their __init__ (which
# goes through object.__setattr__ per field), and literal data builds one node per scalar and container.
_new = object.__new__
_set_lit_value: Any = vars(Literal)["value"].__set__
_set_lit_pos: Any = vars(Literal)["pos"].__set__
_set_list_items: Any = vars(ListExpr)["items"].__set__
_set_list_pos: Any = vars(ListExpr)["pos"].__set__
_set_map_items: Any = vars(MapExpr)["items"].__set__
_set_map_pos: Any = vars(MapExpr)["pos"].__set__
_set_map_key_pos: Any = vars(MapExpr)["key_pos"].__set__


def _lit(value: Any, pos: Pos | None) -> Literal:
    e = _new(Literal)
    _set_lit_value(e, value)
    _set_lit_pos(e, pos)
    return e


def _slot_setter(cls: type, name: str) -> Any:
    """The setter of slot ``name`` of ``cls`` (declared by it or a base class)."""
    return next(vars(c)[name] for c in cls.__mro__ if name in vars(c)).__set__


_gp_name: Any = _slot_setter(F.GetParam, "name")
_gp_pos: Any = _slot_setter(F.GetParam, "pos")
_gp_param: Any = _slot_setter(F.GetParam, "param")
_gp_path: Any = _slot_setter(F.GetParam, "path")
_gp_whole: Any = _slot_setter(F.GetParam, "whole")
_gr_name: Any = _slot_setter(F.GetResource, "name")
_gr_pos: Any = _slot_setter(F.GetResource, "pos")
_gr_resource: Any = _slot_setter(F.GetResource, "resource")


def _get_param(name: str, pos: Pos | None, arg: Expr) -> Expr:
    e = _new(F.GetParam)
    _gp_name(e, name)
    _gp_pos(e, pos)
    _gp_param(e, arg)
    _gp_path(e, ())
    _gp_whole(e, False)
    return e


def _get_resource(name: str, pos: Pos | None, arg: Expr) -> Expr:
    e = _new(F.GetResource)
    _gr_name(e, name)
    _gr_pos(e, pos)
    _gr_resource(e, arg)
    return e


_ga_name: Any = _slot_setter(F.GetAttr, "name")
_ga_pos: Any = _slot_setter(F.GetAttr, "pos")
_ga_resource: Any = _slot_setter(F.GetAttr, "resource")
_ga_attribute: Any = _slot_setter(F.GetAttr, "attribute")
_ga_path: Any = _slot_setter(F.GetAttr, "path")
_ga_style: Any = _slot_setter(F.GetAttr, "style")

_ITEM_CODE = {str: "s", int: "i", float: "f", bool: "b", type(None): "n"}  # grammar._walk's scalar codes
_GET_ATTR_STYLE = {"FN_GET_ATTR_SELECT": "select", "FN_GET_ATTR_PATH": "path", "FN_GET_ATTR_ALL": "all"}


def _get_attr_of_scalars(
    name: str, items: PosList, pos: Pos | None, version: TemplateVersion, term: str
) -> Expr | None:
    """``{get_attr: [RES, ATTR, path…]}`` with only scalars in the list, built directly: exactly what the
    grammar path builds (``_Builder.b_get_attr``: one Literal per item), once the grammar has parsed this
    token shape and its tree is the call's head, the list opener and one token per item (then the shape is
    valid; tests/frontend/test_expr_fast.py holds both paths equal). None: take the grammar path."""
    ips = items.item_pos
    n = len(items)
    if n == 0 or len(ips) != n:
        return None
    codes = ["c:" + name, "k", "["]
    add = codes.append
    for item in items:
        code = _ITEM_CODE.get(type(item))
        if code is None:
            return None
        add(code)
    codes += ("]", "}")
    tree = grammar().parsed_shape(version, START_CALL, tuple(codes))
    if tree is None:
        return None  # not parsed yet (the grammar path parses it and caches the shape), or invalid
    call = tree.children[0]
    kids = call.children
    # the leaves: 0 the call, 1 its key, 2 the list, 3.. the items (grammar._walk's order)
    if _DISPATCH.get(call.data) is not _Builder.b_get_attr or len(kids) != n + 2:
        return None
    for i, kid in enumerate(kids):
        if not isinstance(kid, str) or getattr(kid, "value", None) != (i + 1 if i > 1 else 2 * i):
            return None
    lits = [_lit(item, ips[i]) for i, item in enumerate(items)]
    e = _new(F.GetAttr)
    _ga_name(e, name)
    _ga_pos(e, pos)
    _ga_resource(e, lits[0])
    _ga_attribute(e, lits[1] if n > 1 else None)
    _ga_path(e, tuple(lits[2:]))
    _ga_style(e, _GET_ATTR_STYLE[term])
    return e


#: ``{NAME: "string"}`` calls whose node is fixed by the grammar's terminal alone (no check of the value):
#: built directly, exactly as the grammar path builds them (tests/frontend/test_expr_fast.py holds them equal).
_SCALAR_CALLS: dict[str, Any] = {"FN_GET_PARAM": _get_param, "FN_GET_RESOURCE": _get_resource}

_LIST_JOIN_TERMS = frozenset({"FN_LIST_JOIN_ONE", "FN_LIST_JOIN"})


def _list_join_of_simple_lists(
    name: str,
    args: PosList,
    pos: Pos | None,
    version: TemplateVersion,
    term: str,
    table: dict[str, str],
    sink: _Sink,
) -> Expr | None:
    """``{list_join: [DELIMITER, [ITEM…]…]}`` whose delimiter is a string and whose lists hold only scalars and
    ``{get_param|get_resource: NAME}`` calls, built directly: exactly what the grammar path builds
    (``_Builder.b_list_join``: the delimiter's Literal, one ListExpr per list, each item as :func:`_build`
    makes it), once the grammar has parsed this token shape and its tree is a ``list_join`` (then the shape
    is valid; tests/frontend/test_expr_fast.py holds both paths equal). None: take the grammar path."""
    n = len(args)
    if n < 2 or len(args.item_pos) != n or type(args[0]) is not str:
        return None
    codes = ["c:" + name, "k", "[", "s"]
    add = codes.append
    for lst in args[1:]:
        if type(lst) is not PosList or len(lst.item_pos) != len(lst):
            return None
        add("[")
        for item in lst:
            code = _ITEM_CODE.get(type(item))
            if code is not None:
                add(code)
                continue
            if type(item) is not PosDict or len(item) != 1:
                return None
            ((k, v),) = item.items()
            if type(k) is not str or type(v) is not str or table.get(k) not in _SCALAR_CALLS:
                return None
            codes += ("c:" + k, "k", "s", "}")
        add("]")
    codes += ("]", "}")
    tree = grammar().parsed_shape(version, START_CALL, tuple(codes))
    if tree is None or _DISPATCH.get(tree.children[0].data) is not _Builder.b_list_join:
        return None  # not parsed yet (the grammar path parses it and caches the shape), or invalid
    ips = args.item_pos
    no_diags: list[Diagnostic] = []  # a valid shape of scalars and scalar calls: nothing to report
    lists = tuple([_build(args[i], ips[i], version, table, no_diags, sink) for i in range(1, n)])
    e = _new(F.ListJoin)  # = F.ListJoin(name, pos, delimiter, lists, multiple=...), through its slots
    _lj_name(e, name)
    _lj_pos(e, pos)
    _lj_delimiter(e, _lit(args[0], ips[0]))
    _lj_lists(e, lists)
    _lj_multiple(e, term == "FN_LIST_JOIN")
    return e


_lj_name: Any = _slot_setter(F.ListJoin, "name")
_lj_pos: Any = _slot_setter(F.ListJoin, "pos")
_lj_delimiter: Any = _slot_setter(F.ListJoin, "delimiter")
_lj_lists: Any = _slot_setter(F.ListJoin, "lists")
_lj_multiple: Any = _slot_setter(F.ListJoin, "multiple")


_SCALARS = frozenset({str, int, bool, float, type(None)})


def _build(
    data: Any,
    pos: Pos | None,
    version: TemplateVersion,
    table: dict[str, str],
    diags: list[Diagnostic],
    sink: _Sink,
) -> Expr:
    """Literal data is built here; single-key maps naming a function go through the grammar. What the
    expression refers to goes to ``sink``, in source order."""
    t = type(data)
    if t is PosDict:
        mpos = data.pos or pos
        vp = data.value_pos
        kp = data.key_pos
    elif t in _SCALARS:
        return _lit(data, pos)
    elif isinstance(data, dict):
        mpos = getattr(data, "pos", None) or pos
        vp = getattr(data, "value_pos", None) or {}
        kp = getattr(data, "key_pos", None) or {}
    elif t is PosList or isinstance(data, list):
        ip = getattr(data, "item_pos", None) or ()
        lpos = getattr(data, "pos", None) or pos
        n = len(ip)
        items: list[Expr] = []
        add = items.append
        for i, v in enumerate(data):
            ipos = ip[i] if i < n else lpos
            if type(v) in _SCALARS:
                lit = _new(Literal)
                _set_lit_value(lit, v)
                _set_lit_pos(lit, ipos)
                add(lit)
            else:
                add(_build(v, ipos, version, table, diags, sink))
        e = _new(ListExpr)
        _set_list_items(e, tuple(items))
        _set_list_pos(e, lpos)
        return e
    else:
        return _lit(data, pos)
    if len(data) == 1:
        k = next(iter(data))
        term = table.get(k) if type(k) is str else None
        if term is not None:
            v = data[k]
            if type(v) is str:  # the commonest call: {get_param: name}
                if term == "FN_GET_RESOURCE" or term == "FN_GET_PARAM":
                    # built here as _get_resource/_get_param build them (one call fewer per node)
                    arg = _new(Literal)
                    _set_lit_value(arg, v)
                    _set_lit_pos(arg, vp.get(k, mpos))
                    node: Any = _new(F.GetResource if term == "FN_GET_RESOURCE" else F.GetParam)
                    if term == "FN_GET_RESOURCE":
                        sink.items.append(("resource", v, mpos))
                        _gr_name(node, k)
                        _gr_pos(node, mpos)
                        _gr_resource(node, arg)
                        return node  # type: ignore[no-any-return]
                    if v not in PSEUDO_PARAMETERS:
                        sink.items.append(("param", v, mpos))
                    _gp_name(node, k)
                    _gp_pos(node, mpos)
                    _gp_param(node, arg)
                    _gp_path(node, ())
                    _gp_whole(node, False)
                    return node  # type: ignore[no-any-return]
                result = grammar().parse_scalar_call(
                    data, k, v, mpos, kp.get(k, mpos), vp.get(k, mpos), version, START_CALL
                )
                call = _build_call(result, version, mpos, diags)
                sink.add(call)
                return call
            if type(v) is PosList:
                if term in _GET_ATTR_STYLE:
                    direct = _get_attr_of_scalars(k, v, mpos, version, term)
                    if direct is not None:
                        sink.get_attr = True
                        if type(v[0]) is str:  # the resource, written literally; the rest are Literals
                            sink.items.append(("resource", v[0], mpos))
                        else:
                            sink.contextual = True
                        return direct
                elif term in _LIST_JOIN_TERMS:
                    direct = _list_join_of_simple_lists(k, v, mpos, version, term, table, sink)
                    if direct is not None:
                        return direct  # its references went to the sink as its lists were built
            call = _parse_call(data, mpos, version, START_CALL, diags)
            sink.add(call)
            return call
        if k in grammar().functions:  # a function name of another version: maybe a warning
            _version_warning(k, version, mpos, diags)
        else:  # a misspelt function name (list_joinn): data, as in Heat, with a warning
            spelling_warning(k, version, mpos, diags)
    pairs: list[tuple[Any, Expr]] = []
    kps: list[Pos | None] = []
    add_pair = pairs.append
    add_kp = kps.append
    for k, v in data.items():
        vpos = vp.get(k, mpos)
        kpos = kp.get(k, mpos)
        if type(k) is not str:
            k = json_key(k)
        if type(v) in _SCALARS:
            lit = _new(Literal)
            _set_lit_value(lit, v)
            _set_lit_pos(lit, vpos)
            add_pair((k, lit))
        else:
            add_pair((k, _build(v, vpos, version, table, diags, sink)))
        add_kp(kpos)
    m = _new(MapExpr)
    _set_map_items(m, tuple(pairs))
    _set_map_pos(m, mpos)
    _set_map_key_pos(m, tuple(kps))
    return m


# -------------------------------------------------------------------------------------------- calls


def _parse_call(
    data: Any, pos: Pos | None, version: TemplateVersion, start: str, diags: list[Diagnostic]
) -> Expr:
    return _build_call(grammar().parse(data, pos, version, start), version, pos, diags)


def _build_call(
    result: ParseResult, version: TemplateVersion, pos: Pos | None, diags: list[Diagnostic]
) -> Expr:
    if result.error is not None:
        diags.append(_syntax_diagnostic(result, version, pos))
        return Literal(None, pos)
    builder = _Builder(result.leaves, version, diags)
    return builder.build(result.tree.children[0])


def _syntax_diagnostic(result: ParseResult, version: TemplateVersion, pos: Pos | None) -> Diagnostic:
    failure = result.error
    assert failure is not None
    leaves = result.leaves
    g = grammar()
    where = leaves[failure.leaf][1] if 0 <= failure.leaf < len(leaves) else pos
    found = describe_found(failure, leaves)
    if failure.enclosing < 0:
        # the top of a condition: a call that is not a condition function, a literal ...
        return error(
            f"invalid condition: found {found}; expected a condition name, a boolean or a condition "
            "function (equals, not, and, or, get_param…)",
            where,
            code="condition",
        )
    fn = leaves[failure.enclosing][0]
    spec = g.functions.get(fn)
    usage = spec.usage if spec else fn
    exp = failure.expected
    if failure.found == "_LE":
        detail = "too few arguments"
    elif "_LE" in exp and not any(t in exp for t in ("STRING", "LS", "MS", "INT")):
        detail = f"too many arguments (unexpected {found})"
    elif failure.found in ("KEY",) or failure.found.startswith("K_"):
        detail = (
            f"unknown key {found[8:]}" if found.startswith("the key ") else f"{found} is not allowed there"
        )
    elif failure.found.startswith("FN_") or failure.found.startswith("CFN_"):
        detail = f"{found} is not allowed there"
    else:
        detail = f"{found} is not allowed there"
    return error(f'invalid arguments to "{fn}": {detail}; usage: {usage}', where, code="function-args")


_KW_BY_FN = {
    "FN_STR_REPLACE": "plain",
    "FN_STR_REPLACE_JSON": "json",
    "FN_STR_REPLACE_STRICT": "strict",
    "FN_STR_REPLACE_VSTRICT": "vstrict",
}
_ATTR_STYLE = {"FN_GET_ATTR_SELECT": "select", "FN_GET_ATTR_PATH": "path", "FN_GET_ATTR_ALL": "all"}
_REPEAT_STYLE = {"FN_REPEAT": "list", "FN_REPEAT_MAP": "map", "FN_REPEAT_NESTED": "nested"}
_OPENERS = frozenset({"LS", "MS"})


def _token_type(node: Any) -> str | None:
    """The terminal of a parse-tree Token; None for a Tree."""
    return getattr(node, "type", None) if isinstance(node, str) else None


class _Builder:
    """Parse tree + leaves -> IR nodes."""

    def __init__(self, leaves: list[Leaf], version: TemplateVersion, diags: list[Diagnostic]) -> None:
        self.leaves = leaves
        self.version = version
        self.diags = diags

    # ---------------------------------------------------------------------------------------- helpers

    def leaf(self, tok: Any) -> Leaf:
        leaf: Leaf = self.leaves[tok.value]
        return leaf

    def build(self, node: Any) -> Expr:
        if isinstance(node, str):  # a Token: its value is the index of its leaf
            value, pos = self.leaves[getattr(node, "value")]  # noqa: B009
            return Literal(value, pos)
        method = _DISPATCH.get(node.data)
        if method is None:  # pragma: no cover - grammar and builder out of step
            raise AssertionError(f"no builder for grammar rule {node.data}")
        result: Expr = method(self, node)
        return result

    def call_head(self, tree: Tree[Any]) -> tuple[str, Pos | None, str, list[Any]]:
        """(name, pos, terminal, argument children without the list/map openers)."""
        head: Any = tree.children[0]
        name, pos = self.leaf(head)
        rest = [c for c in tree.children[1:] if _token_type(c) not in _OPENERS]
        return str(name), pos, head.type, rest

    def items(
        self, children: list[Any], fn: str, pos: Pos | None, required: tuple[str, ...]
    ) -> dict[str, Any]:
        """Keyword items (``kw`` subtrees) of a map-form argument; checks the required keys."""
        out: dict[str, Any] = {}
        for c in children:
            if not isinstance(c, str) and c.data == "kw":
                key, value = c.children
                out[str(self.leaf(key)[0])] = value
        missing = [k for k in required if k not in out]
        if missing:
            spec = grammar().functions[fn]
            self.diags.append(
                error(
                    f'"{fn}" is missing {", ".join(repr(m) for m in missing)}; usage: {spec.usage}',
                    pos,
                    code="function-args",
                )
            )
        return out

    # ------------------------------------------------------------------------------------ containers

    def b_list(self, tree: Tree[Any]) -> Expr:
        opener = tree.children[0]
        _, pos = self.leaf(opener)
        return ListExpr(tuple(self.build(c) for c in tree.children[1:]), pos)

    def b_map(self, tree: Tree[Any]) -> Expr:
        opener = tree.children[0]
        _, pos = self.leaf(opener)
        items = []
        kps = []
        for pair in tree.children[1:]:
            key_tok, value = pair.children
            key, kpos = self.leaf(key_tok)
            items.append((json_key(key), self.build(value)))
            kps.append(kpos)
        if len(items) == 1:
            _version_warning(items[0][0], self.version, pos, self.diags)
        return MapExpr(tuple(items), pos, tuple(kps))

    def b_param_path(self, tree: Tree[Any]) -> Expr:
        return self.b_list(tree)

    def b_replace_spec(self, tree: Tree[Any]) -> Expr:
        opener = tree.children[0]
        _, pos = self.leaf(opener)
        items = []
        kps = []
        for kw in tree.children[1:]:
            key_tok, value = kw.children
            key, kpos = self.leaf(key_tok)
            items.append((json_key(key), self.build(value)))
            kps.append(kpos)
        return MapExpr(tuple(items), pos, tuple(kps))

    # ------------------------------------------------------------------------------------- functions

    def b_get_param(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        (arg,) = args
        if not isinstance(arg, str) and arg.data == "param_path":
            parts = [self.build(c) for c in arg.children[1:]]
            return F.GetParam(name, pos, parts[0], tuple(parts[1:]))
        if isinstance(arg, str):  # a Token
            return F.GetParam(name, pos, self.build(arg))
        return F.GetParam(name, pos, self.build(arg), (), whole=True)

    def b_get_resource(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        return F.GetResource(name, pos, self.build(arg))

    def b_get_attr(self, tree: Tree[Any]) -> Expr:
        name, pos, term, args = self.call_head(tree)
        built = [self.build(a) for a in args]
        attribute = built[1] if len(built) > 1 else None
        return F.GetAttr(name, pos, built[0], attribute, tuple(built[2:]), _ATTR_STYLE[term])

    def b_get_file(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        return F.GetFile(name, pos, self.build(arg))

    def b_list_join(self, tree: Tree[Any]) -> Expr:
        name, pos, term, args = self.call_head(tree)
        built = [self.build(a) for a in args]
        return F.ListJoin(name, pos, built[0], tuple(built[1:]), multiple=term == "FN_LIST_JOIN")

    def b_str_replace(self, tree: Tree[Any]) -> Expr:
        name, pos, term, args = self.call_head(tree)
        spec = grammar().functions[name]
        items = self.items(args, name, pos, spec.required)
        if "template" not in items or "params" not in items:
            return Literal(None, pos)
        return F.StrReplace(
            name, pos, self.build(items["template"]), self.build(items["params"]), _KW_BY_FN[term]
        )

    def b_cfn_replace(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (mapping, string) = self.call_head(tree)
        return F.StrReplace(name, pos, self.build(string), self.build(mapping), "plain")

    def b_resource_facade(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        value, vpos = self.leaf(arg)
        allowed = grammar().functions[name].values
        if value not in allowed:
            self.diags.append(
                error(
                    f'invalid argument to "{name}": "{value}"; it must be one of: {", ".join(allowed)}',
                    vpos,
                    code="function-args",
                )
            )
            return Literal(None, pos)
        return F.ResourceFacade(name, pos, str(value))

    def b_repeat(self, tree: Tree[Any]) -> Expr:
        name, pos, term, args = self.call_head(tree)
        items = self.items(args, name, pos, grammar().functions[name].required)
        if "template" not in items or "for_each" not in items:
            return Literal(None, pos)
        perm = items.get("permutations")
        permutations = True if perm is None else bool(self.leaf(perm)[0])
        return F.Repeat(
            name,
            pos,
            self.build(items["template"]),
            self.build(items["for_each"]),
            permutations,
            _REPEAT_STYLE[term],
        )

    def _whole_args(self, tree: Tree[Any]) -> tuple[str, Pos | None, str, Expr]:
        """For functions whose whole argument Heat resolves first: a list (built as ListExpr) or a call."""
        head: Any = tree.children[0]
        name, pos = self.leaf(head)
        rest: list[Any] = tree.children[1:]
        if rest and _token_type(rest[0]) == "LS":
            _, lpos = self.leaf(rest[0])
            return str(name), pos, head.type, ListExpr(tuple(self.build(c) for c in rest[1:]), lpos)
        return str(name), pos, head.type, self.build(rest[0])

    def b_digest(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self._whole_args(tree)
        return F.Digest(name, pos, args)

    def b_str_split(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self._whole_args(tree)
        return F.StrSplit(name, pos, args)

    def b_map_merge(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self._whole_args(tree)
        return F.MapMerge(name, pos, args)

    def b_map_replace(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self._whole_args(tree)
        return F.MapReplace(name, pos, args)

    def b_list_concat(self, tree: Tree[Any]) -> Expr:
        name, pos, term, args = self._whole_args(tree)
        return F.ListConcat(name, pos, args, unique=term == "FN_LIST_CONCAT_UNIQUE")

    def b_yaql(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        items = self.items(args, name, pos, grammar().functions[name].required)
        if "expression" not in items:
            return Literal(None, pos)
        expression = self.build(items["expression"])
        if isinstance(expression, Literal):
            problem = yaql_syntax_error(expression.value)
            if problem is not None:
                self.diags.append(error(f'"{name}": bad expression: {problem}', expression.pos, code="yaql"))
        data = self.build(items["data"]) if "data" in items else MapExpr((), pos)
        return F.Yaql(name, pos, expression, data)

    def b_if(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        built = [self.build(a) for a in args]
        return F.If(name, pos, built[0], built[1], built[2] if len(built) > 2 else None)

    def b_filter(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (values, seq) = self.call_head(tree)
        return F.Filter(name, pos, self.build(values), self.build(seq))

    def b_make_url(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        parts = []
        for c in args:
            key_tok, value = c.children
            key = str(self.leaf(key_tok)[0])
            built = self.build(value)
            if key == "port" and isinstance(built, Literal):
                try:
                    port = int(built.value)
                except (TypeError, ValueError):
                    self.diags.append(
                        error(
                            f'invalid URL port "{built.value}" for "{name}"', built.pos, code="function-args"
                        )
                    )
                    return Literal(None, pos)
                if not 0 < port <= 65535:
                    self.diags.append(
                        error(
                            f"invalid URL port {port}: it must be in the range 1-65535",
                            built.pos,
                            code="function-args",
                        )
                    )
                    return Literal(None, pos)
            parts.append((key, built))
        return F.MakeURL(name, pos, tuple(parts))

    def b_contains(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (value, seq) = self.call_head(tree)
        return F.Contains(name, pos, self.build(value), self.build(seq))

    def b_equals(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (a, b) = self.call_head(tree)
        return F.Equals(name, pos, self.build(a), self.build(b))

    def b_not(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (cond,) = self.call_head(tree)
        return F.Not(name, pos, self.build(cond))

    def b_and(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        return F.And(name, pos, tuple(self.build(a) for a in args))

    def b_or(self, tree: Tree[Any]) -> Expr:
        name, pos, _, args = self.call_head(tree)
        return F.Or(name, pos, tuple(self.build(a) for a in args))

    def b_condition_name(self, tree: Tree[Any]) -> Expr:
        value, pos = self.leaf(tree.children[0])
        return F.ConditionName("condition", pos, str(value))

    def b_select(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (index, coll) = self.call_head(tree)
        return F.Select(name, pos, self.build(index), self.build(coll))

    def b_cfn_split(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (delim, string) = self.call_head(tree)
        return F.CfnSplit(name, pos, str(self.leaf(delim)[0]), self.build(string))

    def b_cfn_base64(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        return F.Base64(name, pos, self.build(arg))

    def b_cfn_member_list_to_map(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (k, v, members) = self.call_head(tree)
        return F.MemberListToMap(name, pos, str(self.leaf(k)[0]), str(self.leaf(v)[0]), self.build(members))

    def b_cfn_get_azs(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        return F.GetAZs(name, pos, self.build(arg))

    def b_cfn_ref(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        return F.Ref(name, pos, self.build(arg))

    def b_removed(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        self.diags.append(error(removed_message(name, self.version), pos, code="removed-function"))
        return F.Removed(name, pos, self.build(arg))

    def b_invalid(self, tree: Tree[Any]) -> Expr:
        name, pos, _, (arg,) = self.call_head(tree)
        self.diags.append(error(invalid_message(name, self.version), pos, code="invalid-function"))
        return F.Invalid(name, pos, self.build(arg))


_DISPATCH: dict[str, Any] = {
    name[2:]: fn for name, fn in vars(_Builder).items() if name.startswith("b_") and callable(fn)
}


def _version_warning(key: Any, version: TemplateVersion, pos: Pos | None, diags: list[Diagnostic]) -> None:
    """A single-key map naming a function this version does not have is data (as in Heat): warn."""
    if not isinstance(key, str):
        return
    g = grammar()
    spec = g.functions.get(key)
    if spec is None or key in g.normal_table(version) or key in g.condition_table(version):
        return
    since = spec.introduced()
    if since is None:
        return
    if spec.versions and spec.versions[0][0] == since:
        detail = f"it was introduced in heat_template_version {since}"
    else:
        detail = f"it is only a condition function (from {since}), usable in conditions and `if`"
    if not V.at_least(version, since) or not spec.versions:
        diags.append(
            warning(
                f'"{key}" is not a function in heat_template_version {version.written} ({detail}); this '
                "mapping is kept as plain data, as Heat does",
                pos,
                code="function-version",
            )
        )


def removed_message(name: str, version: TemplateVersion) -> str:
    spec = grammar().functions.get(name)
    last = None
    if spec is not None:
        for nxt in spec.versions[1:]:
            if nxt[1] == "FN_REMOVED":
                last = V.VERSIONS[V.index(nxt[0]) - 1]
    hint = f" (the last version with it is {last})" if last else ""
    return f'the function "{name}" is not supported in heat_template_version {version.written}{hint}'


def invalid_message(name: str, version: TemplateVersion) -> str:
    cond = sorted(grammar().condition_table(version))
    return (
        f'the function "{name}" is invalid in this context: a condition may only use '
        f"{', '.join(cond)} (and names of other conditions)"
    )
