"""The desired state: a loaded stack expanded to addressed leaf resources.

:func:`build_desired` walks the template (and nested templates) once:

- every resource whose condition holds gets an address: its name in the root template, ``group[i]`` for
  members of ``OS::Heat::ResourceGroup`` / ``OS::Heat::AutoScalingGroup``, ``parent.child`` for resources of
  nested stacks (template resources, ``OS::Heat::Stack`` with a nested template); composable (``web[2].port``);
- groups and nested stacks are not resources themselves: their members are. ``get_resource``/``get_attr`` on a
  group or nested stack are answered here (``refs``, ``attributes``, ``resource.N``, outputs…);
- nested stacks get their parameters from the parent resource's properties, re-evaluated with whatever the
  resolver knows (Unknown at plan time when fed by a resource that does not exist yet);
- each leaf gets its dependencies (explicit, references, inherited from its group/nested stack, and Heat's
  implicit network edges, see :mod:`hotc.planner.graph`).

Property values are never stored here: :meth:`DesiredStack.resolve_properties` evaluates them on demand with
an :class:`~hotc.planner.resolve.AddressResolver` (plan time: state + Unknown; apply time: live values).
"""

from __future__ import annotations

import gc
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hotc.errors import Diagnostic, HotcError, Pos, error
from hotc.parser.api import LoadedStack, NestedTemplate, TypeResolution
from hotc.parser.evaluate import EvalError, evaluate, evaluate_condition, references
from hotc.parser.ir import MISSING, EvalContext, Expr, Literal, MapExpr, Resource, Template
from hotc.planner.resolve import AddressResolver, UnknownResolver, index_path
from hotc.values import Unknown, WaitsOn, contains_unknown

GROUP_TYPES = ("OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup")
STACK_TYPE = "OS::Heat::Stack"
NAMESPACE = uuid.UUID("6f1c2a7e-5b0e-4c52-9a47-0d1f3f2b9c11")
PROJECT_ID_UNKNOWN = Unknown(frozenset({WaitsOn("OS::project_id")}))


def join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


@dataclass(frozen=True)
class DesiredResource:
    """One leaf resource of the desired state."""

    address: str
    type: str  # the provider type (after the environment's registry), e.g. OS::Nova::Server
    depends_on: tuple[str, ...] = ()  # addresses of leaf resources this one needs first
    deletion_policy: str = "Delete"
    condition_enabled: bool = True  # False: the template declares it but its condition is false
    name: str = ""  # its name in its own template (``port`` for ``web[2].port``; ``web`` for ``web[2]``)
    scope: str = ""  # address prefix of the (nested) stack it lives in ("" for the root)
    group: str | None = None  # address of the group it is a member of
    index: int | None = None
    pos: Pos | None = None
    sensitive_paths: tuple[str, ...] = ()  # top-level property names derived from hidden parameters
    has_metadata: bool = False
    external_id: str | None = None  # Heat's external_id: an existing object adopted, never created or deleted


@dataclass(frozen=True)
class Member:
    """What a template resource name stands for inside one scope."""

    name: str
    kind: str  # leaf | group | nested | disabled
    address: str
    type: str  # provider type (leaf), group type (group), OS::Heat::Stack or template key (nested)
    resource: Resource | None = None
    member_addresses: tuple[str, ...] = ()  # group: members in index order
    member_indexes: tuple[int, ...] = ()
    member_nested: bool = False  # group: members are nested stacks
    member_type: str = ""  # group: member type (provider type or template key)
    sensitive: bool = False  # a get_attr on it gives a sensitive value


@dataclass
class Scope:
    """One (nested) stack: its template, how its parameters are fed, its names."""

    prefix: str
    template: Template
    types: Mapping[str, TypeResolution]
    files: Mapping[str, str]
    nested: Mapping[str, NestedTemplate]
    # root: fixed parameter values; nested: None and ``feed`` says where they come from
    fixed_params: Mapping[str, Any] | None
    feed: tuple[str, str, int | None, str] | None = None  # (parent scope, resource name, member index, how)
    hidden: frozenset[str] = frozenset()  # parameter names whose values are sensitive
    conditions: Mapping[str, bool] = field(default_factory=dict)
    members: dict[str, Member] = field(default_factory=dict)
    facade: Mapping[str, Any] = field(default_factory=dict)
    stack_name: str = ""
    stack_id: Any = None
    static_params: Mapping[str, Any] = field(default_factory=dict)  # parameter values known at build time
    member_types: Mapping[str, TypeResolution] = field(default_factory=dict)  # group/stack name -> member type
    sensitive_outputs: set[str] = field(default_factory=set)  # outputs derived from hidden values


def _resolve_member_type(type_name: str, scope: Scope, gname: str = "") -> tuple[str, str | None]:
    """('leaf', provider_type) or ('nested', template_key) for a group member's type."""
    mt = scope.member_types.get(gname)
    if mt is not None:
        if mt.kind == "template" and mt.template_key is not None and mt.template_key in scope.nested:
            return "nested", mt.template_key
        if mt.kind == "none":
            return "leaf", "OS::Heat::None"
        if mt.kind == "builtin":
            return "leaf", mt.type_name
    if type_name in scope.nested:
        return "nested", type_name
    for key in scope.nested:
        if key.endswith("/" + type_name) or type_name.endswith("/" + key):
            return "nested", key
    return "leaf", type_name


def _convert_param(ptype: str, value: Any) -> Any:
    if value is None or contains_unknown(value):
        return value
    try:
        if ptype == "number" and isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                return float(value)
        if ptype == "comma_delimited_list" and isinstance(value, str):
            return [v.strip() for v in value.split(",")] if value else []
        if ptype == "json" and isinstance(value, str):
            return json.loads(value) if value else {}
        if ptype == "boolean" and isinstance(value, str):
            return value.strip().lower() in ("true", "t", "on", "yes", "y", "1")
        if ptype == "string" and not isinstance(value, str):
            return json.dumps(value) if isinstance(value, dict | list) else str(value)
    except ValueError:
        return value
    return value


def _substitute_index(value: Any, var: str, index: str) -> Any:
    if isinstance(value, str):
        return value.replace(var, index)
    if isinstance(value, dict):
        return {k: _substitute_index(v, var, index) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute_index(v, var, index) for v in value]
    return value


class DesiredStack:
    """The expanded desired state of a stack (see the module docstring)."""

    def __init__(self, stack_name: str, lineage: str | None) -> None:
        self.stack_name = stack_name
        self.lineage = lineage
        self.resources: dict[str, DesiredResource] = {}
        self.scopes: dict[str, Scope] = {}
        self.leaves_under: dict[str, list[str]] = {}  # group / nested address -> leaf addresses
        self.diagnostics: list[Diagnostic] = []
        self.outputs: tuple[str, ...] = ()
        self.sensitive_outputs: frozenset[str] = frozenset()
        self.graph: Any = None  # networkx.DiGraph over enabled leaf addresses, dependency -> dependent
        self.order: list[str] = []  # a topological order of ``graph`` (a creation order)

    # ------------------------------------------------------------------------------------------ resolving

    def resolve_properties(
        self, address: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None,
        *, only: frozenset[str] | None = None,
    ) -> dict[str, Any]:
        """The resource's properties evaluated with ``resolver`` (values or Unknowns). ``only``: evaluate just
        these top-level properties when the template writes properties as a map (an optimisation)."""
        res = self.resources.get(address)
        if res is None:
            raise HotcError(f"{address}: no such resource in the desired state")
        memo = {} if memo is None else memo
        scope = self.scopes[res.scope]
        if res.group is not None:
            return self._member_properties(scope, res.name, res.index or 0, resolver, memo)
        member = scope.members[res.name]
        assert member.resource is not None
        if only is not None and isinstance(member.resource.properties, MapExpr):
            ctx = self._ctx(scope, resolver, memo)
            out: dict[str, Any] = {}
            for k, e in member.resource.properties.items:
                if k in only:
                    try:
                        v = evaluate(e, ctx)
                    except EvalError as exc:
                        raise eval_failure(exc) from exc
                    if v is not None:
                        out[k] = v
            return out
        return self._eval_props(scope, member.resource, resolver, memo)

    def resolve_metadata(self, address: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None) -> Any:
        res = self.resources[address]
        memo = {} if memo is None else memo
        scope = self.scopes[res.scope]
        member = scope.members[res.name]
        assert member.resource is not None
        if res.group is not None:
            gprops = self._group_props(scope, member, resolver, memo)
            key = "resource_def" if member.type == "OS::Heat::ResourceGroup" else "resource"
            md = (gprops.get(key) or {}).get("metadata") if isinstance(gprops.get(key), dict) else None
            return md
        if member.resource.metadata is None:
            return None
        return self._eval(scope, member.resource.metadata, resolver, memo)

    def resolve_outputs(self, resolver: AddressResolver, memo: dict[Any, Any] | None = None) -> dict[str, Any]:
        """The root template's outputs (an output whose condition is false is left out)."""
        memo = {} if memo is None else memo
        scope = self.scopes[""]
        return {
            name: self._output(scope, name, resolver, memo)
            for name, out in scope.template.outputs.items()
            if self._output_enabled(scope, out.condition)
        }

    def resolve_outputs_with_errors(
        self, resolver: AddressResolver, memo: dict[Any, Any] | None = None
    ) -> dict[str, tuple[Any, str | None]]:
        """Like :meth:`resolve_outputs`, but an output that cannot be evaluated (e.g. ``get_attr`` on a group
        member that does not exist) gives ``(None, message)`` instead of raising, as Heat stores an output
        error without failing the stack."""
        memo = {} if memo is None else memo
        scope = self.scopes[""]
        out: dict[str, tuple[Any, str | None]] = {}
        for name, o in scope.template.outputs.items():
            try:
                if not self._output_enabled(scope, o.condition):
                    continue
                out[name] = (self._output(scope, name, resolver, memo), None)
            except HotcError as exc:
                out[name] = (None, exc.message)
        return out

    def scoped_resolver(self, scope_prefix: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None) -> ScopedResolver:
        """A name-keyed :class:`~hotc.parser.ir.ResourceResolver` for one (nested) stack."""
        return ScopedResolver(self, self.scopes[scope_prefix], resolver, {} if memo is None else memo)

    def context(self, scope_prefix: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None) -> EvalContext:
        memo = {} if memo is None else memo
        return self._ctx(self.scopes[scope_prefix], resolver, memo)

    # ------------------------------------------------------------------------------------------ internals

    def _ctx(self, scope: Scope, resolver: AddressResolver, memo: dict[Any, Any]) -> EvalContext:
        key = ("ctx", scope.prefix, id(resolver))
        hit = memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        ctx = EvalContext(
            version=scope.template.version,
            parameters=self._params(scope, resolver, memo),
            resolver=ScopedResolver(self, scope, resolver, memo),
            conditions=scope.conditions,
            files=scope.files,
            resource_names=frozenset(scope.template.resources),
            facade=scope.facade,
            template_path=scope.template.path,
        )
        memo[key] = ctx
        return ctx

    def _eval(self, scope: Scope, expr: Expr, resolver: AddressResolver, memo: dict[Any, Any]) -> Any:
        try:
            return evaluate(expr, self._ctx(scope, resolver, memo))
        except EvalError as exc:
            raise eval_failure(exc) from exc

    def _eval_props(self, scope: Scope, resource: Resource, resolver: AddressResolver, memo: dict[Any, Any]) -> dict[str, Any]:
        if resource.properties is None:
            return {}
        value = self._eval(scope, resource.properties, resolver, memo)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise HotcError(f"{resource.pos or scope.template.path}: properties of {join(scope.prefix, resource.name)} must be a map")
        # Heat drops properties whose value resolves to None (the property is then unset: default applies).
        return {k: v for k, v in value.items() if v is not None}

    def _params(self, scope: Scope, resolver: AddressResolver, memo: dict[Any, Any]) -> Mapping[str, Any]:
        if scope.fixed_params is not None:
            return scope.fixed_params
        key = ("params", scope.prefix, id(resolver))
        hit = memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        assert scope.feed is not None
        parent_prefix, rname, index, how = scope.feed
        parent = self.scopes[parent_prefix]
        member = parent.members[rname]
        if index is not None:
            given = self._member_properties(parent, rname, index, resolver, memo)
        else:
            assert member.resource is not None
            given = self._eval_props(parent, member.resource, resolver, memo)
        if how == "stack":
            given = given.get("parameters") or {}
            if not isinstance(given, dict):
                given = {}
        params = self._nested_param_values(scope, given)
        memo[key] = params
        return params

    def _nested_param_values(self, scope: Scope, given: Mapping[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for pname, p in scope.template.parameters.items():
            if pname in given:
                values[pname] = _convert_param(p.type, given[pname])
            elif pname in self._parameter_defaults:
                values[pname] = _convert_param(p.type, self._parameter_defaults[pname])
            elif p.default is not MISSING:
                values[pname] = p.default
            else:
                raise HotcError(
                    f"{p.pos or scope.template.path}: nested stack {scope.prefix}: parameter "
                    f"{pname!r} has no value: the parent resource gives no property {pname!r} and there is no default"
                )
        values["OS::stack_name"] = scope.stack_name
        values["OS::stack_id"] = scope.stack_id
        values["OS::project_id"] = self._project_id
        return values

    _project_id: Any = PROJECT_ID_UNKNOWN
    _parameter_defaults: Mapping[str, Any] = {}  # the environment's parameter_defaults (reach nested stacks)

    def _group_props(self, scope: Scope, member: Member, resolver: AddressResolver, memo: dict[Any, Any]) -> dict[str, Any]:
        key = ("group", scope.prefix, member.name, id(resolver))
        hit = memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        assert member.resource is not None
        props = self._eval_props(scope, member.resource, resolver, memo)
        memo[key] = props
        return props

    def _member_properties(self, scope: Scope, gname: str, index: int, resolver: AddressResolver, memo: dict[Any, Any]) -> dict[str, Any]:
        member = scope.members[gname]
        gprops = self._group_props(scope, member, resolver, memo)
        if member.type == "OS::Heat::ResourceGroup":
            rdef = gprops.get("resource_def") or {}
            props = rdef.get("properties") if isinstance(rdef, dict) else None
            var = gprops.get("index_var", "%index%")
            props = _substitute_index(props or {}, var if isinstance(var, str) else "%index%", str(index))
        else:
            rdef = gprops.get("resource") or {}
            props = rdef.get("properties") if isinstance(rdef, dict) else None
        if not isinstance(props, dict):
            return {}
        return {k: v for k, v in props.items() if v is not None}

    def _output_enabled(self, scope: Scope, cond: Expr | None) -> bool:
        if cond is None:
            return True
        return _condition_value(cond, scope, self)

    def _output(self, scope: Scope, name: str, resolver: AddressResolver, memo: dict[Any, Any]) -> Any:
        out = scope.template.outputs.get(name)
        if out is None or out.value is None:
            return None
        if not self._output_enabled(scope, out.condition):
            return None
        key = ("output", scope.prefix, name, id(resolver))
        if key in memo:
            return memo[key]
        value = self._eval(scope, out.value, resolver, memo)
        memo[key] = value
        return value

    def stack_id_of(self, address: str) -> Any:
        """The id a group or nested stack answers to ``get_resource`` (stable per lineage and address)."""
        if self.lineage is None:
            return Unknown.of(address)
        return str(uuid.uuid5(NAMESPACE, f"{self.lineage}/{address}"))


PENDING_STACK_ID = "00000000-0000-4000-8000-000000000000"
_IDENTITY = frozenset({"OS::stack_id", "OS::project_id"})


def condition_params(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """Parameters as conditions see them. A stack or project id not known yet (a stack being created) is some
    UUID: conditions can only test whether it is set (``equals: [{get_param: root_stack_id}, ""]`` in a nested
    template fed ``OS::stack_id``), so a placeholder UUID stands in for it there, and only there."""
    if not any(isinstance(v, Unknown) for v in params.values()):
        return params
    out = dict(params)
    for k, v in params.items():
        if isinstance(v, Unknown) and v.waits_on and all(w.address in _IDENTITY for w in v.waits_on):
            out[k] = PENDING_STACK_ID
    return out


def _condition_value(cond: Expr, scope: Scope, desired: DesiredStack | None = None) -> bool:
    if isinstance(cond, Literal):
        if isinstance(cond.value, bool):
            return cond.value
        if isinstance(cond.value, str):
            if cond.value in scope.conditions:
                return scope.conditions[cond.value]
            raise HotcError(f"{cond.pos or scope.template.path}: condition {cond.value!r} is not defined")
    ctx = EvalContext(
        version=scope.template.version,
        parameters=condition_params(scope.fixed_params if scope.fixed_params is not None else scope.static_params),
        resolver=_NoResources(),
        conditions=scope.conditions,
        files=scope.files,
    )
    try:
        value = evaluate_condition(cond, ctx)
    except EvalError as exc:
        raise eval_failure(exc) from exc
    if isinstance(value, Unknown):
        raise HotcError(f"{cond.pos or scope.template.path}: a condition depends on a value known only after apply")
    return bool(value)


def eval_failure(exc: EvalError) -> HotcError:
    """An evaluation error as a HotcError: the positioned diagnostic carries the details (the CLI prints it
    first), the message says what could not be done."""
    return HotcError(f"the template cannot be evaluated for planning: {exc.diagnostic.message}",
                     diagnostics=(exc.diagnostic,))


class _NoResources:
    def resource_id(self, name: str) -> Any:
        return Unknown.of(name)

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        return Unknown.of(name, (attribute, *path))


class ScopedResolver:
    """A :class:`~hotc.parser.ir.ResourceResolver` for one scope: template names -> addresses; leaves are
    asked to the address resolver; groups and nested stacks are answered from their members."""

    def __init__(self, desired: DesiredStack, scope: Scope, base: AddressResolver, memo: dict[Any, Any]) -> None:
        self.desired = desired
        self.scope = scope
        self.base = base
        self.memo = memo

    def resource_id(self, name: str) -> Any:
        m = self.scope.members.get(name)
        if m is None:
            return Unknown.of(join(self.scope.prefix, name))
        if m.kind == "leaf":
            return self.base.resource_id(m.address)
        if m.kind == "disabled":
            return None
        return self.desired.stack_id_of(m.address)

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        m = self.scope.members.get(name)
        if m is None:
            return Unknown.of(join(self.scope.prefix, name), (attribute, *path))
        if m.kind == "leaf":
            return self.base.resource_attr(m.address, attribute, tuple(path))
        if m.kind == "disabled":
            return None
        if m.kind == "nested":
            return self._nested_attr(m.address, m.type, attribute, tuple(path))
        return self._group_attr(m, attribute, tuple(path))

    # nested stacks: outputs
    def _nested_attr(self, address: str, type_name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        child = self.desired.scopes[address]
        d = self.desired

        def unknown() -> Unknown:
            return Unknown.of(address, (attribute, *path))

        if attribute == "OS::stack_id":
            return index_path(d.stack_id_of(address), path, unknown)
        if attribute == "":
            outs = {n: d._output(child, n, self.base, self.memo) for n in child.template.outputs}
            return index_path(outs, path, unknown)
        if type_name == STACK_TYPE and attribute == "outputs":
            outs = {n: d._output(child, n, self.base, self.memo) for n in child.template.outputs}
            return index_path(outs, path, unknown)
        if type_name == STACK_TYPE and attribute == "stack_name":
            return child.stack_name
        if attribute not in child.template.outputs:
            raise HotcError(f"get_attr: the nested stack {address} has no output {attribute!r}")
        return index_path(d._output(child, attribute, self.base, self.memo), path, unknown)

    def _member_attr(self, m: Member, i: int, attribute: str, path: tuple[Any, ...]) -> Any:
        addr = m.member_addresses[i]
        if m.member_nested:
            return self._nested_attr(addr, m.member_type, attribute, path)
        return self.base.resource_attr(addr, attribute, path)

    def _member_id(self, m: Member, i: int) -> Any:
        addr = m.member_addresses[i]
        if m.member_nested:
            return self.desired.stack_id_of(addr)
        return self.base.resource_id(addr)

    def _group_attr(self, m: Member, attribute: str, path: tuple[Any, ...]) -> Any:
        n = len(m.member_addresses)
        idx = m.member_indexes

        def unknown() -> Unknown:
            return Unknown.of(m.address, (attribute, *path))

        if attribute == "refs":
            return index_path([self._member_id(m, i) for i in range(n)], path, unknown)
        if attribute == "refs_map":
            return index_path({str(idx[i]): self._member_id(m, i) for i in range(n)}, path, unknown)
        if attribute == "removed_rsrc_list":
            return []
        if attribute == "current_size":
            return n
        if attribute.startswith("resource."):
            parts = attribute.split(".", 2)
            try:
                pos = idx.index(int(parts[1]))
            except ValueError as exc:
                raise HotcError(f"get_attr: the group {m.address} has no member {parts[1]!r}") from exc
            if len(parts) == 3:
                return self._member_attr(m, pos, parts[2], path)
            if not path:
                return self._member_id(m, pos)
            return self._member_attr(m, pos, str(path[0]), tuple(path[1:]))
        if attribute in ("attributes", "outputs"):
            if not path:
                raise HotcError(f"get_attr: {m.address} {attribute} needs an attribute name")
            key_of = (lambda i: str(idx[i])) if attribute == "attributes" else (lambda i: self._member_id(m, i))
            values = {}
            for i in range(n):
                k = key_of(i)
                values[k if isinstance(k, str) else repr(k)] = self._member_attr(m, i, str(path[0]), tuple(path[1:]))
            return values
        if attribute == "outputs_list":
            if not path:
                raise HotcError(f"get_attr: {m.address} outputs_list needs an attribute name")
            return [self._member_attr(m, i, str(path[0]), tuple(path[1:])) for i in range(n)]
        if attribute == "":
            return {"refs": [self._member_id(m, i) for i in range(n)]}
        # any other attribute: the list of that attribute over the members
        return [self._member_attr(m, i, attribute, path) for i in range(n)]


# ---------------------------------------------------------------------------------------------- building


def _ref_names(exprs: Iterable[Expr | None]) -> tuple[set[str], set[str]]:
    resources: set[str] = set()
    params: set[str] = set()
    for e in exprs:
        if e is None:
            continue
        for kind, name, _pos in references(e):
            if kind == "resource":
                resources.add(name)
            elif kind == "param":
                params.add(name)
    return resources, params


def _prop_exprs(resource: Resource) -> list[tuple[str, Expr]]:
    if isinstance(resource.properties, MapExpr):
        return list(resource.properties.items)
    return []


class _Builder:
    def __init__(self, loaded: LoadedStack, desired: DesiredStack, state_members: Mapping[str, list[int]]) -> None:
        self.loaded = loaded
        self.d = desired
        self.state_members = state_members  # group address -> indexes present in state
        self.state_ids: dict[str, str] = {}  # physical id -> address, from the state
        self.static = UnknownResolver()
        self.memo: dict[Any, Any] = {}
        self.explicit: dict[str, set[str]] = {}  # leaf address -> addresses (possibly group/nested) it needs

    # parameters / conditions ------------------------------------------------------------------------
    def root_scope(self) -> Scope:
        loaded = self.loaded
        t = loaded.template
        params = dict(loaded.parameter_values)
        root_id: Any = self.d.lineage if self.d.lineage is not None else Unknown.of("OS::stack_id")
        params["OS::stack_name"] = self.d.stack_name
        params["OS::stack_id"] = root_id
        params["OS::project_id"] = self.d._project_id
        hidden = set(loaded.hidden_parameters) | {n for n, p in t.parameters.items() if p.hidden}
        return Scope(
            prefix="",
            template=t,
            types=loaded.types,
            files=loaded.files,
            nested=loaded.nested,
            fixed_params=params,
            hidden=frozenset(hidden),
            member_types=loaded.member_types,
            stack_name=self.d.stack_name,
            stack_id=root_id,
        )

    def eval_conditions(self, scope: Scope, params: Mapping[str, Any]) -> dict[str, bool]:
        t = scope.template
        params = condition_params(params)
        done: dict[str, bool] = {}
        pending = dict(t.conditions)
        # conditions may name each other: evaluate in dependency order
        while pending:
            progressed = False
            for name, cond in list(pending.items()):
                ctx = EvalContext(version=t.version, parameters=params, resolver=_NoResources(), conditions=done, files=scope.files)
                try:
                    value = evaluate_condition(cond.expr, ctx)
                except EvalError as exc:
                    if any(n in pending and n != name for n in _condition_names(cond.expr)):
                        continue
                    raise eval_failure(exc) from exc
                except KeyError:
                    continue
                if isinstance(value, Unknown):
                    raise HotcError(
                        f"{cond.pos or t.path}: condition {name!r} depends on a value known only after apply"
                    )
                done[name] = bool(value)
                del pending[name]
                progressed = True
            if not progressed:
                names = ", ".join(sorted(pending))
                raise HotcError(f"{t.path}: conditions refer to each other in a cycle: {names}")
        return done

    # walking ------------------------------------------------------------------------------------------
    def build_scope(self, scope: Scope, params: Mapping[str, Any], inherited: frozenset[str]) -> None:
        """Expand one scope. ``inherited``: addresses every leaf inside must depend on (the container's
        references and depends_on), ``params``: parameter values known at build time (may hold Unknown)."""
        d = self.d
        d.scopes[scope.prefix] = scope
        scope.static_params = params
        scope.conditions = self.eval_conditions(scope, params)
        t = scope.template
        static = self.static  # one build-time resolver and memo for every scope (memo keys name the scope)
        memo = self.memo
        # pass 1: decide what each name is (so references across the scope can be expanded)
        for name, res in t.resources.items():
            address = join(scope.prefix, name)
            enabled = True if res.condition is None else _condition_value(res.condition, scope, d)
            resolution = scope.types.get(name) or TypeResolution("builtin", res.type)
            if not enabled:
                scope.members[name] = Member(name, "disabled", address, resolution.type_name or res.type, res)
                continue
            stack_mt = scope.member_types.get(name) if res.type == STACK_TYPE or resolution.type_name == STACK_TYPE else None
            if stack_mt is not None and stack_mt.kind == "template" and stack_mt.template_key in scope.nested:
                scope.members[name] = Member(name, "nested", address, STACK_TYPE, res)
            elif resolution.kind == "template" or (
                resolution.template_key is not None and resolution.template_key in scope.nested
            ):
                scope.members[name] = Member(name, "nested", address, resolution.type_name or res.type, res)
            elif resolution.type_name in GROUP_TYPES or res.type in GROUP_TYPES:
                scope.members[name] = Member(name, "group", address, resolution.type_name or res.type, res)
            else:
                tname = resolution.type_name or res.type
                if resolution.kind == "none":
                    tname = "OS::Heat::None"
                scope.members[name] = Member(name, "leaf", address, tname, res)
        # references, computed once per property expression
        key_refs: dict[str, list[tuple[str, set[str], set[str]]]] = {}
        for name, m in scope.members.items():
            if m.resource is None:
                continue
            if isinstance(m.resource.properties, MapExpr):
                key_refs[name] = [(key, *_ref_names([expr])) for key, expr in m.resource.properties.items]
            elif m.resource.properties is not None:
                key_refs[name] = [("*", *_ref_names([m.resource.properties]))]
            else:
                key_refs[name] = []
        # sensitivity: properties fed by hidden parameters, and (transitively) by get_attr on an OS::Heat::Value
        # holding a sensitive value
        prop_sensitive: dict[str, set[str]] = {
            name: {key for key, _rs, ps in refs if ps & scope.hidden} for name, refs in key_refs.items()
        }
        referrers: dict[str, list[str]] = {}
        for name, refs in key_refs.items():
            for _key, rs, _ps in refs:
                for r in rs:
                    referrers.setdefault(r, []).append(name)
        sensitive_members: set[str] = set()
        work = [n for n, keys in prop_sensitive.items() if keys and scope.members[n].type == "OS::Heat::Value"]
        while work:
            n = work.pop()
            if n in sensitive_members:
                continue
            sensitive_members.add(n)
            for user in referrers.get(n, ()):
                keys = {key for key, rs, _ps in key_refs[user] if n in rs}
                if not keys <= prop_sensitive[user]:
                    prop_sensitive[user] |= keys
                    if scope.members[user].type == "OS::Heat::Value":
                        work.append(user)
        for name in sensitive_members:
            scope.members[name] = _replace_member(scope.members[name], sensitive=True)

        # pass 2: expand
        for name, m in list(scope.members.items()):
            res_or_none = m.resource
            assert res_or_none is not None
            res = res_or_none
            dpol = self._deletion_policy(scope, res, static, memo)
            if m.kind == "disabled":
                d.resources[m.address] = DesiredResource(
                    address=m.address, type=m.type, deletion_policy=dpol, condition_enabled=False,
                    name=name, scope=scope.prefix, pos=res.pos,
                )
                continue
            ref_set = {r for _k, rs, _ps in key_refs.get(name, ()) for r in rs}
            if res.metadata is not None:
                ref_set |= _ref_names([res.metadata])[0]
            needs = {scope.members[r].address for r in ref_set if r in scope.members and r != name}
            needs |= {scope.members[r.name].address for r in res.depends_on if r.name in scope.members}
            needs |= inherited
            if m.kind == "leaf":
                ext = self._external_id(scope, res, static, memo)
                d.resources[m.address] = DesiredResource(
                    address=m.address, type=m.type, deletion_policy="Retain" if ext is not None else dpol, name=name,
                    scope=scope.prefix, pos=res.pos, sensitive_paths=tuple(sorted(prop_sensitive.get(name, ()))),
                    has_metadata=res.metadata is not None, external_id=ext,
                )
                self.explicit[m.address] = needs
            elif m.kind == "nested":
                self._expand_nested(scope, m, static, memo, frozenset(needs), tuple(sorted(prop_sensitive.get(name, ()))))
            else:
                self._expand_group(scope, m, static, memo, frozenset(needs), dpol, tuple(sorted(prop_sensitive.get(name, ()))))

        # nested stacks (and groups of them) whose outputs carry hidden values: what reads them is sensitive too
        seeds = [n for n, m in scope.members.items() if m.kind in ("nested", "group") and self._child_sensitive(m)]
        work = list(seeds)
        done: set[str] = set()
        while work:
            n = work.pop()
            if n in done:
                continue
            done.add(n)
            scope.members[n] = _replace_member(scope.members[n], sensitive=True)
            for user in referrers.get(n, ()):
                keys = {key for key, rs, _ps in key_refs[user] if n in rs}
                if keys <= prop_sensitive[user]:
                    continue
                prop_sensitive[user] |= keys
                um = scope.members[user]
                if um.kind == "leaf" and um.address in d.resources:
                    # still private to the builder: update in place
                    object.__setattr__(d.resources[um.address], "sensitive_paths", tuple(sorted(prop_sensitive[user])))
                if um.type == "OS::Heat::Value":
                    work.append(user)
        # this stack's outputs derived from hidden values (read by the parent's get_attr)
        for oname, out in t.outputs.items():
            if out.value is None:
                continue
            rs, ps = _ref_names([out.value])
            if ps & scope.hidden or any(scope.members.get(r) is not None and scope.members[r].sensitive for r in rs):
                scope.sensitive_outputs.add(oname)

    def _child_sensitive(self, m: Member) -> bool:
        if m.kind == "nested":
            child = self.d.scopes.get(m.address)
            return bool(child is not None and child.sensitive_outputs)
        if m.member_nested:
            return any(bool(self.d.scopes[a].sensitive_outputs) for a in m.member_addresses if a in self.d.scopes)
        return False

    def _external_id(self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]) -> str | None:
        if res.external_id is None:
            return None
        value = self.d._eval(scope, res.external_id, static, memo)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise HotcError(f"{res.pos or scope.template.path}: external_id of {res.name} must be a string "
                            f"known at plan time, not {value!r}")
        return value

    def _deletion_policy(self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]) -> str:
        if res.deletion_policy is None:
            return "Delete"
        if isinstance(res.deletion_policy, Literal):
            value = res.deletion_policy.value
        else:
            value = self.d._eval(scope, res.deletion_policy, static, memo)
        if not isinstance(value, str) or value.capitalize() not in ("Delete", "Retain", "Snapshot"):
            raise HotcError(f"{res.pos or scope.template.path}: deletion_policy of {res.name} must be Delete, Retain or Snapshot, not {value!r}")
        return value.capitalize()

    def _child_scope(self, parent: Scope, address: str, key: str, feed: tuple[str, str, int | None, str], hidden_from_parent: bool) -> Scope:
        nt = parent.nested.get(key)
        if nt is None:
            raise HotcError(f"{address}: the nested template {key!r} was not loaded")
        hidden = {n for n, p in nt.template.parameters.items() if p.hidden}
        if hidden_from_parent:
            hidden |= set(nt.template.parameters)
        return Scope(
            prefix=address,
            template=nt.template,
            types=nt.types,
            files=nt.files,
            nested=nt.nested,
            fixed_params=None,
            feed=feed,
            hidden=frozenset(hidden),
            member_types=nt.member_types,
            stack_name=f"{self.d.stack_name}-{address}",
            stack_id=self.d.stack_id_of(address),
        )

    def _expand_nested(self, scope: Scope, m: Member, static: UnknownResolver, memo: dict[Any, Any],
                       needs: frozenset[str], sensitive: tuple[str, ...]) -> None:
        res = m.resource
        assert res is not None
        resolution = scope.types.get(m.name) or TypeResolution("template", res.type, res.type)
        how = "stack" if (resolution.type_name == STACK_TYPE or res.type == STACK_TYPE) else "props"
        if how == "stack":
            resolution = scope.member_types[m.name]
        key = resolution.template_key or res.type
        child = self._child_scope(scope, m.address, key, (scope.prefix, m.name, None, how), bool(sensitive))
        scope.members[m.name] = _replace_member(m, type=STACK_TYPE if how == "stack" else key)
        child.facade = self._facade(scope, res, static, memo)
        self.d.scopes[child.prefix] = child
        params = self.d._params(child, static, memo)
        self.build_scope(child, params, needs)

    def _facade(self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]) -> dict[str, Any]:
        md = self.d._eval(scope, res.metadata, static, memo) if res.metadata is not None else {}
        up = self.d._eval(scope, res.update_policy, static, memo) if res.update_policy is not None else {}
        return {"metadata": md or {}, "deletion_policy": self._deletion_policy(scope, res, static, memo), "update_policy": up or {}}

    def _expand_group(self, scope: Scope, m: Member, static: UnknownResolver, memo: dict[Any, Any],
                      needs: frozenset[str], dpol: str, sensitive: tuple[str, ...]) -> None:
        res = m.resource
        assert res is not None
        props = self.d._eval_props(scope, res, static, memo)
        where = res.pos or scope.template.path
        if m.type == "OS::Heat::ResourceGroup":
            count = props.get("count", 1)
            rdef = props.get("resource_def")
            if isinstance(count, Unknown):
                raise HotcError(f"{where}: {m.address}: count must be known at plan time, but it depends on {count!r}")
            try:
                count = int(count)
            except (TypeError, ValueError) as exc:
                raise HotcError(f"{where}: {m.address}: count must be an integer, not {count!r}") from exc
            skip = self._removed(props, m.address)
            indexes: list[int] = []
            i = 0
            while len(indexes) < count:
                if i not in skip:
                    indexes.append(i)
                i += 1
        else:
            rdef = props.get("resource")
            cap = props.get("desired_capacity")
            lo, hi = props.get("min_size", 0), props.get("max_size", 0)
            for label, v in (("desired_capacity", cap), ("min_size", lo), ("max_size", hi)):
                if isinstance(v, Unknown):
                    raise HotcError(f"{where}: {m.address}: {label} must be known at plan time")
            try:
                lo_i, hi_i = int(lo or 0), int(hi or 0)
                if cap is not None:
                    n = int(cap)
                else:
                    current = len(self.state_members.get(m.address, []))
                    n = min(max(current, lo_i), hi_i) if current else lo_i
            except (TypeError, ValueError) as exc:
                raise HotcError(f"{where}: {m.address}: sizes must be integers") from exc
            indexes = list(range(n))
        if not isinstance(rdef, dict) or not isinstance(rdef.get("type"), str):
            what = "resource_def" if m.type == "OS::Heat::ResourceGroup" else "resource"
            raise HotcError(f"{where}: {m.address}: {what} must be a map with a 'type'")
        kind, key = _resolve_member_type(rdef["type"], scope, m.name)
        mtype = key if kind == "leaf" and key else rdef["type"]
        addresses = tuple(f"{m.address}[{i}]" for i in indexes)
        member = _replace_member(m, member_addresses=addresses, member_indexes=tuple(indexes),
                                 member_nested=kind == "nested", member_type=key or mtype)
        scope.members[m.name] = member
        leaves: list[str] = []
        for pos_i, (i, addr) in enumerate(zip(indexes, addresses, strict=True)):
            del pos_i
            if kind == "nested":
                assert key is not None
                child = self._child_scope(scope, addr, key, (scope.prefix, m.name, i, "props"), bool(sensitive))
                child.facade = {"metadata": rdef.get("metadata") or {}, "deletion_policy": dpol, "update_policy": {}}
                self.d.scopes[child.prefix] = child
                params = self.d._params(child, static, memo)
                self.build_scope(child, params, needs)
                leaves.extend(self.d.leaves_under.get(addr, []))
            else:
                self.d.resources[addr] = DesiredResource(
                    address=addr, type=mtype, deletion_policy=dpol, name=m.name, scope=scope.prefix,
                    group=m.address, index=i, pos=res.pos, sensitive_paths=tuple(sensitive) and ("*",),
                    has_metadata="metadata" in rdef,
                )
                self.explicit[addr] = set(needs)
                leaves.append(addr)

    def _removed(self, props: Mapping[str, Any], address: str) -> set[int]:
        skip: set[int] = set()
        for pol in props.get("removal_policies") or []:
            if not isinstance(pol, dict):
                continue
            for item in pol.get("resource_list") or []:
                if isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
                    skip.add(int(item))
                elif isinstance(item, str):
                    # a member's physical id (Heat accepts names or refs)
                    member = self.state_ids.get(item)
                    if member is not None and member.startswith(address + "["):
                        tail = member[len(address) + 1 :]
                        idx = tail[: tail.index("]")]
                        if idx.isdigit():
                            skip.add(int(idx))
        return skip


def _condition_names(expr: Expr) -> list[str]:
    return [name for kind, name, _ in references(expr) if kind == "condition"]


def _replace_member(m: Member, **changes: Any) -> Member:
    from dataclasses import replace

    return replace(m, **changes)


def _collect_leaves(d: DesiredStack) -> None:
    """leaves_under[address of any group/nested/leaf] -> leaf addresses inside (itself for a leaf)."""
    out: dict[str, list[str]] = {}
    for addr, r in d.resources.items():
        if not r.condition_enabled:
            continue
        out.setdefault(addr, []).append(addr)
        # every proper prefix that is a container: "a", "a.b[2]", "a.b" (group of a member), …
        prefix = r.scope
        if r.group is not None:
            out.setdefault(r.group, []).append(addr)
        while prefix:
            out.setdefault(prefix, []).append(addr)
            # a member address "x[3]" is inside the group "x"
            if prefix.endswith("]") and "[" in prefix:
                out.setdefault(prefix[: prefix.rindex("[")], []).append(addr)
            cut = _parent_prefix(prefix)
            prefix = cut
    d.leaves_under = out


def _parent_prefix(prefix: str) -> str:
    depth = 0
    for i in range(len(prefix) - 1, -1, -1):
        c = prefix[i]
        if c == "]":
            depth += 1
        elif c == "[":
            depth -= 1
        elif c == "." and depth == 0:
            return prefix[:i]
    return ""


def build_desired(
    loaded: LoadedStack,
    stack_name: str,
    lineage: str | None,
    *,
    project_id: str | None = None,
    state: Any = None,
) -> DesiredStack:
    """Expand ``loaded`` into a :class:`DesiredStack`. ``state`` (a StackState, optional) is only used for an
    AutoScalingGroup's current size when it sets no desired_capacity. Raises HotcError on a bad template
    (count not known at plan time, a dependency cycle, …)."""
    with gc_paused():
        return _build_desired(loaded, stack_name, lineage, project_id, state)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for one planning step: the step allocates many small objects that
    live until it ends, and repeated full collections over a large heap make it quadratic. The previous setting
    is restored on exit."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _build_desired(loaded: LoadedStack, stack_name: str, lineage: str | None, project_id: str | None, state: Any) -> DesiredStack:
    from hotc.planner.graph import add_dependencies

    d = DesiredStack(stack_name, lineage)
    if project_id is not None:
        d._project_id = project_id
    env = loaded.environment
    if env is not None and isinstance(getattr(env, "parameter_defaults", None), Mapping):
        d._parameter_defaults = dict(env.parameter_defaults)
    state_members: dict[str, list[int]] = {}
    if state is not None:
        for addr in state.resources:
            if addr.endswith("]") and "[" in addr:
                head = addr[: addr.rindex("[")]
                try:
                    state_members.setdefault(head, []).append(int(addr[addr.rindex("[") + 1 : -1]))
                except ValueError:
                    pass
            # members that are nested stacks: "g[2].x"
            for part_end in [i for i, c in enumerate(addr) if c == "]"]:
                head_full = addr[: part_end + 1]
                if head_full != addr and "[" in head_full:
                    g = head_full[: head_full.rindex("[")]
                    try:
                        idx = int(head_full[head_full.rindex("[") + 1 : -1])
                    except ValueError:
                        continue
                    lst = state_members.setdefault(g, [])
                    if idx not in lst:
                        lst.append(idx)
    b = _Builder(loaded, d, state_members)
    if state is not None:
        b.state_ids = {rs.physical_id: addr for addr, rs in state.resources.items() if rs.physical_id}
    root = b.root_scope()
    b.build_scope(root, root.fixed_params or {}, frozenset())
    _collect_leaves(d)
    t = loaded.template
    d.outputs = tuple(t.outputs)
    d.sensitive_outputs = frozenset(root.sensitive_outputs)
    add_dependencies(d, b.explicit)
    return d


__all__ = ["DesiredResource", "DesiredStack", "Member", "Scope", "ScopedResolver", "build_desired", "error"]
