"""Hand-built inputs for planner tests: templates from plain dicts (through the front end's parse_expr),
states from dicts, and the real schema registry (plus one test-only type with an immutable property)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.parser.api import LoadedStack, NestedTemplate, TypeResolution
from hotc.parser.expr import parse_expr
from hotc.parser.ir import (
    MISSING,
    Condition,
    Literal,
    Output,
    Parameter,
    Reference,
    Resource,
    Template,
    TemplateVersion,
)
from hotc.providers.base import PropSchema, ResourceType
from hotc.state.document import OutputState, ResourceState, StackState

V = TemplateVersion("2018-08-31", "rocky")


def _expr(data: Any, where: str = "properties") -> Any:
    e, diags = parse_expr(data, V, where=where)
    assert not diags, diags
    return e


def template(doc: Mapping[str, Any], path: str = "main.yaml") -> Template:
    params = {}
    for name, p in (doc.get("parameters") or {}).items():
        params[name] = Parameter(
            name, p.get("type", "string"), p.get("default", MISSING), hidden=p.get("hidden", False)
        )
    resources = {}
    for name, r in (doc.get("resources") or {}).items():
        deps = r.get("depends_on", [])
        deps = [deps] if isinstance(deps, str) else deps
        cond = r.get("condition")
        resources[name] = Resource(
            name=name,
            type=r["type"],
            properties=_expr(r["properties"]) if "properties" in r else None,
            metadata=_expr(r["metadata"]) if "metadata" in r else None,
            depends_on=tuple(Reference(d) for d in deps),
            deletion_policy=Literal(r["deletion_policy"]) if "deletion_policy" in r else None,
            condition=(Literal(cond) if isinstance(cond, str | bool) else _expr(cond))
            if cond is not None
            else None,
        )
    conditions = {n: Condition(n, _expr(c, "conditions")) for n, c in (doc.get("conditions") or {}).items()}
    outputs = {
        n: Output(
            n,
            _expr(o.get("value"), "outputs"),
            condition=Literal(o["condition"]) if "condition" in o else None,
        )
        for n, o in (doc.get("outputs") or {}).items()
    }
    return Template(
        path=path, version=V, parameters=params, resources=resources, conditions=conditions, outputs=outputs
    )


def _types(t: Template, nested: Mapping[str, Any]) -> dict[str, TypeResolution]:
    out = {}
    for name, r in t.resources.items():
        if r.type in nested:
            out[name] = TypeResolution("template", r.type, r.type)
        elif r.type == "OS::Heat::Stack":
            out[name] = TypeResolution("template", "OS::Heat::Stack", f"stack:{name}")
        else:
            out[name] = TypeResolution("builtin", r.type)
    return out


def nested_template(
    doc: Mapping[str, Any], key: str, nested: Mapping[str, Any] | None = None
) -> NestedTemplate:
    t = template(doc, key)
    sub = {k: nested_template(v, k) for k, v in (nested or {}).items()}
    return NestedTemplate(template=t, types=_types(t, sub), nested=sub)


def stack(
    doc: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    nested: Mapping[str, Mapping[str, Any]] | None = None,
) -> LoadedStack:
    t = template(doc)
    values = {n: p.default for n, p in t.parameters.items() if p.default is not MISSING}
    values.update(params or {})
    sub = {k: nested_template(v, k) for k, v in (nested or {}).items()}
    return LoadedStack(
        template=t,
        parameter_values=values,
        hidden_parameters=frozenset(n for n, p in t.parameters.items() if p.hidden),
        types=_types(t, sub),
        nested=sub,
        sources={"/src/main.yaml": repr(doc)},
    )


def state(
    resources: Mapping[str, Mapping[str, Any]],
    *,
    outputs: Mapping[str, Any] | None = None,
    serial: int = 3,
    lineage: str = "lin-1",
) -> StackState:
    rs = {}
    for addr, r in resources.items():
        rs[addr] = ResourceState(
            address=addr,
            type=r["type"],
            physical_id=r.get("id", f"id-{addr}"),
            status=r.get("status", "CREATE_COMPLETE"),
            properties=r.get("properties", {}),
            attributes=r.get("attributes", {}),
            dependencies=tuple(r.get("dependencies", ())),
            deletion_policy=r.get("deletion_policy", "Delete"),
            metadata=r.get("metadata", {}),
        )
    outs = {k: OutputState(value=v) for k, v in (outputs or {}).items()}
    return StackState(lineage=lineage, serial=serial, stack_name="s", resources=rs, outputs=outs)


# ------------------------------------------------------------------------------------------ schemas


def P(type_: str = "string", update: bool = False, default: Any = MISSING, **kw: Any) -> PropSchema:
    return PropSchema(type=type_, update_allowed=update, default=default, **kw)


IMMUTABLE = ResourceType(
    "Test::Immutable", {"immutable_thing": P(immutable=True, update=True), "other": P(update=True)}
)


def lookup(name: str) -> ResourceType | None:
    """The real schema registry, plus a test-only type with an immutable property (no seed type has one)."""
    from hotc.providers.registry import get_schema

    if name == IMMUTABLE.name:
        return IMMUTABLE
    return get_schema(name)


def plan_of(loaded: LoadedStack, st: StackState | None = None, **opts: Any):  # type: ignore[no-untyped-def]
    from hotc.planner.api import PlanOptions, build_desired, make_plan

    d = build_desired(loaded, "s", st.lineage if st else None, state=st)
    return make_plan(d, st, PlanOptions(**opts), schemas=lookup)


def by_addr(plan: Any) -> dict[str, Any]:
    return {(c.address + (" (deposed)" if c.deposed else "")): c for c in plan.changes}
