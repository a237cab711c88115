"""The front end's public API: files on disk -> typed IR (+ environment, parameters, nested templates).

Owned by ``hotc.parser``. Every other layer imports the parser only from here (the import-linter contract in
pyproject.toml holds it); the modules behind it are free to change.

    load_stack(template_path, env_paths, cli_parameters, parameter_files, require_values=..., checks=...)
        -> tuple[LoadedStack | None, list[Diagnostic]]

``require_values=False`` is ``hotc validate`` (like ``openstack orchestration template validate``: parameters
without defaults need no value); ``True`` is plan/apply (a missing value is an error naming the parameter).
``checks`` (:class:`TypeChecks`) says how built-in types' properties and attributes are checked: the CLI's
composition root passes the provider schemas' checks; :data:`NO_TYPE_CHECKS` checks none.

Besides the loader: the IR (:class:`Template`, :class:`Resource`, the expression nodes, :data:`MISSING`, the
intrinsic function nodes in :mod:`functions`), the
evaluator (:func:`evaluate`, :func:`evaluate_condition`, :func:`references`, :class:`EvalContext`), one
expression from text (:func:`parse_expr_text`) and template versions (:func:`version_named`).
"""

from __future__ import annotations

from hotc.parser import functions
from hotc.parser.collector import gc_paused
from hotc.parser.environment import stored_registry
from hotc.parser.evaluate import EvalError, UnknownResources, evaluate, evaluate_condition, references
from hotc.parser.expr import parse_expr_text
from hotc.parser.ir import (
    MISSING,
    EvalContext,
    Expr,
    FunctionCall,
    ListExpr,
    Literal,
    MapExpr,
    Resource,
    Template,
)
from hotc.parser.loaded import NO_TYPE_CHECKS, LoadedStack, NestedTemplate, TypeChecks, TypeResolution
from hotc.parser.loader import OUTSIDE_FILE_CODE, load_stack, subexpressions
from hotc.parser.references import Refs, output_refs, resource_refs
from hotc.parser.versions import version_named
from hotc.parser.yamlload import DEFAULT_MAX_TEMPLATE_SIZE
from hotc.parser.yaqlsupport import YaqlFailure, evaluate_yaql

__all__ = [
    "DEFAULT_MAX_TEMPLATE_SIZE",
    "MISSING",
    "NO_TYPE_CHECKS",
    "OUTSIDE_FILE_CODE",
    "EvalContext",
    "EvalError",
    "Expr",
    "FunctionCall",
    "ListExpr",
    "Literal",
    "LoadedStack",
    "MapExpr",
    "NestedTemplate",
    "Resource",
    "Template",
    "TypeChecks",
    "TypeResolution",
    "UnknownResources",
    "YaqlFailure",
    "evaluate",
    "evaluate_condition",
    "evaluate_yaql",
    "functions",
    "gc_paused",
    "load_stack",
    "parse_expr_text",
    "references",
    "Refs",
    "output_refs",
    "resource_refs",
    "subexpressions",
    "stored_registry",
    "version_named",
]
