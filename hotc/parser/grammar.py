"""The HOT expression grammar (``grammar/hot.lark`` + ``grammar/functions.toml``) and its token-stream parser.

The grammar files live in the package (``hotc/grammar/``; the repository's top-level ``grammar/`` points
there), so they load the same from a checkout, an editable install and a wheel.

A call subtree of decoded YAML is parsed like this:

1. :func:`_flatten` walks the subtree once, recording every node as a *leaf* ``(value, pos)`` (maps, keys,
   list starts/ends, scalars) and a compact *shape code* per leaf (kind, scalar type, and the key name where
   it can matter: function names and keyword keys).
2. The shape codes, the version and the start symbol key a cache of parse results. On a miss, lark parses a
   token stream produced by :class:`~hotc.parser.grammar_lexer.NodeLexer`, whose tokens carry leaf indices; the lexer asks the parser
   state which terminals are acceptable to type function names (normal vs condition context) and keyword
   keys. The resulting tree (or the syntax error) is cached: the same shape never goes through lark twice.
3. :mod:`hotc.parser.expr` turns the tree plus the leaves into IR nodes.
"""

from __future__ import annotations

import functools
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

from hotc.errors import Pos
from hotc.model import model
from hotc.parser import versions as V
from hotc.parser.ir import TemplateVersion
from hotc.parser.shapes import ShapeStore
from hotc.parser.yamlload import PosDict, PosList

START_CALL = "start_call"
START_CONDITION = "start_condition"
START_CONDITION_REF = "start_condition_ref"

Leaf = tuple[Any, "Pos | None"]

_SCALAR_CODE = {str: "s", int: "i", float: "f", bool: "b", type(None): "n"}
_SCALAR_TERMINAL = {"s": "STRING", "i": "INT", "f": "FLOAT", "b": "BOOL", "n": "NULL"}

_CACHE_LIMIT = 20000


def _read_text(name: str) -> str:
    # pkgutil, not importlib.resources: the same file through the package's loader, without importing tempfile and
    # random at start-up
    data = pkgutil.get_data("hotc", f"grammar/{name}")
    if data is None:  # a loader that cannot read data files: the package is not installed whole
        raise FileNotFoundError(f"hotc/grammar/{name}")
    return data.decode("utf-8")


@model
class FunctionSpec:
    """One entry of functions.toml."""

    name: str
    versions: tuple[tuple[str, str], ...]
    condition: tuple[tuple[str, str], ...]
    required: tuple[str, ...]
    values: tuple[str, ...]
    usage: str

    def terminal(self, version: TemplateVersion, *, condition: bool = False) -> str | None:
        table = self.condition if condition else self.versions
        found: str | None = None
        for since, term in table:
            if V.at_least(version, since):
                found = term
        return found

    def introduced(self) -> str | None:
        """The first version in which the name is a function (normal or condition context)."""
        firsts = [t[0][0] for t in (self.versions, self.condition) if t]
        return min(firsts, key=V.index) if firsts else None


class Grammar:
    """The loaded grammar: the lark parser, the function table and the parse cache (a pure memo)."""

    def __init__(self) -> None:
        import tomllib  # lazy: only once a template has a function to parse (start-up time)

        self._functions_text = _read_text("functions.toml")
        spec = tomllib.loads(self._functions_text)
        self.functions: dict[str, FunctionSpec] = {
            name: FunctionSpec(
                name=name,
                versions=tuple((a, b) for a, b in entry.get("versions", [])),
                condition=tuple((a, b) for a, b in entry.get("condition", [])),
                required=tuple(entry.get("required", [])),
                values=tuple(entry.get("values", [])),
                usage=entry.get("usage", name),
            )
            for name, entry in spec["functions"].items()
        }
        self._text = _read_text("hot.lark")
        # keyword keys: every K_<NAME> terminal of the grammar, read from its text, so that lark is imported only
        # when a call's shape has to be parsed (tests/frontend/test_grammar.py holds this equal to lark's view)
        self.keywords: dict[str, str] = {t[2:].lower(): t for t in _keyword_terminals(self._text)}
        # per version: name -> normal terminal, name -> condition terminal
        self._tables: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        for date in V.VERSIONS:
            v = TemplateVersion(date, date)
            normal = {n: t for n, f in self.functions.items() if (t := f.terminal(v)) is not None}
            cond = {
                n: t for n, f in self.functions.items() if (t := f.terminal(v, condition=True)) is not None
            }
            self._tables[date] = (normal, cond)
        self._cache: dict[tuple[str, str, tuple[str, ...]], Any] = {}

    @functools.cached_property
    def store(self) -> ShapeStore:
        """The trees of shapes parsed by earlier processes (:mod:`hotc.parser.shapes`), opened on the first
        shape this process has not parsed."""
        return ShapeStore.for_grammar(self._text, self._functions_text)

    @functools.cached_property
    def lark(self) -> Any:
        """The LALR parser, built (from lark's cache of the tables) on the first parse that needs it."""
        return _make_lark(self._text)

    @property
    def terminals(self) -> frozenset[str]:
        """Every terminal the grammar's rules use."""
        return frozenset(sym.name for rule in self.lark.rules for sym in rule.expansion if sym.is_term)

    # ------------------------------------------------------------------------------------------ tables

    def normal_table(self, version: TemplateVersion) -> dict[str, str]:
        """Function name -> terminal for resource/output contexts of this version (incl. removed ones)."""
        return self._tables[version.date][0]

    def condition_table(self, version: TemplateVersion) -> dict[str, str]:
        """Function name -> terminal of the condition functions of this version."""
        return self._tables[version.date][1]

    def all_names(self) -> frozenset[str]:
        return frozenset(self.functions)

    # ------------------------------------------------------------------------------------------- parse

    def parse(self, data: Any, pos: Pos | None, version: TemplateVersion, start: str) -> ParseResult:
        """Parse a decoded subtree from ``start``; never raises on bad input (see ParseResult.error)."""
        leaves: list[Leaf] = []
        codes: list[str] = []
        _flatten(data, pos, leaves, codes, self.functions, self.keywords)
        key = (version.date, start, tuple(codes))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._miss(key, data, pos, version, start)
        if isinstance(cached, SyntaxFailure):
            return ParseResult(None, leaves, cached)
        return ParseResult(cached, leaves, None)

    def parsed_shape(self, version: TemplateVersion, start: str, codes: tuple[str, ...]) -> Any:
        """The parse tree cached for a token shape (the codes :meth:`parse` computes), or None when that
        shape has not been parsed yet or did not parse (a short cut must then take :meth:`parse`)."""
        cached = self._cache.get((version.date, start, codes))
        return None if cached is None or isinstance(cached, SyntaxFailure) else cached

    def parse_scalar_call(
        self,
        data: Any,
        name: str,
        arg: Any,
        pos: Pos | None,
        key_pos: Pos | None,
        arg_pos: Pos | None,
        version: TemplateVersion,
        start: str,
    ) -> ParseResult:
        """:meth:`parse` for the commonest call, ``{NAME: SCALAR}`` (``get_param: x``), without the walk:
        the same leaves and shape codes, built directly."""
        leaves: list[Leaf] = [(name, pos), (name, key_pos), (arg, arg_pos), (None, pos)]
        key = (version.date, start, ("c:" + name, "k", _SCALAR_CODE.get(type(arg), "s"), "}"))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._miss(key, data, pos, version, start)
        if isinstance(cached, SyntaxFailure):
            return ParseResult(None, leaves, cached)
        return ParseResult(cached, leaves, None)

    def _miss(
        self,
        key: tuple[str, str, tuple[str, ...]],
        data: Any,
        pos: Pos | None,
        version: TemplateVersion,
        start: str,
    ) -> Any:
        """A shape this process has not parsed: the stored tree of an earlier process, else lark's parse (a
        valid shape's tree is then stored)."""
        found = self.store.trees().get(key)
        if found is None:
            found = self._parse_uncached(data, pos, version, start)
            if not isinstance(found, SyntaxFailure):
                self.store.add(key, found)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = found
        return found

    def _parse_uncached(self, data: Any, pos: Pos | None, version: TemplateVersion, start: str) -> Any:
        # heavy: lark only when a function's shape is not cached; validate must not load it (test_startup_imports)
        from lark.exceptions import UnexpectedInput, UnexpectedToken
        from lark.lexer import Token

        normal, cond = self._tables[version.date]
        parser = self.lark
        job = _LexJob(data, pos, normal, cond, self.keywords, self.functions)
        try:
            return parser.parse(job, start=start)
        except UnexpectedToken as exc:
            tok = exc.token
            idx = tok.value if isinstance(tok, Token) and isinstance(tok.value, int) else -1
            return SyntaxFailure(
                leaf=idx,
                found=str(tok.type),
                expected=frozenset(exc.expected or ()),
                enclosing=job.enclosing.get(idx, -1),
            )
        except UnexpectedInput:
            return SyntaxFailure(leaf=-1, found="$END", expected=frozenset(), enclosing=-1)


@model
class SyntaxFailure:
    """Where a token stream did not fit the grammar: leaf index of the offending token, its terminal, the
    acceptable terminals, and the leaf index of the innermost call around it (-1: none)."""

    leaf: int
    found: str
    expected: frozenset[str]
    enclosing: int


@model
class ParseResult:
    tree: Any  # lark.Tree | None
    leaves: list[Leaf]
    error: SyntaxFailure | None


def _keyword_terminals(text: str) -> set[str]:
    """The K_<NAME> terminals a lark grammar text names (comments left out)."""
    code = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    return set(re.findall(r"\bK_[A-Z0-9_]+\b", code))


def _make_lark(text: str) -> Any:
    # heavy: lark only when a function's shape is not cached; validate must not load it (test_startup_imports)
    import lark

    # heavy: hotc.parser.grammar_lexer imports lark
    from hotc.parser.grammar_lexer import NodeLexer

    return lark.Lark(
        text,
        parser="lalr",
        lexer=NodeLexer,
        start=[START_CALL, START_CONDITION, START_CONDITION_REF],
        maybe_placeholders=False,
        cache=True,  # lark keeps the LALR tables in a temp file keyed by the grammar's hash
    )


@functools.cache
def grammar() -> Grammar:
    """The grammar, loaded once per process."""
    return Grammar()


# ------------------------------------------------------------------------------------------ flattening


def _flatten(
    node: Any,
    pos: Pos | None,
    leaves: list[Leaf],
    codes: list[str],
    functions: dict[str, FunctionSpec],
    keywords: dict[str, str],
) -> None:
    """Record leaves in the order the lexer emits them (see _LexJob.walk)."""
    _walk(node, pos, leaves.append, codes.append, functions, keywords)


def _walk(
    node: Any,
    pos: Pos | None,
    add_leaf: Any,
    add_code: Any,
    functions: dict[str, FunctionSpec],
    keywords: dict[str, str],
) -> None:
    # A module-level function, not a closure: a recursive closure is a reference cycle (function <-> cell) that
    # kept every flattened subtree's leaves alive until the cyclic collector ran (~170,000 objects for the
    # 10k-resource benchmark template).
    t = type(node)
    if t is str:
        add_leaf((node, pos))
        add_code("s")
    elif isinstance(node, dict):
        if t is PosDict:
            mpos = node.pos or pos  # type: ignore[attr-defined]
            vpos_of = node.value_pos  # type: ignore[attr-defined]
            kpos_of = node.key_pos  # type: ignore[attr-defined]
        else:
            mpos = getattr(node, "pos", None) or pos
            vpos_of = getattr(node, "value_pos", None) or {}
            kpos_of = getattr(node, "key_pos", None) or {}
        if len(node) == 1:
            ((k, v),) = node.items()
            if k in functions and type(k) is str:
                add_leaf((k, mpos))
                add_code("c:" + k)
                add_leaf((k, kpos_of.get(k, mpos)))
                add_code("k")
                _walk(v, vpos_of.get(k, mpos), add_leaf, add_code, functions, keywords)
                add_leaf((None, mpos))
                add_code("}")
                return
        add_leaf((node, mpos))
        add_code("{")
        for k, v in node.items():
            add_leaf((k, kpos_of.get(k, mpos)))
            add_code("k:" + k if type(k) is str and k in keywords else "k")
            if type(v) is str:  # inlined walk() of the commonest leaf
                add_leaf((v, vpos_of.get(k, mpos)))
                add_code("s")
            else:
                _walk(v, vpos_of.get(k, mpos), add_leaf, add_code, functions, keywords)
        add_leaf((None, mpos))
        add_code("}")
    elif isinstance(node, list):
        if t is PosList:
            lpos = node.pos or pos  # type: ignore[attr-defined]
            ipos = node.item_pos  # type: ignore[attr-defined]
        else:
            lpos = getattr(node, "pos", None) or pos
            ipos = getattr(node, "item_pos", None) or ()
        n = len(ipos)
        add_leaf((node, lpos))
        add_code("[")
        for i, v in enumerate(node):
            if type(v) is str:  # inlined walk() of the commonest leaf
                add_leaf((v, ipos[i] if i < n else lpos))
                add_code("s")
            else:
                _walk(v, ipos[i] if i < n else lpos, add_leaf, add_code, functions, keywords)
        add_leaf((None, lpos))
        add_code("]")
    else:
        add_leaf((node, pos))
        add_code(_SCALAR_CODE.get(t, "s"))


# ---------------------------------------------------------------------------------------------- lexing


class _LexJob:
    """What one parse lexes: the data plus the version's function tables."""

    def __init__(
        self,
        data: Any,
        pos: Pos | None,
        normal: dict[str, str],
        cond: dict[str, str],
        keywords: dict[str, str],
        all_names: Any,
    ) -> None:
        self.all_names = all_names
        self.data = data
        self.pos = pos
        self.normal = normal
        self.cond = cond
        self.keywords = keywords
        self.enclosing: dict[int, int] = {}
        self.counter = 0
        self.calls: list[int] = []
        # heavy: lark only when a function's shape is not cached; validate must not load it (test_startup_imports)
        from lark.lexer import Token
        from lark.parsers.lalr_analysis import Shift

        self._token = Token
        self._shift = Shift

    def _next(self) -> int:
        i = self.counter
        self.counter += 1
        return i

    def _tok(self, type_: str, idx: int) -> Any:
        self.enclosing[idx] = self.calls[-1] if self.calls else -1
        return self._token(type_, idx)

    def walk(self, node: Any, parser_state: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            if len(node) == 1:
                ((k, v),) = node.items()
                if isinstance(k, str) and k in self.all_names:
                    map_idx = self._next()
                    key_idx = self._next()
                    term = self._function_terminal(k, _can_shift(parser_state, "FN_INVALID", self._shift))
                    if term is not None:
                        yield self._tok(term, map_idx)
                        self.calls.append(map_idx)
                        yield from self.walk(v, parser_state)
                        self.calls.pop()
                        self._next()  # the end leaf is not emitted for a call
                        return
                    yield self._tok("MS", map_idx)
                    yield self._tok("KEY", key_idx)
                    yield from self.walk(v, parser_state)
                    yield self._tok("_ME", self._next())
                    return
            yield self._tok("MS", self._next())
            for k, v in node.items():
                idx = self._next()
                term = "KEY"
                if isinstance(k, str):
                    kw = self.keywords.get(k)
                    if kw is not None and _can_shift(parser_state, kw, self._shift):
                        term = kw
                yield self._tok(term, idx)
                yield from self.walk(v, parser_state)
            yield self._tok("_ME", self._next())
        elif isinstance(node, list):
            yield self._tok("LS", self._next())
            for v in node:
                yield from self.walk(v, parser_state)
            yield self._tok("_LE", self._next())
        else:
            yield self._tok(_SCALAR_TERMINAL[_SCALAR_CODE.get(type(node), "s")], self._next())

    def _function_terminal(self, name: str, condition_context: bool) -> str | None:
        if condition_context:
            term = self.cond.get(name)
            if term is not None:
                return term
            normal = self.normal.get(name)
            if normal == "FN_REMOVED":
                return normal
            return "FN_INVALID" if normal is not None else None
        return self.normal.get(name)


def _can_shift(parser_state: Any, terminal: str, shift: Any) -> bool:
    """Would the LALR parser in ``parser_state`` shift ``terminal`` (after any reductions)? Exact, unlike
    looking at the current state's lookaheads, which LALR state merging makes too wide."""
    states = parser_state.parse_conf.states
    stack = list(parser_state.state_stack)
    while True:
        action = states[stack[-1]].get(terminal)
        if action is None:
            return False
        kind, arg = action
        if kind is shift:
            return True
        size = len(arg.expansion)
        if size:
            del stack[-size:]
        goto = states[stack[-1]].get(arg.origin.name)
        if goto is None:
            return False
        stack.append(goto[1])


# ------------------------------------------------------------------------------------------ messages

_FOUND = {
    "STRING": "a string",
    "INT": "an integer",
    "FLOAT": "a number",
    "BOOL": "a boolean",
    "NULL": "null",
    "LS": "a list",
    "MS": "a map",
    "_LE": "the end of the list",
    "_ME": "the end of the map",
    "$END": "the end of the input",
}


def describe_found(failure: SyntaxFailure, leaves: list[Leaf]) -> str:
    """What the offending token is, in words."""
    t = failure.found
    value = leaves[failure.leaf][0] if 0 <= failure.leaf < len(leaves) else None
    if t == "KEY" or t.startswith("K_"):
        return f'the key "{value}"'
    if t.startswith("FN_") or t.startswith("CFN_"):
        return f'a call to "{value}"'
    if t == "STRING":
        return f'the string "{value}"'
    if t in ("INT", "FLOAT", "BOOL"):
        return f"{_FOUND[t]} ({value!r})"
    return _FOUND.get(t, t)
