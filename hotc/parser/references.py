"""References collected once, when the IR is built (so nothing walks an expression again for them).

    collect(expr) -> Refs
        What ``expr`` refers to, in source order: the answer of :func:`hotc.parser.evaluate.references`
        without a context (both branches of every ``if``; only names written literally), plus two facts about
        the expression: whether it holds a ``get_attr`` and whether a context could change the answer (an
        ``if``, or a resource name computed by a function).
    resource_refs(res) -> ResourceRefs
        Those of every part of a resource: its properties, metadata,
        update_policy, deletion_policy, external_id and condition. The parser stores them on the
        :class:`~hotc.parser.ir.Resource` it builds; for a resource made another way (or whose parts were
        replaced since) they are collected here.
    output_refs(out) -> OutputRefs
        The same for an output's value and condition.

Each reference is ``(kind, name, pos)`` with the kinds of :func:`~hotc.parser.evaluate.references`:
``resource``, ``param``, ``condition``, ``file``, ``ref``.
"""

from __future__ import annotations

from typing import Any

from hotc.parser import functions as F
from hotc.parser.ir import (
    NO_REFS,
    Expr,
    FunctionCall,
    ListExpr,
    Literal,
    MapExpr,
    Output,
    OutputRefs,
    Ref,
    Refs,
    Resource,
    ResourceRefs,
)
from hotc.parser.versions import PSEUDO_PARAMETERS

_GetParam = F.GetParam
_GetResource = F.GetResource
_GetAttr = F.GetAttr
#: the function node types whose references are only their arguments' (every type of hotc.parser.functions but
#: those :func:`collect` looks at itself): walked without the isinstance chain
_ARGUMENTS_ONLY: frozenset[type] = frozenset(
    c
    for c in vars(F).values()
    if isinstance(c, type)
    and issubclass(c, FunctionCall)
    and not issubclass(c, F.GetResource | F.GetAttr | F.GetParam | F.ConditionName | F.GetFile | F.Ref | F.If)
)


def collect(expr: Expr | None) -> Refs:
    """The references of ``expr`` (see the module docstring): one walk."""
    if expr is None or type(expr) is Literal:
        return NO_REFS
    out: list[Ref] = []
    add = out.append
    get_attr = contextual = False
    stack: list[Any] = [expr]
    pop, extend = stack.pop, stack.extend
    while stack:
        e = pop()
        t = type(e)
        if t is Literal:
            continue
        if t is MapExpr:
            extend([v for _, v in reversed(e.items)])
            continue
        if t is ListExpr:
            extend(reversed(e.items))
            continue
        if t is _GetParam:
            param = e.param
            path = e.path
            if type(param) is Literal:  # static_name(), and a Literal child refers to nothing
                if not e.whole and type(param.value) is str and param.value not in PSEUDO_PARAMETERS:
                    add(("param", param.value, e.pos))
                if path:
                    extend(reversed(path))
            else:
                name = e.static_name()
                if name is not None and name not in PSEUDO_PARAMETERS:
                    add(("param", name, e.pos))
                extend(reversed(list(e.children())))
            continue
        if t is _GetResource or t is _GetAttr:
            res = e.resource
            if type(res) is Literal and type(res.value) is str:
                add(("resource", res.value, e.pos))
                if t is _GetResource:
                    continue
                get_attr = True
                # the children are the resource (a Literal: nothing), the attribute and the path
                attribute = e.attribute
                path = e.path
                if path:
                    extend(reversed(path))
                if attribute is not None and type(attribute) is not Literal:
                    stack.append(attribute)
                continue
            contextual = True  # a computed name: a context may resolve it
            if t is _GetAttr:
                get_attr = True
            extend(reversed(list(e.children())))
            continue
        if t in _ARGUMENTS_ONLY:
            extend(reversed(list(e.children())))
            continue
        if isinstance(e, Literal):
            continue
        if isinstance(e, ListExpr):
            extend(reversed(e.items))
            continue
        if isinstance(e, MapExpr):
            extend([v for _, v in reversed(e.items)])
            continue
        if isinstance(e, F.GetResource | F.GetAttr):  # a subclass: as above
            name = _static_str(e.resource)
            if name is not None:
                add(("resource", name, e.pos))
            else:
                contextual = True
            get_attr = get_attr or isinstance(e, F.GetAttr)
        elif isinstance(e, F.GetParam):
            name = e.static_name()
            if name is not None and name not in PSEUDO_PARAMETERS:
                add(("param", name, e.pos))
        elif isinstance(e, F.ConditionName):
            add(("condition", e.condition, e.pos))
        elif isinstance(e, F.GetFile):
            name = _static_str(e.path)
            if name is not None:
                add(("file", name, e.pos))
        elif isinstance(e, F.Ref):
            name = _static_str(e.target)
            if name is not None:
                add(("ref", name, e.pos))
        if isinstance(e, F.If):
            contextual = True
        if isinstance(e, FunctionCall):
            extend(reversed(list(e.children())))
    if not out and not get_attr and not contextual:
        return NO_REFS
    return Refs(tuple(out), get_attr, contextual)


def _static_str(e: Expr) -> str | None:
    return e.value if isinstance(e, Literal) and isinstance(e.value, str) else None


def _sources(res: Resource) -> tuple[Expr | None, ...]:
    return (
        res.properties,
        res.metadata,
        res.update_policy,
        res.deletion_policy,
        res.external_id,
        res.condition,
    )


def collect_resource(res: Resource) -> ResourceRefs:
    """Collect a resource's references (the parser stores the result on the resource)."""
    sources = _sources(res)
    properties, metadata, update_policy, deletion_policy, external_id, condition = sources
    return ResourceRefs(
        sources,
        collect(properties),
        NO_REFS if metadata is None else collect(metadata),
        NO_REFS if update_policy is None else collect(update_policy),
        NO_REFS if deletion_policy is None else collect(deletion_policy),
        NO_REFS if external_id is None else collect(external_id),
        NO_REFS if condition is None else collect(condition),
    )


def resource_refs(res: Resource) -> ResourceRefs:
    """The references of ``res``'s parts: those the parser stored, unless a part was replaced since."""
    stored = res.refs
    if stored is not None:
        s = stored.sources
        if (
            s[0] is res.properties
            and s[1] is res.metadata
            and s[2] is res.update_policy
            and s[3] is res.deletion_policy
            and s[4] is res.external_id
            and s[5] is res.condition
        ):
            return stored
    return collect_resource(res)


def collect_output(out: Output) -> OutputRefs:
    return OutputRefs((out.value, out.condition), collect(out.value), collect(out.condition))


def output_refs(out: Output) -> OutputRefs:
    """The references of an output's value and condition (stored by the parser, see :func:`resource_refs`)."""
    stored = out.refs
    if stored is not None and stored.sources[0] is out.value and stored.sources[1] is out.condition:
        return stored
    return collect_output(out)


__all__ = [
    "Refs",
    "NO_REFS",
    "ResourceRefs",
    "OutputRefs",
    "collect",
    "collect_resource",
    "collect_output",
    "resource_refs",
    "output_refs",
]
