"""Conditions evaluated where Heat evaluates them, and only there.

Heat's ``Conditions.is_enabled`` resolves a condition the first time something asks for it (a resource's or an
output's ``condition``, an ``if``, another condition) and keeps the answer. A condition nothing asks for is never
evaluated, so an error inside it is never reported. Conversely, Heat asks for every output's condition, and for
the condition of every ``if`` on the taken path of an output's value, when it loads the stack's outputs, before
creating anything: one of those that cannot be evaluated makes Heat reject the whole stack.

    LazyConditions(template, params, files)    the Mapping[str, bool] a scope's EvalContext reads
    check_output_conditions(scope)             what Heat resolves when it loads a scope's outputs
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.parser.api import (
    EvalContext,
    EvalError,
    Expr,
    FunctionCall,
    ListExpr,
    MapExpr,
    Template,
    evaluate_condition,
)
from hotc.parser.api import functions as F
from hotc.planner.desired import Scope, _condition_value, _NoResources, condition_params, eval_failure
from hotc.values import Unknown


class LazyConditions(Mapping[str, bool]):
    """One scope's conditions, each evaluated on first use and remembered (a memo, not shared state)."""

    def __init__(self, template: Template, params: Mapping[str, Any], files: Mapping[str, str]) -> None:
        self._template = template
        self._params = params
        self._files = files
        self._done: dict[str, bool] = {}
        self._busy: list[str] = []

    def __contains__(self, name: object) -> bool:
        return name in self._template.conditions

    def __iter__(self) -> Iterator[str]:
        return iter(self._template.conditions)

    def __len__(self) -> int:
        return len(self._template.conditions)

    def __getitem__(self, name: str) -> bool:
        hit = self._done.get(name)
        if hit is not None:
            return hit
        t = self._template
        cond = t.conditions.get(name)
        if cond is None:
            raise KeyError(name)
        if name in self._busy:
            cycle = ", ".join(sorted({*self._busy[self._busy.index(name) :], name}))
            raise HotcError(f"{t.path}: conditions refer to each other in a cycle: {cycle}")
        self._busy.append(name)
        try:
            ctx = EvalContext(
                version=t.version,
                parameters=self._params,
                resolver=_NoResources(),
                conditions=self,
                files=self._files,
            )
            try:
                value = evaluate_condition(cond.expr, ctx)
            except EvalError as exc:
                raise eval_failure(exc) from exc
        finally:
            self._busy.pop()
        if isinstance(value, Unknown):
            raise HotcError(
                f"{cond.pos or t.path}: condition {name!r} depends on a value known only after apply"
            )
        self._done[name] = bool(value)
        return self._done[name]


def check_output_conditions(scope: Scope) -> None:
    """Resolve what Heat resolves when it loads the outputs of ``scope``: each output's condition, then the
    condition of each ``if`` on the taken path of an enabled output's value. Raises HotcError (the stack is
    rejected) when one of them cannot be evaluated."""
    t = scope.template
    params = condition_params(scope.fixed_params if scope.fixed_params is not None else scope.static_params)
    for out in t.outputs.values():
        if out.condition is not None and not _condition_value(out.condition, scope):
            continue
        if out.value is not None:
            _taken_ifs(out.value, scope, params)


def _taken_ifs(expr: Expr, scope: Scope, params: Mapping[str, Any]) -> None:
    t = scope.template
    work: list[Expr] = [expr]
    while work:
        e = work.pop()
        if isinstance(e, F.If):
            ctx = EvalContext(
                version=t.version,
                parameters=params,
                resolver=_NoResources(),
                conditions=scope.conditions,
                files=scope.files,
            )
            try:
                taken = evaluate_condition(e.condition, ctx)
            except EvalError as exc:
                raise eval_failure(exc) from exc
            if isinstance(taken, Unknown):
                continue  # decided only after apply: the output's own evaluation reports it
            branch = e.if_true if taken else e.if_false
            if branch is not None:
                work.append(branch)
        elif isinstance(e, FunctionCall):
            work.extend(e.children())
        elif isinstance(e, ListExpr):
            work.extend(e.items)
        elif isinstance(e, MapExpr):
            work.extend(v for _, v in e.items)
