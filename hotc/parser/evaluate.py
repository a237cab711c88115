"""Pure evaluation of expressions.

    evaluate(expr, ctx) -> Any                 plain JSON data, or hotc.values.Unknown inside it
    evaluate_condition(expr, ctx) -> bool      a condition expression / name / boolean
    references(expr) -> Iterator[(kind, name, pos)]
        kind: "resource" (get_resource, get_attr), "param" (get_param), "condition" (condition names),
        "file" (get_file paths)
    file_paths(expr) -> list[str]              get_file paths (the loader fills EvalContext.files with them)

Errors found while evaluating (a missing parameter, a bad argument value, a yaql failure) raise
:class:`EvalError` carrying a positioned diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hotc.errors import Diagnostic, Pos, error
from hotc.parser.functions import GetAttr, GetParam, GetResource
from hotc.parser.ir import EvalContext, Expr, FunctionCall, ListExpr, Literal, MapExpr


class EvalError(Exception):
    """Evaluation failed; ``diagnostic`` says what and where."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def _fail(msg: str, pos: Pos | None) -> EvalError:
    return EvalError(error(msg, pos, code="eval"))


def evaluate(expr: Expr, ctx: EvalContext) -> Any:
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, ListExpr):
        return [evaluate(e, ctx) for e in expr.items]
    if isinstance(expr, MapExpr):
        return {k: evaluate(v, ctx) for k, v in expr.items}
    if isinstance(expr, GetParam):
        name = evaluate(expr.param, ctx)
        if name not in ctx.parameters:
            raise _fail(f'get_param: the parameter "{name}" is not declared', expr.pos)
        return ctx.parameters[name]
    if isinstance(expr, GetResource):
        return ctx.resolver.resource_id(evaluate(expr.resource, ctx))
    if isinstance(expr, GetAttr):
        attr = "" if expr.attribute is None else evaluate(expr.attribute, ctx)
        return ctx.resolver.resource_attr(
            evaluate(expr.resource, ctx), attr, tuple(evaluate(p, ctx) for p in expr.path)
        )
    raise _fail(f"cannot evaluate {type(expr).__name__}", getattr(expr, "pos", None))


def evaluate_condition(expr: Expr, ctx: EvalContext) -> bool:
    value = evaluate(expr, ctx)
    return bool(value)


def references(expr: Expr) -> Iterator[tuple[str, str, Pos | None]]:
    stack: list[Expr] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ListExpr):
            stack.extend(reversed(e.items))
        elif isinstance(e, MapExpr):
            stack.extend(reversed([v for _, v in e.items]))
        elif isinstance(e, FunctionCall):
            if isinstance(e, GetResource | GetAttr) and isinstance(e.resource, Literal):
                yield ("resource", str(e.resource.value), e.pos)
            elif isinstance(e, GetParam) and isinstance(e.param, Literal):
                yield ("param", str(e.param.value), e.pos)
            stack.extend(reversed(list(e.children())))


def file_paths(expr: Expr) -> list[str]:
    return [name for kind, name, _ in references(expr) if kind == "file"]
