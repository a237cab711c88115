"""Custom constraints (``custom_constraint: glance.image`` …) checked at plan time.

:func:`check_constraints` checks, with the :class:`ConstraintRules` it is given (the OpenStack provider's,
``hotc.providers.openstack.constraints``, wired by the CLI's composition root: the planner knows no cloud API):

- the root template's parameter values against their ``custom_constraint``;
- the properties of every resource the plan creates or replaces (and the changed properties of those it
  updates in place) against the custom constraints of the type's schema (a server's ``flavor`` is a
  ``nova.flavor``, its ``image`` a ``glance.image`` …). Values known only after apply are skipped; resources
  the plan leaves alone are not checked (apply does not touch them).

Constraints that need no cloud (``ip_addr``, ``net_cidr``, ``dns_name`` …) are always checked. Those that name
cloud objects are checked only with a connection (``conn``); without one, :attr:`ConstraintReport.unchecked`
names them so the caller can say so. Each distinct cloud look-up is made once per call. A value that fails
both as a parameter and as a property fed by that parameter is reported once, at the parameter.
Hidden values never appear in the messages.
"""

from __future__ import annotations

import os
import re
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

from hotc.errors import Diagnostic, HotcError, Pos, error
from hotc.model import model
from hotc.parser.api import Expr, MapExpr
from hotc.planner.desired import DesiredStack, Memo, gc_paused
from hotc.planner.make import registry_lookup
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.resolve import UnknownResolver
from hotc.providers.shared_lookup import once
from hotc.values import Unknown

SchemaLookup = Callable[[str], Any]


class ConstraintRules(Protocol):
    """What a custom constraint means: the checks of a provider (``hotc.providers.openstack.constraints``
    satisfies this as a module). ``conn`` is a cloud connection, or None for the checks that need none."""

    def needs_cloud(self, name: str) -> bool: ...

    def check_custom_constraint(self, name: str, value: Any, conn: Any) -> str | None: ...

    def parameter_diagnostics(
        self, params: Iterable[Any], values: Mapping[str, Any], conn: Any
    ) -> list[Diagnostic]: ...

    def property_diagnostics(
        self, rtype: Any, props: Mapping[str, Any], address: str, conn: Any, pos: Pos | None = None
    ) -> list[Diagnostic]: ...


@model
class ConstraintReport:
    diagnostics: tuple[Diagnostic, ...] = ()  # errors: values that fail a custom constraint
    unchecked: tuple[str, ...] = ()  # names of cloud-backed constraints not checked (no connection)
    checked_cloud: bool = False  # cloud-backed constraints were checked with a connection


# ------------------------------------------------------------------------------------------ what to check


def _value_pos(desired: DesiredStack, address: str, key: str) -> Pos | None:
    """Where the template writes property KEY of the resource at ADDRESS (its resource if not found)."""
    res = desired.resources.get(address)
    if res is None:
        return None
    scope = desired.scopes.get(res.scope)
    member = scope.members.get(res.name) if scope is not None else None
    resource = member.resource if member is not None else None
    if resource is None:
        return res.pos
    props: Expr | None = resource.properties
    if res.group is not None:  # a group member: resource_def / resource -> properties
        inner = None
        if isinstance(props, MapExpr):
            inner = props.get("resource_def") or props.get("resource")
        props = inner.get("properties") if isinstance(inner, MapExpr) else None
    if isinstance(props, MapExpr):
        expr = props.get(key)
        if expr is not None and expr.pos is not None:
            return expr.pos
    return resource.pos or res.pos


def _checked_keys(change: ResourceChange) -> Iterable[str]:
    after = change.after or {}
    action = change.action
    if action is Action.CREATE or action is Action.REPLACE:
        return after.keys()
    if change.action is Action.UPDATE:
        heads = {p.split(".", 1)[0].split("[", 1)[0] for p in change.changed_paths}
        return [k for k in after if k in heads]
    return []


def _checkable(value: Any) -> bool:
    return value is not None and value != "" and not isinstance(value, Unknown)


def _cloud_names_in(schema: Any, value: Any, needs_cloud: Callable[[str], bool], out: set[str]) -> None:
    """Cloud-backed constraint names that a check of VALUE against SCHEMA would look up (mirrors the walk of
    ``property_diagnostics``)."""
    if schema is None or not _checkable(value):
        return
    for c in schema.constraints:
        if c.kind == "custom_constraint" and needs_cloud(str(c.spec)):
            out.add(str(c.spec))
    if isinstance(value, list) and schema.item is not None:
        for item in value:
            _cloud_names_in(schema.item, item, needs_cloud, out)
    elif isinstance(value, Mapping) and schema.schema:
        for k, v in value.items():
            _cloud_names_in(schema.schema.get(k), v, needs_cloud, out)
    elif isinstance(value, list) and schema.schema:
        for item in value:
            if isinstance(item, Mapping):
                for k, v in item.items():
                    _cloud_names_in(schema.schema.get(k), v, needs_cloud, out)


def cloud_constraints_needed(
    desired: DesiredStack, plan: Plan, *, rules: ConstraintRules, schemas: SchemaLookup | None = None
) -> tuple[str, ...]:
    """Names of the cloud-backed custom constraints :func:`check_constraints` would look up for this plan
    (empty: no cloud is needed to check everything)."""
    needs_cloud = rules.needs_cloud
    lookup = schemas or registry_lookup
    names = _parameter_cloud_names(desired, plan, needs_cloud)
    cache: SpecCache = {}
    infos: KeyInfos = {}
    for change in plan.changes:
        keys = _checked_keys(change)
        rtype = lookup(change.type) if keys else None
        if rtype is None or change.after_sensitive:
            continue
        after = change.after or {}
        for k in keys:
            _note_cloud_names(
                _key_info(infos, change.type, rtype, k, cache, needs_cloud), after[k], needs_cloud, names
            )
    return tuple(sorted(names))


def _parameter_cloud_names(desired: DesiredStack, plan: Plan, needs_cloud: Callable[[str], bool]) -> set[str]:
    """The cloud-backed custom constraints of the parameter values a check would look up."""
    names: set[str] = set()
    if plan.mode == "normal":
        for _prefix, params, values, _hidden in _scope_parameters(desired):
            for p in params:
                if p.name in values and _checkable(values[p.name]):
                    names.update(
                        str(c.spec)
                        for c in p.constraints
                        if c.kind == "custom_constraint" and needs_cloud(str(c.spec))
                    )
    return names


def _note_cloud_names(
    info: _KeyInfo, value: Any, needs_cloud: Callable[[str], bool], names: set[str]
) -> None:
    """Add to NAMES the cloud-backed custom constraints a check of one property's VALUE would look up."""
    if not info.cloud or not _checkable(value) or names.issuperset(info.cloud):
        return  # nothing new to find here
    _cloud_names_in(info.schema, value, needs_cloud, names)


@model(slots=True)
class _KeyInfo:
    """What the checks need to know of one property of one type (asked once per plan, not per resource)."""

    schema: Any
    specs: tuple[str, ...]  # every custom constraint in the property's schema
    cloud: frozenset[str]  # those that need a cloud
    pure: bool  # some need none


KeyInfos = dict[tuple[str, str], _KeyInfo]


def _key_info(
    infos: KeyInfos,
    type_name: str,
    rtype: Any,
    key: str,
    cache: SpecCache,
    needs_cloud: Callable[[str], bool],
) -> _KeyInfo:
    info = infos.get((type_name, key))
    if info is None:
        schema = rtype.properties.get(key)
        specs = _specs_of(schema, cache)
        cloud = frozenset(x for x in specs if needs_cloud(x))
        info = infos[(type_name, key)] = _KeyInfo(schema, specs, cloud, any(x not in cloud for x in specs))
    return info


# ------------------------------------------------------------------------------------------ look-up memo


class _Memo:
    """A view of an openstacksdk connection that makes each distinct call once (results, generators as
    lists, and exceptions are remembered). Only used for the read-only look-ups of the constraint checks."""

    def __init__(self, target: Any, cache: dict[Any, Any], path: tuple[str, ...] = ()) -> None:
        self._target = target
        self._cache = cache
        self._path = path

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        path = (*self._path, name)
        if callable(attr):
            return self._call(attr, path)
        return _Memo(attr, self._cache, path)

    def _call(self, fn: Callable[..., Any], path: tuple[str, ...]) -> Callable[..., Any]:
        cache = self._cache

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                key: Any = (path, args, tuple(sorted(kwargs.items())))
                hash(key)
            except TypeError:
                return fn(*args, **kwargs)

            def fetch() -> tuple[bool, Any]:
                try:
                    result = fn(*args, **kwargs)
                    if isinstance(result, types.GeneratorType) or (
                        hasattr(result, "__next__") and hasattr(result, "__iter__")
                    ):
                        result = list(result)
                    return True, result
                except Exception as exc:  # remembered and raised again, for the caller to judge
                    return False, exc

            ok, value = once(cache, key, fetch)  # one call per key, also from parallel threads
            if not ok:
                raise value
            return value

        return call


# ------------------------------------------------------------------------------------------ checking


def _hidden_message(subject: str, spec: str) -> str:
    return f"{subject}: the value (hidden) does not satisfy the custom constraint {spec}"


def _parameter_checks(
    desired: DesiredStack, conn: Any, rules: ConstraintRules
) -> tuple[list[Diagnostic], set[str]]:
    """Parameter diagnostics, and the raw messages of the failures (to report a value once)."""
    check_custom_constraint = rules.check_custom_constraint
    needs_cloud = rules.needs_cloud
    parameter_diagnostics = rules.parameter_diagnostics

    out: list[Diagnostic] = []
    failed: set[str] = set()
    for prefix, params, values, hidden in _scope_parameters(desired):
        for p in params:
            diags = parameter_diagnostics([p], values, conn)
            if not diags:
                continue
            for c in p.constraints:
                if c.kind == "custom_constraint" and not (conn is None and needs_cloud(str(c.spec))):
                    msg = check_custom_constraint(str(c.spec), values[p.name], conn)
                    if msg:
                        failed.add(msg)
            if p.hidden or p.name in hidden:
                specs = ", ".join(str(c.spec) for c in p.constraints if c.kind == "custom_constraint")
                diags = [
                    error(_hidden_message(f"parameter {p.name!r} is invalid", specs), d.pos, code=d.code)
                    for d in diags[:1]
                ]
            if prefix:  # a nested stack: say which one
                diags = [error(f"{prefix}: {d.message}", d.pos, code=d.code) for d in diags]
            out.extend(diags)
    return out, failed


def _scope_parameters(
    desired: DesiredStack,
) -> Iterator[tuple[str, list[Any], Mapping[str, Any], frozenset[str]]]:
    """(scope address, parameters with a custom constraint, their values, hidden names) for the root and every
    nested stack. A nested stack's values are what its parent feeds it, as far as known before apply."""
    resolver = UnknownResolver()
    memo: dict[Any, Any] = Memo()
    for prefix, scope in desired.scopes.items():
        params = [
            p
            for p in scope.template.parameters.values()
            if any(c.kind == "custom_constraint" for c in p.constraints)
        ]
        if not params:
            continue
        if scope.fixed_params is not None:
            values: Mapping[str, Any] = scope.fixed_params
        else:
            try:
                values = desired.context(prefix, resolver, memo).parameters
            except HotcError:
                continue  # cannot be evaluated before apply: planning itself reports real errors
        yield prefix, params, values, scope.hidden


def check_constraints(
    desired: DesiredStack,
    plan: Plan,
    conn: Any | None = None,
    *,
    rules: ConstraintRules,
    schemas: SchemaLookup | None = None,
) -> ConstraintReport:
    """Check the plan's custom constraints (see the module docstring). ``conn``: a cloud connection, or None
    to check only those that need no cloud. Raises HotcError when the cloud cannot answer."""
    with gc_paused():  # many small objects over a large heap: no repeated full collections (see gc_paused)
        return _check(desired, plan, conn, rules, schemas)


def _check(
    desired: DesiredStack,
    plan: Plan,
    conn: Any | None,
    rules: ConstraintRules,
    schemas: SchemaLookup | None,
) -> ConstraintReport:
    needs_cloud = rules.needs_cloud
    property_diagnostics = rules.property_diagnostics
    lookup = schemas or registry_lookup
    cache: SpecCache = {}
    memo_conn = _Memo(conn, {}) if conn is not None else None
    # without a connection, the cloud-backed constraints left unchecked are found in the same pass as the checks
    # (what cloud_constraints_needed finds)
    unchecked_names = _parameter_cloud_names(desired, plan, needs_cloud) if conn is None else None
    if memo_conn is not None:
        _look_up_in_parallel(desired, plan, memo_conn, rules, lookup)
    diags: list[Diagnostic] = []
    failed: set[str] = set()
    if plan.mode == "normal":
        pdiags, failed = _parameter_checks(desired, memo_conn, rules)
        diags.extend(pdiags)
    infos: KeyInfos = {}
    for change in plan.changes:
        keys = _checked_keys(change)
        rtype = lookup(change.type) if keys else None
        if rtype is None:
            continue
        after = change.after or {}
        for k in keys:
            info = _key_info(infos, change.type, rtype, k, cache, needs_cloud)
            if unchecked_names is not None and not change.after_sensitive:
                _note_cloud_names(info, after[k], needs_cloud, unchecked_names)
            specs = info.specs
            if not specs or (conn is None and not info.pure) or not _checkable(after[k]):
                continue  # nothing this check can look at in this property
            found = property_diagnostics(rtype, {k: after[k]}, change.address, memo_conn)
            if found:
                pos = _value_pos(desired, change.address, k)
                found = [Diagnostic(d.severity, d.message, pos, d.code) for d in found]
            for d in found:
                if any(d.message.endswith(": " + m) for m in failed):
                    continue  # the parameter that feeds it already failed with this very message
                if change.after_sensitive or any(
                    p.split(".", 1)[0].split("[", 1)[0] == k for p in change.sensitive_paths
                ):
                    spec = ", ".join(specs)
                    d = error(_hidden_message(f"{change.address}: property {k}", spec), d.pos, code=d.code)
                diags.append(d)
    unchecked = tuple(sorted(unchecked_names)) if unchecked_names is not None else ()
    return ConstraintReport(tuple(_unique(diags)), unchecked, checked_cloud=conn is not None)


LOOKUP_THREADS = 8


def _look_up_in_parallel(
    desired: DesiredStack, plan: Plan, memo_conn: _Memo, rules: ConstraintRules, lookup: SchemaLookup
) -> None:
    """Make the cloud look-ups of every check at once, in threads, into ``memo_conn``'s memo (each distinct
    call once), so that the checks that follow, one after another in plan order, find their answers there: a
    plan's flavors, images and networks are looked up in the time of the slowest, not of all of them in a row.
    What these calls raise is remembered by the memo and raised again by the checks themselves."""
    cache: SpecCache = {}
    work: list[Callable[[], Any]] = []
    if plan.mode == "normal":
        for _prefix, params, values, _hidden in _scope_parameters(desired):
            for p in params:
                if any(
                    c.kind == "custom_constraint" and rules.needs_cloud(str(c.spec)) for c in p.constraints
                ):
                    work.append(partial(rules.parameter_diagnostics, [p], values, memo_conn))
    for change in plan.changes:
        keys = _checked_keys(change)
        rtype = lookup(change.type) if keys else None
        if rtype is None:
            continue
        after = change.after or {}
        for k in keys:
            if any(rules.needs_cloud(x) for x in _specs_of(rtype.properties.get(k), cache)):
                work.append(
                    partial(rules.property_diagnostics, rtype, {k: after[k]}, change.address, memo_conn)
                )
    if len(work) < 2:
        return

    def run(fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception:  # noqa: BLE001 -- raised again by the check that makes the same call
            return

    with ThreadPoolExecutor(
        max_workers=min(LOOKUP_THREADS, len(work)), thread_name_prefix="hotc-lookup"
    ) as pool:
        list(pool.map(run, work))


SpecCache = dict[int, tuple[Any, tuple[str, ...]]]


def _specs_of(schema: Any, cache: SpecCache) -> tuple[str, ...]:
    """The custom constraint names anywhere in SCHEMA (remembered in CACHE for one check)."""
    if schema is None:
        return ()
    hit = cache.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    specs = tuple(_specs(schema))
    cache[id(schema)] = (schema, specs)
    return specs


def _specs(schema: Any) -> list[str]:
    if schema is None:
        return []
    out = [str(c.spec) for c in schema.constraints if c.kind == "custom_constraint"]
    for sub in (schema.item, *((schema.schema or {}).values())):
        out.extend(s for s in _specs(sub) if s not in out)
    return out


def _unique(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per problem: the same message at the same place (e.g. every instance of a nested
    template fed the same bad value) is reported once, for the first instance."""
    seen: set[tuple[str, Pos | None]] = set()
    out = []
    for d in diags:
        m = _SCOPED.match(d.message)
        key = (m.group("rest") if m else d.message, d.pos)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


_SCOPED = re.compile(r"^[^\s:]+: (?P<rest>parameter '.*)$", re.S)


# ------------------------------------------------------------------------------------------ the CLI edge


def cloud_configured(os_cloud: str | None, environ: Mapping[str, str] | None = None) -> bool:
    """Is a cloud named for this run: ``--os-cloud``, ``OS_CLOUD`` or the ``OS_*`` auth variables?"""
    env = os.environ if environ is None else environ
    return bool(os_cloud or env.get("OS_CLOUD") or env.get("OS_AUTH_URL") or env.get("OS_AUTH_TYPE"))


def enforce_constraints(
    desired: DesiredStack,
    plan: Plan,
    os_cloud: str | None,
    *,
    rules: ConstraintRules,
    cloud: Callable[[], Any],
) -> tuple[str, ...]:
    """What ``hotc plan`` (and an apply that plans on the spot) does with a normal plan: the custom constraints
    that need no cloud always; the cloud-backed ones (glance.image, nova.flavor, ...) when a cloud is configured
    (:func:`cloud_configured`; ``cloud()``, the connection getter, is called only when there is something to
    look up). Returns the notes for the user (what was not checked, and why; a cloud that cannot be reached
    is a note, not a verdict on the values); the caller shows them. Unmet constraints raise HotcError with
    the positioned diagnostics."""
    if plan.mode != "normal":
        return ()
    notes: list[str] = []
    conn = None
    configured = cloud_configured(os_cloud)
    needed = cloud_constraints_needed(desired, plan, rules=rules) if configured else ()
    if needed:
        try:
            conn = cloud()
        except HotcError as exc:
            notes.append(
                f"note: custom constraints {', '.join(needed)} were not checked against the cloud: {exc.message}"
            )
    try:
        report = check_constraints(desired, plan, conn, rules=rules)
    except HotcError as exc:  # the cloud could not answer
        notes.append(
            f"note: custom constraints {', '.join(needed)} were not checked against the cloud: {exc.message}"
        )
        report = check_constraints(desired, plan, None, rules=rules)
    if report.diagnostics:
        n = len(report.diagnostics)
        raise HotcError(
            f"{n} value(s) do not meet their custom constraint; nothing was planned",
            diagnostics=report.diagnostics,
        )
    if report.unchecked and not configured:
        notes.append(
            f"note: no cloud is configured, so the custom constraints {', '.join(report.unchecked)} were not "
            "checked (set OS_CLOUD or pass --os-cloud NAME to check them at plan time)"
        )
    return tuple(notes)


__all__ = [
    "ConstraintReport",
    "ConstraintRules",
    "check_constraints",
    "cloud_configured",
    "cloud_constraints_needed",
    "enforce_constraints",
]
