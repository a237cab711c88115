"""One frozen dataclass node type per HOT function (subclasses of :class:`hotc.parser.ir.FunctionCall`).

Built by :mod:`hotc.parser.expr` from the grammar's parse trees; evaluated by :mod:`hotc.parser.evaluate`.
``name`` is the function name as written (``get_attr``, ``Fn::Join``…), ``pos`` where the call starts.

Where Heat resolves a function's whole argument before looking at it (``digest``, ``str_split``,
``map_merge``, ``map_replace``, ``list_concat``), the node keeps that argument as one ``args`` expression
(a :class:`~hotc.parser.ir.ListExpr` or a call), because it may itself be a call.
"""

from __future__ import annotations

from collections.abc import Iterator

from hotc.model import model
from hotc.parser.ir import Expr, FunctionCall, Literal


@model(slots=True)
class GetParam(FunctionCall):
    """``get_param: NAME`` / ``get_param: [NAME, path…]``. ``whole`` is True when the entire argument is
    a call (``param`` then evaluates to the name or to the [name, path…] list)."""

    param: Expr
    path: tuple[Expr, ...] = ()
    whole: bool = False

    def children(self) -> Iterator[Expr]:
        yield self.param
        yield from self.path

    def static_name(self) -> str | None:
        if not self.whole and isinstance(self.param, Literal) and isinstance(self.param.value, str):
            return self.param.value
        return None


@model(slots=True)
class GetResource(FunctionCall):
    """``get_resource: NAME``."""

    resource: Expr

    def children(self) -> Iterator[Expr]:
        yield self.resource


@model(slots=True)
class GetAttr(FunctionCall):
    """``get_attr: [RES, ATTR, path…]``; ``attribute`` None is the 2015-10-15+ ``[RES]`` form (all attributes).

    ``style``: ``select`` (2013-05-23, GetAttThenSelect: a bad path gives null), ``path`` (2014-10-16 …
    2015-04-30, GetAtt: the path goes to the resource), ``all`` (2015-10-15+, GetAttAllAttributes)."""

    resource: Expr
    attribute: Expr | None
    path: tuple[Expr, ...] = ()
    style: str = "all"

    def children(self) -> Iterator[Expr]:
        yield self.resource
        if self.attribute is not None:
            yield self.attribute
        yield from self.path


@model(slots=True)
class GetFile(FunctionCall):
    """``get_file: PATH`` (contents from ``EvalContext.files``, keyed by the path as written)."""

    path: Expr

    def children(self) -> Iterator[Expr]:
        yield self.path


@model(slots=True)
class ListJoin(FunctionCall):
    """``list_join: [DELIM, LIST, …]`` (also ``Fn::Join``). ``multiple``: JoinMultiple (2015-10-15+:
    several lists, maps/lists items JSON-encoded); otherwise Join (one list of strings)."""

    delimiter: Expr
    lists: tuple[Expr, ...]
    multiple: bool = True

    def children(self) -> Iterator[Expr]:
        yield self.delimiter
        yield from self.lists


@model(slots=True)
class StrReplace(FunctionCall):
    """``str_replace`` / ``_strict`` / ``_vstrict`` (and ``Fn::Replace``).

    ``mode``: ``plain`` (Replace, ≤2015-04-30: values must be scalars), ``json`` (ReplaceJson: maps/lists
    JSON-encoded), ``strict`` (every param must occur), ``vstrict`` (strict + no empty values)."""

    template: Expr
    params: Expr
    mode: str = "json"

    def children(self) -> Iterator[Expr]:
        yield self.template
        yield self.params


@model(slots=True)
class ResourceFacade(FunctionCall):
    """``resource_facade: metadata|deletion_policy|update_policy`` (``Fn::ResourceFacade``: CFN spelling)."""

    attribute: str


@model(slots=True)
class Repeat(FunctionCall):
    """``repeat: {template, for_each, permutations}``. ``style``: ``list`` (Repeat: lists only),
    ``map`` (RepeatWithMap, 2016-10-14: lists or maps), ``nested`` (RepeatWithNestedLoop, 2017-09-01:
    ``permutations: false`` zips equal-length lists)."""

    template: Expr
    for_each: Expr
    permutations: bool = True
    style: str = "nested"

    def children(self) -> Iterator[Expr]:
        yield self.template
        yield self.for_each


@model(slots=True)
class Digest(FunctionCall):
    """``digest: [ALGORITHM, VALUE]``."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class StrSplit(FunctionCall):
    """``str_split: [DELIM, STRING]`` / ``[DELIM, STRING, INDEX]``."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class MapMerge(FunctionCall):
    """``map_merge: [MAP, …]``."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class MapReplace(FunctionCall):
    """``map_replace: [MAP, {keys: {…}, values: {…}}]``."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class Yaql(FunctionCall):
    """``yaql: {expression: STRING, data: ANY}`` (the expression reads ``$.data``)."""

    expression: Expr
    data: Expr

    def children(self) -> Iterator[Expr]:
        yield self.expression
        yield self.data


@model(slots=True)
class If(FunctionCall):
    """``if: [COND, IF_TRUE, IF_FALSE]``. ``if_false`` None: the wallaby 2-argument form (a false
    condition removes the enclosing item)."""

    condition: Expr
    if_true: Expr
    if_false: Expr | None

    def children(self) -> Iterator[Expr]:
        yield self.condition
        yield self.if_true
        if self.if_false is not None:
            yield self.if_false


@model(slots=True)
class Filter(FunctionCall):
    """``filter: [VALUES, LIST]``."""

    values: Expr
    sequence: Expr

    def children(self) -> Iterator[Expr]:
        yield self.values
        yield self.sequence


@model(slots=True)
class MakeURL(FunctionCall):
    """``make_url: {scheme, username, password, host, port, path, query, fragment}``."""

    parts: tuple[tuple[str, Expr], ...]

    def children(self) -> Iterator[Expr]:
        for _, v in self.parts:
            yield v


@model(slots=True)
class ListConcat(FunctionCall):
    """``list_concat: [LIST, …]``; ``unique``: ``list_concat_unique`` (first occurrences kept)."""

    args: Expr
    unique: bool = False

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class Contains(FunctionCall):
    """``contains: [VALUE, SEQUENCE]``."""

    value: Expr
    sequence: Expr

    def children(self) -> Iterator[Expr]:
        yield self.value
        yield self.sequence


# -------------------------------------------------------------------------------------- conditions


@model(slots=True)
class ConditionName(FunctionCall):
    """A bare condition name where a condition stands (``not: c1``, ``and: [c1, c2]``, first argument of
    ``if``, a resource's ``condition: c1``). ``name`` is ``"condition"``; the referenced name is
    ``condition``."""

    condition: str


@model(slots=True)
class Equals(FunctionCall):
    """``equals: [A, B]`` (Python ``==``: ``"1" != 1``)."""

    left: Expr
    right: Expr

    def children(self) -> Iterator[Expr]:
        yield self.left
        yield self.right


@model(slots=True)
class Not(FunctionCall):
    """``not: COND``."""

    condition: Expr

    def children(self) -> Iterator[Expr]:
        yield self.condition


@model(slots=True)
class And(FunctionCall):
    """``and: [COND, COND, …]``."""

    conditions: tuple[Expr, ...]

    def children(self) -> Iterator[Expr]:
        yield from self.conditions


@model(slots=True)
class Or(FunctionCall):
    """``or: [COND, COND, …]``."""

    conditions: tuple[Expr, ...]

    def children(self) -> Iterator[Expr]:
        yield from self.conditions


# ------------------------------------------------------------------------- CloudFormation (2013-05-23)


@model(slots=True)
class Select(FunctionCall):
    """``Fn::Select: [INDEX, LIST_OR_MAP]`` (≤2015-04-30)."""

    index: Expr
    collection: Expr

    def children(self) -> Iterator[Expr]:
        yield self.index
        yield self.collection


@model(slots=True)
class CfnSplit(FunctionCall):
    """``Fn::Split: [DELIM, STRING]``."""

    delimiter: str
    string: Expr

    def children(self) -> Iterator[Expr]:
        yield self.string


@model(slots=True)
class Base64(FunctionCall):
    """``Fn::Base64: STRING`` (Heat does no conversion)."""

    value: Expr

    def children(self) -> Iterator[Expr]:
        yield self.value


@model(slots=True)
class MemberListToMap(FunctionCall):
    """``Fn::MemberListToMap: [KEY_NAME, VALUE_NAME, [".member.0.KEY_NAME=k", …]]``."""

    key_name: str
    value_name: str
    members: Expr

    def children(self) -> Iterator[Expr]:
        yield self.members


@model(slots=True)
class GetAZs(FunctionCall):
    """``Fn::GetAZs: REGION`` (availability zones: known only from the cloud)."""

    region: Expr

    def children(self) -> Iterator[Expr]:
        yield self.region


@model(slots=True)
class Ref(FunctionCall):
    """``Ref: NAME`` (2013-05-23): a resource's id when a resource has that name, else a parameter."""

    target: Expr

    def children(self) -> Iterator[Expr]:
        yield self.target


@model(slots=True)
class Removed(FunctionCall):
    """A function this version no longer supports (an error is reported where it was parsed)."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args


@model(slots=True)
class Invalid(FunctionCall):
    """A function used where it is not allowed (e.g. get_attr in a condition; an error is reported)."""

    args: Expr

    def children(self) -> Iterator[Expr]:
        yield self.args
