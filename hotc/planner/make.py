"""make_plan: the desired state against the recorded state -> a :class:`~hotc.planner.plan.Plan`.

Resources are decided in dependency order, so a resource's properties are evaluated knowing what happens to
everything it needs: the id of a resource being created or replaced is Unknown ("known after apply"), and
that Unknown makes the dependent property change, which may in turn force the dependent's replacement
(when the property is not update_allowed). Attributes of a resource updated in place are Unknown too unless
its type declares them stable (``AttrSchema.stable``) or the update changes no property: the applier
re-resolves them once the update is done and carries the change to the dependents in the same apply.

Per resource (Heat's order, heat-hot.md §2.1): type changed -> replace; ``--replace`` -> replace; a FAILED
(or interrupted ``*_IN_PROGRESS``) resource -> replace; an object found gone by refresh -> replace; else the
changed properties (defaults applied on both sides, set-like lists as sets): immutable ones are plan errors,
a volume shrink is a plan error; the type's replace rules (e.g. server user_data with the REPLACE policy)
and non-update_allowed properties force a replace; otherwise an in-place update (a server image change is a
rebuild). Resources in the state but not desired are deleted, or forgotten with ``deletion_policy: Retain``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from hotc.errors import Diagnostic, HotcError, did_you_mean, error
from hotc.planner.desired import DesiredStack, Memo, gc_paused
from hotc.planner.diff import (
    apply_defaults,
    changed_keys,
    detail_paths,
    settle_unknowns,
    unmask,
    values_equal,
)
from hotc.planner.digraph import CycleError, DiGraph, topological_sort
from hotc.planner.hooks import stack_action, with_hooks
from hotc.planner.options import PlanOptions
from hotc.planner.plan import Action, GroupRollout, OutputChange, Plan, ResourceChange
from hotc.planner.protection import check_protection
from hotc.planner.refresh import carried_attributes
from hotc.planner.resolve import index_path
from hotc.planner.restricted import check_restricted
from hotc.planner.rollout import plan_rollouts
from hotc.planner.validate_resolved import check_resolved
from hotc.providers.base import ResourceType
from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import decide_update
from hotc.state.document import DeposedInstance, ResourceState, StackState
from hotc.state.secrets import is_masked, withheld, withheld_error
from hotc.values import Unknown, WaitsOn

SchemaLookup = Callable[[str], ResourceType | None]

SERVER = "OS::Nova::Server"
VOLUME = "OS::Cinder::Volume"

# action_reason values (Terraform's names where one exists)
R_CANNOT_UPDATE = "replace_because_cannot_update"
R_BY_REQUEST = "replace_by_request"
R_FAILED = "replace_because_failed"
R_INCOMPLETE = "replace_because_incomplete"
R_TYPE_CHANGED = "replace_because_type_changed"
R_TYPE_RULE = "replace_because_update_policy"
R_GONE = "replace_because_gone"
D_NO_CONFIG = "delete_because_no_resource_config"
D_CONDITION = "delete_because_condition_false"
D_COUNT = "delete_because_count_index"
D_DESTROY = "delete_because_destroy"
D_DEPOSED = "delete_because_deposed"
F_RETAIN = "forget_because_retain"
U_REBUILD = "update_rebuild"
# imports: Heat's external_id (the object is never created, updated or deleted), and a planned import
# (``--import ADDR=ID``: the object is taken over and managed from then on)
I_EXTERNAL = "import_external_id"
I_REQUEST = "import_by_request"
R_EXTERNAL_CHANGED = "replace_because_external_id_changed"
R_EXTERNAL_REMOVED = "replace_because_external_id_removed"


def registry_lookup(type_name: str) -> ResourceType | None:
    return get_schema(type_name)


def _as_state(addr: str, base: ResourceState | None, refreshed: Any) -> ResourceState | None:
    """Merge a refreshed object into the recorded one (None: gone)."""
    if refreshed is None:
        return None
    if isinstance(refreshed, ResourceState):
        return refreshed
    if base is None:
        return None
    get = refreshed.get if isinstance(refreshed, Mapping) else (lambda k, d=None: getattr(refreshed, k, d))
    return replace(
        base,
        physical_id=get("physical_id", base.physical_id),
        properties=get("properties", base.properties) or base.properties,
        attributes=get("attributes", base.attributes) or base.attributes,
        status=get("status", base.status) or base.status,
    )


class PlanResolver:
    """Answers for leaves while planning: recorded ids/attributes of resources that stay, Unknown for those
    being created or replaced, and Unknown for the attributes of a resource updated in place unless its type
    declares them stable (``AttrSchema.stable``) or the update changes no property (only its metadata or
    deletion policy). Heat re-reads attributes after an update; the plan cannot know what they will be."""

    def __init__(
        self,
        state: Mapping[str, ResourceState],
        actions: Mapping[str, Action],
        changed: Mapping[str, frozenset[str]],
        schemas: SchemaLookup | None = None,
        imports: Mapping[str, str] | None = None,
    ) -> None:
        self.state = state
        self.actions = actions
        self.changed = changed
        self.schemas = schemas or registry_lookup
        self.imports = imports or {}  # address -> id of the existing object a create adopts
        self.attributes_read: set[tuple[str, str]] = set()  # (address, attribute) answered from the state

    def keeps(self, address: str, attribute: str) -> bool:
        """Does attribute ``attribute`` ("" for all of them) of the resource at ``address``, being updated in
        place, keep its recorded value through the update?"""
        if attribute in ("", "show"):
            return False  # the whole representation changes with any property
        if not self.changed.get(address):
            return True  # no property changes: nothing the driver is asked to do can change an attribute
        rs = self.state.get(address)
        rtype = self.schemas(rs.type) if rs is not None else None
        schema = rtype.attributes.get(attribute) if rtype is not None else None
        return schema is not None and schema.stable

    def resource_id(self, address: str) -> Any:
        rs = self.state.get(address)
        a = self.actions.get(address)
        if a in (Action.CREATE, Action.REPLACE) and address in self.imports:
            return self.imports[address]  # an adopted object's id is known before apply
        if rs is not None and rs.reference_id is not None and a not in (Action.CREATE, Action.REPLACE):
            return rs.reference_id  # the physical id, or a RandomString's value (Heat's reference id)
        return Unknown.of(address)

    def resource_attr(self, address: str, attribute: str, path: tuple[Any, ...]) -> Any:
        unknown = Unknown.of(address, (attribute, *path) if attribute else tuple(path))
        rs = self.state.get(address)
        a = self.actions.get(address)
        if rs is None or a in (Action.CREATE, Action.REPLACE):
            return unknown
        if a is Action.UPDATE and not self.keeps(address, attribute):
            return unknown
        attrs = rs.attributes
        if attribute == "":
            self.attributes_read.update((address, a) for a in attrs)
            return index_path(dict(attrs), path, lambda: unknown) if attrs else unknown
        if attribute not in attrs or is_masked(attrs[attribute]):
            return unknown  # a secret stored masked (no state key) is not known, never the marker itself
        self.attributes_read.add((address, attribute))
        return index_path(attrs[attribute], path, lambda: unknown)

    def stable(self, w: WaitsOn) -> bool:
        """Is the value ``w`` names the same after apply as now?"""
        a = self.actions.get(w.address)
        if a is None or a is Action.NOOP:
            return True
        if a in (Action.CREATE, Action.REPLACE):
            return False
        if a is Action.UPDATE:
            if w.attribute is None:
                return True  # an update in place keeps the physical id
            head = str(w.attribute[0]) if w.attribute else ""
            return self.keeps(w.address, head)
        return False


@dataclass
class _Ctx:
    desired: DesiredStack
    state: StackState | None
    srs: dict[str, ResourceState]
    options: PlanOptions
    schemas: SchemaLookup
    gone: set[str]
    errors: list[Diagnostic]
    refreshed: frozenset[str] = frozenset()  # addresses read live from the cloud
    groups: tuple[GroupRollout, ...] = ()  # what the plan does to each group (hotc.planner.rollout)
    attributes_read: frozenset[tuple[str, str]] = frozenset()  # (address, attribute) the plan resolved


def _matches(address: str, selector: str) -> bool:
    return address == selector or address.startswith(selector + ".") or address.startswith(selector + "[")


def _select(selectors: tuple[str, ...], addresses: list[str]) -> set[str]:
    return {a for a in addresses for s in selectors if _matches(a, s)}


def make_plan(
    desired: DesiredStack,
    state: StackState | None,
    options: PlanOptions,
    refreshed: Mapping[str, Any] | None = None,
    *,
    schemas: SchemaLookup | None = None,
) -> Plan:
    """Compare ``desired`` with ``state`` (None: no state yet) and list the actions. ``refreshed`` maps
    addresses to live objects read from the cloud (a ResourceState, a map with physical_id/properties/
    attributes, or None when the object is gone); without it the recorded state is trusted (no cloud).
    Raises HotcError for plan errors (immutable property changed, volume shrink, bad --target/--replace)."""
    with gc_paused():
        plan = _make_plan(desired, state, options, refreshed, schemas or registry_lookup)
    check_restricted(desired, plan)
    check_protection(state, plan)
    return with_hooks(desired, plan, stack_action(options.mode, state is not None and bool(state.resources)))


def _make_plan(
    desired: DesiredStack,
    state: StackState | None,
    options: PlanOptions,
    refreshed: Mapping[str, Any] | None,
    lookup: SchemaLookup,
) -> Plan:
    srs: dict[str, ResourceState] = dict(state.resources) if state is not None else {}
    drift: list[ResourceChange] = []
    gone: set[str] = set()
    if refreshed:
        for addr, live in refreshed.items():
            base = srs.get(addr)
            if base is None:
                continue
            merged = _as_state(addr, base, live)
            if merged is None:
                gone.add(addr)
                drift.append(
                    ResourceChange(
                        addr,
                        base.type,
                        Action.DELETE,
                        dict(base.properties),
                        None,
                        action_reason="drift_gone",
                        reason_detail="the object no longer exists",
                        previous_physical_id=base.physical_id,
                    )
                )
                continue
            if base.external_id is not None:
                # adopted with external_id: hotc never manages its properties, so they cannot drift; its
                # attributes are read live (and its disappearance is reported above)
                srs[addr] = replace(merged, properties=base.properties)
                continue
            rtype = lookup(base.type)
            b, a = apply_defaults(rtype, base.properties), apply_defaults(rtype, merged.properties)
            keys = changed_keys(rtype, b, a)
            if keys:
                drift.append(
                    ResourceChange(
                        addr,
                        base.type,
                        Action.UPDATE,
                        dict(base.properties),
                        dict(merged.properties),
                        changed_paths=tuple(detail_paths(rtype, b, a, keys)),
                        action_reason="drift_changed",
                        reason_detail="changed outside hotc",
                    )
                )
            srs[addr] = merged
    ctx = _Ctx(desired, state, srs, options, lookup, gone, [], frozenset(refreshed or ()))
    common: dict[str, Any] = dict(
        stack_name=desired.stack_name,
        mode=options.mode,
        state_lineage=state.lineage if state is not None else None,
        state_serial=state.serial if state is not None else None,
        targets=options.targets,
        excludes=options.excludes,
        replace_requests=options.replace,
        parallelism=options.parallelism,
        resource_drift=tuple(drift),
    )
    if options.mode == "refresh-only":
        return Plan(changes=(), **common)
    if options.mode == "destroy":
        changes, outs = _destroy(ctx)
        return Plan(changes=tuple(changes), output_changes=tuple(outs), **common)
    changes, outs = _normal(ctx)
    ctx.errors.extend(check_resolved(desired, changes, lookup))  # Heat's property validation with values
    if ctx.errors:
        raise HotcError(
            f"the plan cannot be made: {len(ctx.errors)} change(s) Heat would refuse (listed above)",
            diagnostics=tuple(ctx.errors),
        )
    return Plan(
        changes=tuple(changes),
        output_changes=tuple(outs),
        groups=ctx.groups,
        refreshed_attributes=carried_attributes(state, srs, refreshed or {}, ctx.attributes_read),
        **common,
    )


_FAILED_LIVE = {
    "OS::Nova::Server": frozenset({"ERROR", "DELETED", "SOFT_DELETED"}),
    "OS::Cinder::Volume": frozenset({"error", "deleting"}),
}


def needs_replace_failed(rs: ResourceState, refreshed: bool) -> bool:
    """Heat's ``needs_replace_failed``: a FAILED resource is replaced, except that a server, a volume and
    Neutron resources are replaced only when their live status says the object is broken (server ERROR,
    DELETED, SOFT_DELETED; volume error, deleting; Neutron ERROR). Without a refresh (no live status) or
    without a ``status`` attribute, the resource is replaced as Heat's default does."""
    if rs.status.startswith("CHECK_"):
        return True  # Heat always replaces a resource whose check failed
    status = rs.attributes.get("status") if refreshed else None
    if not isinstance(status, str):
        return True
    if rs.type in _FAILED_LIVE:
        return status in _FAILED_LIVE[rs.type]
    if rs.type.startswith("OS::Neutron::"):
        return status.upper() == "ERROR"
    return True


def _state_order(srs: Mapping[str, ResourceState]) -> list[str]:
    """State addresses in reverse dependency order (dependents first): a deletion order."""
    g: DiGraph = DiGraph()
    g.add_nodes_from(srs)
    for addr, rs in srs.items():
        g.add_edges_from((dep, addr) for dep in rs.dependencies if dep in srs and dep != addr)
    try:
        order = topological_sort(g)
    except CycleError:
        order = sorted(srs)
    return list(reversed(order))


def _delete_change(rs: ResourceState, reason: str, detail: str, policy: str | None = None) -> ResourceChange:
    policy = policy or rs.deletion_policy
    retain = policy == "Retain"
    return ResourceChange(
        address=rs.address,
        type=rs.type,
        action=Action.FORGET if retain else Action.DELETE,
        before=dict(rs.properties),
        after=None,
        action_reason=F_RETAIN if retain else reason,
        reason_detail=(
            "deletion_policy Retain: removed from the state, left in the cloud" if retain else detail
        ),
        depends_on=tuple(rs.dependencies),
        sensitive_paths=tuple(rs.sensitive_paths),
        previous_physical_id=rs.physical_id,
        deletion_policy=policy,
    )


def _deposed_changes(rs: ResourceState) -> list[ResourceChange]:
    out = []
    for dep in rs.deposed:
        assert isinstance(dep, DeposedInstance)
        detail = f"old instance {dep.physical_id} left by an earlier replace"
        if dep.deletion_policy != "Delete":
            detail += f" (deletion_policy {dep.deletion_policy})"
        out.append(
            ResourceChange(
                address=rs.address,
                type=dep.type or rs.type,
                action=Action.DELETE,
                before=dict(dep.properties),
                after=None,
                action_reason=D_DEPOSED,
                reason_detail=detail,
                previous_physical_id=dep.physical_id,
                deposed=True,
                depends_on=tuple(rs.dependencies),
                deletion_policy=dep.deletion_policy,
            )
        )
    return out


def _suggest(given: list[str] | tuple[str, ...], addresses: Any) -> str:
    """ "Did you mean" for the first of ``given`` that is close to an address."""
    for g in given:
        hint = did_you_mean(g, addresses)
        if hint:
            return "." + hint
    return ""


def _destroy(ctx: _Ctx) -> tuple[list[ResourceChange], list[OutputChange]]:
    srs = ctx.srs
    chosen = set(srs)
    if ctx.options.targets:
        chosen = _select(ctx.options.targets, list(srs))
        if not chosen:
            raise HotcError(
                f"--target {', '.join(ctx.options.targets)}: no resource in the state matches"
                + _suggest(ctx.options.targets, srs)
            )
        # destroying a resource destroys what depends on it
        g: DiGraph = DiGraph()
        for addr, rs in srs.items():
            g.add_node(addr)
            g.add_edges_from((d, addr) for d in rs.dependencies if d in srs)
        chosen |= _closure(g, chosen, up=False)
    if ctx.options.excludes:
        # keeping a resource keeps what it needs
        ex = _select(ctx.options.excludes, list(srs))
        if not ex:
            raise HotcError(
                f"--exclude {', '.join(ctx.options.excludes)}: no resource in the state matches"
                + _suggest(ctx.options.excludes, srs)
            )
        keep: DiGraph = DiGraph()
        for addr, rs in srs.items():
            keep.add_node(addr)
            keep.add_edges_from((d, addr) for d in rs.dependencies if d in srs)
        chosen -= _closure(keep, ex, up=True)
    changes: list[ResourceChange] = []
    for addr in _state_order(srs):
        if addr in chosen:
            rs = srs[addr]
            changes.extend(_deposed_changes(rs))
            changes.append(_delete_change(rs, D_DESTROY, "destroy requested"))
    outs = []
    if ctx.state is not None and not ctx.options.targets and not ctx.options.excludes:
        for name, o in ctx.state.outputs.items():
            outs.append(OutputChange(name, Action.DELETE, before=o.value, after=None, sensitive=o.sensitive))
    return changes, outs


def _normal(ctx: _Ctx) -> tuple[list[ResourceChange], list[OutputChange]]:
    d = ctx.desired
    srs = ctx.srs
    opts = ctx.options
    enabled = [a for a, r in d.resources.items() if r.condition_enabled]
    graph: DiGraph = d.graph
    order = d.order

    selected: set[str] | None = None
    if opts.targets:
        selected = _select(opts.targets, enabled) | _select(opts.targets, list(srs))
        if not selected:
            raise HotcError(
                f"--target {', '.join(opts.targets)}: no resource matches (neither in the template nor in the state)"
                + _suggest(opts.targets, [*enabled, *srs])
            )
        selected |= _closure(graph, selected, up=True)
    if opts.excludes:
        # an excluded resource is left as it is, and so is everything that depends on it
        ex = _select(opts.excludes, enabled) | _select(opts.excludes, list(srs))
        if not ex:
            raise HotcError(
                f"--exclude {', '.join(opts.excludes)}: no resource matches (neither in the template nor in the state)"
                + _suggest(opts.excludes, [*enabled, *srs])
            )
        ex |= _closure(graph, ex, up=False)
        selected = (set(enabled) | set(srs) if selected is None else selected) - ex
    for sel in opts.replace:
        if not any(_matches(a, sel) for a in enabled):
            raise HotcError(
                f"--replace {sel}: no resource with that address in the template" + _suggest([sel], enabled)
            )

    actions: dict[str, Action] = {}
    changed: dict[str, frozenset[str]] = {}
    imports = _imports(ctx, enabled)
    resolver = PlanResolver(srs, actions, changed, ctx.schemas, imports)
    memo: dict[Any, Any] = Memo()
    if srs or imports:
        d.static_properties.clear()  # evaluated with every value Unknown: not what this plan's resolver answers
    # else the resolver answers every id and attribute Unknown, as the evaluation build_desired made: _decide
    # takes those properties (each evaluated once)
    changes: list[ResourceChange] = []
    for addr in order:
        if selected is not None and addr not in selected:
            continue
        if d.resources[addr].temporary:
            continue  # made only if the group's rolling update needs it (hotc.planner.rollout)
        rc = _decide(ctx, addr, resolver, memo)
        actions[addr] = rc.action
        changed[addr] = (
            frozenset(p.split(".")[0].split("[")[0] for p in rc.changed_paths) if rc.changed_paths else _NONE
        )
        changes.append(rc)

    # deletes: in the state, not (or no longer) desired
    groups = _groups(d)
    for addr in _state_order(srs):
        rs = srs[addr]
        if selected is not None and addr not in selected:
            continue
        dr = d.resources.get(addr)
        if dr is not None and dr.condition_enabled and not dr.temporary:
            continue  # kept (its deposed instances are handled below)
        if dr is not None:
            reason, detail, policy = D_CONDITION, "its condition is false", dr.deletion_policy
        elif "[" in addr and addr[: addr.rindex("[")] in groups:
            reason, detail, policy = D_COUNT, "the group no longer has this member", None
        else:
            reason, detail, policy = D_NO_CONFIG, "not in the template any more", None
        changes.extend(_deposed_changes(rs))
        changes.append(_delete_change(rs, reason, detail, policy))
    for addr, rs in srs.items():
        dr = d.resources.get(addr)
        if rs.deposed and dr is not None and dr.condition_enabled and (selected is None or addr in selected):
            changes.extend(_deposed_changes(rs))

    outs = _outputs(ctx, resolver, memo) if selected is None else []

    changes, ctx.groups = plan_rollouts(d, ctx.state, changes, lambda a: _decide(ctx, a, resolver, memo))
    ctx.attributes_read = frozenset(resolver.attributes_read)
    return changes, outs


_NONE: frozenset[str] = frozenset()


def _closure(g: DiGraph, start: set[str], *, up: bool) -> set[str]:
    """Every node reachable from ``start`` along dependencies (``up``: what they need) or dependents, in one
    traversal however many start nodes there are."""
    step = g.predecessors if up else g.successors
    seen = {a for a in start if a in g}
    todo = list(seen)
    while todo:
        for nxt in step(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _imports(ctx: _Ctx, enabled: list[str]) -> dict[str, str]:
    """Address -> id of every object this plan adopts: ``external_id`` of resources without a record for it,
    and the ``--import ADDR=ID`` requests (checked: the template declares the address, the state has no
    record for it, and it is not an ``external_id`` resource)."""
    d = ctx.desired
    out: dict[str, str] = {}
    for addr in enabled:
        ext = d.resources[addr].external_id
        rs = ctx.srs.get(addr)
        if ext is not None and (rs is None or rs.physical_id != ext):
            out[addr] = ext
    on = set(enabled)
    for addr, pid in ctx.options.imports:
        dr = d.resources.get(addr)
        if dr is None or addr not in on:
            near = sorted(a for a in on if a.split("[")[0].split(".")[0] == addr.split("[")[0].split(".")[0])
            hint = f" (addresses there: {', '.join(near[:5])})" if near else ""
            why = "its condition is false" if dr is not None else "the template does not declare it"
            raise HotcError(
                f"--import {addr}={pid}: {why}{hint}; declare the resource in the template first, then import it"
            )
        rtype = ctx.schemas(dr.type)
        if rtype is None or rtype.service is None:
            what = (
                "hotc has no schema for it"
                if rtype is None
                else "hotc makes it itself; there is no object to take over"
            )
            raise HotcError(f"--import {addr}={pid}: {dr.type} cannot be imported ({what})")
        if dr.external_id is not None:
            raise HotcError(
                f"--import {addr}={pid}: {addr} has an external_id ({dr.external_id}) in the template: it is "
                "adopted by that, never managed; remove one or the other"
            )
        rs = ctx.srs.get(addr)
        if rs is not None:
            raise HotcError(
                f"--import {addr}={pid}: the state already has {addr} (physical id {rs.physical_id}); "
                f"to take over another object, forget this one first with 'hotc state rm STACK {addr}'"
            )
        if not pid:
            raise HotcError(f"--import {addr}=: the id is empty")
        out[addr] = pid
    return out


def _groups(d: DesiredStack) -> set[str]:
    return {r.group for r in d.resources.values() if r.group is not None}


def _decide(ctx: _Ctx, addr: str, resolver: PlanResolver, memo: dict[Any, Any]) -> ResourceChange:
    d = ctx.desired
    dr = d.resources[addr]
    rtype = ctx.schemas(dr.type)
    try:
        after = d.static_properties.pop(addr, None)
        if after is None:
            after = d.resolve_properties(addr, resolver, memo)
    except HotcError as exc:
        if dr.sensitive_paths:
            raise withheld(exc) from None  # evaluation errors quote the value they failed on
        raise
    rs = ctx.srs.get(addr)
    base: dict[str, Any] = dict(
        address=addr,
        type=dr.type,
        depends_on=dr.depends_on,
        sensitive_paths=dr.sensitive_paths,
        deletion_policy=dr.deletion_policy,
        index=dr.index,
    )
    request = dict(ctx.options.imports).get(addr) if ctx.options.imports else None
    if rs is None:
        if dr.external_id is not None:
            return ResourceChange(
                action=Action.CREATE,
                before=None,
                after=after,
                import_id=dr.external_id,
                action_reason=I_EXTERNAL,
                reason_detail=f"adopt the existing object {dr.external_id} (external_id): nothing is "
                "created, and hotc never updates or deletes it",
                **base,
            )
        if request is not None:
            return ResourceChange(
                action=Action.CREATE,
                before=None,
                after=after,
                import_id=request,
                action_reason=I_REQUEST,
                reason_detail=f"import the existing object {request}: nothing is created; its live properties "
                "are recorded and hotc manages it from then on",
                **base,
            )
        return ResourceChange(action=Action.CREATE, before=None, after=after, **base)
    if dr.external_id is not None:
        if rs.physical_id == dr.external_id and rs.deletion_policy != "Retain":
            return ResourceChange(
                action=Action.UPDATE,
                before=dict(rs.properties),
                after=after,
                import_id=dr.external_id,
                previous_physical_id=rs.physical_id,
                action_reason=I_EXTERNAL,
                reason_detail=f"{rs.physical_id} is adopted with external_id from now on: only the record "
                "changes; hotc will never update or delete the object",
                **base,
            )
        if rs.physical_id == dr.external_id:
            return ResourceChange(
                action=Action.NOOP,
                before=dict(rs.properties),
                after=after,
                previous_physical_id=rs.physical_id,
                reason_detail="adopted with external_id: hotc does not change it",
                **base,
            )
        # a new external_id replaces the record, never an object: the old adopted object is forgotten (left in
        # place); an object hotc made itself goes as its deletion_policy says
        old = rs.physical_id or "(none)"
        if rs.external_id is not None or rs.deletion_policy == "Retain":
            fate = f"{old} is left in place (forgotten)"
        elif rs.deletion_policy == "Snapshot":
            fate = f"{old}, which hotc created, is snapshotted and deleted"
        else:
            fate = f"{old}, which hotc created, is deleted"
        return ResourceChange(
            action=Action.REPLACE,
            before=dict(rs.properties),
            after=after,
            import_id=dr.external_id,
            previous_physical_id=rs.physical_id,
            action_reason=R_EXTERNAL_CHANGED,
            reason_detail=f"external_id changed from {old} to {dr.external_id}: the record is replaced and "
            f"{dr.external_id} adopted (nothing is created); {fate}",
            replace_paths=("external_id",),
            **base,
        )
    if rs.external_id is not None:
        return ResourceChange(
            action=Action.REPLACE,
            before=dict(rs.properties),
            after=after,
            previous_physical_id=rs.physical_id,
            action_reason=R_EXTERNAL_REMOVED,
            reason_detail=f"external_id removed: a new object is created; the adopted object {rs.physical_id} "
            "is left in place (forgotten, never deleted)",
            replace_paths=("external_id",),
            **base,
        )

    before_raw = dict(rs.properties)
    after_disp = settle_unknowns(after, before_raw, resolver.stable)
    healthy = (
        rs.type == dr.type
        and not rs.failed
        and not rs.in_progress
        and addr not in ctx.gone
        and rs.status not in ("INIT_COMPLETE", "DELETE_COMPLETE")
        and not any(_matches(addr, sel) for sel in ctx.options.replace)
    )
    if (
        healthy
        and not dr.has_metadata
        and not rs.metadata
        and rs.deletion_policy == dr.deletion_policy
        and (rtype is None or rtype.always_replace is None or not rtype.always_replace(after_disp))
        and (rtype is None or rtype.always_update is None or not rtype.always_update(after_disp))
        and values_equal(before_raw, after_disp)
    ):
        # the fast path: the same resolved properties as applied (most resources of most plans)
        return ResourceChange(
            action=Action.NOOP,
            before=before_raw,
            after=after_disp,
            previous_physical_id=rs.physical_id,
            **base,
        )
    before_d = apply_defaults(rtype, before_raw)
    after_d = settle_unknowns(apply_defaults(rtype, after), before_d, resolver.stable)
    keys = changed_keys(rtype, before_d, after_d)
    paths = tuple(detail_paths(rtype, before_d, after_d, keys)) if keys else ()
    common: dict[str, Any] = dict(
        before=before_raw, after=after_disp, changed_paths=paths, previous_physical_id=rs.physical_id, **base
    )

    def replace_(reason: str, detail: str, rpaths: tuple[str, ...] = ()) -> ResourceChange:
        return ResourceChange(
            action=Action.REPLACE, action_reason=reason, reason_detail=detail, replace_paths=rpaths, **common
        )

    if rs.type != dr.type:
        return replace_(R_TYPE_CHANGED, f"type changed from {rs.type} to {dr.type}", ("type",))
    if any(_matches(addr, sel) for sel in ctx.options.replace):
        return replace_(R_BY_REQUEST, "replacement requested with --replace")
    if addr in ctx.gone:
        return replace_(R_GONE, "the object no longer exists in the cloud")
    if rs.failed and needs_replace_failed(rs, addr in ctx.refreshed):
        return replace_(
            R_FAILED, f"the resource is {rs.status}" + (f": {rs.status_reason}" if rs.status_reason else "")
        )
    if rs.in_progress or rs.status in ("INIT_COMPLETE", "DELETE_COMPLETE"):
        return replace_(R_INCOMPLETE, f"the resource was left {rs.status} by an interrupted run")

    md_changed = False
    if dr.has_metadata or rs.metadata:
        md = d.resolve_metadata(addr, resolver, memo)
        md = settle_unknowns(md, dict(rs.metadata), resolver.stable) if md is not None else {}
        md_changed = not values_equal(dict(rs.metadata), md or {})
    policy_changed = rs.deletion_policy != dr.deletion_policy

    def noop_or_definition_update(detail: str = "") -> ResourceChange:
        if rs.failed:
            return ResourceChange(
                action=Action.UPDATE,
                action_reason="update",
                reason_detail=f"the resource is {rs.status} but its live status is fine: nothing is "
                "replaced, its state is marked complete",
                **common,
            )
        if md_changed or policy_changed:
            what = [w for w, c in (("metadata", md_changed), ("deletion_policy", policy_changed)) if c]
            return ResourceChange(
                action=Action.UPDATE,
                action_reason="update",
                reason_detail=f"{' and '.join(what)} changed",
                **common,
            )
        forced = rtype.always_update(after_d) if rtype is not None and rtype.always_update else None
        if forced:
            return ResourceChange(
                action=Action.UPDATE, action_reason="update", reason_detail=forced, **common
            )
        return ResourceChange(action=Action.NOOP, reason_detail=detail, **{**common, "changed_paths": ()})

    if rtype is None:
        # no schema (a type hotc does not know): any change is taken as an in-place update
        if not keys:
            return noop_or_definition_update()
        return ResourceChange(
            action=Action.UPDATE,
            action_reason="update",
            reason_detail="update in place (no schema for this type): " + ", ".join(keys),
            **common,
        )

    dec = decide_update(rtype, unmask(before_d, after_d), after_d, defaults_applied=True)
    where = dr.pos
    if dec.kind == "error":
        for path, message in dec.errors:
            head = path.split(".")[0].split("[")[0]
            ctx.errors.append(
                error(
                    f"{addr}: {message} ({head}: {_short(before_d.get(head))} -> {_short(after_d.get(head))}); Heat refuses "
                    f"this update: restore the value, or replace the resource with --replace {addr}",
                    where,
                )
            )
        return ResourceChange(
            action=Action.UPDATE, action_reason="update", reason_detail="; ".join(dec.reasons), **common
        )
    if dec.kind == "no-op":
        detail = (
            "this type is never updated (Heat ignores property changes)"
            if rtype.never_updates and keys
            else ""
        )
        return noop_or_definition_update(detail)
    if dec.kind == "replace":
        not_updatable = {k for k in dec.changed if k not in rtype.update_allowed}
        by_rule = not dec.replace_paths or bool(set(dec.replace_paths) - not_updatable)
        detail = "; ".join(dec.reasons)
        return replace_(R_TYPE_RULE if by_rule else R_CANNOT_UPDATE, detail, tuple(dec.replace_paths))
    if dec.rebuild:
        return ResourceChange(
            action=Action.UPDATE,
            rebuild=True,
            action_reason=U_REBUILD,
            reason_detail="; ".join(dec.reasons) or "rebuilt in place (root disk wiped)",
            **common,
        )
    return ResourceChange(
        action=Action.UPDATE,
        action_reason="update",
        reason_detail="update in place: " + ", ".join(dec.changed),
        **common,
    )


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _outputs(ctx: _Ctx, resolver: PlanResolver, memo: dict[Any, Any]) -> list[OutputChange]:
    d = ctx.desired
    new = d.resolve_outputs_with_errors(resolver, memo)
    old = ctx.state.outputs if ctx.state is not None else {}
    outs: list[OutputChange] = []
    for name in d.outputs:
        sensitive = name in d.sensitive_outputs
        if name not in new:
            if name in old:
                outs.append(OutputChange(name, Action.DELETE, before=old[name].value, sensitive=sensitive))
            continue
        value, err = new[name]
        if err is not None and (sensitive or (name in old and old[name].sensitive)):
            err = withheld_error(err)  # evaluation errors quote the value they failed on
        if name not in old:
            outs.append(OutputChange(name, Action.CREATE, after=value, sensitive=sensitive, error=err))
            continue
        if err is not None:
            outs.append(
                OutputChange(
                    name, Action.UPDATE, before=old[name].value, after=None, sensitive=sensitive, error=err
                )
            )
            continue
        before = old[name].value
        value = settle_unknowns(value, before, resolver.stable)
        same = values_equal(before, value)
        outs.append(
            OutputChange(
                name,
                Action.NOOP if same else Action.UPDATE,
                before=before,
                after=value,
                sensitive=sensitive or old[name].sensitive,
            )
        )
    for name, o in old.items():
        if name not in d.outputs:
            outs.append(OutputChange(name, Action.DELETE, before=o.value, sensitive=o.sensitive))
    return outs
