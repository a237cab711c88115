"""Files on disk -> :class:`~hotc.parser.api.LoadedStack` (``load_stack``; re-exported by ``hotc.parser.api``).

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
7. calls the provider property-schema validation (``hotc.providers.validation.validate_properties``) for
   built-in types when that module exists.

Resources whose ``condition`` is known to be false are not checked further (Heat skips them too).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hotc.errors import Diagnostic, Pos, error, has_errors, warning
from hotc.parser import resource_types
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
from hotc.parser.functions import GetAttr
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
from hotc.parser.parameters import resolve_values
from hotc.parser.template import parse_template
from hotc.parser.yamlload import DEFAULT_MAX_TEMPLATE_SIZE, load_document
from hotc.values import Unknown

MAX_NESTED_DEPTH = 5  # Heat's max_nested_stack_depth default

#: attributes every template resource has besides its template's outputs
_TEMPLATE_BASE_ATTRS = frozenset({"show", "OS::stack_id"})

from hotc.parser.api import LoadedStack, NestedTemplate, TypeResolution  # noqa: E402


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
    diags: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    parsed: dict[str, tuple[Template | None, list[Diagnostic]]] = field(default_factory=dict)
    validate_props: Callable[[str, Resource], list[Diagnostic]] | None = None

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
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            self.diags.append(error(f"cannot read {what} {path}: no such file", pos, code="file"))
            return None
        except IsADirectoryError:
            self.diags.append(error(f"cannot read {what} {path}: it is a directory", pos, code="file"))
            return None
        except OSError as exc:
            self.diags.append(error(f"cannot read {what} {path}: {exc.strerror or exc}", pos, code="file"))
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        self.sources[path] = text
        return text

    def template(self, path: str, pos: Pos | None, what: str) -> tuple[Template | None, list[Diagnostic]] | None:
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
            result = (t, diags + d)
        self.parsed[path] = result
        return result


def _find_validator(strict: bool) -> Callable[[str, Resource], list[Diagnostic]] | None:
    """The provider property-schema check for built-in types (``hotc.providers.validation``), if present.

    ``strict=False`` mirrors Heat's template validate (only unknown property names are errors),
    ``strict=True`` a stack create (plan)."""
    try:
        from hotc.providers.registry import get_schema
        from hotc.providers.validation import validate_property_exprs
    except ImportError:
        return None

    def check(type_name: str, res: Resource) -> list[Diagnostic]:
        rtype = get_schema(type_name)
        if rtype is None or res.external_id is not None:
            return []  # no schema known (names only), or adopted: Heat does not validate it
        return list(validate_property_exprs(rtype, res.properties, res.pos, strict=strict))

    return check


def _file_refs(t: Template) -> list[tuple[str, Pos | None]]:
    out: list[tuple[str, Pos | None]] = []
    exprs: list[Expr | None] = []
    for r in t.resources.values():
        exprs.extend([r.properties, r.metadata, r.update_policy, r.deletion_policy, r.external_id])
    for o in t.outputs.values():
        exprs.append(o.value)
    for c in t.conditions.values():
        exprs.append(c.expr)
    for e in exprs:
        if e is None:
            continue
        for kind, name, pos in references(e):
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


def _conditions(t: Template, ctx: EvalContext) -> dict[str, bool]:
    """Conditions whose value is known statically (parameters with values); unknown ones are left out."""
    known: dict[str, bool] = {}
    for _ in range(len(t.conditions) + 1):
        progress = False
        for name, cond in t.conditions.items():
            if name in known:
                continue
            try:
                c2 = EvalContext(
                    version=ctx.version,
                    parameters=ctx.parameters,
                    resolver=ctx.resolver,
                    conditions=known,
                    files=ctx.files,
                    resource_names=ctx.resource_names,
                    template_path=ctx.template_path,
                )
                v = evaluate_condition(cond.expr, c2)
            except (EvalError, KeyError, TypeError, ValueError, RecursionError):
                continue
            if isinstance(v, bool):
                known[name] = v
                progress = True
        if not progress:
            break
    return known


def _enabled(res: Resource, ctx: EvalContext, conds: Mapping[str, bool]) -> bool | None:
    """True/False when a resource's condition is known, None when unknown."""
    if res.condition is None:
        return True
    if isinstance(res.condition, Literal):
        v = res.condition.value
        if isinstance(v, bool):
            return v
        if isinstance(v, str):
            return conds.get(v)
        return None
    try:
        c2 = EvalContext(
            version=ctx.version,
            parameters=ctx.parameters,
            resolver=ctx.resolver,
            conditions=conds,
            files=ctx.files,
            resource_names=ctx.resource_names,
            template_path=ctx.template_path,
        )
        v = evaluate_condition(res.condition, c2)
    except (EvalError, KeyError, TypeError, ValueError, RecursionError):
        return None
    return v if isinstance(v, bool) else None


@dataclass
class _Loaded:
    template: Template
    types: dict[str, TypeResolution]
    files: dict[str, str]
    nested: dict[str, NestedTemplate]
    values: dict[str, Any]


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
    for name, pos in _file_refs(t):
        if name in files:
            continue
        text = lc.read(resolve_path(name, base), pos, "get_file target")
        if text is not None:
            files[name] = text
    ctx = _eval_ctx(t, values, files)
    conds = _conditions(t, ctx)
    types: dict[str, TypeResolution] = {}
    nested: dict[str, NestedTemplate] = {}
    for rname, res in t.resources.items():
        enabled = _enabled(res, ctx, conds)
        if enabled is False:
            continue
        type_name = res.type
        if not type_name:
            lc.diags.append(
                error(f'Invalid type (empty): resource "{rname}" has an empty type', res.type_pos, code="type")
            )
            continue
        lookup = type_name
        if is_template_name(type_name) and not is_url(type_name):
            lookup = resolve_path(type_name, base)
        try:
            r = env.registry.resolve(lookup, rname)
        except TypeNotFound as exc:
            lc.diags.append(error(exc.message, res.type_pos, code="unknown-type"))
            continue
        if r.kind == "none":
            types[rname] = TypeResolution("none", r.type_name)
        elif r.kind in ("builtin", "service_template"):
            types[rname] = TypeResolution("builtin", r.type_name)
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
                lc.diags.append(warning(resource_types.hidden_message(r.type_name), res.type_pos, code="hidden-type"))
        else:
            key = r.template or lookup
            types[rname] = TypeResolution("template", type_name, key)
            _nested(lc, t, rname, res, r, key, env, depth, stack, nested, ctx)
        _check_deletion_policy(lc, res, types.get(rname), ctx)
        tr = types.get(rname)
        if lc.validate_props is not None and tr is not None and tr.kind == "builtin":
            lc.diags.extend(lc.validate_props(tr.type_name, res))
    _check_get_attr_nested(lc, t, types, nested)
    return _Loaded(t, types, files, nested, dict(values))


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
                error(f'Invalid deletion policy "{value}": use one of Delete, Retain, Snapshot', dp.pos, code="structure")
            )
            return
    else:
        return
    if isinstance(value, str) and value.lower() == "snapshot" and tr is not None:
        if tr.kind == "template" or tr.type_name not in resource_types.SNAPSHOT_TYPES:
            lc.diags.append(
                error(
                    f'resources.{res.name}.deletion_policy: "Snapshot" deletion policy not supported by '
                    f"{res.type} (only " + ", ".join(sorted(resource_types.SNAPSHOT_TYPES)) + " take snapshots)",
                    dp.pos,
                    code="structure",
                )
            )


def _nested(
    lc: _Ctx,
    parent: Template,
    rname: str,
    res: Resource,
    r: Resolution,
    key: str,
    env: Environment,
    depth: int,
    stack: tuple[str, ...],
    nested: dict[str, NestedTemplate],
    ctx: EvalContext,
) -> None:
    where = res.type_pos
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
    lc.diags.extend(child_diags)
    if child_t is None:
        return
    # properties -> the nested template's parameters
    child_values: dict[str, Any] = {}
    props = res.properties
    given: set[str] = set()
    if isinstance(props, MapExpr):
        for (pname, pexpr), ppos in zip(props.items, props.key_pos or (None,) * len(props.items), strict=False):
            given.add(pname)
            if pname not in child_t.parameters:
                known = ", ".join(sorted(child_t.parameters)) or "it declares none"
                lc.diags.append(
                    error(
                        f"Property error: resources.{rname}.properties: Unknown Property {pname} (the template "
                        f"{os.path.basename(key)} has no parameter {pname!r}; its parameters: {known})",
                        ppos or pexpr.pos or res.pos,
                        code="property",
                    )
                )
                continue
            try:
                v = evaluate(pexpr, ctx)
            except (EvalError, KeyError, TypeError, ValueError):
                continue
            if v is not None and not _has_unknown(v):
                child_values[pname] = v
    for pname, param in child_t.parameters.items():
        if (
            isinstance(props, MapExpr)
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
    vals, vdiags = resolve_values(
        child_t.parameters,
        {},
        defaults,
        require_values=False,
        template_pos=child_t.pos,
    )
    # values from properties override (not checked strictly: they may still be unknown at plan time)
    vals.update({k: v for k, v in child_values.items()})
    lc.diags.extend(d for d in vdiags if d.severity.value == "error")
    child_env = env.child(rname, r.entry)
    sub = _process(lc, child_t, child_env, vals, depth + 1, (*stack, key))
    nested[key] = NestedTemplate(template=child_t, types=sub.types, files=sub.files, nested=sub.nested)


def _has_unknown(v: Any) -> bool:
    from hotc.values import contains_unknown

    return contains_unknown(v)


def _check_get_attr_nested(
    lc: _Ctx, t: Template, types: Mapping[str, TypeResolution], nested: Mapping[str, NestedTemplate]
) -> None:
    """get_attr on a template resource must name one of its template's outputs (or show / OS::stack_id)."""
    targets = {
        n: nested[tr.template_key]
        for n, tr in types.items()
        if tr.kind == "template" and tr.template_key is not None and tr.template_key in nested
    }
    if not targets:
        return
    exprs: list[Expr | None] = []
    for r in t.resources.values():
        exprs.extend([r.properties, r.metadata])
    exprs.extend(o.value for o in t.outputs.values())
    for e in exprs:
        for node in _walk(e):
            if not isinstance(node, GetAttr):
                continue
            rname = _literal_str(node.resource)
            attr = _literal_str(node.attribute)
            if rname is None or attr is None or rname not in targets:
                continue
            nt = targets[rname].template
            if attr in nt.outputs or attr in _TEMPLATE_BASE_ATTRS or attr.startswith("resource."):
                continue
            outs = ", ".join(sorted(nt.outputs)) or "it has none"
            lc.diags.append(
                error(
                    f"The Referenced Attribute ({rname} {attr}) is incorrect: the template "
                    f"{os.path.basename(nt.path)} has no output {attr!r} (its outputs: {outs})",
                    node.pos,
                    code="reference",
                )
            )


def _walk(e: Expr | None) -> list[Expr]:
    out: list[Expr] = []
    if e is None:
        return out
    stack: list[Expr] = [e]
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, ListExpr):
            stack.extend(n.items)
        elif isinstance(n, MapExpr):
            stack.extend(v for _, v in n.items)
        elif isinstance(n, FunctionCall):
            stack.extend(n.children())
    return out


def _param_types_of(t: Template | None) -> dict[str, str]:
    return {n: p.type for n, p in t.parameters.items()} if t is not None else {}


def load_stack(
    template_path: str | os.PathLike[str],
    env_paths: list[str] | list[Path] | tuple[Any, ...] | None = None,
    cli_parameters: Mapping[str, str] | None = None,
    parameter_files: Mapping[str, str | os.PathLike[str]] | None = None,
    *,
    require_values: bool,
    max_size: int | None = DEFAULT_MAX_TEMPLATE_SIZE,
) -> tuple[LoadedStack | None, list[Diagnostic]]:
    """Load a template with its environments and nested templates (see the module doc).

    Returns (None, diagnostics) when the template itself cannot be read or parsed; otherwise a LoadedStack
    and every diagnostic (errors included: callers check :func:`hotc.errors.has_errors`)."""
    lc = _Ctx(max_size=max_size, validate_props=_find_validator(strict=require_values))
    tpath = os.path.abspath(os.fspath(template_path))
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
    for k, fp in (parameter_files or {}).items():
        ppath = os.path.abspath(os.fspath(fp))
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
        environment=env,
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
