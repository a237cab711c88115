"""Expanding a loaded stack into a :class:`~hotc.planner.desired.DesiredStack` (what
:func:`build_desired` runs): scopes for the root and every nested stack, members of
groups, conditions, sensitivity of properties fed by hidden parameters, then the dependency graph."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.errors import HotcError
from hotc.parser.api import (
    Expr,
    Literal,
    LoadedStack,
    Resource,
    TypeResolution,
    references,
    resource_refs,
)
from hotc.planner.batching import batches, normalize_policy
from hotc.planner.conditions import LazyConditions, check_output_conditions
from hotc.planner.desired import (
    GROUP_TYPES,
    STACK_TYPE,
    DesiredResource,
    DesiredStack,
    Member,
    Memo,
    Scope,
    _condition_value,
    _resolve_member_type,
    condition_params,
    gc_paused,
    join,
)
from hotc.planner.graph import add_dependencies
from hotc.planner.resolve import UnknownResolver
from hotc.planner.sensitivity import (
    SECRET_TYPES,
    Path,
    Refs,
    Sensitivity,
    expr_refs,
    leaf_refs,
    path_text,
    propagate,
)
from hotc.planner.validate_resolved import check_group, check_update_policy
from hotc.providers.registry import get_schema
from hotc.values import Unknown, contains_unknown

#: types whose driver runs its members in the update_policy's batches itself (Heat makes them a nested stack of
#: one deployment per server, batched as a ResourceGroup is: batch_create on create, rolling_update on update)
DRIVER_BATCHED_TYPES = frozenset(
    {
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
    }
)

# ---------------------------------------------------------------------------------------------- building


#: the sensitivity of a scope with no hidden parameter and no secret resource: nothing is secret
_NOTHING_SECRET = Sensitivity({}, frozenset(), frozenset())


def _sensitivity_refs(resource: Resource) -> list[tuple[Path, Refs]]:
    """(property value path, its references) of a resource's leaves (:func:`leaf_refs`)."""
    return leaf_refs(resource.properties)


def _shown_paths(type_name: str, paths: frozenset[Path]) -> set[str]:
    """Sensitive property paths in the plan's text form, where the resolved properties hold them: a hidden
    legacy property name (``network_id``) is moved to its current name by the schema's defaults, so its path
    names that one too (as a whole: the value may be wrapped in a list on the way)."""
    out = {path_text(p) for p in paths}
    rtype = get_schema(type_name) if paths else None
    if rtype is None:
        return out
    for p in paths:
        schema: Mapping[str, Any] | None = rtype.properties
        item = None
        for i, step in enumerate(p):
            if isinstance(step, int):
                schema = item.item.schema if item is not None and item.item is not None else None
                item = item.item if item is not None else None
                continue
            prop = schema.get(step) if schema is not None else None
            if prop is None:
                break
            if prop.alias_of is not None:
                out.add(path_text((*p[:i], prop.alias_of)))
                break
            item, schema = prop, prop.schema
    return out


class _Builder:
    def __init__(
        self,
        loaded: LoadedStack,
        desired: DesiredStack,
        state_members: Mapping[str, list[int]],
        groups: Mapping[str, Any] | None = None,
        sizes: Mapping[str, int] | None = None,
    ) -> None:
        self.loaded = loaded
        self.d = desired
        self.state_members = state_members  # group address -> indexes present in state
        self.groups = groups or {}  # AutoScalingGroup address -> its GroupState (size, cooldown, ...)
        self.sizes = sizes or {}  # AutoScalingGroup address -> the size a scaling decision gives it
        self.state_ids: dict[str, str] = {}  # physical id -> address, from the state
        self.static = UnknownResolver()
        self.memo: dict[Any, Any] = Memo()
        self.explicit: dict[str, set[str]] = {}  # leaf address -> addresses (possibly group/nested) it needs
        self.members = 0  # group members planned so far, over every group (see MAX_GROUP_MEMBERS)
        # group address -> member index -> (failed, created_at) from the state (Heat's member order)
        self.member_info: dict[str, dict[int, tuple[bool, str]]] = {}

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

    def eval_conditions(self, scope: Scope, params: Mapping[str, Any]) -> Mapping[str, bool]:
        """The scope's conditions, each evaluated when first asked for (Heat is lazy about them)."""
        return LazyConditions(scope.template, condition_params(params), scope.files)

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
            stack_mt = (
                scope.member_types.get(name)
                if res.type == STACK_TYPE or resolution.type_name == STACK_TYPE
                else None
            )
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
        # sensitivity (hotc.planner.sensitivity): hidden parameters and secret resource values, through every
        # property, attribute and get_attr/get_resource of the scope, to a fixed point; recomputed whenever a
        # nested stack (or group) turns out to have sensitive outputs
        sens_refs: dict[str, list[tuple[Path, Refs]]] | None = None  # made when something can be secret
        carriers = {n for n, m in scope.members.items() if m.kind != "disabled"}
        seeds = {n for n, m in scope.members.items() if m.kind == "leaf" and m.type in SECRET_TYPES}
        # types whose attributes are credentials (a signal handle's presigned URL): what reads them is sensitive
        # (both asked once per type, not per resource)
        leaf_types = {m.type for m in scope.members.values() if m.kind == "leaf"}
        secret_attr_types = {t for t in leaf_types if _has_secret_attributes(t)}
        seeds_attrs = {
            n for n, m in scope.members.items() if m.kind == "leaf" and m.type in secret_attr_types
        }
        # properties secret by their type's schema, whatever they are derived from (a Barbican secret's payload)
        secret_props = {t: keys for t in leaf_types if (keys := _secret_properties(t))}
        seeds_props = {
            n: secret_props[m.type]
            for n, m in scope.members.items()
            if m.kind == "leaf" and m.type in secret_props
        }
        # attributes declared to echo a property path for path (a Value's ``value``): sensitive per path
        type_sources = {t: src for t in leaf_types if (src := _attribute_sources(t))}
        seeds_sources = {
            n: type_sources[m.type]
            for n, m in scope.members.items()
            if m.kind == "leaf" and m.type in type_sources
        }

        def sensitivity() -> Sensitivity:
            nonlocal sens_refs
            if not scope.hidden and not seeds and not seeds_attrs and not seeds_props:
                return _NOTHING_SECRET  # what propagate gives then, without walking every property
            if sens_refs is None:
                sens_refs = {
                    name: _sensitivity_refs(m.resource)
                    for name, m in scope.members.items()
                    if m.resource is not None
                }
            return propagate(
                sens_refs, scope.hidden, seeds | seeds_attrs, seeds, carriers, seeds_props, seeds_sources
            )

        def shown(sens: Sensitivity) -> dict[str, set[str]]:
            return {n: _shown_paths(scope.members[n].type, k) for n, k in sens.paths.items()}

        sens = sensitivity()
        prop_sensitive = shown(sens)

        # pass 2: expand (a name's address never changes: the members replaced on the way keep theirs)
        address_of = {n: m.address for n, m in scope.members.items()}
        for name, m in list(scope.members.items()):
            res_or_none = m.resource
            assert res_or_none is not None
            res = res_or_none
            dpol = (
                "Delete" if res.deletion_policy is None else self._deletion_policy(scope, res, static, memo)
            )
            if m.kind == "disabled":
                d.resources[m.address] = DesiredResource(
                    address=m.address,
                    type=m.type,
                    deletion_policy=dpol,
                    condition_enabled=False,
                    name=name,
                    scope=scope.prefix,
                    pos=res.pos,
                )
                continue
            rr = resource_refs(res)  # collected by the parser
            needs = {
                address_of[r]
                for refs in (rr.properties.items, rr.metadata.items)
                for k, r, _ in refs
                if k == "resource" and r != name and r in address_of
            }
            for dep in res.depends_on:
                if dep.name in address_of:
                    needs.add(address_of[dep.name])
            needs |= inherited
            if m.kind == "leaf":
                ext = None if res.external_id is None else self._external_id(scope, res, static, memo)
                secret = prop_sensitive.get(name)
                d.resources[m.address] = DesiredResource(
                    address=m.address,
                    type=m.type,
                    deletion_policy="Retain" if ext is not None else dpol,
                    name=name,
                    scope=scope.prefix,
                    pos=res.pos,
                    sensitive_paths=tuple(sorted(secret)) if secret else (),
                    has_metadata=res.metadata is not None,
                    external_id=ext,
                    update_policy=(
                        self._rg_policy(scope, res, static, memo, m.address)
                        if m.type in DRIVER_BATCHED_TYPES
                        else None
                    ),
                    declared_type=res.type if isinstance(res.type, str) and res.type != m.type else None,
                )
                self.explicit[m.address] = needs
            else:
                if m.kind == "nested":
                    self._expand_nested(
                        scope, m, static, memo, frozenset(needs), tuple(sorted(prop_sensitive.get(name, ())))
                    )
                else:
                    self._expand_group(
                        scope,
                        m,
                        static,
                        memo,
                        frozenset(needs),
                        dpol,
                        tuple(sorted(prop_sensitive.get(name, ()))),
                    )
                if name not in seeds and self._child_sensitive(scope.members[name]):
                    seeds.add(name)  # what reads it, expanded after it, sees it as sensitive
                    sens = sensitivity()
                    prop_sensitive = shown(sens)

        # the final fixed point (a group of RandomStrings is secret too): members expanded before what made them
        # sensitive are updated in place (still private to the builder)
        seeds |= {
            n
            for n, m in scope.members.items()
            if m.kind == "group" and not m.member_nested and m.member_type in SECRET_TYPES
        }
        sens = sensitivity()
        for name in sens.secret_attrs:
            scope.members[name] = _replace_member(scope.members[name], sensitive=True)
        for name, shown_keys in shown(sens).items():
            if shown_keys == prop_sensitive.get(name, set()):
                continue
            um = scope.members[name]
            if um.kind == "leaf" and um.address in d.resources:
                object.__setattr__(d.resources[um.address], "sensitive_paths", tuple(sorted(shown_keys)))
            elif um.kind == "group" and not um.member_nested:
                for a in um.member_addresses:
                    if a in d.resources:
                        object.__setattr__(d.resources[a], "sensitive_paths", ("*",))
        # this stack's outputs derived from hidden values (read by the parent's get_attr)
        for oname, out in t.outputs.items():
            if sens is _NOTHING_SECRET:
                break
            if out.value is not None and sens.reads_secret(expr_refs([out.value]), scope.hidden):
                scope.sensitive_outputs.add(oname)
        # Heat resolves the outputs' conditions when it loads the stack: one failing rejects the stack
        check_output_conditions(scope)

    def _child_sensitive(self, m: Member) -> bool:
        if m.kind == "nested":
            child = self.d.scopes.get(m.address)
            return bool(child is not None and child.sensitive_outputs)
        if m.member_nested:
            return any(
                bool(self.d.scopes[a].sensitive_outputs) for a in m.member_addresses if a in self.d.scopes
            )
        return False

    def _external_id(
        self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]
    ) -> str | None:
        if res.external_id is None:
            return None
        value = self.d._eval(scope, res.external_id, static, memo)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise HotcError(
                f"{res.pos or scope.template.path}: external_id of {res.name} must be a string "
                f"known at plan time, not {value!r}"
            )
        return value

    def _deletion_policy(
        self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]
    ) -> str:
        if res.deletion_policy is None:
            return "Delete"
        if isinstance(res.deletion_policy, Literal):
            value = res.deletion_policy.value
        else:
            value = self.d._eval(scope, res.deletion_policy, static, memo)
        if not isinstance(value, str) or value.capitalize() not in ("Delete", "Retain", "Snapshot"):
            raise HotcError(
                f"{res.pos or scope.template.path}: deletion_policy of {res.name} must be Delete, Retain or Snapshot, not {value!r}"
            )
        return value.capitalize()

    def _child_scope(
        self,
        parent: Scope,
        address: str,
        key: str,
        feed: tuple[str, str, int | None, str],
        hidden_from_parent: bool,
    ) -> Scope:
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

    def _expand_nested(
        self,
        scope: Scope,
        m: Member,
        static: UnknownResolver,
        memo: dict[Any, Any],
        needs: frozenset[str],
        sensitive: tuple[str, ...],
    ) -> None:
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

    def _facade(
        self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any]
    ) -> dict[str, Any]:
        md = self.d._eval(scope, res.metadata, static, memo) if res.metadata is not None else {}
        up = self.d._eval(scope, res.update_policy, static, memo) if res.update_policy is not None else {}
        return {
            "metadata": md or {},
            "deletion_policy": self._deletion_policy(scope, res, static, memo),
            "update_policy": up or {},
        }

    def _count_members(self, where: Any, address: str, what: str, n: int) -> None:
        _check_size(where, address, what, n)
        self.members += max(0, n)
        if self.members > MAX_STACK_MEMBERS:
            raise HotcError(
                f"{where}: {address}: {what} {n} brings the groups of this stack to {self.members} members, "
                f"more than hotc plans ({MAX_STACK_MEMBERS}; Heat's default max_resources_per_stack is 1000)"
            )

    def _expand_group(
        self,
        scope: Scope,
        m: Member,
        static: UnknownResolver,
        memo: dict[Any, Any],
        needs: frozenset[str],
        dpol: str,
        sensitive: tuple[str, ...],
    ) -> None:
        res = m.resource
        assert res is not None
        props = self.d._eval_props(scope, res, static, memo)
        where = res.pos or scope.template.path
        problems = check_group(res, m.type, props, m.address, sensitive)  # Heat validates the group's values
        if problems:
            raise HotcError(
                f"{where}: {m.address}: the group's properties are invalid", diagnostics=tuple(problems)
            )
        skip: set[int] = set()
        policy: dict[str, Mapping[str, Any]]
        scaling: dict[str, Any] = {}
        if m.type == "OS::Heat::ResourceGroup":
            count = props.get("count", 1)
            rdef = props.get("resource_def")
            if isinstance(count, Unknown):
                raise HotcError(
                    f"{where}: {m.address}: count must be known at plan time, but it depends on {count!r}"
                )
            try:
                count = int(count)
            except (TypeError, ValueError) as exc:
                raise HotcError(f"{where}: {m.address}: count must be an integer, not {count!r}") from exc
            self._count_members(where, m.address, "count", count)
            skip = self._removed(props, m.address)
            if props.get("removal_policies_mode", "append") != "update":
                # Heat keeps the names removal_policies took out (append mode) even once the policy is gone:
                # a ResourceGroup always uses the lowest free indexes, so a gap below its highest member in
                # the state is such a name
                present = self.state_members.get(m.address, [])
                skip |= set(range(max(present, default=-1))) - set(present)
            indexes: list[int] = []
            i = 0
            while len(indexes) < count:
                if i not in skip:
                    indexes.append(i)
                i += 1
            policy = self._rg_policy(scope, res, static, memo, m.address)
        else:
            rdef = props.get("resource")
            cap = props.get("desired_capacity")
            lo, hi = props.get("min_size", 0), props.get("max_size", 0)
            for label, v in (("desired_capacity", cap), ("min_size", lo), ("max_size", hi)):
                if isinstance(v, Unknown):
                    raise HotcError(f"{where}: {m.address}: {label} must be known at plan time")
            existing = sorted(self.state_members.get(m.address, []))
            try:
                lo_i, hi_i = int(lo or 0), int(hi or 0)
                want = int(cap) if cap is not None else None
                cooldown = props.get("cooldown")
                cooldown_i = (
                    int(cooldown) if cooldown is not None and not isinstance(cooldown, Unknown) else None
                )
            except (TypeError, ValueError) as exc:
                raise HotcError(f"{where}: {m.address}: sizes must be integers") from exc
            recorded = self.groups.get(m.address)
            # the group's current size: what the state recorded (scaling changes it apart from the template),
            # else (a format-2 state) its members
            current = recorded.size if recorded is not None else len(existing)
            digest = properties_digest(props)
            if m.address in self.sizes:
                n = self.sizes[m.address]  # a scaling decision (hotc.planner.scaling), already within bounds
            elif not existing and recorded is None:
                # Heat's first size: desired_capacity if set (and not 0), else min_size
                n = want if want else lo_i
            elif recorded is not None and recorded.properties_digest == digest:
                # the group's properties did not change: Heat does not update it, its size stays
                n = current
            else:
                # Heat's update: desired_capacity (0 or unset: the current size) within [min_size, max_size]
                n = min(max(want or current, lo_i), hi_i)
            self._count_members(where, m.address, "the size", n)
            indexes = self._asg_members(m.address, existing, n)
            scaling = {
                "min_size": lo_i,
                "max_size": hi_i,
                "cooldown": cooldown_i,
                "current": current,
                "properties_digest": digest,
            }
            raw = props.get("rolling_updates")
            policy = {
                "rolling_updates": normalize_policy(
                    raw if raw is not None else {}, "rolling_updates", f"{where}: {m.address}"
                )
                or {},
                # Heat runs the rolling update at min(desired_capacity or current, current) members, then
                # resizes the group to its new size
                "size": {"rolling_target": min(want or current, len(existing))},
            }
        if not isinstance(rdef, dict) or not isinstance(rdef.get("type"), str):
            what = "resource_def" if m.type == "OS::Heat::ResourceGroup" else "resource"
            raise HotcError(f"{where}: {m.address}: {what} must be a map with a 'type'")
        kind, key = _resolve_member_type(rdef["type"], scope, m.name)
        mtype = key if kind == "leaf" and key else rdef["type"]
        addresses = tuple(f"{m.address}[{i}]" for i in indexes)
        skipped: tuple[int, ...] = ()
        temporary: tuple[int, ...] = ()
        if m.type == "OS::Heat::ResourceGroup":
            skipped = tuple(sorted(skip))
            temporary = self._rg_temporaries(m.address, indexes, skip, policy)
        member = _replace_member(
            m,
            member_addresses=addresses,
            member_indexes=tuple(indexes),
            member_nested=kind == "nested",
            member_type=key or mtype,
            policy=policy,
            scaling=scaling,
            skipped=skipped,
            temporary_addresses=tuple(f"{m.address}[{i}]" for i in temporary) if kind != "nested" else (),
        )
        scope.members[m.name] = member
        leaves: list[str] = []
        for pos_i, (i, addr) in enumerate(zip(indexes, addresses, strict=True)):
            del pos_i
            if kind == "nested":
                assert key is not None
                child = self._child_scope(
                    scope, addr, key, (scope.prefix, m.name, i, "props"), bool(sensitive)
                )
                child.facade = {
                    "metadata": rdef.get("metadata") or {},
                    "deletion_policy": dpol,
                    "update_policy": {},
                }
                self.d.scopes[child.prefix] = child
                params = self.d._params(child, static, memo)
                self.build_scope(child, params, needs)
                leaves.extend(self.d.leaves_under.get(addr, []))
            else:
                self.d.resources[addr] = DesiredResource(
                    address=addr,
                    type=mtype,
                    deletion_policy=dpol,
                    name=m.name,
                    scope=scope.prefix,
                    group=m.address,
                    index=i,
                    pos=res.pos,
                    sensitive_paths=tuple(sensitive) and ("*",),
                    has_metadata="metadata" in rdef,
                    declared_type=rdef["type"] if rdef["type"] != mtype else None,
                )
                self.explicit[addr] = set(needs)
                leaves.append(addr)
        if kind != "nested":
            for i in temporary:
                addr = f"{m.address}[{i}]"
                self.d.resources[addr] = DesiredResource(
                    address=addr,
                    type=mtype,
                    deletion_policy=dpol,
                    name=m.name,
                    scope=scope.prefix,
                    group=m.address,
                    index=i,
                    pos=res.pos,
                    sensitive_paths=tuple(sensitive) and ("*",),
                    has_metadata="metadata" in rdef,
                    declared_type=rdef["type"] if rdef["type"] != mtype else None,
                    temporary=True,
                )
                self.explicit[addr] = set(needs)

    # group membership and update policies -------------------------------------------------------------
    def _rg_policy(
        self, scope: Scope, res: Resource, static: UnknownResolver, memo: dict[Any, Any], address: str
    ) -> dict[str, Mapping[str, Any]]:
        """A ResourceGroup's update_policy (rolling_update, batch_create) with Heat's defaults."""
        where = f"{res.pos or scope.template.path}: {address}"
        if res.update_policy is None:
            return {}
        raw = self.d._eval(scope, res.update_policy, static, memo)
        if raw is None:
            return {}
        if isinstance(raw, Unknown) or not isinstance(raw, Mapping):
            raise HotcError(f"{where}: update_policy must be a map known at plan time, not {raw!r}")
        problems = check_update_policy(res, res.type, raw, address)
        if problems:
            raise HotcError(f"{address}: its update_policy is invalid", diagnostics=tuple(problems))
        out: dict[str, Mapping[str, Any]] = {}
        for key in ("rolling_update", "batch_create"):
            value = raw.get(key)
            if isinstance(value, Unknown) or (isinstance(value, Mapping) and contains_unknown(value)):
                raise HotcError(f"{where}: update_policy.{key} must be known at plan time")
            norm = normalize_policy(value, key, where)
            if norm is not None:
                out[key] = norm
        return out

    def _member_age(self, group: str, index: int) -> tuple[bool, str, int]:
        """Heat's member order for removal and replacement: failed members first, then the oldest, then by
        name (here the index). A member that is a nested stack takes the oldest creation time of its
        resources."""
        failed, created = self.member_info.get(group, {}).get(index, (False, ""))
        return (not failed, created, index)

    def _asg_members(self, group: str, existing: list[int], n: int) -> list[int]:
        """An AutoScalingGroup's members for size ``n``: the existing ones, the oldest (failed first) removed
        when shrinking, as Heat does; new members get indexes after the highest one in use."""
        if n <= 0:
            return []
        if n <= len(existing):
            ordered = sorted(existing, key=lambda i: self._member_age(group, i))
            return sorted(ordered[len(ordered) - n :])
        start = max(existing) + 1 if existing else 0
        return [*existing, *range(start, start + n - len(existing))]

    def _rg_temporaries(
        self, group: str, indexes: list[int], skip: set[int], policy: Mapping[str, Mapping[str, Any]]
    ) -> tuple[int, ...]:
        """Members a ResourceGroup's rolling update creates beyond ``count`` for a while (to keep
        min_in_service members in service): the names Heat would use for them."""
        ru = policy.get("rolling_update")
        existing = [i for i in self.state_members.get(group, []) if i not in skip]
        if ru is None or not existing:
            return ()
        plan = batches(
            "OS::Heat::ResourceGroup",
            len(indexes),
            len(existing),
            int(ru["max_batch_size"]),
            int(ru["min_in_service"]),
        )
        biggest = max((size for size, _n in plan), default=0)
        names: list[int] = []
        i = 0
        while len(names) < biggest:
            if i not in skip:
                names.append(i)
            i += 1
        keep = set(indexes) | set(existing)
        return tuple(i for i in names if i not in keep)

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
    return replace(m, **changes)


def _collect_leaves(d: DesiredStack) -> None:
    """leaves_under[address of any group/nested/leaf] -> leaf addresses inside (itself for a leaf)."""
    out: dict[str, list[str]] = {}
    for addr, r in d.resources.items():
        if not r.condition_enabled or r.temporary:
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


def member_of(address: str) -> tuple[str, int, str] | None:
    """``("a.g", 2, ".port")`` for ``a.g[2].port`` (the innermost group member holding the address), else None."""
    end = address.rfind("]")
    while end != -1:
        start = address.rfind("[", 0, end)
        if start == -1:
            return None
        idx = address[start + 1 : end]
        if idx.isdigit():
            return address[:start], int(idx), address[end + 1 :]
        end = address.rfind("]", 0, start)
    return None


def member_ages(resources: Mapping[str, Any]) -> dict[str, dict[int, tuple[bool, str]]]:
    """group address -> member index -> (failed, oldest created_at) of the state's resources."""
    out: dict[str, dict[int, tuple[bool, str]]] = {}
    for addr, rs in resources.items():
        found = member_of(addr)
        if found is None:
            continue
        group, idx, rest = found
        if rest and not rest.startswith("."):
            continue
        failed, created = out.setdefault(group, {}).get(idx, (False, "\uffff"))
        out[group][idx] = (failed or bool(rs.failed), min(created, rs.created_at or ""))
    return out


def properties_digest(props: Mapping[str, Any]) -> str:
    """A digest of a group's evaluated properties (values known after apply by what they wait on): Heat
    resizes an AutoScalingGroup to its desired_capacity only when the group is updated, i.e. when these
    change."""
    text = json.dumps(props, sort_keys=True, default=repr, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def expand(
    loaded: LoadedStack,
    stack_name: str,
    lineage: str | None,
    project_id: str | None,
    state: Any,
    sizes: Mapping[str, int] | None = None,
) -> DesiredStack:
    """The work of :func:`build_desired` (which pauses the garbage collector around it)."""
    d = DesiredStack(stack_name, lineage)
    if project_id is not None:
        d._project_id = project_id
    env = loaded.environment
    d.registry = getattr(env, "registry", None)
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
    b = _Builder(loaded, d, state_members, getattr(state, "groups", None), sizes)
    if state is not None:
        b.state_ids = {rs.physical_id: addr for addr, rs in state.resources.items() if rs.physical_id}
        b.member_info = member_ages(state.resources)
    root = b.root_scope()
    b.build_scope(root, root.fixed_params or {}, frozenset())
    _collect_leaves(d)
    t = loaded.template
    d.outputs = tuple(t.outputs)
    d.sensitive_outputs = frozenset(root.sensitive_outputs)
    add_dependencies(d, b.explicit)
    return d


def _has_secret_attributes(type_name: str) -> bool:
    rtype = get_schema(type_name)
    return rtype is not None and any(a.sensitive for a in rtype.attributes.values())


def _attribute_sources(type_name: str) -> Mapping[str, str]:
    """The type's declared attribute sources (attribute -> the property it echoes, path for path), or {}."""
    rtype = get_schema(type_name)
    return {} if rtype is None else rtype.attribute_sources


def _secret_properties(type_name: str) -> frozenset[str]:
    rtype = get_schema(type_name)
    if rtype is None:
        return frozenset()
    return frozenset(k for k, p in rtype.properties.items() if p.sensitive)


def build_desired(
    loaded: LoadedStack,
    stack_name: str,
    lineage: str | None,
    *,
    project_id: str | None = None,
    state: Any = None,
    sizes: Mapping[str, int] | None = None,
) -> DesiredStack:
    """Expand ``loaded`` into a :class:`DesiredStack` (the work is :func:`expand`). ``state``
    (a StackState, optional) is only read for an AutoScalingGroup's current size when it sets no
    desired_capacity, and for group members named by physical id in removal_policies. ``sizes`` (group address
    -> size) are scaling decisions: those AutoScalingGroups get that size. Raises HotcError on a
    bad template (count not known at plan time, a dependency cycle, …)."""
    with gc_paused():
        return expand(loaded, stack_name, lineage, project_id, state, sizes)


# The most members hotc plans for one group: ten times Heat's default max_resources_per_stack (1000), which a
# stock Heat enforces over the whole stack. Far above any real group, far below what exhausts memory.
MAX_GROUP_MEMBERS = 10_000
MAX_STACK_MEMBERS = 50_000  # over all the groups of a stack (nested groups multiply)


def _check_size(where: Any, address: str, what: str, n: int) -> None:
    if n > MAX_GROUP_MEMBERS:
        raise HotcError(
            f"{where}: {address}: {what} {n} is more members than hotc plans for one group "
            f"({MAX_GROUP_MEMBERS}; Heat's default max_resources_per_stack is 1000 for the whole stack)"
        )
