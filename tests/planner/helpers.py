"""Hand-built inputs for planner tests: templates from plain dicts (through the front end's parse_expr),
states from dicts, and a small schema table mirroring heat-hot.md §2.6 for the types the tests use."""

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
        params[name] = Parameter(name, p.get("type", "string"), p.get("default", MISSING), hidden=p.get("hidden", False))
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
            condition=(Literal(cond) if isinstance(cond, str | bool) else _expr(cond)) if cond is not None else None,
        )
    conditions = {n: Condition(n, _expr(c, "conditions")) for n, c in (doc.get("conditions") or {}).items()}
    outputs = {n: Output(n, _expr(o.get("value"), "outputs"), condition=Literal(o["condition"]) if "condition" in o else None)
               for n, o in (doc.get("outputs") or {}).items()}
    return Template(path=path, version=V, parameters=params, resources=resources, conditions=conditions, outputs=outputs)


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


def nested_template(doc: Mapping[str, Any], key: str, nested: Mapping[str, Any] | None = None) -> NestedTemplate:
    t = template(doc, key)
    sub = {k: nested_template(v, k) for k, v in (nested or {}).items()}
    return NestedTemplate(template=t, types=_types(t, sub), nested=sub)


def stack(doc: Mapping[str, Any], params: Mapping[str, Any] | None = None,
          nested: Mapping[str, Mapping[str, Any]] | None = None) -> LoadedStack:
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


def state(resources: Mapping[str, Mapping[str, Any]], *, outputs: Mapping[str, Any] | None = None,
          serial: int = 3, lineage: str = "lin-1") -> StackState:
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


def _server_rule(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    hits = []
    if old.get("user_data") != new.get("user_data") and new.get("user_data_update_policy", "REPLACE") == "REPLACE":
        hits.append(("user_data", "user_data changed and user_data_update_policy is REPLACE"))
    if old.get("image") != new.get("image") and new.get("image_update_policy", "REBUILD") == "REPLACE":
        hits.append(("image", "image changed and image_update_policy is REPLACE"))
    if old.get("flavor") != new.get("flavor") and new.get("flavor_update_policy", "RESIZE") == "REPLACE":
        hits.append(("flavor", "flavor changed and flavor_update_policy is REPLACE"))
    return hits


SCHEMAS: dict[str, ResourceType] = {
    "OS::Nova::Server": ResourceType("OS::Nova::Server", {
        "name": P(update=True), "image": P(update=True), "flavor": P(update=True),
        "key_name": P(), "security_groups": P("list", default=[]),
        "networks": P("list", update=True, set_like=True),
        "user_data": P(update=True, default=""), "user_data_update_policy": P(update=True, default="REPLACE"),
        "image_update_policy": P(update=True, default="REBUILD"), "flavor_update_policy": P(update=True, default="RESIZE"),
        "metadata": P("map", update=True, default={}), "user_data_format": P(default="HEAT_CFNTOOLS"),
    }, replace_rules=(_server_rule,)),
    "OS::Neutron::Net": ResourceType("OS::Neutron::Net", {"name": P(update=True), "admin_state_up": P("boolean", True, True)}),
    "OS::Neutron::Subnet": ResourceType("OS::Neutron::Subnet", {"network": P(), "cidr": P(), "name": P(update=True),
                                                                 "ip_version": P("integer", default=4)}),
    "OS::Neutron::Port": ResourceType("OS::Neutron::Port", {"network": P(), "name": P(update=True),
                                                             "fixed_ips": P("list", update=True),
                                                             "security_groups": P("list", update=True)}),
    "OS::Neutron::Router": ResourceType("OS::Neutron::Router", {"name": P(update=True), "external_gateway_info": P("map", True)}),
    "OS::Neutron::RouterInterface": ResourceType("OS::Neutron::RouterInterface", {"router": P(), "subnet": P(), "port": P()}),
    "OS::Neutron::FloatingIP": ResourceType("OS::Neutron::FloatingIP", {"floating_network": P(), "port_id": P(update=True)}),
    "OS::Neutron::FloatingIPAssociation": ResourceType("OS::Neutron::FloatingIPAssociation", {"floatingip_id": P(update=True), "port_id": P(update=True)}),
    "OS::Neutron::SecurityGroup": ResourceType("OS::Neutron::SecurityGroup", {
        "name": P(update=True), "description": P(update=True),
        "rules": P("list", update=True, default=[], set_like=True)}),
    "OS::Neutron::SecurityGroupRule": ResourceType("OS::Neutron::SecurityGroupRule", {
        "security_group": P(), "port_range_min": P("integer"), "port_range_max": P("integer"), "protocol": P(default="tcp")}),
    "OS::Octavia::LoadBalancer": ResourceType("OS::Octavia::LoadBalancer", {"vip_subnet": P(), "name": P(update=True)}),
    "OS::Octavia::Listener": ResourceType("OS::Octavia::Listener", {"loadbalancer": P(), "protocol": P(), "protocol_port": P("integer")}),
    "OS::Octavia::Pool": ResourceType("OS::Octavia::Pool", {"listener": P(), "protocol": P(), "lb_algorithm": P(update=True)}),
    "OS::Octavia::PoolMember": ResourceType("OS::Octavia::PoolMember", {
        "pool": P(), "address": P(), "protocol_port": P("integer"), "subnet": P(), "weight": P("integer", True, 1)}),
    "OS::Cinder::Volume": ResourceType("OS::Cinder::Volume", {"size": P("integer", True), "name": P(update=True),
                                                              "image": P()}),
    "OS::Heat::Value": ResourceType("OS::Heat::Value", {"value": P("any", True), "type": P(update=True)}),
    "OS::Heat::RandomString": ResourceType("OS::Heat::RandomString", {"length": P("integer", default=32), "salt": P()}),
    "OS::Heat::None": ResourceType("OS::Heat::None", {}),
    "OS::Heat::TestResource": ResourceType("OS::Heat::TestResource", {
        "value": P(update=True, default="test_string"), "update_replace_value": P(),
        "immutable_thing": P(immutable=True, update=True)}),
}


IMMUTABLE = ResourceType("Test::Immutable", {"immutable_thing": P(immutable=True, update=True), "other": P(update=True)})


def lookup(name: str) -> ResourceType | None:
    """The real schema registry, plus a test-only type with an immutable property (no seed type has one)."""
    from hotc.providers.registry import get_schema

    if name == IMMUTABLE.name:
        return IMMUTABLE
    return get_schema(name)


def hand_lookup(name: str) -> ResourceType | None:
    """The hand-written table above (kept to show the planner does not depend on the registry's details)."""
    return SCHEMAS.get(name)


def plan_of(loaded: LoadedStack, st: StackState | None = None, **opts: Any):  # type: ignore[no-untyped-def]
    from hotc.planner.api import PlanOptions, build_desired, make_plan

    d = build_desired(loaded, "s", st.lineage if st else None, state=st)
    return make_plan(d, st, PlanOptions(**opts), schemas=lookup)


def by_addr(plan: Any) -> dict[str, Any]:
    return {(c.address + (" (deposed)" if c.deposed else "")): c for c in plan.changes}
