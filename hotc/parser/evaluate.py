"""Pure evaluation of expressions, with Heat's semantics (``heat/engine/hot/functions.py``).

    evaluate(expr, ctx) -> Any
        Plain JSON-like data; values only known after apply are :class:`hotc.values.Unknown` (inside lists
        and maps where possible). A function over an Unknown gives an Unknown merging what it waits on,
        unless its result does not depend on it (``if`` with a known condition evaluates only the taken
        branch; ``and``/``or`` with a known deciding operand; containers keep their known parts).
        A wallaby 2-argument ``if`` whose condition is false removes the enclosing list item / map entry;
        at the top level it gives None (the property is unset).
    evaluate_condition(expr, ctx, *, definition=False) -> bool | Unknown
        A condition: a name (looked up in ``ctx.conditions``), a boolean or a condition function.
        ``definition=True`` for an entry of the ``conditions:`` section (it must give a boolean itself).
        Unknown when it depends on parameter values not known (e.g. validate without values).
    references(expr) -> Iterator[(kind, name, pos)]
        kind: ``resource`` (get_resource, get_attr), ``param`` (get_param; pseudo parameters
        OS::stack_name/OS::stack_id/OS::project_id are not reported), ``condition`` (condition names),
        ``file`` (get_file paths), ``ref`` (2013-05-23 ``Ref``: a resource if one has that name, else a
        parameter). Only names written literally are reported; both branches of ``if`` are walked.
    file_paths(expr) -> list[str]      the literal get_file paths (the loader fills ``ctx.files`` with them)

Parameters that have no value (``hotc validate`` without values) should be given to the context as
``Unknown()``; a get_param of a name absent from ``ctx.parameters`` is an error (undeclared parameter).

Errors found while evaluating raise :class:`EvalError` carrying a positioned diagnostic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import reduce
from itertools import groupby, product
from typing import Any
from urllib import parse as urlparse

from hotc.errors import Diagnostic, Pos, error
from hotc.parser import functions as F
from hotc.parser.ir import EvalContext, Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.parser.limits import MAX_VALUE_SIZE
from hotc.parser.references import collect
from hotc.parser.versions import PSEUDO_PARAMETERS
from hotc.parser.yaqlsupport import YaqlFailure, YaqlSet, evaluate_yaql
from hotc.values import Unknown, WaitsOn, collect_unknowns


class EvalError(Exception):
    """Evaluation failed; ``diagnostic`` says what and where."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


class _Omit:
    """What a false 2-argument wallaby ``if`` gives: the enclosing item disappears."""

    _instance: _Omit | None = None

    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()


def _fail(msg: str, pos: Pos | None) -> EvalError:
    return EvalError(error(msg, pos, code="eval"))


# ------------------------------------------------------------------------------------------ public API


def evaluate(expr: Expr, ctx: EvalContext) -> Any:
    """The value of ``expr`` (see the module docstring)."""
    value = _ev(expr, ctx)
    return None if value is OMIT else value


def evaluate_condition(expr: Expr, ctx: EvalContext, *, definition: bool = False) -> bool | Unknown:
    """The truth of a condition (see the module docstring)."""
    if definition and not isinstance(expr, F.ConditionName):
        value = _arg(expr, ctx)
        if isinstance(value, Unknown):
            return value
        if not isinstance(value, bool):
            raise _fail(f"a condition must evaluate to a boolean, not {_show(value)}", _pos(expr))
        return value
    return _cond(expr, ctx)


def references(expr: Expr, ctx: EvalContext | None = None) -> Iterator[tuple[str, str, Pos | None]]:
    """What ``expr`` refers to (see the module docstring), in source order.

    With ``ctx``, an ``if`` whose condition can be decided from ``ctx`` (its conditions and parameters)
    contributes only its taken branch (plus the condition's own references), as Heat parses only that
    branch: a ``get_attr`` of a resource that is absent because of the same condition is then no reference.
    With ``ctx``, a resource name computed by a function (``get_resource: {get_param: r}``) is evaluated and
    reported when it is a known string. Without ``ctx`` it is :func:`hotc.parser.references.collect` (what the
    parser stores on every resource and output)."""
    if ctx is None:
        yield from collect(expr).items
        return
    stack: list[Expr] = [expr]
    pop = stack.pop
    while stack:
        e: Any = pop()
        t = type(e)  # exact types first (the IR's classes), isinstance for anything else
        if t is Literal:
            continue
        if t is ListExpr:
            stack.extend(reversed(e.items))
            continue
        if t is MapExpr:
            stack.extend([v for _, v in reversed(e.items)])
            continue
        if t is F.GetParam:
            name = e.static_name()
            if name is not None and name not in PSEUDO_PARAMETERS:
                yield ("param", name, e.pos)
            stack.extend(reversed(list(e.children())))
            continue
        if t is F.GetResource:
            res = e.resource
            if type(res) is Literal and type(res.value) is str:
                yield ("resource", res.value, e.pos)
                continue
        if isinstance(e, Literal):
            continue
        if isinstance(e, ListExpr):
            stack.extend(reversed(e.items))
            continue
        if isinstance(e, MapExpr):
            stack.extend(reversed([v for _, v in e.items]))
            continue
        if isinstance(e, F.GetResource | F.GetAttr):
            name = _static_str(e.resource)
            if name is None and ctx is not None:
                name = _try_str(e.resource, ctx)  # a computed name, e.g. get_attr: [{get_param: r}, ip]
            if name is not None:
                yield ("resource", name, e.pos)
        elif isinstance(e, F.GetParam):
            name = e.static_name()
            if name is not None and name not in PSEUDO_PARAMETERS:
                yield ("param", name, e.pos)
        elif isinstance(e, F.ConditionName):
            yield ("condition", e.condition, e.pos)
        elif isinstance(e, F.GetFile):
            name = _static_str(e.path)
            if name is not None:
                yield ("file", name, e.pos)
        elif isinstance(e, F.Ref):
            name = _static_str(e.target)
            if name is not None:
                yield ("ref", name, e.pos)
        if isinstance(e, F.If) and ctx is not None:
            try:
                taken = _cond(e.condition, ctx)
            except EvalError:
                taken = Unknown()
            if isinstance(taken, bool):
                branch = e.if_true if taken else e.if_false
                stack.extend([branch, e.condition] if branch is not None else [e.condition])
                continue
        if isinstance(e, FunctionCall):
            stack.extend(reversed(list(e.children())))


def file_paths(expr: Expr) -> list[str]:
    """The get_file paths written literally in ``expr``."""
    return [name for kind, name, _ in references(expr) if kind == "file"]


class UnknownResources:
    """A :class:`~hotc.parser.ir.ResourceResolver` for static evaluation: every resource id and attribute
    is an Unknown waiting on that resource (``web.id``, ``web.first_address``, ``web.networks.0``)."""

    def resource_id(self, name: str) -> Any:
        return Unknown.of(name)

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        if attribute == "":
            return Unknown.of(name, ("*",))
        return Unknown.of(name, (attribute, *path))


# ---------------------------------------------------------------------------------------- machinery


def _try_str(e: Expr, ctx: EvalContext) -> str | None:
    try:
        value = evaluate(e, ctx)
    except EvalError:
        return None
    return value if isinstance(value, str) else None


def _static_str(e: Expr) -> str | None:
    return e.value if isinstance(e, Literal) and isinstance(e.value, str) else None


def _pos(e: Expr) -> Pos | None:
    return getattr(e, "pos", None)


def _show(value: Any) -> str:
    text = json.dumps(value, default=repr) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 200 else text[:200] + "…"


def _too_large(expr: Any, size: int) -> EvalError:
    return _fail(
        f'"{getattr(expr, "name", "?")}" would make a value of {size} bytes or more: the most an evaluated value may '
        f"hold is {MAX_VALUE_SIZE} bytes (Heat's max_json_body_size); make the value smaller",
        _pos(expr),
    )


def _value_size(value: Any, cap: int = MAX_VALUE_SIZE) -> int:
    """About how many bytes ``value`` takes as JSON (a string's length, a few bytes per other item), counted
    without recursion and without building the text; the count stops once it passes ``cap``."""
    total = 0
    work = [value]
    while work:
        v = work.pop()
        if isinstance(v, str):
            total += len(v) + 3
        elif isinstance(v, dict):
            total += 2
            for k, x in v.items():
                total += len(k) + 4 if isinstance(k, str) else 8
                work.append(x)
        elif isinstance(v, list | tuple):
            total += 2
            work.extend(v)
        else:
            total += 5
        if total > cap:
            return total
    return total


def _bound(expr: Any, value: Any) -> Any:
    """``value``, or an error at ``expr`` when it is larger than MAX_VALUE_SIZE."""
    size = _value_size(value)
    if size > MAX_VALUE_SIZE:
        raise _too_large(expr, size)
    return value


def _ev(expr: Expr, ctx: EvalContext) -> Any:
    """Like evaluate, but a removed wallaby-if item is OMIT (the caller filters it)."""
    e: Any = expr
    t = type(e)  # the IR's exact classes first (a literal item is read in place: most items are literals)
    if t is Literal:
        return e.value
    if t is MapExpr:
        result = {}
        for k, item in e.items:
            v = item.value if type(item) is Literal else _ev(item, ctx)
            if v is not OMIT:
                result[k] = v
        return result
    if t is ListExpr:
        out = []
        for item in e.items:
            v = item.value if type(item) is Literal else _ev(item, ctx)
            if v is not OMIT:
                out.append(v)
        return out
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, ListExpr):
        return [v for v in (_ev(item, ctx) for item in expr.items) if v is not OMIT]
    if isinstance(expr, MapExpr):
        return {k: v for k, v in ((k, _ev(item, ctx)) for k, item in expr.items) if v is not OMIT}
    handler = _HANDLERS.get(t)
    if handler is None:
        raise _fail(f'cannot evaluate "{getattr(expr, "name", type(expr).__name__)}"', _pos(expr))
    try:
        value = handler(expr, ctx)
        if type(value) is str and len(value) > MAX_VALUE_SIZE:
            raise _too_large(expr, len(value))
        return value
    except EvalError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # Heat turns these into a validation failure of the function; so do we (never a traceback)
        raise _fail(f'"{getattr(expr, "name", "?")}": {exc}', _pos(expr)) from None


def _arg(expr: Expr, ctx: EvalContext) -> Any:
    """An argument's value (a removed item as an argument is None, as Heat resolves it)."""
    v = _ev(expr, ctx)
    return None if v is OMIT else v


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def _unknown_in(*values: Any) -> Unknown | None:
    plain = _PLAIN_TYPES
    for v in values:  # the common case (names, attributes, paths of plain steps) without building a walk
        t = type(v)
        if t in plain or ((t is tuple or t is list) and all(type(x) in plain for x in v)):
            continue
        return collect_unknowns(list(values))
    return None


def _is_seq(value: Any) -> bool:
    """collections.abc.Sequence but not str (Heat's 'a list'); a yaql set is none."""
    return isinstance(value, list | tuple) and not isinstance(value, YaqlSet)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# --------------------------------------------------------------------------------------- the functions


def _get_param(e: F.GetParam, ctx: EvalContext) -> Any:
    if e.whole:
        args = _arg(e.param, ctx)
        if isinstance(args, Unknown):
            return args
        if not args:
            raise _fail(f'Function "{e.name}" must have arguments', e.pos)
        if isinstance(args, str):
            name, path = args, []
        elif _is_seq(args):
            name, path = args[0], list(args[1:])
        else:
            raise _fail(f'Argument to "{e.name}" must be string or list', e.pos)
    else:
        name = _arg(e.param, ctx)
        path = [_arg(p, ctx) for p in e.path]
    unknown = _unknown_in(name, path)
    if unknown is not None:
        return unknown
    if not isinstance(name, str):
        raise _fail(f'Parameter name in "{e.name}" must be string', _pos(e.param))
    if name not in ctx.parameters:
        raise _fail(f'the parameter "{name}" is not declared in the template (get_param)', e.pos)
    value = ctx.parameters[name]
    if isinstance(value, Unknown):
        return value

    def step(collection: Any, key: Any) -> Any:
        if isinstance(collection, Unknown):
            return collection
        if not isinstance(collection, Mapping | Sequence):
            raise TypeError("can't traverse")
        if not isinstance(key, str | int):
            raise TypeError("bad key")
        if isinstance(collection, Sequence) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                raise TypeError("not an index") from None
        return collection[key]

    try:
        return reduce(step, path, value)
    except (KeyError, IndexError, TypeError):
        return ""  # Heat: a bad path gives an empty string


def _resource_name(e: Expr, ctx: EvalContext, fn: str, pos: Pos | None) -> Any:
    name = _arg(e, ctx)
    if isinstance(name, Unknown):
        return name
    if not isinstance(name, str):
        raise _fail(f'the resource name in "{fn}" must be a string, not {_show(name)}', _pos(e) or pos)
    if ctx.resource_names and name not in ctx.resource_names:
        raise _fail(f'the resource "{name}" referenced by "{fn}" is not defined in the template', pos)
    return name


def _get_resource(e: F.GetResource, ctx: EvalContext) -> Any:
    name = _resource_name(e.resource, ctx, e.name, e.pos)
    if isinstance(name, Unknown):
        return name
    return ctx.resolver.resource_id(name)


def _get_attr(e: F.GetAttr, ctx: EvalContext) -> Any:
    name = _resource_name(e.resource, ctx, e.name, e.pos)
    attr = "" if e.attribute is None else _arg(e.attribute, ctx)
    path = tuple(_arg(p, ctx) for p in e.path)
    unknown = _unknown_in(name, attr, path)
    if unknown is not None:
        return unknown
    if not isinstance(attr, str):
        raise _fail(f'the attribute name in "{e.name}" must be a string, not {_show(attr)}', e.pos)
    if e.style == "select" and path:
        # 2013-05-23 (GetAttThenSelect): the attribute itself, then the path selected from its value, a path
        # that does not fit giving null (Heat's attributes.select_from_attribute)
        whole = ctx.resolver.resource_attr(name, attr, ())
        if _unknown_in(whole) is None:
            return _select_from(whole, path)
    return ctx.resolver.resource_attr(name, attr, path)


def _select_from(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if isinstance(value, Unknown):
            return value
        if (
            not isinstance(value, Mapping | Sequence)
            or not isinstance(key, str | int)
            or isinstance(key, bool)
        ):
            return None
        try:
            value = value[key]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _get_file(e: F.GetFile, ctx: EvalContext) -> Any:
    path = _arg(e.path, ctx)
    if isinstance(path, Unknown):
        return path
    if not isinstance(path, str):
        raise _fail(f'Argument to "{e.name}" must be a string', e.pos)
    content = ctx.files.get(path)
    if content is None:
        raise _fail(f'No content found in the "files" section for {e.name} path: {path}', e.pos)
    return content


def _list_join(e: F.ListJoin, ctx: EvalContext) -> Any:
    delim = _arg(e.delimiter, ctx)
    lists = [_arg(x, ctx) for x in e.lists]
    unknown = _unknown_in(delim, lists)
    if unknown is not None:
        return unknown
    strings: list[Any] = []
    if e.multiple:
        for jl in lists:
            if jl:
                if not _is_seq(jl):
                    raise _fail(f'"{e.name}" must operate on a list', e.pos)
                strings += jl
    else:
        jl = [] if lists[0] is None else lists[0]
        if not _is_seq(jl):
            raise _fail(f'"{e.name}" must operate on a list', e.pos)
        strings = list(jl)
    if not isinstance(delim, str):
        raise _fail(f'"{e.name}" delimiter must be a string', _pos(e.delimiter))

    def ensure_string(s: Any) -> str:
        if s is None:
            return ""
        if isinstance(s, str):
            return s
        if e.multiple and isinstance(s, dict | list | tuple):
            return _json(s)
        kinds = "string, map or list" if e.multiple else "strings"
        raise _fail(f"Items to join must be {kinds} not {_show(s)}", e.pos)

    parts = [ensure_string(s) for s in strings]
    size = sum(map(len, parts)) + len(delim) * max(0, len(parts) - 1)
    if size > MAX_VALUE_SIZE:
        raise _too_large(e, size)
    return delim.join(parts)


def _str_replace(e: F.StrReplace, ctx: EvalContext) -> Any:
    template = _arg(e.template, ctx)
    mapping = _arg(e.params, ctx)
    unknown = _unknown_in(template, mapping)
    if unknown is not None:
        return unknown
    if not isinstance(template, str):
        raise _fail(f'"{e.name}" template must be a string', _pos(e.template))
    if not isinstance(mapping, Mapping):
        raise _fail(f'"{e.name}" params must be a map', _pos(e.params))
    strict = e.mode in ("strict", "vstrict")
    allow_empty = e.mode != "vstrict"
    unreplaced = set(mapping)

    def empty_error(param: Any) -> EvalError:
        return _fail(
            f"{e.name} has an undefined or empty value for param {param}, must be a defined non-empty value",
            e.pos,
        )

    def replacement(value: Any, param: Any) -> str:
        if value is None:
            if allow_empty:
                return ""
            raise empty_error(param)
        if e.mode == "plain":
            if not isinstance(value, str | int | float | bool):
                raise _fail(
                    f'"{e.name}" params must be strings or numbers, param {param} is not valid', e.pos
                )
            return str(value)
        if not isinstance(value, str | int | float | bool):
            if isinstance(value, dict) or _is_seq(value):  # a yaql set is neither (Heat: Mapping, Sequence)
                if not allow_empty and len(value) == 0:
                    raise empty_error(param)
                return _json(value)
            raise _fail(f'"{e.name}" params must be strings, numbers, list or map.', e.pos)
        text = str(value)
        if not allow_empty and not text:
            raise empty_error(param)
        return text

    def replace(strings: list[str], keys: list[Any]) -> list[str]:
        if not keys:
            return strings
        placeholder = keys[0]
        if not isinstance(placeholder, str):
            raise _fail(f'"{e.name}" param placeholders must be strings', e.pos)
        value = replacement(mapping[placeholder], placeholder)
        out = []
        for s in strings:
            pieces = s.split(placeholder)
            if len(pieces) > 1:
                unreplaced.discard(placeholder)
            done = replace(pieces, keys[1:])
            size = sum(map(len, done)) + len(value) * (len(done) - 1)
            if size > MAX_VALUE_SIZE:  # checked before the text is built
                raise _too_large(e, size)
            out.append(value.join(done))
        return out

    try:
        keys = sorted(sorted(mapping), key=len, reverse=True)
    except TypeError:
        raise _fail(f'"{e.name}" param placeholders must be strings', e.pos) from None
    result = replace([template], keys)[0]
    if strict and unreplaced:
        missing = ",".join(sorted(sorted(unreplaced), key=len, reverse=True))
        raise _fail(f"The following params were not found in the template: {missing}", e.pos)
    return result


_FACADE_DEFAULTS = {"metadata": {}, "update_policy": {}, "deletion_policy": "Delete"}
_CFN_FACADE = {"Metadata": "metadata", "DeletionPolicy": "deletion_policy", "UpdatePolicy": "update_policy"}


def _resource_facade(e: F.ResourceFacade, ctx: EvalContext) -> Any:
    key = _CFN_FACADE.get(e.attribute, e.attribute)
    if not ctx.facade:
        raise _fail(
            f'"{e.name}" only works in a template used as a nested stack (it reads the parent resource\'s '
            f"{key})",
            e.pos,
        )
    return ctx.facade.get(key, _FACADE_DEFAULTS.get(key))


def _repeat(e: F.Repeat, ctx: EvalContext) -> Any:
    for_each = _arg(e.for_each, ctx)
    if isinstance(for_each, Unknown):
        return for_each
    if not isinstance(for_each, Mapping):
        raise _fail(f'The "for_each" argument to "{e.name}" must contain a map', _pos(e.for_each))
    if not for_each:
        raise _fail(f'The "for_each" argument to "{e.name}" must not be empty', _pos(e.for_each))
    unknown = _unknown_in(for_each)
    if unknown is not None:
        return unknown
    nested = e.permutations if e.style == "nested" else True
    maps_ok = e.style in ("map", "nested") and nested
    keys = list(for_each)
    values: list[Any] = []
    lengths = []
    for value in for_each.values():
        if value is None:
            values.append([])
            continue
        ok = _is_seq(value) or (maps_ok and isinstance(value, Mapping))
        if not ok:
            kinds = "lists or maps" if maps_ok else "lists"
            raise _fail(
                f'The values of the "for_each" argument to "{e.name}" must be {kinds}', _pos(e.for_each)
            )
        values.append(value)
        lengths.append(len(value))
    if not nested and lengths and len(set(lengths)) != 1:
        raise _fail(
            f"For {e.name}, the length of for_each values should be equal if no nested loop.",
            _pos(e.for_each),
        )
    template = _arg(e.template, ctx)

    def replace(tmpl: Any, replacements: tuple[Any, ...]) -> Any:
        if isinstance(tmpl, str):
            for key, value in zip(keys, replacements, strict=False):
                if not isinstance(key, str) or not isinstance(value, str):
                    raise _fail(
                        f'"{e.name}": loop variables and their values must be strings '
                        f"(got {_show(key)}: {_show(value)})",
                        e.pos,
                    )
                tmpl = tmpl.replace(key, value)
            return tmpl
        if isinstance(tmpl, list | tuple):
            return [replace(x, replacements) for x in tmpl]
        if isinstance(tmpl, dict):
            return {replace(k, replacements): replace(v, replacements) for k, v in tmpl.items()}
        return tmpl

    count = 1
    for n in lengths if nested else [min(lengths, default=0)]:
        count *= n
    if count * (_value_size(template, MAX_VALUE_SIZE) + 1) > MAX_VALUE_SIZE:  # before anything is built
        raise _too_large(e, count * (_value_size(template, MAX_VALUE_SIZE) + 1))
    combos: Any = product(*values) if nested else zip(*values, strict=False)
    return [replace(template, combo) for combo in combos]


def _digest(e: F.Digest, ctx: EvalContext) -> Any:
    args = _arg(e.args, ctx)
    unknown = _unknown_in(args)
    if unknown is not None:
        return unknown
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise _fail(f'Argument to function "{e.name}" must be a list of strings', e.pos)
    if len(args) != 2:
        raise _fail(f'Function "{e.name}" usage: ["<algorithm>", "<value>"]', e.pos)
    algorithm, value = args
    import hashlib  # lazy: digest only; validate must not load hashlib (OpenSSL; test_startup_imports)

    if algorithm.lower() not in hashlib.algorithms_available:
        raise _fail(f"Algorithm must be one of {', '.join(sorted(hashlib.algorithms_available))}", e.pos)
    try:
        h = hashlib.new(algorithm)
        h.update(value.encode("latin-1"))
    except (ValueError, UnicodeEncodeError) as exc:
        raise _fail(f'"{e.name}": {exc}', e.pos) from None
    try:
        return h.hexdigest()
    except TypeError:  # shake_* need a length
        raise _fail(f'"{e.name}": algorithm {algorithm} needs a digest length', e.pos) from None


def _str_split(e: F.StrSplit, ctx: EvalContext) -> Any:
    args = _arg(e.args, ctx)
    unknown = _unknown_in(args)
    if unknown is not None:
        return unknown
    example = f'"{e.name}" : [ ",", "apples,pears", <index>]'
    if not isinstance(args, list) or len(args) < 2:
        raise _fail(f'Incorrect arguments to "{e.name}" should be: {example}', e.pos)
    delim, string, *rest = args
    if string is None:
        return None
    if not isinstance(string, str) or not (delim is None or isinstance(delim, str)):
        raise _fail(f'Incorrect arguments to "{e.name}" should be: {example}', e.pos)
    parts = string.split(delim)
    if not rest:
        return parts
    try:
        index = int(rest[0])
    except (TypeError, ValueError):
        raise _fail(f'Incorrect index to "{e.name}" should be: {example}', e.pos) from None
    try:
        return parts[index]
    except IndexError:
        raise _fail(
            f'Incorrect index to "{e.name}" should be between 0 and {len(parts) - 1}', e.pos
        ) from None


def _map_merge(e: F.MapMerge, ctx: EvalContext) -> Any:
    args = _arg(e.args, ctx)
    if isinstance(args, Unknown):
        return args
    if not isinstance(args, list | tuple | str):
        raise _fail(
            f'Incorrect arguments to "{e.name}" should be: [ {{ "key1": "val1" }}, {{ "key2": "val2" }} ]',
            e.pos,
        )
    result: dict[Any, Any] = {}
    for m in args:
        if isinstance(m, Unknown):
            return m
        if m is None:
            continue
        if not isinstance(m, Mapping):
            raise _fail(f"Incorrect arguments: Items to merge must be maps. {_show(m)} is not a map", e.pos)
        result.update(m)
    return _bound(e, result)


def _map_replace(e: F.MapReplace, ctx: EvalContext) -> Any:
    args = _arg(e.args, ctx)
    example = (
        f'"{e.name}" : [ {{ "key1": "val1" }}, {{"keys": {{"key1": "key2"}}, "values": {{"val1": "val2"}}}}]'
    )
    if isinstance(args, Unknown):
        return args
    if not isinstance(args, list) or len(args) != 2:
        raise _fail(f'Incorrect arguments to "{e.name}" should be: {example}', e.pos)

    def ensure_map(m: Any) -> Any:
        if m is None:
            return {}
        if isinstance(m, Mapping | Unknown):
            return m
        raise _fail(
            f'Incorrect arguments: to "{e.name}", arguments must be a list of maps. Example: {example}', e.pos
        )

    in_map, repl = ensure_map(args[0]), ensure_map(args[1])
    for m in (in_map, repl):
        if isinstance(m, Unknown):
            return m
    for k in repl:
        if k not in ("keys", "values"):
            raise _fail(f'Incorrect arguments to "{e.name}" should be: {example}', e.pos)
    repl_keys = ensure_map(repl.get("keys", {}))
    repl_values = ensure_map(repl.get("values", {}))
    if isinstance(repl_values, Unknown):
        return repl_values
    unknown = _unknown_in(repl_keys)  # new keys must be known; unknown values just travel along
    if unknown is not None:
        return unknown
    result: dict[Any, Any] = {}
    for k, v in in_map.items():
        key = repl_keys.get(k)
        if key is None:
            key = k
        elif key in in_map and key != k:
            raise _fail(f"key replacement {key} collides with a key in the input map", e.pos)
        elif key in result:
            raise _fail(f"key replacement {key} collides with a key in the output map", e.pos)
        try:
            value = repl_values.get(v, v)
        except TypeError:  # unhashable values are never replaced
            value = v
        result[key] = value
    return result


def _yaql(e: F.Yaql, ctx: EvalContext) -> Any:
    expression = _arg(e.expression, ctx)
    data = _arg(e.data, ctx)
    unknown = _unknown_in(expression, data)
    if unknown is not None:
        return unknown
    if not isinstance(expression, str):
        raise _fail(f'The "expression" argument to {e.name} must contain a string.', _pos(e.expression))
    try:
        return _bound(e, evaluate_yaql(expression, data))
    except YaqlFailure as exc:
        raise _fail(f'"{e.name}": {exc}', e.pos) from None


def _if(e: F.If, ctx: EvalContext) -> Any:
    cond = _cond(e.condition, ctx)
    if isinstance(cond, Unknown):
        # The branch is not known: the value waits on the condition and on whatever either branch waits on.
        merged = cond
        for branch in (e.if_true, e.if_false):
            if branch is None:
                continue
            try:
                found = collect_unknowns(_ev(branch, ctx))
            except EvalError:
                found = None
            if found is not None:
                merged = merged.merge(found)
        return merged
    if cond:
        return _ev(e.if_true, ctx)
    if e.if_false is None:
        return OMIT
    return _ev(e.if_false, ctx)


def _filter(e: F.Filter, ctx: EvalContext) -> Any:
    sequence = _arg(e.sequence, ctx)
    if isinstance(sequence, Unknown):
        return sequence
    if not sequence:
        return sequence
    if not isinstance(sequence, list) or isinstance(sequence, YaqlSet):
        raise _fail(f'"{e.name}" only works with lists', _pos(e.sequence))
    values = _arg(e.values, ctx)
    unknown = _unknown_in(values, sequence)
    if unknown is not None:
        return unknown
    if not values:
        return sequence
    if not isinstance(values, list) or isinstance(values, YaqlSet):
        raise _fail(f'"{e.name}" filters a list of values', _pos(e.values))
    return [i for i in sequence if i not in values]


_URL_KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")


def _make_url(e: F.MakeURL, ctx: EvalContext) -> Any:
    args = {k: _arg(v, ctx) for k, v in e.parts}
    args = {k: v for k, v in args.items()}
    unknown = _unknown_in(args)
    if unknown is not None:
        return unknown
    for key in _URL_KEYS:
        if key not in args:
            continue
        value = args[key]
        if key == "query":
            if not isinstance(value, Mapping):
                raise _fail(f'The "query" argument to "{e.name}" must be a map', e.pos)
            break  # Heat stops checking after query
        if key == "port":
            port = value
            if not isinstance(port, int):
                try:
                    port = int(port)
                except (TypeError, ValueError):
                    raise _fail(f'Invalid URL port "{value}" for {e.name}', e.pos) from None
            if not 0 < port <= 65535:
                raise _fail(f"Invalid URL port {port}, must be in range 1-65535", e.pos)
        elif not isinstance(value, str):
            raise _fail(f'The "{key}" argument to "{e.name}" must be a string', e.pos)
    scheme = args.get("scheme", "")
    if ":" in scheme:
        raise _fail("URL \"scheme\" should not contain ':'", e.pos)

    def netloc() -> Iterator[str]:
        username = urlparse.quote(args.get("username", ""), safe="")
        password = urlparse.quote(args.get("password", ""), safe="")
        if username or password:
            yield username
            if password:
                yield ":"
                yield password
            yield "@"
        host = args.get("host", "")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = urlparse.quote(host, safe=":")
        if ":" in host:
            host = f"[{host}]"
        yield host
        port = args.get("port", "")
        if port:
            yield ":"
            yield str(port)

    path = urlparse.quote(args.get("path", ""))
    query = urlparse.urlencode(args.get("query", {})).replace("%2F", "/")
    fragment = urlparse.quote(args.get("fragment", ""))
    return urlparse.urlunsplit((scheme, "".join(netloc()), path, query, fragment))


def _list_concat(e: F.ListConcat, ctx: EvalContext) -> Any:
    args = _arg(e.args, ctx)
    if isinstance(args, Unknown):
        return args
    example = f'"{e.name}" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]'
    if not _is_seq(args):
        raise _fail(f'Incorrect arguments to "{e.name}" should be: {example}', e.pos)
    result: list[Any] = []
    for m in args:
        if isinstance(m, Unknown):
            return m
        if m is None:
            continue
        if not _is_seq(m):
            raise _fail(
                f"Incorrect arguments: Items to concat must be lists. {_show(m)} is not a list", e.pos
            )
        result.extend(m)
        if len(result) > MAX_VALUE_SIZE // 2:  # each item is at least a character and a comma as JSON
            raise _too_large(e, len(result) * 2)
    _bound(e, result)
    if not e.unique:
        return result
    unknown = _unknown_in(result)
    if unknown is not None:
        return unknown
    # the first of each run of equal items, in order (Heat: ``if item not in unique``), found through a set
    # where items hash (equal values hash alike: 1, 1.0 and True too), by comparison where they do not
    unique: list[Any] = []
    seen: set[Any] = set()
    unhashable: list[Any] = []
    for item in result:
        try:
            if item in seen:
                continue
            seen.add(item)
        except TypeError:
            if item in unhashable:
                continue
            unhashable.append(item)
        unique.append(item)
    return unique


def _contains(e: F.Contains, ctx: EvalContext) -> Any:
    value = _arg(e.value, ctx)
    sequence = _arg(e.sequence, ctx)
    unknown = _unknown_in(value, sequence)
    if unknown is not None:
        return unknown
    if not isinstance(sequence, list | tuple | str) or isinstance(sequence, YaqlSet):
        raise _fail(f'Second argument to "{e.name}" should be a sequence.', _pos(e.sequence))
    try:
        return value in sequence
    except TypeError:
        raise _fail(f'"{e.name}": cannot look for {_show(value)} in a string', e.pos) from None


# ------------------------------------------------------------------------------------------ conditions


def _cond(expr: Expr, ctx: EvalContext) -> bool | Unknown:
    """A condition operand: a name, a boolean, or a function whose value is a boolean or a name."""
    if isinstance(expr, F.ConditionName):
        return _condition_named(expr.condition, ctx, expr.pos)
    value = _arg(expr, ctx)
    if isinstance(value, bool | Unknown):
        return value
    if isinstance(value, str):
        return _condition_named(value, ctx, _pos(expr))
    raise _fail(f"Invalid condition {_show(value)}", _pos(expr))


def _condition_named(name: str, ctx: EvalContext, pos: Pos | None) -> bool | Unknown:
    if name not in ctx.conditions:
        raise _fail(f'Invalid condition "{name}": no condition of that name is defined', pos)
    value = ctx.conditions[name]
    if isinstance(value, Unknown):
        return value
    return bool(value)


def _equals(e: F.Equals, ctx: EvalContext) -> Any:
    a = _arg(e.left, ctx)
    b = _arg(e.right, ctx)
    unknown = _unknown_in(a, b)
    if unknown is not None:
        return unknown
    return a == b


def _not(e: F.Not, ctx: EvalContext) -> Any:
    value = _cond(e.condition, ctx)
    if isinstance(value, Unknown):
        return value
    return not value


def _operands(conditions: tuple[Expr, ...], ctx: EvalContext) -> Iterator[bool | Unknown]:
    """The operands of ``and``/``or`` as Heat's ``And``/``Or`` take them: every operand that is a function is
    resolved first, all of them (``function.resolve(self.args)``: an error in any one is raised, whatever the
    others give); then, in order, each is looked at as a condition, a bare condition name being looked up (and
    its definition evaluated) only when reached (``all``/``any`` stop at the first operand that decides)."""
    resolved = [c if isinstance(c, F.ConditionName) else _arg(c, ctx) for c in conditions]
    for c, value in zip(conditions, resolved, strict=True):
        if isinstance(value, F.ConditionName):
            yield _condition_named(value.condition, ctx, value.pos)
        elif isinstance(value, bool | Unknown):
            yield value
        elif isinstance(value, str):
            yield _condition_named(value, ctx, _pos(c))
        else:
            raise _fail(f"Invalid condition {_show(value)}", _pos(c))


def _and(e: F.And, ctx: EvalContext) -> Any:
    pending: Unknown | None = None
    for value in _operands(e.conditions, ctx):
        if isinstance(value, Unknown):
            pending = value if pending is None else pending.merge(value)
        elif not value:
            return False
    return True if pending is None else pending


def _or(e: F.Or, ctx: EvalContext) -> Any:
    pending: Unknown | None = None
    for value in _operands(e.conditions, ctx):
        if isinstance(value, Unknown):
            pending = value if pending is None else pending.merge(value)
        elif value:
            return True
    return False if pending is None else pending


def _condition_name(e: F.ConditionName, ctx: EvalContext) -> Any:
    return _condition_named(e.condition, ctx, e.pos)


# ------------------------------------------------------------------------------------------------ CFN


def _select(e: F.Select, ctx: EvalContext) -> Any:
    index = _arg(e.index, ctx)
    strings = _arg(e.collection, ctx)
    unknown = _unknown_in(index, strings)
    if unknown is not None:
        return unknown
    if strings == "":
        return ""
    if isinstance(strings, str):
        try:
            strings = json.loads(strings)
        except ValueError as exc:
            raise _fail(f'"{e.name}": {exc}', e.pos) from None
    if isinstance(strings, Mapping):
        if not isinstance(index, str):
            raise _fail(f'Index to "{e.name}" must be a string', e.pos)
        return strings.get(index, "")
    try:
        index = int(index)
    except (ValueError, TypeError):
        pass
    if _is_seq(strings):
        if not isinstance(index, int):
            raise _fail(f'Index to "{e.name}" must be an integer', e.pos)
        try:
            return strings[index]
        except IndexError:
            return ""
    if strings is None:
        return ""
    raise _fail(f"Arguments to {e.name} not fully resolved", e.pos)


def _cfn_split(e: F.CfnSplit, ctx: EvalContext) -> Any:
    strings = _arg(e.string, ctx)
    if isinstance(strings, Unknown):
        return strings
    if not isinstance(strings, str):
        raise _fail(f"String to split must be string; got {type(strings).__name__}", e.pos)
    return strings.split(e.delimiter)


def _base64(e: F.Base64, ctx: EvalContext) -> Any:
    value = _arg(e.value, ctx)
    if isinstance(value, Unknown):
        return value
    if not isinstance(value, str):
        raise _fail(f'"{e.name}" argument must be a string', e.pos)
    return value


_MEMBER_RE = re.compile(r"\.member\.([0-9]+)\.(.*)")


def _member_list_to_map(e: F.MemberListToMap, ctx: EvalContext) -> Any:
    members = _arg(e.members, ctx)
    unknown = _unknown_in(members)
    if unknown is not None:
        return unknown
    if not isinstance(members, list | tuple | dict | str):
        raise _fail("Member list must be a list", e.pos)
    partials: dict[str, str] = {}
    for s in members:
        if not isinstance(s, str):
            raise _fail("Member list items must be strings", e.pos)
        parts = s.split("=", 1)
        if len(parts) != 2:
            raise _fail(f'"{e.name}": member "{s}" has no "="', e.pos)
        partials[parts[0]] = parts[1]
    found = []
    for name, value in partials.items():
        m = _MEMBER_RE.match(name)
        if m:
            found.append((int(m.group(1)), (m.group(2), value)))
    found.sort(key=lambda d: d[0])
    groups = [dict(kv for _, kv in g) for _, g in groupby(found, lambda d: d[0])]
    return {g[e.key_name]: g[e.value_name] for g in groups if e.key_name in g and e.value_name in g}


def _get_azs(e: F.GetAZs, ctx: EvalContext) -> Any:
    return Unknown(frozenset({WaitsOn("cloud", ("availability_zones",))}))


def _ref(e: F.Ref, ctx: EvalContext) -> Any:
    name = _arg(e.target, ctx)
    if isinstance(name, Unknown):
        return name
    if isinstance(name, str) and name in ctx.resource_names:
        return ctx.resolver.resource_id(name)
    if isinstance(name, str) and name in ctx.parameters:
        return ctx.parameters[name]
    raise _fail(f'"{e.name}": "{name}" is neither a resource nor a parameter of the template', e.pos)


def _removed(e: F.Removed, ctx: EvalContext) -> Any:
    raise _fail(
        f'the function "{e.name}" is not supported in heat_template_version {ctx.version.written}', e.pos
    )


def _invalid(e: F.Invalid, ctx: EvalContext) -> Any:
    raise _fail(f'the function "{e.name}" is invalid in this context', e.pos)


_HANDLERS: dict[type, Callable[[Any, EvalContext], Any]] = {
    F.GetParam: _get_param,
    F.GetResource: _get_resource,
    F.GetAttr: _get_attr,
    F.GetFile: _get_file,
    F.ListJoin: _list_join,
    F.StrReplace: _str_replace,
    F.ResourceFacade: _resource_facade,
    F.Repeat: _repeat,
    F.Digest: _digest,
    F.StrSplit: _str_split,
    F.MapMerge: _map_merge,
    F.MapReplace: _map_replace,
    F.Yaql: _yaql,
    F.If: _if,
    F.Filter: _filter,
    F.MakeURL: _make_url,
    F.ListConcat: _list_concat,
    F.Contains: _contains,
    F.Equals: _equals,
    F.Not: _not,
    F.And: _and,
    F.Or: _or,
    F.ConditionName: _condition_name,
    F.Select: _select,
    F.CfnSplit: _cfn_split,
    F.Base64: _base64,
    F.MemberListToMap: _member_list_to_map,
    F.GetAZs: _get_azs,
    F.Ref: _ref,
    F.Removed: _removed,
    F.Invalid: _invalid,
}
