"""Helpers for the expression tests (fe-expr); no tests here."""

from __future__ import annotations

from typing import Any

from hotc.errors import Severity
from hotc.parser.evaluate import UnknownResources, evaluate
from hotc.parser.expr import parse_expr_text
from hotc.parser.ir import EvalContext, Expr
from hotc.parser.versions import version_named

PARAMS: dict[str, Any] = {
    "name": "web",
    "count": 3,
    "flag": True,
    "nets": ["private", "public"],
    "cfg": {"a": {"b": [10, 20]}, "k": "v"},
    "csv": "a,b,c",
    "OS::stack_name": "mystack",
    "OS::stack_id": "1234",
    "OS::project_id": "p1",
}


def parse(
    text: str, version: str = "rocky", where: str = "outputs"
) -> tuple[Expr | None, list[str], list[str]]:
    """(expr, errors, warnings) as strings."""
    expr, diags = parse_expr_text(text, version_named(version), where=where, file="t.yaml")
    errors = [str(d) for d in diags if d.severity is Severity.ERROR]
    warnings = [str(d) for d in diags if d.severity is Severity.WARNING]
    return expr, errors, warnings


def ctx(version: str = "rocky", **kw: Any) -> EvalContext:
    kw.setdefault("parameters", PARAMS)
    kw.setdefault("resolver", UnknownResources())
    return EvalContext(version=version_named(version), **kw)


def ev(text: str, version: str = "rocky", **kw: Any) -> Any:
    """Parse (no errors allowed) and evaluate."""
    expr, errors, _ = parse(text, version)
    assert not errors, errors
    assert expr is not None
    return evaluate(expr, ctx(version, **kw))
