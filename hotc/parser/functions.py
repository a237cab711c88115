"""One frozen dataclass node type per HOT function (subclasses of :class:`hotc.parser.ir.FunctionCall`).

Built by :mod:`hotc.parser.expr` from the grammar's parse trees; evaluated by :mod:`hotc.parser.evaluate`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hotc.parser.ir import Expr, FunctionCall


@dataclass(frozen=True, slots=True)
class GetParam(FunctionCall):
    """``get_param: NAME`` or ``get_param: [NAME, path…]``."""

    param: Expr
    path: tuple[Expr, ...] = ()

    def children(self) -> Iterator[Expr]:
        yield self.param
        yield from self.path


@dataclass(frozen=True, slots=True)
class GetResource(FunctionCall):
    """``get_resource: NAME``."""

    resource: Expr

    def children(self) -> Iterator[Expr]:
        yield self.resource


@dataclass(frozen=True, slots=True)
class GetAttr(FunctionCall):
    """``get_attr: [RES, ATTR, path…]`` (``attribute`` None: the 2015-10-15+ all-attributes form).

    ``style`` is Heat's class: ``select`` (2013-05-23, GetAttThenSelect), ``path`` (2014-10-16…2015-04-30,
    GetAtt), ``all`` (2015-10-15+, GetAttAllAttributes)."""

    resource: Expr
    attribute: Expr | None
    path: tuple[Expr, ...] = ()
    style: str = "all"

    def children(self) -> Iterator[Expr]:
        yield self.resource
        if self.attribute is not None:
            yield self.attribute
        yield from self.path
