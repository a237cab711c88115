"""yaql, configured as Heat configures it (``[yaql] limit_iterators = 200``, ``memory_quota = 10000``).

The parser and root context are built once per process (a memo of immutable configuration). yaql's parser
(ply) keeps its lexer's position on one shared object, so two threads parsing at once (an apply evaluates
resources in worker threads) garble each other's expressions ("Parse error: unexpected end of statement", or
a traceback from inside the lexer). Heat shares one parser too, but its green threads never switch inside a
parse; here every parse holds a lock. Evaluating a parsed statement shares nothing and runs unlocked."""

from __future__ import annotations

import functools
import json
import threading
from typing import Any

from hotc.values import json_key

LIMIT_ITERATORS = 200
MEMORY_QUOTA = 10000

_PARSE_LOCK = threading.Lock()


@functools.cache
def _engine() -> tuple[Any, Any]:
    # heavy: yaql only when a template uses yaql
    import yaql

    parser = yaql.YaqlFactory().create(
        {"yaql.limitIterators": LIMIT_ITERATORS, "yaql.memoryQuota": MEMORY_QUOTA}
    )
    return parser, yaql.create_context()


def yaql_syntax_error(expression: Any) -> str | None:
    """Why ``expression`` is not a valid yaql expression (None when it parses)."""
    # heavy: yaql only when a template uses yaql
    from yaql.language import exceptions

    if not isinstance(expression, str):
        return f"the expression must be a string, not {type(expression).__name__}"
    parser, _ = _engine()
    try:
        with _PARSE_LOCK:
            parser(expression)
    except exceptions.YaqlException as exc:
        return str(exc)
    return None


class YaqlFailure(Exception):
    pass


def evaluate_yaql(expression: str, data: Any) -> Any:
    """Evaluate ``expression`` with ``$.data`` bound to ``data``; raises YaqlFailure with the reason."""
    # heavy: yaql only when a template uses yaql
    from yaql.language import exceptions

    parser, context = _engine()
    try:
        with _PARSE_LOCK:
            statement = parser(expression)
    except exceptions.YaqlException as exc:
        raise YaqlFailure(f"bad expression: {exc}") from exc
    try:
        result = statement.evaluate({"data": data}, context.create_child_context())
    except Exception as exc:  # yaql raises many kinds (YaqlException, TypeError, KeyError...)
        raise YaqlFailure(f"{type(exc).__name__}: {exc}") from exc
    return _plain(result)


class YaqlSet(list[Any]):
    """A yaql result that is a set in Heat (``keys()``, ``toSet()``, ``union()``...). It reads and stores as a
    list, but it is no ``collections.abc.Sequence``, so the functions that want one (``list_join``,
    ``list_concat``, ``filter``, ``repeat``, ``contains``) reject it as Heat does. Its items are in a fixed
    order: a set of numbers in Python's set order (as Heat shows it: numbers hash alike in every process),
    any other by the items' JSON text, never in string-hash order: nothing in hotc depends on
    ``PYTHONHASHSEED``."""


def _order_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        # a key that is no string (yaql's dict() can make them) as JSON text writes it, as Heat's values have
        # it once stored or shown (plain JSON data from here on: state, plan and display all hold it)
        return {json_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset | set):
        if all(isinstance(v, int | float) for v in value):
            # numbers hash the same in every process: Python's own set order, which Heat shows
            return YaqlSet(_plain(v) for v in value)
        return YaqlSet(sorted((_plain(v) for v in value), key=_order_key))
    return value
