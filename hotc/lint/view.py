"""What a rule reads: a template (:class:`TemplateView`) and its resources (:class:`ResourceView`), with values
resolved by hotc's own evaluator (:func:`hotc.parser.api.evaluate`) where the template knows them.

Parameters take the value the loaded stack gives them (environment, command line, default); a parameter with
no value, a resource attribute or id, and anything the evaluator cannot work out is an
:class:`~hotc.values.Unknown`: the rule then says "cannot tell". A group's member definition (the
``resource_def`` of an ``OS::Heat::ResourceGroup``, the ``resource`` of an ``OS::Heat::AutoScalingGroup``) is a
resource of its own, named ``GROUP[*]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hotc.errors import Pos
from hotc.parser.api import (
    MISSING,
    EvalContext,
    EvalError,
    Expr,
    FunctionCall,
    ListExpr,
    Literal,
    MapExpr,
    Resource,
    Template,
    TypeResolution,
    UnknownResources,
    evaluate,
    evaluate_condition,
)
from hotc.values import Unknown, WaitsOn, contains_unknown

GROUP_MEMBER_PROPERTY = {"OS::Heat::ResourceGroup": "resource_def", "OS::Heat::AutoScalingGroup": "resource"}


def unknown(value: Any) -> bool:
    """The value (or something inside it) is known only at apply time."""
    return contains_unknown(value)


def pos_of(expr: Expr | None, path: tuple[str | int, ...], default: Pos | None = None) -> Pos | None:
    """The position of the part of ``expr`` at ``path`` (map keys, list indexes), as deep as the template writes
    it literally: a part computed by a function is placed at the function."""
    best = default
    node: Expr | None = expr
    for step in path:
        if node is None:
            break
        if node.pos is not None:
            best = node.pos
        if isinstance(node, MapExpr) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, ListExpr) and isinstance(step, int) and 0 <= step < len(node.items):
            node = node.items[step]
        else:
            node = None
    if node is not None and node.pos is not None:
        best = node.pos
    return best


class TemplateView:
    """One template (the root, or a nested template) with its parameter values."""

    def __init__(
        self,
        template: Template,
        values: Mapping[str, Any],
        types: Mapping[str, TypeResolution],
        member_types: Mapping[str, TypeResolution],
        files: Mapping[str, str],
        *,
        nested: bool = False,
        environment: Any = None,
        hidden: frozenset[str] = frozenset(),
    ) -> None:
        self.template = template
        self.nested = nested
        # the merged environment (hotc.parser's Environment: parameters, parameter_defaults and where each
        # value was written), for the root template only
        self.environment = environment
        self.hidden = hidden | {n for n, p in template.parameters.items() if p.hidden}
        self.types = types
        self.member_types = member_types
        params: dict[str, Any] = dict(values)
        for name in template.parameters:
            params.setdefault(name, Unknown(frozenset({WaitsOn(f"parameter {name}")})))
        for pseudo in ("OS::stack_name", "OS::stack_id", "OS::project_id"):
            params.setdefault(pseudo, Unknown.of(pseudo))
        self.values = params
        base: dict[str, Any] = {
            "version": template.version,
            "parameters": params,
            "resolver": UnknownResources(),
            "files": files,
            "resource_names": frozenset(template.resources),
            "template_path": template.path,
        }
        conditions: dict[str, Any] = {}
        for _ in range(len(template.conditions) + 1):  # conditions may refer to each other: settle in rounds
            progress = False
            for name, cond in template.conditions.items():
                if name in conditions:
                    continue
                try:
                    conditions[name] = evaluate_condition(
                        cond.expr, EvalContext(conditions=conditions, **base), definition=True
                    )
                    progress = True
                except EvalError:
                    continue
            if not progress:
                break
        self.ctx = EvalContext(conditions=conditions, **base)
        self.files = files
        self._resources: list[ResourceView] | None = None
        self._by_name: dict[str, ResourceView] | None = None
        self._of_types: dict[tuple[str, ...], list[ResourceView]] = {}
        self._referrers: dict[tuple[tuple[str, ...], str], dict[str, list[ResourceView]]] = {}

    @property
    def path(self) -> str:
        return self.template.path

    def hidden_values(self) -> list[str]:
        """The known values of hidden parameters, as text (what a message must never show)."""
        out: list[str] = []
        for name in self.hidden:
            value = self.values.get(name)
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                out.append(str(value))
            elif isinstance(value, list):
                out.extend(str(v) for v in value if isinstance(v, str | int | float))
        return out

    def value(self, expr: Expr | None) -> Any:
        """The value of ``expr``: MISSING for none, an Unknown when it cannot be known now."""
        if expr is None:
            return MISSING
        try:
            return evaluate(expr, self.ctx)
        except (EvalError, RecursionError):
            return Unknown(frozenset({WaitsOn("evaluation")}))

    def resource(self, name: str) -> ResourceView | None:
        """The resource ``name`` of this template (a built-in type), or None."""
        if self._by_name is None:
            self._by_name = {r.name: r for r in self.resources()}
        return self._by_name.get(name)

    def resources_of(self, *types: str) -> list[ResourceView]:
        if types not in self._of_types:
            self._of_types[types] = [r for r in self.resources() if r.type in types]
        return self._of_types[types]

    def referrers(self, target: str, types: tuple[str, ...], prop: str) -> list[ResourceView]:
        """The resources of ``types`` whose property ``prop`` reads resource ``target`` (get_resource,
        get_attr); indexed once per (types, prop), so that a rule asking for each resource stays linear."""
        key = (types, prop)
        index = self._referrers.get(key)
        if index is None:
            index = {}
            for r in self.resources_of(*types):
                for name in dict.fromkeys(referenced_resources(r.expr(prop))):
                    index.setdefault(name, []).append(r)
            self._referrers[key] = index
        return index.get(target, [])

    def resources(self) -> list[ResourceView]:
        """Every resource with a built-in type (a template resource's own resources are in its template), and
        each group's member definition (made once: their evaluated properties are kept)."""
        if self._resources is None:
            self._resources = list(self._make_resources())
        return self._resources

    def enabled(self, res: Resource) -> bool:
        """False when the resource's condition is known to be false with these parameter values (the stack
        would not have it); True when it holds or cannot be told."""
        cond = res.condition
        if cond is None:
            return True
        value: Any
        if isinstance(cond, Literal) and isinstance(cond.value, str):
            value = self.ctx.conditions.get(cond.value, True)
        else:
            try:
                value = evaluate_condition(cond, self.ctx)
            except (EvalError, RecursionError):
                return True
        return value is not False

    def _make_resources(self) -> Iterator[ResourceView]:
        for name, res in self.template.resources.items():
            tr = self.types.get(name)
            if tr is None or tr.kind != "builtin" or not self.enabled(res):
                continue
            yield ResourceView(self, name, tr.type_name, res, res.properties, res.pos)
            member_key = GROUP_MEMBER_PROPERTY.get(tr.type_name)
            mt = self.member_types.get(name)
            if member_key is None or mt is None or mt.kind != "builtin":
                continue
            definition = res.properties.get(member_key) if isinstance(res.properties, MapExpr) else None
            props = definition.get("properties") if isinstance(definition, MapExpr) else None
            where = definition.pos if definition is not None and definition.pos is not None else res.pos
            yield ResourceView(self, f"{name}[*]", mt.type_name, res, props, where)


class ResourceView:
    """One resource as a rule sees it: its type after the environment, its properties (evaluated one top-level
    property at a time, so that one unknown part leaves the others known) and positions."""

    def __init__(
        self,
        template: TemplateView,
        name: str,
        type_name: str,
        resource: Resource,
        properties: Expr | None,
        pos: Pos | None,
    ) -> None:
        self.template = template
        self.name = name
        self.type = type_name
        self.resource = resource  # the template's resource (a group's, for a member definition)
        self.properties_expr = properties
        self.pos = pos
        self._values: dict[str, Any] | None = None
        self._whole: Any = MISSING

    @property
    def file(self) -> str:
        return self.pos.file if self.pos is not None else self.template.path

    def _props(self) -> dict[str, Any]:
        if self._values is None:
            values: dict[str, Any] = {}
            expr = self.properties_expr
            if isinstance(expr, MapExpr):
                for key, sub in expr.items:
                    values[key] = self.template.value(sub)
            elif expr is not None:
                whole = self.template.value(expr)
                self._whole = whole
                if isinstance(whole, dict):
                    values.update(whole)
            self._values = values
        return self._values

    @property
    def properties_unknown(self) -> bool:
        """The properties are one expression whose value is unknown: no property can be told."""
        self._props()
        return isinstance(self._whole, Unknown)

    def get(self, name: str, default: Any = MISSING) -> Any:
        """A top-level property's value: ``default`` when the template does not give it, an Unknown when it is
        not known now."""
        props = self._props()
        if name in props:
            return props[name]
        if self.properties_unknown:
            return self._whole
        return default

    def has(self, name: str) -> bool:
        return name in self._props()

    def expr(self, name: str) -> Expr | None:
        """The expression the template writes for a top-level property (None when it gives none)."""
        if isinstance(self.properties_expr, MapExpr):
            return self.properties_expr.get(name)
        return None

    def pos_at(self, *path: str | int) -> Pos | None:
        """The position of a property (or a part of it) of this resource, else the resource's own."""
        if not path:
            return self.pos
        return pos_of(self.properties_expr, path, self.pos)

    def deletion_policy(self) -> Any:
        """The evaluated deletion_policy: ``Delete`` when none is written (a group member's is its own: none)."""
        if self.name.endswith("[*]") or self.resource.deletion_policy is None:
            return "Delete"
        value = self.template.value(self.resource.deletion_policy)
        return value.capitalize() if isinstance(value, str) else value


def literal_strings(
    expr: Expr | None, files: Mapping[str, str] | None = None
) -> Iterator[tuple[str, Pos | None, frozenset[str]]]:
    """Every string the template writes literally inside ``expr`` (never a parameter's value), with its position
    and the placeholders of the enclosing ``str_replace`` (their values come from elsewhere). A ``get_file`` of a
    file in ``files`` gives the file's text, placed at the ``get_file``."""
    stack: list[tuple[Expr, frozenset[str]]] = [(expr, frozenset())] if expr is not None else []
    while stack:
        node, placeholders = stack.pop()
        if isinstance(node, Literal):
            if isinstance(node.value, str):
                yield node.value, node.pos, placeholders
        elif isinstance(node, ListExpr):
            stack.extend((item, placeholders) for item in node.items)
        elif isinstance(node, MapExpr):
            stack.extend((item, placeholders) for _, item in node.items)
        elif isinstance(node, FunctionCall):
            if node.name in ("get_param", "get_attr", "get_resource", "Ref", "Fn::GetAtt", "resource_facade"):
                continue
            if node.name == "get_file":
                path = getattr(node, "path", None)
                if (
                    isinstance(path, Literal)
                    and isinstance(path.value, str)
                    and files
                    and path.value in files
                ):
                    yield files[path.value], node.pos, placeholders
                continue
            inner = placeholders
            if node.name == "str_replace":
                params = getattr(node, "params", None)
                if isinstance(params, MapExpr):
                    inner = placeholders | {k for k, _ in params.items}
            stack.extend((child, inner) for child in node.children())


def referenced_resources(expr: Expr | None) -> list[str]:
    """The names of the template's resources ``expr`` reads with ``get_resource``/``get_attr`` (literal names)."""
    out: list[str] = []
    stack: list[Expr] = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ListExpr):
            stack.extend(node.items)
        elif isinstance(node, MapExpr):
            stack.extend(v for _, v in node.items)
        elif isinstance(node, FunctionCall):
            target = getattr(node, "resource", None)
            if node.name in ("get_resource", "get_attr", "Ref", "Fn::GetAtt") and isinstance(target, Literal):
                if isinstance(target.value, str):
                    out.append(target.value)
            stack.extend(node.children())
    return out
