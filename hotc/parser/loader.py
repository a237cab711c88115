"""Files on disk -> :class:`~hotc.parser.loaded.LoadedStack` (``load_stack``; re-exported by ``hotc.parser.api``).

What it does, in order (every problem is collected; nothing stops at the first error):

1. reads and decodes the template (JSON, then YAML; size limit) and builds the IR
   (:func:`hotc.parser.template.parse_template`);
2. reads the ``-e`` files in order (:func:`hotc.parser.environment.parse_environment`) and merges them as
   Heat's server does (:func:`hotc.parser.environment.merge_environments`);
3. reads every ``get_file`` target relative to the file that names it (as heatclient does);
4. resolves each resource's ``type`` through the environment's registry and Heat's global environment:
   unknown types are errors (Heat: "The Resource Type (X) could not be found."), retired placeholder types
   warnings; ``deletion_policy: Snapshot`` must suit the type;
5. loads template resources (``type: x.yaml``, registry entries mapping to files) recursively with the child
   environment, validates them, checks the parent's properties against the nested template's parameters and
   ``get_attr`` against its outputs; a template that includes itself is an error;
6. resolves parameter values (environment ``parameters``, ``--parameter``, ``--parameter-file``,
   ``parameter_defaults``, template defaults), converted to their types; with ``require_values`` a
   parameter without any value is an error;
7. checks built-in types' properties and ``get_attr`` attribute names with the injected
   :class:`~hotc.parser.loaded.TypeChecks` (the provider schemas' checks, ``hotc.providers.checks``, wired by
   the CLI's composition root; :data:`~hotc.parser.loaded.NO_TYPE_CHECKS` checks none).

Resources whose ``condition`` is known to be false are not checked further (Heat skips them too).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hotc.errors import Diagnostic, Pos, Severity, error, has_errors, warning
from hotc.model import model
from hotc.parser import functions as F
from hotc.parser import resource_types
from hotc.parser.collector import gc_paused
from hotc.parser.custom_constraints import HEAT_CUSTOM_CONSTRAINTS
from hotc.parser.environment import (
    Environment,
    EnvironmentFile,
    Registry,
    Resolution,
    TypeNotFound,
    is_template_name,
    is_url,
    merge_environments,
    parse_environment,
    resolve_path,
)
from hotc.parser.evaluate import EvalError, evaluate, evaluate_condition, references
from hotc.parser.files import FileReadError, read_limited
from hotc.parser.functions import GetAttr, GetFile, If
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
from hotc.parser.limits import MAX_CONDITION_DEPTH
from hotc.parser.loaded import LoadedStack, NestedTemplate, TypeChecks, TypeResolution
from hotc.parser.parameters import resolve_values, template_property_problem
from hotc.parser.references import output_refs, resource_refs
from hotc.parser.resource_attributes import RESOURCE_ATTRIBUTES
from hotc.parser.template import find_cycles, parse_template
from hotc.parser.yamlload import DEFAULT_MAX_TEMPLATE_SIZE, load_document
from hotc.values import Unknown, contains_unknown

MAX_NESTED_DEPTH = 5  # Heat's max_nested_stack_depth default

#: built-in types whose implementation answers attributes beyond its schema (Heat's class overrides
#: ``get_attribute``: group members, deployment outputs, anything for OS::Heat::None), so Heat's validate
#: accepts any attribute name on them. Every other type with a schema rejects an attribute it does not have.
_DYNAMIC_ATTRS = frozenset(
    {
        "OS::Heat::None",
        "OS::Heat::ResourceGroup",
        "OS::Heat::AutoScalingGroup",
        "OS::Heat::ResourceChain",
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::StructuredDeployment",
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
        "AWS::CloudFormation::Stack",
    }
)

#: attributes every template resource has besides its template's outputs
_TEMPLATE_BASE_ATTRS = frozenset({"show", "OS::stack_id"})


class _StaticResolver:
    """Resources are unknown before apply."""

    def resource_id(self, name: str) -> Any:
        return Unknown.of(name)

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        return Unknown.of(name, (attribute, *path) if attribute else ())


@dataclass
class _Ctx:
    """Shared state of one load (the file cache and every diagnostic)."""

    max_size: int | None
    checks: TypeChecks
    strict: bool  # property checks as a stack create (plan), not as template validate
    diags: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    parsed: dict[str, tuple[Template | None, list[Diagnostic]]] = field(default_factory=dict)
    root_dir: str | None = None  # the top-level template's directory: get_file beyond its tree is flagged

    def read(self, path: str, pos: Pos | None, what: str) -> str | None:
        if path in self.sources:
            return self.sources[path]
        if is_url(path):
            self.diags.append(
                error(
                    f"cannot read {what} {path}: hotc reads local files only; download it and refer to the "
                    "local copy",
                    pos,
                    code="file",
                )
            )
            return None
        try:
            raw = read_limited(path, self.max_size)
        except FileReadError as exc:
            code = "too-large" if "maximum allowed size" in str(exc) else "file"
            shown = path.replace("\x00", "\\0")
            self.diags.append(error(f"cannot read {what} {shown}: {exc}", pos, code=code))
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        self.sources[path] = text
        return text

    def template(
        self, path: str, pos: Pos | None, what: str
    ) -> tuple[Template | None, list[Diagnostic]] | None:
        """Read, decode and parse a template file (cached by path); None when it cannot be read."""
        if path in self.parsed:
            return self.parsed[path]
        text = self.read(path, pos, what)
        if text is None:
            return None
        data, diags = load_document(text, path, max_size=self.max_size, what="template")
        if data is None:
            result: tuple[Template | None, list[Diagnostic]] = (None, diags)
        else:
            t, d = parse_template(data, path)
            if t is not None and diags:
                # the document's own problems are part of what a parent's validate finds in it
                t = replace(t, interface_diagnostics=(*diags, *t.interface_diagnostics))
            result = (t, diags + d)
        self.parsed[path] = result
        return result


def _file_refs(t: Template) -> list[tuple[str, Pos | None]]:
    out: list[tuple[str, Pos | None]] = []
    for r in t.resources.values():
        rr = resource_refs(r)
        for part in (rr.properties, rr.metadata, rr.update_policy, rr.deletion_policy, rr.external_id):
            out.extend(part.of("file"))
    for o in t.outputs.values():
        out.extend(output_refs(o).value.of("file"))
    for c in t.conditions.values():
        for kind, name, pos in references(c.expr):
            if kind == "file":
                out.append((name, pos))
    return out


def _literal_str(e: Expr | None) -> str | None:
    if isinstance(e, Literal) and isinstance(e.value, str):
        return e.value
    return None


def _eval_ctx(t: Template, values: Mapping[str, Any], files: Mapping[str, str]) -> EvalContext:
    params = dict(values)
    params.setdefault("OS::stack_name", Unknown.of("OS::stack_name"))
    params.setdefault("OS::stack_id", Unknown.of("OS::stack_id"))
    params.setdefault("OS::project_id", Unknown.of("OS::project_id"))
    return EvalContext(
        version=t.version,
        parameters=params,
        resolver=_StaticResolver(),
        files=files,
        resource_names=frozenset(t.resources),
        template_path=t.path,
    )


def _conditions(t: Template, ctx: EvalContext) -> dict[str, Any]:
    """Every condition's value as far as it is known statically: a bool, or an Unknown when it depends on a
    parameter without a value (or cannot be evaluated). Conditions are evaluated once each, referenced
    conditions first (cycles were reported by the template checks and stay unknown)."""
    graph: dict[str, list[str]] = {
        n: [name for kind, name, _ in references(c.expr) if kind == "condition" and name in t.conditions]
        for n, c in t.conditions.items()
    }
    order: list[str] = []
    state: dict[str, int] = {}
    for root in graph:
        if root in state:
            continue
        work = [(root, iter(graph[root]))]
        state[root] = 1
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                state[node] = 2
                order.append(node)
            elif nxt not in state:
                state[nxt] = 1
                work.append((nxt, iter(graph[nxt])))
    known: dict[str, Any] = {}
    c2 = replace(ctx, conditions=known)
    for name in order:
        try:
            v = evaluate_condition(t.conditions[name].expr, c2, definition=True)
        except (EvalError, KeyError, TypeError, ValueError, RecursionError):
            v = Unknown.of(f"condition {name}")
        known[name] = v if isinstance(v, bool | Unknown) else Unknown.of(f"condition {name}")
    return known


def _expr_depth(expr: Expr) -> int:
    """How deep ``expr``'s functions, lists and mappings nest (counted without recursion)."""
    deepest = 0
    work: list[tuple[Expr, int]] = [(expr, 1)]
    while work:
        e, d = work.pop()
        deepest = max(deepest, d)
        children = getattr(e, "children", None)
        if children is not None:
            work.extend((c, d + 1) for c in children())
    return deepest


def _check_condition_depth(lc: _Ctx, t: Template, graph: Mapping[str, list[str]], asked: set[str]) -> None:
    """A condition deeper than MAX_CONDITION_DEPTH (its expression, and through each condition it names that
    one's depth: see :mod:`hotc.parser.limits`) is refused where the chain crosses the bound: an error when
    something asks for it (resolving it would recurse that deep), a warning when nothing does (Heat never
    resolves it)."""
    depth: dict[str, int] = {}
    state: dict[str, int] = {}
    for root in graph:
        if root in state:
            continue
        state[root] = 1
        work = [(root, iter(graph[root]))]
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                state[node] = 2
                below = max((depth.get(n, 0) for n in graph[node]), default=-2)
                depth[node] = _expr_depth(t.conditions[node].expr) + 2 + below
            elif nxt not in state:  # a name in a cycle (reported above) counts as nothing
                state[nxt] = 1
                work.append((nxt, iter(graph[nxt])))
    for name, d in depth.items():
        if d <= MAX_CONDITION_DEPTH or any(depth.get(n, 0) > MAX_CONDITION_DEPTH for n in graph[name]):
            continue  # within the bound, or not where the chain crosses it
        msg = (
            f"condition {name!r} is {d} levels deep with the conditions it names (the most hotc resolves is "
            f"{MAX_CONDITION_DEPTH}): make the chain of conditions shorter"
        )
        lc.diags.append((error if name in asked else warning)(msg, t.conditions[name].pos, code="too-large"))


def _check_custom_constraint_names(lc: _Ctx, t: Template) -> None:
    """A ``custom_constraint`` Heat does not have: its template validate accepts it (custom constraints are not
    checked there), its stack create refuses every value ("constraint not found"): a warning for validate, an
    error for plan."""
    for p in t.parameters.values():
        for c in p.constraints:
            if c.kind != "custom_constraint" or c.spec in HEAT_CUSTOM_CONSTRAINTS:
                continue
            msg = (
                f"Parameter '{p.name}': Heat has no custom constraint {c.spec!r}; creating the stack would fail "
                f'("... does not validate {c.spec} (constraint not found)")'
            )
            lc.diags.append(
                (error if lc.strict else warning)(msg, c.pos or p.pos, code="parameter-definition")
            )


def _check_asked_conditions(lc: _Ctx, t: Template, ctx: EvalContext, conds: Mapping[str, Any]) -> None:
    """Conditions checked as Heat's validate resolves them (``Conditions.is_enabled``, lazily). Heat resolves
    every resource's and every output's ``condition``, and the condition of each ``if`` it parses: those in
    every resource's definition (parsed before its own condition is looked at) and in the value of every output
    that is not disabled, the taken branch only (``If.parse_args``). A condition so asked for (and the ones it
    names) must evaluate: an ``if`` naming no defined condition, a parameter that is not declared, a cycle
    reject the template. What only a condition nothing asks for, or a branch not taken, gets wrong is never
    resolved by Heat, which accepts it: a warning. Undeclared parameters in a resource's or an output's own
    ``condition`` are reported by the template checks."""
    asked: list[str] = []
    declared = set(t.parameters)

    def report(exc: EvalError) -> None:
        if "is not declared in the template" not in exc.diagnostic.message:
            lc.diags.append(exc.diagnostic)

    c2 = replace(ctx, conditions=conds)
    held: list[Expr | None] = [r.condition for r in t.resources.values()]
    held.extend(o.condition for o in t.outputs.values())
    for cond in held:
        if cond is None:
            continue
        if isinstance(cond, Literal):
            if isinstance(cond.value, str):
                asked.append(cond.value)
            continue
        asked.extend(name for kind, name, _ in references(cond) if kind == "condition")
        try:
            evaluate_condition(cond, c2)
        except EvalError as exc:
            report(exc)
    src = lc.sources.get(os.path.abspath(t.path))
    if src is None or "if" in src:
        asked.extend(_if_conditions(lc, t, ctx, c2, conds))
    seen: set[str] = set()
    while asked:
        name = asked.pop()
        if name in seen or name not in t.conditions:
            continue
        seen.add(name)
        expr = t.conditions[name].expr
        for kind, n, pos in references(expr):
            if kind == "param" and n not in declared:
                # Heat resolves every function of a condition it evaluates (condition names lazily)
                lc.diags.append(
                    error(
                        f"The Parameter ({n}) was not provided: get_param names a parameter that is not declared "
                        f"(in condition {name})",
                        pos,
                        code="reference",
                    )
                )
        try:
            evaluate_condition(expr, c2, definition=True)
        except EvalError as exc:
            if not exc.diagnostic.message.startswith('Invalid condition "'):  # names: below, in Heat's order
                report(exc)
        # the condition names it reaches, in Heat's order (see _reached_names); an undefined one is an error
        reached: list[tuple[str, Pos | None]] = []
        _reached_names(expr, c2, reached)
        for n, pos in reached:
            if n in t.conditions:
                asked.append(n)
            else:
                lc.diags.append(
                    error(
                        f'Invalid condition "{n}": no condition of that name is defined (in condition {name})',
                        pos,
                        code="reference",
                    )
                )
    graph = {
        n: [m for kind, m, _ in references(c.expr) if kind == "condition" and m in t.conditions]
        for n, c in t.conditions.items()
    }
    for cycle in find_cycles(graph):
        used = any(n in seen for n in cycle)
        msg = f'Circular definition for condition "{cycle[0]}": ' + " -> ".join(cycle)
        if not used:
            msg += _UNUSED_CONDITION
        lc.diags.append((error if used else warning)(msg, t.conditions[cycle[0]].pos, code="reference"))
    _check_condition_depth(lc, t, graph, seen)
    for cname, c in t.conditions.items():
        if cname in seen:
            continue
        for kind, n, pos in references(c.expr):
            if kind == "param" and n not in declared:
                msg = f"condition {cname}: get_param names the undeclared parameter {n!r}"
            elif kind == "condition" and n not in t.conditions:
                msg = f'condition {cname}: Invalid condition "{n}" (no condition of that name is defined)'
            else:
                continue
            lc.diags.append(warning(msg + _UNUSED_CONDITION, pos, code="reference"))


def _reached_names(e: Expr, ctx: EvalContext, out: list[tuple[str, Pos | None]]) -> bool | None:
    """The condition names Heat looks up when it resolves the condition ``e`` (appended to ``out``), and its
    value when known. Heat resolves every function among a condition's arguments first (``function.resolve``
    of the arguments: nested ``and``/``or``/``not`` included), then looks the bare names up one by one, ``and``
    stopping at the first false, ``or`` at the first true (``Conditions.is_enabled``)."""
    if isinstance(e, F.ConditionName) or (isinstance(e, Literal) and isinstance(e.value, str)):
        name = e.condition if isinstance(e, F.ConditionName) else str(e.value)
        out.append((name, e.pos))
        known = ctx.conditions.get(name)
        return known if isinstance(known, bool) else None
    if isinstance(e, Literal):
        return e.value if isinstance(e.value, bool) else None
    if isinstance(e, F.Not):
        v = _reached_names(e.condition, ctx, out)
        return None if v is None else not v
    if isinstance(e, F.And | F.Or):
        stop = isinstance(e, F.Or)  # the value that ends the lookups
        values: list[bool | None] = []
        names: list[Expr | None] = []
        for item in e.conditions:  # functions first, all of them
            if isinstance(item, F.ConditionName) or (
                isinstance(item, Literal) and isinstance(item.value, str)
            ):
                values.append(None)
                names.append(item)
            else:
                values.append(_reached_names(item, ctx, out))
                names.append(None)
        unknown = False
        for got, named in zip(values, names, strict=True):
            if named is not None:
                got = _reached_names(named, ctx, out)
            if got is None:
                unknown = True
            elif got is stop:
                return stop
        return None if unknown else not stop
    try:
        value = evaluate_condition(e, ctx)
    except (EvalError, KeyError, TypeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, bool) else None


_UNUSED_CONDITION = (
    "; nothing Heat evaluates asks for this condition, so Heat accepts the template, but anything that comes "
    "to use the condition fails"
)


def _check_outputs_of_disabled(lc: _Ctx, t: Template, ctx: EvalContext, conds: Mapping[str, Any]) -> None:
    """An output that is not disabled naming a resource whose condition is false: Heat's validate resolves
    the output's references against the enabled resources only (``GetResource``/``GetAtt`` ``validate``) and
    rejects the template. The taken branch of an ``if`` only, as Heat parses it."""
    disabled = {
        n for n, r in t.resources.items() if r.condition is not None and _enabled(r, ctx, conds) is False
    }
    if not disabled:
        return
    c2 = replace(ctx, conditions=conds)
    for oname, o in t.outputs.items():
        if o.value is None or o.value_error is not None or _condition_known(o.condition, ctx, conds) is False:
            continue
        for kind, name, pos in references(o.value, c2):
            if kind == "resource" and name in disabled:
                lc.diags.append(
                    error(
                        f'outputs.{oname}.value: The specified reference "{name}" (in unknown) is incorrect: '
                        f"the resource {name} is not created (its condition is false) and output {oname} "
                        "has no condition that is false with it",
                        pos,
                        code="reference",
                    )
                )


def _if_conditions(
    lc: _Ctx, t: Template, ctx: EvalContext, c2: EvalContext, conds: Mapping[str, Any]
) -> list[str]:
    """The conditions named by the ``if``s Heat parses (see :func:`_check_asked_conditions`); an ``if`` naming
    no defined condition is an error. A branch not taken is not looked into (both, when the condition is not
    known before the parameters have values)."""
    exprs: list[tuple[Expr, str]] = []
    for rname, r in t.resources.items():
        rr = resource_refs(
            r
        )  # a part that names no condition anywhere (both branches of every if) is skipped
        for part, e, pr in (
            ("properties", r.properties, rr.properties),
            ("metadata", r.metadata, rr.metadata),
            ("update_policy", r.update_policy, rr.update_policy),
            ("deletion_policy", r.deletion_policy, rr.deletion_policy),
            ("external_id", r.external_id, rr.external_id),
        ):
            if e is not None and pr.has("condition"):
                exprs.append((e, f"in {rname}.{part}"))
    for oname, o in t.outputs.items():
        if (
            o.value is not None
            and output_refs(o).value.has("condition")
            and _condition_known(o.condition, ctx, conds) is not False
        ):
            exprs.append((o.value, f"in output {oname}"))
    out: list[str] = []
    for e, where in exprs:
        for kind, name, pos in references(e, c2):
            if kind != "condition":
                continue
            if name in t.conditions:
                out.append(name)
                continue
            known = ", ".join(sorted(t.conditions)) or "none are defined"
            lc.diags.append(
                error(
                    f'Invalid condition "{name}" ({where}); defined conditions: {known}',
                    pos,
                    code="reference",
                )
            )
    return out


def _enabled(res: Resource, ctx: EvalContext, conds: Mapping[str, Any]) -> bool | None:
    """True/False when a resource's condition is known, None when unknown."""
    return _condition_known(res.condition, ctx, conds)


def _condition_known(condition: Expr | None, ctx: EvalContext, conds: Mapping[str, Any]) -> bool | None:
    """True/False when a condition (of a resource, an output, an ``if``) is known statically, None when
    unknown; no condition is True."""
    if condition is None:
        return True
    if isinstance(condition, Literal):
        v = condition.value
        if isinstance(v, bool):
            return v
        if isinstance(v, str):
            got = conds.get(v)
            return got if isinstance(got, bool) else None
        return None
    try:
        c2 = replace(ctx, conditions=conds)
        v = evaluate_condition(condition, c2)
    except (EvalError, KeyError, TypeError, ValueError, RecursionError):
        return None
    return v if isinstance(v, bool) else None


@model
class _Scope:
    """One template being processed, as its helpers need it (instead of long parameter lists): the template,
    its merged environment, how deep it is nested and the chain of templates above it, its evaluation
    context and directory, and where the nested templates it uses are recorded."""

    template: Template
    env: Environment
    depth: int
    stack: tuple[str, ...]
    ctx: EvalContext
    base: str  # the template's directory: relative paths resolve against it
    nested: dict[str, NestedTemplate]


@dataclass
class _Loaded:
    template: Template
    types: dict[str, TypeResolution]
    files: dict[str, str]
    nested: dict[str, NestedTemplate]
    values: dict[str, Any]
    member_types: dict[str, TypeResolution] = field(default_factory=dict)


OUTSIDE_FILE_CODE = "outside-file"


def _outside_tree(target: str, root_dir: str | None) -> str | None:
    """A warning when the get_file ``target`` lies outside the top-level template's directory tree (symbolic
    links resolved): its content is copied into saved plans and the state, where a file such as /etc/passwd or
    ~/.ssh/id_rsa does not belong. None when it is inside (or cannot be told)."""
    if root_dir is None or is_url(target):
        return None
    real, root = os.path.realpath(target), os.path.realpath(root_dir)
    if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
        return None
    shown = target if real == os.path.normpath(target) else f"{target} (-> {real})"
    return (
        f"get_file reads {shown}, outside the template's directory tree {root}: its content would be copied "
        "into saved plans and the state; move it beside the template, or pass --allow-outside-files to plan "
        "and apply to embed it"
    )


def _process(
    lc: _Ctx,
    t: Template,
    env: Environment,
    values: Mapping[str, Any],
    depth: int,
    stack: tuple[str, ...],
) -> _Loaded:
    """Everything after parsing for one template (top-level or nested)."""
    base = os.path.dirname(os.path.abspath(t.path))
    files: dict[str, str] = {}
    src = lc.sources.get(os.path.abspath(t.path))
    for name, pos in _file_refs(t) if src is None or "get_file" in src else ():
        if name in files:
            continue
        target = resolve_path(name, base)
        text = lc.read(target, pos, "get_file target")
        if text is not None:
            files[name] = text
            outside = _outside_tree(target, lc.root_dir)
            if outside is not None:
                lc.diags.append(warning(outside, pos, code=OUTSIDE_FILE_CODE))
    ctx = _eval_ctx(t, values, files)
    conds = _conditions(t, ctx)
    _check_asked_conditions(lc, t, ctx, conds)
    _check_outputs_of_disabled(lc, t, ctx, conds)
    _check_custom_constraint_names(lc, t)
    types: dict[str, TypeResolution] = {}
    builtin: dict[str, TypeResolution] = {}
    member_types: dict[str, TypeResolution] = {}
    nested: dict[str, NestedTemplate] = {}
    sc = _Scope(t, env, depth, stack, ctx, base, nested)
    for rname, res in t.resources.items():
        enabled = _enabled(res, ctx, conds)
        if enabled is False:
            # Heat does not validate a resource whose condition is false; record its type when it resolves
            # to a provider type (the planner may need it), nothing else
            try:
                rd = (
                    env.registry.resolve(res.type, rname, lc.checks.known)
                    if res.type and not is_template_name(res.type)
                    else None
                )
            except TypeNotFound:
                rd = None
            if rd is not None and rd.kind in ("builtin", "none"):
                types[rname] = TypeResolution(rd.kind, rd.type_name)
            continue
        type_name = res.type
        if not type_name:
            lc.diags.append(
                error(
                    f'Invalid type (empty): resource "{rname}" has an empty type', res.type_pos, code="type"
                )
            )
            continue
        lookup = type_name
        if is_template_name(type_name) and not is_url(type_name):
            lookup = resolve_path(type_name, base)
        try:
            r = env.registry.resolve(lookup, rname, lc.checks.known)
        except TypeNotFound as exc:
            lc.diags.append(error(exc.message, res.type_pos, code="unknown-type"))
            continue
        if r.kind == "none":
            types[rname] = TypeResolution("none", r.type_name)
        elif r.kind in ("builtin", "service_template"):
            # one (frozen, equal) record per built-in type, shared by its resources
            tr_b = builtin.get(r.type_name)
            if tr_b is None:
                tr_b = builtin[r.type_name] = TypeResolution("builtin", r.type_name)
            types[rname] = tr_b
            if r.kind == "service_template":
                lc.diags.append(
                    warning(
                        f"{type_name} is implemented by a template installed with the Heat service "
                        f"({r.template}); hotc cannot check it offline",
                        res.type_pos,
                        code="type",
                    )
                )
            elif resource_types.status(r.type_name) == resource_types.HIDDEN:
                lc.diags.append(
                    warning(resource_types.hidden_message(r.type_name), res.type_pos, code="hidden-type")
                )
        else:
            key = r.template or lookup
            types[rname] = TypeResolution("template", type_name, key)
            _nested(lc, sc, rname, res, r, key)
        tr = types.get(rname)
        if res.deletion_policy is not None:
            _check_deletion_policy(lc, res, tr, ctx)
        if res.update_policy is not None:
            _check_update_policy(lc, res, tr)
        if tr is not None and tr.kind == "builtin":
            if tr.type_name in _MEMBER_KEYS:
                mt = _members(lc, sc, rname, res, tr.type_name)
                if mt is not None:
                    member_types[rname] = mt
            lc.diags.extend(lc.checks.properties(tr.type_name, res, lc.strict))
    for rname, pdiags in t.property_diagnostics.items():
        tr1 = types.get(rname)
        if tr1 is None or tr1.kind != "none":
            lc.diags.extend(pdiags)
    _check_get_attr_nested(lc, t, types, nested, ctx, conds, _group_members(lc, t, types, member_types, ctx))
    return _Loaded(t, types, files, nested, dict(values), member_types)


#: group types -> the property holding the member definition ({type, properties}); OS::Heat::Stack -> template
_MEMBER_KEYS = {
    "OS::Heat::ResourceGroup": "resource_def",
    "OS::Heat::AutoScalingGroup": "resource",
    "OS::Heat::Stack": "template",
}


def _members(lc: _Ctx, sc: _Scope, rname: str, res: Resource, type_name: str) -> TypeResolution | None:
    """What the members of a group (or the nested stack of an OS::Heat::Stack) are; nested templates they use
    are loaded and validated like template resources. Heat's own template validate does not look inside
    groups, so an unknown member type is a warning (a group of 0 members never resolves it)."""
    start = len(lc.diags)
    # hotc plan checks as Heat's create pre-flight: it validates the member definition of a group that will
    # have members (and an OS::Heat::Stack's template), so there its problems stay errors
    created = lc.strict and _members_created(res, type_name, sc.ctx)
    try:
        return _members_inner(lc, sc, rname, res, type_name, created)
    finally:
        # Heat's template validate does not look inside groups and nested stacks: what is found there is
        # reported, but as warnings (a group of 0 members, for instance, never creates one)
        for i in range(start, len(lc.diags)):
            d = lc.diags[i]
            # ... except a member template that cannot be read: heatclient (which sends every template a
            # `type` names, members' included) refuses to validate, and hotc could never create a member
            if d.severity is Severity.ERROR and d.code != "file" and not created:
                lc.diags[i] = Diagnostic(
                    Severity.WARNING,
                    f"{d.message} (inside {rname}: fails when a member is created)",
                    d.pos,
                    d.code,
                )


def _members_created(res: Resource, type_name: str, ctx: EvalContext) -> bool:
    """Whether the group surely gets members (its size known and above 0; ResourceGroup's count defaults to 1,
    an AutoScalingGroup starts at desired_capacity, else min_size); an OS::Heat::Stack always is created."""
    if type_name == "OS::Heat::Stack":
        return True
    props = res.properties
    if not isinstance(props, MapExpr):
        return False
    if type_name == "OS::Heat::ResourceGroup":
        size_expr = props.get("count")
        if size_expr is None:
            return True
    else:
        size_expr = props.get("desired_capacity") or props.get("min_size")
        if size_expr is None:
            return False
    try:
        size = evaluate(size_expr, ctx)
    except (EvalError, KeyError, TypeError, ValueError):
        return False
    try:
        return not isinstance(size, bool) and int(size) > 0
    except (TypeError, ValueError):
        return False


def _members_inner(
    lc: _Ctx, sc: _Scope, rname: str, res: Resource, type_name: str, created: bool = False
) -> TypeResolution | None:
    props = res.properties
    if not isinstance(props, MapExpr):
        return None
    body = props.get(_MEMBER_KEYS[type_name])
    if type_name == "OS::Heat::Stack":
        if isinstance(body, GetFile) and _literal_str(body.path) is not None:
            path = resolve_path(str(_literal_str(body.path)), sc.base)
            params = props.get("parameters")
            _nested(
                lc,
                sc,
                rname,
                res,
                Resolution("template", type_name, path),
                path,
                props=params if isinstance(params, MapExpr) else None,
                where=body.pos,
                prop_path=f"resources.{rname}.properties.parameters",
                parameters_given=isinstance(params, MapExpr) or params is None,
            )
            return TypeResolution("template", type_name, path)
        return None
    if not isinstance(body, MapExpr):
        return None
    member_type = _literal_str(body.get("type"))
    tpos = getattr(body.get("type"), "pos", None) or body.pos
    if member_type is None:
        return None
    lookup = (
        resolve_path(member_type, sc.base)
        if is_template_name(member_type) and not is_url(member_type)
        else member_type
    )
    child_env = sc.env.child(rname, None)
    try:
        r = child_env.registry.resolve(lookup, None, lc.checks.known)
    except TypeNotFound as exc:
        lc.diags.append(
            (error if created else warning)(f"members of {rname}: {exc.message}", tpos, code="unknown-type")
        )
        return None
    if r.kind == "none":
        return TypeResolution("none", r.type_name)
    if r.kind in ("builtin", "service_template"):
        if resource_types.status(r.type_name) == resource_types.HIDDEN:
            lc.diags.append(warning(resource_types.hidden_message(r.type_name), tpos, code="hidden-type"))
        if created and r.kind == "builtin":
            # the member definition's properties, as Heat's create pre-flight checks them
            member = Resource(
                name=rname, type=member_type, properties=body.get("properties"), pos=body.pos, type_pos=tpos
            )
            lc.diags.extend(lc.checks.properties(r.type_name, member, True))
        return TypeResolution("builtin", r.type_name)
    key = r.template or lookup
    member_props = body.get("properties")
    _nested(
        lc,
        sc,
        rname,
        res,
        r,
        key,
        env=child_env,
        props=member_props if isinstance(member_props, MapExpr) or member_props is None else None,
        where=tpos,
        prop_path=f"resources.{rname}.properties.{_MEMBER_KEYS[type_name]}.properties",
        parameters_given=isinstance(member_props, MapExpr) or member_props is None,
    )
    return TypeResolution("template", member_type, key)


def _check_update_policy(lc: _Ctx, res: Resource, tr: TypeResolution | None) -> None:
    """``update_policy`` keys must be ones the type knows (Heat validates them against the type's
    update_policy_schema: "Unknown Property")."""
    up = res.update_policy
    if not isinstance(up, MapExpr) or tr is None or tr.kind == "none":
        return
    allowed = resource_types.update_policy_keys(tr.type_name) if tr.kind == "builtin" else frozenset()
    for (key, _), kpos in zip(up.items, up.key_pos or (None,) * len(up.items), strict=False):
        if key not in allowed:
            hint = (
                f"{tr.type_name} accepts: " + ", ".join(sorted(allowed))
                if allowed
                else f"{res.type} takes no update_policy"
                + (
                    " (OS::Heat::AutoScalingGroup uses its rolling_updates property)"
                    if tr.type_name == "OS::Heat::AutoScalingGroup"
                    else ""
                )
            )
            lc.diags.append(
                error(
                    f"Property error: resources.{res.name}.update_policy: Unknown Property {key} ({hint})",
                    kpos or up.pos,
                    code="structure",
                )
            )


def _check_deletion_policy(lc: _Ctx, res: Resource, tr: TypeResolution | None, ctx: EvalContext) -> None:
    dp = res.deletion_policy
    if dp is None:
        return
    value: Any
    if isinstance(dp, Literal):
        value = dp.value
    elif isinstance(dp, FunctionCall):
        try:
            value = evaluate(dp, ctx)
        except (EvalError, KeyError, TypeError, ValueError):
            return
        if not isinstance(value, str):
            return
        pols = ("Delete", "Retain", "Snapshot", "delete", "retain", "snapshot")
        if value not in pols:
            lc.diags.append(
                error(
                    f'Invalid deletion policy "{value}": use one of Delete, Retain, Snapshot',
                    dp.pos,
                    code="structure",
                )
            )
            return
    else:
        return
    if isinstance(value, str) and value.lower() == "snapshot" and tr is not None:
        if tr.kind == "template" or tr.type_name not in resource_types.SNAPSHOT_TYPES:
            lc.diags.append(
                error(
                    f'resources.{res.name}.deletion_policy: "Snapshot" deletion policy not supported by '
                    f"{res.type} (only "
                    + ", ".join(sorted(resource_types.SNAPSHOT_TYPES))
                    + " take snapshots)",
                    dp.pos,
                    code="structure",
                )
            )


def _nested(
    lc: _Ctx,
    sc: _Scope,
    rname: str,
    res: Resource,
    r: Resolution,
    key: str,
    *,
    env: Environment | None = None,
    props: Expr | None | bool = False,
    where: Pos | None = None,
    prop_path: str | None = None,
    parameters_given: bool = True,
) -> None:
    """Load, validate and record the template ``key`` used by resource ``rname`` (a template resource, the
    members of a group, or an OS::Heat::Stack). ``props`` (default: the resource's properties) feed the nested
    template's parameters; ``parameters_given=False`` skips the checks of missing/unknown parameters. ``env``:
    the environment the nested template is resolved in (default: the scope's; a group's members use the
    group's child environment)."""
    env = env if env is not None else sc.env
    stack, depth = sc.stack, sc.depth
    where = where or res.type_pos
    prop_path = prop_path or f"resources.{rname}.properties"
    if key in stack:
        chain = " -> ".join(os.path.basename(s) for s in (*stack, key))
        lc.diags.append(error(f"template resource {rname} includes itself: {chain}", where, code="nested"))
        return
    if depth + 1 > MAX_NESTED_DEPTH:
        lc.diags.append(
            error(
                f"Recursion depth exceeds {MAX_NESTED_DEPTH}: template resource {rname} nests too deep",
                where,
                code="nested",
            )
        )
        return
    loaded = lc.template(key, where, f"template of resource {rname}")
    if loaded is None:
        return
    child_t, child_diags = loaded
    if child_t is None:
        lc.diags.extend(child_diags)
        return
    lc.diags.extend(_child_diagnostics(child_t, child_diags, lc.strict))
    # properties -> the nested template's parameters
    child_values: dict[str, Any] = {}
    if props is False:
        props = res.properties
    given: set[str] = set()
    if isinstance(props, MapExpr) and parameters_given:
        for (pname, pexpr), ppos in zip(
            props.items, props.key_pos or (None,) * len(props.items), strict=False
        ):
            given.add(pname)
            if pname not in child_t.parameters:
                known = ", ".join(sorted(child_t.parameters)) or "it declares none"
                lc.diags.append(
                    error(
                        f"Property error: {prop_path}: Unknown Property {pname} (the template "
                        f"{os.path.basename(key)} has no parameter {pname!r}; its parameters: {known})",
                        ppos or pexpr.pos or res.pos,
                        code="property",
                    )
                )
                continue
            try:
                v = evaluate(pexpr, sc.ctx)
            except (EvalError, KeyError, TypeError, ValueError):
                continue
            if v is not None and not _has_unknown(v):
                child_values[pname] = v
                param = child_t.parameters[pname]
                # Heat's template validate checks no property value (strict_validate off); the create's
                # pre-flight does, against the property schema made from the parameter
                problem = template_property_problem(param, v)
                if problem is not None:
                    shown = "(hidden)" if param.hidden else repr(v)
                    if param.hidden and str(v) in problem:
                        problem = "the value does not satisfy the parameter's type or constraints"
                    msg = (
                        f"Property error: {prop_path}.{pname}: the value {shown} is not valid for parameter "
                        f"{pname!r} ({param.type}) of {os.path.basename(key)}: {problem}"
                    )
                    pos = pexpr.pos or ppos or res.pos
                    if lc.strict:
                        lc.diags.append(error(msg, pos, code="property"))
                    else:
                        lc.diags.append(
                            warning(msg + "; creating the stack would fail", pos, code="property")
                        )
    for pname, param in child_t.parameters.items():
        if (
            parameters_given
            and (isinstance(props, MapExpr) or props is None)
            and pname not in given
            and param.default is MISSING
            and pname not in env.parameter_defaults
        ):
            lc.diags.append(
                warning(
                    f"resource {rname}: the template {os.path.basename(key)} needs parameter {pname!r} (no "
                    "default): set it as a property or creating the stack will fail",
                    res.pos,
                    code="property",
                )
            )
    defaults = {k: (v, env.default_pos.get(k)) for k, v in env.parameter_defaults.items()}
    # the parameters the parent does not set take their defaults (parameter_defaults, then the template's)
    vals, vdiags = resolve_values(
        {k: p for k, p in child_t.parameters.items() if k not in given},
        {},
        defaults,
        require_values=False,
        template_pos=child_t.pos,
    )
    # values from properties (not checked strictly: they may still be unknown at plan time)
    vals.update(child_values)
    for d in vdiags:
        if d.severity is Severity.ERROR:
            lc.diags.append(d)
        elif d.code == "parameter-value":
            # a default that is not of its parameter's type: the nested stack's create rejects it (Heat's
            # template validate of the parent does not look): an error for hotc plan, a warning for validate
            lc.diags.append(error(d.message, d.pos, code=d.code) if lc.strict else d)
    child_env = env.child(rname, r.entry)
    before = len(lc.diags)
    sub = _process(lc, child_t, child_env, vals, depth + 1, (*stack, key))
    if not lc.strict:
        # Heat's template validate (validate_res_tmpl_only) loads a nested template and turns its parameters
        # into the resource's properties, nothing more: what is wrong inside it fails the create only
        lc.diags[before:] = [_deferred(d) for d in lc.diags[before:]]
    sc.nested[key] = NestedTemplate(
        template=child_t, types=sub.types, files=sub.files, nested=sub.nested, member_types=sub.member_types
    )


def _child_diagnostics(child_t: Template, child_diags: list[Diagnostic], strict: bool) -> list[Diagnostic]:
    """What parsing a template resource's template found, as the parent reports it. Heat's template validate
    (``validate_res_tmpl_only``) only builds the resource's interface from it (TemplateResource: the document,
    the version, the parameter definitions and the outputs section): errors there are errors, every other one
    is a warning (found when the nested stack is created, as ``hotc plan`` does: there all are errors)."""
    interface = child_t.interface_diagnostics
    # the interface's own errors that plain parsing reports otherwise (an unknown output key: a warning in a
    # top-level template, an error in a template resource's); they replace that report
    extra = [i for i in interface if i.severity is Severity.ERROR and not any(d is i for d in child_diags)]
    replaced = {i.pos for i in extra}
    out = [
        d if strict or any(d is i for i in interface) else _deferred(d)
        for d in child_diags
        if not (d.severity is Severity.WARNING and d.pos in replaced)
    ]
    return out + extra


def _deferred(d: Diagnostic) -> Diagnostic:
    """An error inside a nested template, as ``hotc validate`` reports it: a warning (Heat's template validate
    does not look there; its stack create, and hotc plan, reject it)."""
    if d.severity is not Severity.ERROR:
        return d
    return warning(
        f"{d.message} (inside a nested template: Heat's template validate does not check it there; "
        "creating the stack would fail)",
        d.pos,
        code=d.code,
    )


def _has_unknown(v: Any) -> bool:
    return contains_unknown(v)


#: a ResourceGroup's own attributes (anything else is read from every member)
_GROUP_ATTRS = frozenset({"refs", "refs_map", "attributes", "removed_rsrc_list", "show"})


def _group_members(
    lc: _Ctx,
    t: Template,
    types: Mapping[str, TypeResolution],
    member_types: Mapping[str, TypeResolution],
    ctx: EvalContext,
) -> dict[str, tuple[frozenset[str], str, bool]]:
    """ResourceGroups whose members are of a built-in type with a known attribute schema: name -> (the
    members' attributes, their type, whether the group surely gets members)."""
    out: dict[str, tuple[frozenset[str], str, bool]] = {}
    for n, tr in types.items():
        mt = member_types.get(n)
        if tr.type_name != "OS::Heat::ResourceGroup" or mt is None or mt.kind != "builtin":
            continue
        if mt.type_name in _DYNAMIC_ATTRS:
            continue
        attrs = lc.checks.attributes(mt.type_name)
        if attrs is None:
            attrs = RESOURCE_ATTRIBUTES.get(mt.type_name, frozenset())
        if attrs:
            out[n] = (frozenset(attrs), mt.type_name, _members_created(t.resources[n], tr.type_name, ctx))
    return out


def _check_get_attr_nested(
    lc: _Ctx,
    t: Template,
    types: Mapping[str, TypeResolution],
    nested: Mapping[str, NestedTemplate],
    ctx: EvalContext,
    conds: Mapping[str, Any],
    groups: Mapping[str, tuple[frozenset[str], str, bool]] | None = None,
) -> None:
    """``get_attr`` must name an attribute the resource has, as Heat's validate checks (``GetAtt.validate``
    against the type's attributes schema, for the properties, metadata and outputs Heat validates: not those of
    a resource or an output whose condition is false, nor an ``if`` branch not taken). A built-in type with a
    schema: an error. A template resource (its attributes are its template's outputs, which Heat cannot know
    before the nested stack exists): a warning."""
    targets: dict[str, tuple[str, frozenset[str], str]] = {}  # name -> (kind, attributes, what)
    by_type: dict[str, frozenset[str]] = {}  # a built-in type's attribute names, asked once per type
    for n, tr in types.items():
        if tr.kind == "template" and tr.template_key is not None and tr.template_key in nested:
            nt = nested[tr.template_key].template
            targets[n] = ("template", frozenset(nt.outputs), os.path.basename(nt.path))
        elif tr.kind == "builtin" and tr.type_name not in _DYNAMIC_ATTRS:
            attrs = by_type.get(tr.type_name)
            if attrs is None:
                known = lc.checks.attributes(tr.type_name)
                # a type the providers do not know: Heat's own attribute names (resource_attributes)
                attrs = RESOURCE_ATTRIBUTES.get(tr.type_name, frozenset()) if known is None else known
                by_type[tr.type_name] = attrs
            if attrs:
                targets[n] = ("builtin", attrs, tr.type_name)
    for n, (attrs, mtype, created) in (groups or {}).items():
        targets[n] = ("group-created" if created else "group", attrs | _GROUP_ATTRS, mtype)
    if not targets:
        return
    stack: list[tuple[Expr, bool]] = []  # (node, soft: under a condition not known statically)
    # only the parts that hold a get_attr (the references the parser collected say which) are walked
    for r in t.resources.values():
        rr = resource_refs(r)
        if not (rr.properties.get_attr or rr.metadata.get_attr):
            continue
        enabled = _enabled(r, ctx, conds)
        if enabled is False:
            continue
        if r.properties is not None and rr.properties.get_attr:
            stack.append((r.properties, enabled is None))
        if r.metadata is not None and rr.metadata.get_attr:
            stack.append((r.metadata, enabled is None))
    for o in t.outputs.values():
        if not output_refs(o).value.get_attr:
            continue
        enabled = _condition_known(o.condition, ctx, conds)
        if o.value is not None and enabled is not False:
            stack.append((o.value, enabled is None))
    # one depth-first walk; ``soft`` is the current node's: a (node, soft) pair on the stack is a root or an
    # ``if`` branch (it sets soft), a bool is where soft goes back to once that pair's subtree is done
    soft = False
    todo: list[Any] = stack  # popped from the end, as the roots were pushed
    pop, extend, push = todo.pop, todo.extend, todo.append
    while todo:
        node = pop()
        ntype = type(node)
        if ntype is Literal:  # most nodes (exact type: cheaper than the isinstance chain)
            continue
        if ntype is MapExpr:
            extend([v for _, v in node.items])
            continue
        if ntype is ListExpr:
            extend(node.items)
            continue
        if ntype is tuple:  # (root or branch, its soft)
            push(soft)
            node, soft = node
            push(node)
            continue
        if ntype is bool:
            soft = node
            continue
        if isinstance(node, Literal):
            continue
        if isinstance(node, MapExpr):
            extend([v for _, v in node.items])
            continue
        if isinstance(node, ListExpr):
            extend(node.items)
            continue
        if not isinstance(node, FunctionCall):
            continue
        if isinstance(node, If):
            taken = _condition_known(node.condition, ctx, conds)
            if taken is not False:
                push((node.if_true, soft or taken is None))
            if node.if_false is not None and taken is not True:
                push((node.if_false, soft or taken is None))
            continue
        extend(node.children())
        if not isinstance(node, GetAttr):
            continue
        rname = _literal_str(node.resource)
        attr = _literal_str(node.attribute)
        if rname is None or attr is None or rname not in targets:
            continue
        kind, attrs, what = targets[rname]
        if attr in attrs or attr == "show":
            continue
        if kind.startswith("group"):
            if attr.startswith("resource."):
                continue
            # a ResourceGroup reads any other attribute from each member: Heat's validate accepts it, its create
            # builds the group's nested stack with an output per attribute asked for, which fails to validate
            msg = (
                f"get_attr [{rname}, {attr}]: the members of {rname} ({what}) have no attribute {attr!r} (their "
                f'attributes: {", ".join(sorted(attrs - _GROUP_ATTRS))}); creating the group fails ("The '
                f'Referenced Attribute (0 {attr}) is incorrect")'
            )
            fails = kind == "group-created" and lc.strict and not soft
            lc.diags.append((error if fails else warning)(msg, node.pos, code="reference"))
            continue
        if kind == "template":
            if attr in _TEMPLATE_BASE_ATTRS or attr.startswith("resource."):
                continue
            # Heat's validate accepts any attribute of a template resource (its class answers attributes from
            # the nested stack, which does not exist before the create): a warning, the create then fails
            outs = ", ".join(sorted(attrs)) or "it has none"
            msg = (
                f"get_attr [{rname}, {attr}]: the template {what} has no output {attr!r} (its outputs: {outs}); "
                "Heat's template validate cannot know a template resource's attributes before its nested stack "
                "exists and accepts this, but the value cannot be resolved: creating a resource that uses it "
                "fails, an output that uses it reports an error"
            )
            lc.diags.append(warning(msg, node.pos, code="attribute"))
        else:
            # Heat's validate (GetAtt.validate against the type's attributes schema) rejects it
            msg = (
                f"The Referenced Attribute ({rname} {attr}) is incorrect: {what} has no attribute {attr!r} "
                f"(its attributes: {', '.join(sorted(attrs | {'show'}))})"
            )
            if soft:
                msg += " (under a condition not known before the parameters have values)"
            lc.diags.append((warning if soft else error)(msg, node.pos, code="reference"))


def subexpressions(e: Expr | None) -> Iterator[Expr]:
    """``e`` and every expression inside it, each before its own parts (maps' values, lists' items and
    functions' arguments, in their order)."""
    if e is None:
        return
    yield e
    if isinstance(e, MapExpr):
        for _k, v in e.items:
            yield from subexpressions(v)
    elif isinstance(e, ListExpr):
        for v in e.items:
            yield from subexpressions(v)
    elif isinstance(e, FunctionCall):
        for v in e.children():
            yield from subexpressions(v)


def _param_types_of(t: Template | None) -> dict[str, str]:
    return {n: p.type for n, p in t.parameters.items()} if t is not None else {}


def load_stack(
    template_path: str | os.PathLike[str],
    env_paths: list[str] | list[Path] | tuple[Any, ...] | None = None,
    cli_parameters: Mapping[str, str] | None = None,
    parameter_files: Mapping[str, str | os.PathLike[str]] | None = None,
    *,
    require_values: bool,
    checks: TypeChecks,
    max_size: int | None = DEFAULT_MAX_TEMPLATE_SIZE,
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    """Load a template with its environments and nested templates (see the module doc).

    Returns (None, diagnostics) when the template itself cannot be read or parsed; otherwise a LoadedStack
    and every diagnostic (errors included: callers check :func:`hotc.errors.has_errors`).

    The cyclic garbage collector is paused while loading (:func:`hotc.parser.collector.gc_paused`): decoding
    builds hundreds of thousands of small objects and no cycles, and the collector's repeated passes over them
    cost about three quarters of the time of a large template."""
    with gc_paused():
        return _load_stack(
            template_path,
            env_paths,
            cli_parameters,
            parameter_files,
            require_values=require_values,
            checks=checks,
            max_size=max_size,
        )


def _load_stack(
    template_path: str | os.PathLike[str],
    env_paths: list[str] | list[Path] | tuple[Any, ...] | None,
    cli_parameters: Mapping[str, str] | None,
    parameter_files: Mapping[str, str | os.PathLike[str]] | None,
    *,
    require_values: bool,
    checks: TypeChecks,
    max_size: int | None,
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    lc = _Ctx(max_size=max_size, checks=checks, strict=require_values)
    tpath = os.path.abspath(os.fspath(template_path))
    lc.root_dir = os.path.dirname(tpath)
    loaded = lc.template(tpath, None, "template")
    if loaded is None:
        return None, lc.diags
    t, tdiags = loaded
    lc.diags.extend(tdiags)
    # environments
    env_files: list[EnvironmentFile] = []
    for ep in env_paths or ():
        epath = os.path.abspath(os.fspath(ep))
        text = lc.read(epath, None, "environment file")
        if text is None:
            continue
        data, ddiags = load_document(text, epath, max_size=max_size, what="environment")
        lc.diags.extend(ddiags)
        if data is None:
            continue
        ef, ediags = parse_environment(data, epath)
        lc.diags.extend(ediags)
        if ef is not None:
            env_files.append(ef)
    if t is None:
        return None, lc.diags
    param_types = _param_types_of(t)
    env, mdiags = merge_environments(env_files, param_types)
    lc.diags.extend(mdiags)
    # parameter values: environment `parameters`, then --parameter / --parameter-file (later wins)
    values: dict[str, tuple[Any, Pos | None, str]] = {}
    for k, v in env.parameters.items():
        values[k] = (v, env.parameter_pos.get(k), "an environment file")
    for k, v in (cli_parameters or {}).items():
        values[k] = (v, None, "--parameter")
    pfile_paths: set[str] = set()
    for k, fp in (parameter_files or {}).items():
        ppath = os.path.abspath(os.fspath(fp))
        pfile_paths.add(ppath)
        text = lc.read(ppath, None, f"--parameter-file {k}")
        if text is not None:
            values[k] = (text, None, "--parameter-file")
    defaults = {k: (v, env.default_pos.get(k)) for k, v in env.parameter_defaults.items()}
    pvalues, pdiags = resolve_values(
        t.parameters, values, defaults, require_values=require_values, template_pos=t.pos
    )
    for d in pdiags:
        if d.pos is None:
            lc.diags.append(type(d)(d.severity, d.message, t.pos, d.code))
        else:
            lc.diags.append(d)
    out = _process(lc, t, env, pvalues, 0, (tpath,))
    stack = LoadedStack(
        template=t,
        parameter_values=pvalues,
        hidden_parameters=frozenset(n for n, p in t.parameters.items() if p.hidden),
        types=out.types,
        files=out.files,
        nested=out.nested,
        sources=dict(lc.sources),
        parameter_file_paths=frozenset(pfile_paths),
        environment=env,
        member_types=out.member_types,
    )
    return stack, _dedupe(lc.diags)


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[Diagnostic] = set()
    out: list[Diagnostic] = []
    for d in diags:
        if d in seen:
            continue
        seen.add(d)
        out.append(d)
    return out


__all__ = ["load_stack", "has_errors", "Registry"]
