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

import json
import uuid
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hotc.errors import Diagnostic, HotcError, Pos, error
from hotc.model import model
from hotc.parser.api import (
    MISSING,
    EvalContext,
    EvalError,
    Expr,
    FunctionCall,
    ListExpr,
    Literal,
    MapExpr,
    NestedTemplate,
    Resource,
    Template,
    TypeResolution,
    evaluate,
    evaluate_condition,
    functions,
    gc_paused,
    subexpressions,
)
from hotc.planner.resolve import AddressResolver, index_path
from hotc.values import Unknown, WaitsOn, contains_unknown

NONE_TYPE = "OS::Heat::None"

GROUP_TYPES = ("OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup")
STACK_TYPE = "OS::Heat::Stack"
#: The output of a template resource's template that stands for its reference id (Heat's STACK_ID_OUTPUT).
STACK_ID_OUTPUT = "OS::stack_id"
NAMESPACE = uuid.UUID("6f1c2a7e-5b0e-4c52-9a47-0d1f3f2b9c11")
PROJECT_ID_UNKNOWN = Unknown(frozenset({WaitsOn("OS::project_id")}))


def join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


@model(slots=True)
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
    # a group member beyond the group's size, created and deleted by the group's rolling update only
    # (Heat's ResourceGroup does this to keep min_in_service members in service); not a member of the group
    temporary: bool = False
    # the evaluated update_policy of a type whose driver runs batches itself (deployment groups); None: none
    update_policy: Mapping[str, Any] | None = None
    # the type the template declares when the environment's registry maps it to another (an alias:
    # ``My::TestResource`` -> ``OS::Heat::RandomString``); Heat lists the resource under this one
    declared_type: str | None = None


@model(slots=True)
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
    # group: its update policy with Heat's defaults ({"rolling_update": {...}, "batch_create": {...}} for a
    # ResourceGroup, {"rolling_updates": {...}} for an AutoScalingGroup); see hotc.planner.rollout
    policy: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    temporary_addresses: tuple[str, ...] = ()  # group: members its rolling update may create for a while
    # AutoScalingGroup: min_size, max_size, cooldown, current (size before this plan), properties_digest
    scaling: Mapping[str, Any] = field(default_factory=dict)
    skipped: tuple[int, ...] = ()  # ResourceGroup: indexes removal_policies took out (never reused)


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
    member_types: Mapping[str, TypeResolution] = field(
        default_factory=dict
    )  # group/stack name -> member type
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
        self.graph: Any = (
            None  # hotc.planner.digraph.DiGraph over enabled leaf addresses, dependency -> dependent
        )
        self.order: list[str] = []  # a topological order of ``graph`` (a creation order)
        # properties evaluated with every resource value Unknown (UnknownResolver) while the implicit edges were
        # found (hotc.planner.graph): a plan from an empty state, whose resolver answers exactly the same, takes
        # them instead of evaluating each property a second time (hotc.planner.make pops or drops them)
        self.static_properties: dict[str, dict[str, Any]] = {}
        self.registry: Any = (
            None  # the root environment's resource_registry (hotc.parser.environment.Registry)
        )

    # ------------------------------------------------------------------------------------------ resolving

    def resolve_properties(
        self,
        address: str,
        resolver: AddressResolver,
        memo: dict[Any, Any] | None = None,
        *,
        only: frozenset[str] | None = None,
    ) -> dict[str, Any]:
        """The resource's properties evaluated with ``resolver`` (values or Unknowns). ``only``: evaluate just
        these top-level properties when the template writes properties as a map (an optimisation)."""
        res = self.resources.get(address)
        if res is None:
            raise HotcError(f"{address}: no such resource in the desired state")
        memo = Memo() if memo is None else memo
        scope = self.scopes[res.scope]
        if res.group is not None:
            return self._member_properties(scope, res.name, res.index or 0, resolver, memo)
        member = scope.members[res.name]
        assert member.resource is not None
        if member.kind == "leaf" and member.type == NONE_TYPE:
            return {}  # Heat discards an OS::Heat::None's properties unevaluated
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

    def id_only_parents(self, address: str) -> frozenset[str]:
        """The addresses of the leaf resources of its own stack that the resource at ``address`` needs only the
        id of: every reference its template makes to them is a ``get_resource`` (no ``get_attr``, no
        ``depends_on``, no ``Ref``). Its create may start as soon as such a resource exists, before that
        resource's create has ended. Empty for a group member, and when a reference names its resource with
        a function (which one it is depends on values)."""
        res = self.resources.get(address)
        if res is None or res.group is not None or not res.condition_enabled:
            return frozenset()
        scope = self.scopes.get(res.scope)
        member = scope.members.get(res.name) if scope is not None else None
        if scope is None or member is None or member.kind != "leaf" or member.resource is None:
            return frozenset()
        r = member.resource
        ids: set[str] = set()
        others: set[str] = {dep.name for dep in r.depends_on}
        for part in (
            r.properties,
            r.metadata,
            r.update_policy,
            r.deletion_policy,
            r.external_id,
            r.condition,
        ):
            for e in subexpressions(part):
                if isinstance(e, functions.GetResource | functions.GetAttr | functions.Ref):
                    target = e.target if isinstance(e, functions.Ref) else e.resource
                    if not (isinstance(target, Literal) and isinstance(target.value, str)):
                        return frozenset()  # a computed name: which resource it is depends on values
                    (ids if isinstance(e, functions.GetResource) else others).add(target.value)
        out = set()
        for name in ids - others:
            m = scope.members.get(name)
            if m is not None and m.kind == "leaf" and name != res.name:
                out.add(m.address)
        return frozenset(out)

    def resolve_metadata(
        self, address: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None
    ) -> Any:
        res = self.resources[address]
        memo = Memo() if memo is None else memo
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

    def resolve_outputs(
        self, resolver: AddressResolver, memo: dict[Any, Any] | None = None
    ) -> dict[str, Any]:
        """The root template's outputs. An output whose condition is false is listed with the value None, as
        Heat's output list and show give it. Raises HotcError when an output cannot be evaluated (see
        :meth:`resolve_outputs_with_errors` for each output on its own)."""
        memo = Memo() if memo is None else memo
        scope = self.scopes[""]
        return {
            name: self._output(scope, name, resolver, memo)
            if self._output_enabled(scope, out.condition)
            else None
            for name, out in scope.template.outputs.items()
        }

    def resolve_outputs_with_errors(
        self, resolver: AddressResolver, memo: dict[Any, Any] | None = None
    ) -> dict[str, tuple[Any, str | None]]:
        """Each output evaluated on its own, as Heat's ``heat.engine.output`` does: one that cannot be evaluated
        (``get_attr`` on a group member that does not exist, a function given the wrong kind of value) gives
        ``(None, message)`` and the others still resolve; an output whose condition is false gives
        ``(None, None)`` (Heat lists it with a null value)."""
        memo = Memo() if memo is None else memo
        scope = self.scopes[""]
        out: dict[str, tuple[Any, str | None]] = {}
        for name, o in scope.template.outputs.items():
            try:
                if not self._output_enabled(scope, o.condition):
                    out[name] = (None, None)
                    continue
                out[name] = (self._output(scope, name, resolver, memo), None)
            except HotcError as exc:
                out[name] = (None, output_error(exc))
        return out

    def context(
        self, scope_prefix: str, resolver: AddressResolver, memo: dict[Any, Any] | None = None
    ) -> EvalContext:
        memo = Memo() if memo is None else memo
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

    def _eval_props(
        self, scope: Scope, resource: Resource, resolver: AddressResolver, memo: dict[Any, Any]
    ) -> dict[str, Any]:
        if resource.properties is None:
            return {}
        value = self._eval(scope, resource.properties, resolver, memo)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise HotcError(
                f"{resource.pos or scope.template.path}: properties of {join(scope.prefix, resource.name)} must be a map"
            )
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

    def _group_props(
        self, scope: Scope, member: Member, resolver: AddressResolver, memo: dict[Any, Any]
    ) -> dict[str, Any]:
        key = ("group", scope.prefix, member.name, id(resolver))
        hit = memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        assert member.resource is not None
        props = self._eval_props(scope, member.resource, resolver, memo)
        memo[key] = props
        return props

    def _member_properties(
        self, scope: Scope, gname: str, index: int, resolver: AddressResolver, memo: dict[Any, Any]
    ) -> dict[str, Any]:
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
        if out.value_error is not None:
            raise HotcError(
                out.value_error, diagnostics=(error(out.value_error, out.value.pos or out.pos, code="eval"),)
            )
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
        parameters=condition_params(
            scope.fixed_params if scope.fixed_params is not None else scope.static_params
        ),
        resolver=_NoResources(),
        conditions=scope.conditions,
        files=scope.files,
    )
    try:
        value = evaluate_condition(cond, ctx)
    except EvalError as exc:
        raise eval_failure(exc) from exc
    if isinstance(value, Unknown):
        raise HotcError(
            f"{cond.pos or scope.template.path}: a condition depends on a value known only after apply"
        )
    return bool(value)


def output_error(exc: HotcError) -> str:
    """The message an output that cannot be evaluated carries (Heat's output error): what went wrong, where in
    the template, without the planner's "cannot be evaluated for planning" framing."""
    if exc.diagnostics:
        d = exc.diagnostics[0]
        return f"{d.message} ({d.pos})" if d.pos is not None else d.message
    return exc.message


def eval_failure(exc: EvalError) -> HotcError:
    """An evaluation error as a HotcError: the positioned diagnostic carries the details (the CLI prints it
    first), the message says what could not be done."""
    pos = exc.diagnostic.pos
    return HotcError(
        f"{pos}: the template cannot be evaluated for planning: {exc.diagnostic.message}"
        if pos is not None
        else f"the template cannot be evaluated for planning: {exc.diagnostic.message}",
        diagnostics=(exc.diagnostic,),
    )


class _NoResources:
    def resource_id(self, name: str) -> Any:
        return Unknown.of(name)

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        return Unknown.of(name, (attribute, *path))


class Memo(dict[Any, Any]):
    """A memo of evaluations (what the ``memo`` arguments take) that can be referred to weakly.

    The evaluation context a memo caches holds a :class:`ScopedResolver`, which needs the memo again: with a
    plain dict that is a reference cycle, so the memo, the desired stack and the whole template behind it
    outlive the plan until the cyclic collector finds them (at 10,000 resources 540,000 objects, 0.4 s of
    collection at exit; seconds at 100,000). A resolver refers to a ``Memo`` weakly, so a finished plan's
    memo and all it holds are freed by reference counting. A plain dict still works (held strongly)."""

    __slots__ = ("__weakref__",)


class ScopedResolver:
    """A :class:`~hotc.parser.ir.ResourceResolver` for one scope: template names -> addresses; leaves are
    asked to the address resolver; groups and nested stacks are answered from their members."""

    __slots__ = ("desired", "scope", "base", "_memo", "_memo_ref")

    def __init__(
        self, desired: DesiredStack, scope: Scope, base: AddressResolver, memo: dict[Any, Any]
    ) -> None:
        self.desired = desired
        self.scope = scope
        self.base = base
        # a Memo is held weakly (see Memo): the memo holds the context that holds this resolver
        self._memo: dict[Any, Any] | None = None if type(memo) is Memo else memo
        self._memo_ref: weakref.ref[Memo] | None = weakref.ref(memo) if type(memo) is Memo else None

    @property
    def memo(self) -> dict[Any, Any]:
        """The memo this resolver's evaluations share; once a weakly held one is gone (its plan is over and
        only this resolver was kept), a fresh one: it is only a cache."""
        if self._memo is not None:
            return self._memo
        assert self._memo_ref is not None
        memo = self._memo_ref()
        if memo is None:
            memo = self._memo = Memo()
        return memo

    def resource_id(self, name: str) -> Any:
        m = self.scope.members.get(name)
        if m is None:
            return Unknown.of(join(self.scope.prefix, name))
        if m.kind == "leaf":
            return self.base.resource_id(m.address)
        if m.kind == "disabled":
            return None
        if m.kind == "nested":
            return self._nested_ref(m.address, m.type)
        return self.desired.stack_id_of(m.address)

    def _nested_ref(self, address: str, type_name: str) -> Any:
        """What ``get_resource`` of a template resource gives, as Heat's ``TemplateResource.get_reference_id``:
        its template's ``OS::stack_id`` output when it has one that resolves, else the nested stack's ARN
        (``arn:openstack:heat::PROJECT:stacks/NAME/ID``). Without a project id (no cloud configured) the
        stack's id stands for it."""
        d = self.desired
        child = d.scopes[address]
        if type_name != STACK_TYPE and STACK_ID_OUTPUT in child.template.outputs:
            try:
                value = d._output(child, STACK_ID_OUTPUT, self.base, self.memo)
            except HotcError:
                value = None
            if value is not None:
                return value
        sid = d.stack_id_of(address)
        project = d._project_id
        if type_name != STACK_TYPE and isinstance(project, str) and isinstance(sid, str):
            return f"arn:openstack:heat::{project}:stacks/{child.stack_name}/{sid}"
        return sid

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

        if attribute == STACK_ID_OUTPUT and type_name != STACK_TYPE:
            # TemplateResource.get_attribute: outputs only; OS::stack_id is an attribute when the template
            # has an output of that name
            if STACK_ID_OUTPUT not in child.template.outputs:
                raise HotcError(
                    f"The Referenced Attribute ({address.rsplit('.', 1)[-1]} OS::stack_id) is incorrect."
                )
            return index_path(d._output(child, STACK_ID_OUTPUT, self.base, self.memo), path, unknown)
        if attribute == "OS::stack_id":
            return index_path(d.stack_id_of(address), path, unknown)
        if type_name != STACK_TYPE and attribute.startswith("resource."):
            # TemplateResource.get_attribute -> grouputils.get_nested_attrs (use_indices off): "resource.NAME"
            # then the path, or "resource.NAME.ATTR" then the path, reads resource NAME of the nested stack;
            # with no attribute it is NAME's reference
            steps = [*attribute.split(".", 2)[1:], *path]
            inner = ScopedResolver(d, child, self.base, self.memo)
            rname = steps[0]
            if not isinstance(rname, str) or rname not in child.members:
                raise HotcError(
                    f"Member '{rname}' not found in group resource '{address.rsplit('.', 1)[-1]}'."
                )
            if len(steps) == 1:
                return inner.resource_id(rname)
            if not isinstance(steps[1], str):
                return unknown()
            return inner.resource_attr(rname, steps[1], tuple(steps[2:]))
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

    def _attributes_read(self, name: str) -> list[str]:
        """The attribute names without a path that this scope's enabled resources (properties, metadata) and
        enabled outputs read from resource ``name`` (Heat's ``Resource.referenced_attrs``), in source order;
        an ``if`` contributes the branch it takes."""
        key = ("attributes-read", self.scope.prefix, name)
        hit = self.memo.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        scope, d = self.scope, self.desired
        roots: list[Expr] = []
        for rname, res in scope.template.resources.items():
            mem = scope.members.get(rname)
            if mem is None or mem.kind == "disabled":
                continue
            roots += [e for e in (res.properties, res.metadata) if e is not None]
        for out in scope.template.outputs.values():
            if out.value is not None and d._output_enabled(scope, out.condition):
                roots.append(out.value)
        found: list[str] = []
        stack = list(reversed(roots))
        while stack:
            e = stack.pop()
            if isinstance(e, ListExpr):
                stack.extend(reversed(e.items))
            elif isinstance(e, MapExpr):
                stack.extend(reversed([v for _, v in e.items]))
            elif isinstance(e, functions.If):
                try:
                    taken: list[Expr | None] = [
                        e.if_true if _condition_value(e.condition, scope, d) else e.if_false
                    ]
                except HotcError:
                    taken = [e.if_true, e.if_false]
                stack.extend(reversed([b for b in taken if b is not None]))
            elif isinstance(e, FunctionCall):
                if (
                    isinstance(e, functions.GetAttr)
                    and isinstance(e.resource, Literal)
                    and e.resource.value == name
                    and isinstance(e.attribute, Literal)
                    and isinstance(e.attribute.value, str)
                    and (not e.path or e.style == "select")
                    and e.attribute.value not in found
                ):
                    found.append(e.attribute.value)
                stack.extend(reversed(list(e.children())))
        self.memo[key] = found
        return found

    def _member_attr(self, m: Member, i: int, attribute: str, path: tuple[Any, ...]) -> Any:
        addr = m.member_addresses[i]
        if m.member_nested:
            return self._nested_attr(addr, m.member_type, attribute, path)
        return self.base.resource_attr(addr, attribute, path)

    def _member_id(self, m: Member, i: int) -> Any:
        addr = m.member_addresses[i]
        if m.member_nested:
            return self._nested_ref(addr, m.member_type)
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
            return index_path(sorted(str(i) for i in m.skipped), path, unknown)
        if attribute == "current_size":
            return n
        if attribute.startswith("resource."):
            parts = attribute.split(".", 2)
            try:
                pos = idx.index(int(parts[1]))
            except ValueError as exc:
                # Heat 27 (the differential oracle's answers): an attribute of a member of a group that has
                # no members is null; any other read of a member that does not exist is an error
                if n == 0 and (len(parts) == 3 or path):
                    return None
                name = m.address.rsplit(".", 1)[-1]
                raise HotcError(f"Member '{parts[1]}' not found in group resource '{name}'.") from exc
            if len(parts) == 3:
                return self._member_attr(m, pos, parts[2], path)
            if not path:
                return self._member_id(m, pos)
            return self._member_attr(m, pos, str(path[0]), tuple(path[1:]))
        if attribute in ("attributes", "outputs"):
            if not path:
                raise HotcError(f"get_attr: {m.address} {attribute} needs an attribute name")
            # keyed by member name, as Heat does for both (an AutoScalingGroup's names are its indexes here)
            values = {}
            for i in range(n):
                k = str(idx[i])
                values[k if isinstance(k, str) else repr(k)] = self._member_attr(
                    m, i, str(path[0]), tuple(path[1:])
                )
            return values
        if attribute == "outputs_list":
            if not path:
                raise HotcError(f"get_attr: {m.address} outputs_list needs an attribute name")
            return [self._member_attr(m, i, str(path[0]), tuple(path[1:])) for i in range(n)]
        if attribute == "":
            # Heat 27's get_attr [GROUP]: every attribute of the group that takes no argument, and every other
            # attribute name (no path) the stack reads from the group elsewhere (Heat answers it from the
            # attributes it keeps for the group, which are those its template references)
            refs = [self._member_id(m, i) for i in range(n)]
            whole: dict[str, Any] = {
                "refs": refs,
                "refs_map": {str(idx[i]): refs[i] for i in range(n)},
                "removed_rsrc_list": sorted(str(i) for i in m.skipped),
            }
            if m.type == "OS::Heat::ResourceGroup":
                for extra in self._attributes_read(m.address.rsplit(".", 1)[-1]):
                    if extra not in whole and extra not in ("attributes", "show"):
                        whole[extra] = self._group_attr(m, extra, ())
            return whole
        # any other attribute: the list of that attribute over the members
        return [self._member_attr(m, i, attribute, path) for i in range(n)]


__all__ = [
    "DesiredResource",
    "DesiredStack",
    "Member",
    "Scope",
    "ScopedResolver",
    "gc_paused",
    "Memo",
]
