"""The dependency graph of the desired state (:mod:`hotc.planner.digraph`), with Heat's implicit edges.

Edges point from a dependency to its dependent (``u -> v``: create ``u`` before ``v``), so a topological
order is a creation order. Sources of edges:

- explicit ``depends_on`` and ``get_resource``/``get_attr`` references (a reference to a group or a nested
  stack means every leaf inside it; every leaf of a group/nested stack inherits the container's references);
- Heat's implicit edges (``add_dependencies`` in Heat's resource plugins, heat-hot.md §2.3), within one stack:
  Port -> Subnets of its network; Server -> Subnets of its networks (and every Subnet whose network is not
  known); Router with an external gateway -> Subnets of that network; FloatingIP -> Router whose gateway is its
  floating network, and -> RouterInterface on the subnet of its port; FloatingIPAssociation -> RouterInterface
  on the subnet of its port; RouterGateway (legacy) -> RouterInterfaces of its router and Subnets of its network;
  FloatingIP -> RouterGateway on its floating network.

A cycle is an error naming the cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hotc.errors import HotcError
from hotc.planner.desired import Memo
from hotc.planner.digraph import CycleError, DiGraph, find_cycle, topological_sort
from hotc.planner.resolve import UnknownResolver
from hotc.values import Unknown

if TYPE_CHECKING:
    from hotc.planner.desired import DesiredStack

SUBNET = "OS::Neutron::Subnet"
PORT = "OS::Neutron::Port"
SERVER = "OS::Nova::Server"
ROUTER = "OS::Neutron::Router"
ROUTER_IF = "OS::Neutron::RouterInterface"
FIP = "OS::Neutron::FloatingIP"
FIP_ASSOC = "OS::Neutron::FloatingIPAssociation"
ROUTER_GW = "OS::Neutron::RouterGateway"
IMPLICIT_TYPES = frozenset({SUBNET, PORT, SERVER, ROUTER, ROUTER_IF, FIP, FIP_ASSOC, ROUTER_GW})

Key = tuple[str, str] | None

# the properties the implicit-edge rules read, per type (nothing else is evaluated for them)
_NEEDED: dict[str, frozenset[str]] = {
    SUBNET: frozenset({"network", "network_id"}),
    PORT: frozenset({"network", "network_id", "fixed_ips"}),
    SERVER: frozenset({"networks"}),
    ROUTER: frozenset({"external_gateway_info"}),
    ROUTER_IF: frozenset({"subnet", "subnet_id", "router", "router_id"}),
    FIP: frozenset({"floating_network", "floating_network_id", "port_id"}),
    FIP_ASSOC: frozenset({"port_id"}),
    ROUTER_GW: frozenset({"router_id", "network", "network_id"}),
}


def ref_key(value: Any) -> Key:
    """What a network/subnet/port property points at: ("addr", address) for a reference to a resource of
    this stack, ("val", text) for a literal id or name, None when it cannot be told."""
    if isinstance(value, Unknown):
        if len(value.waits_on) == 1:
            (w,) = value.waits_on
            if w.attribute is None:
                return ("addr", w.address)
        return None
    if isinstance(value, str) and value:
        return ("val", value)
    return None


def _implicit_edges(d: DesiredStack, explicit: Mapping[str, set[str]]) -> list[tuple[str, str]]:
    """(dependency, dependent) pairs from Heat's add_dependencies rules, per scope."""
    resolver = UnknownResolver()
    memo: dict[Any, Any] = Memo()
    by_scope: dict[str, dict[str, list[str]]] = {}
    for addr, r in d.resources.items():
        if r.condition_enabled and r.type in IMPLICIT_TYPES:
            by_scope.setdefault(r.scope, {}).setdefault(r.type, []).append(addr)
    edges: list[tuple[str, str]] = []
    props: dict[str, dict[str, Any]] = {}

    def p(addr: str) -> dict[str, Any]:
        if addr not in props:
            # every property, once: a plan from an empty state takes these (d.static_properties) instead of
            # evaluating them again; when one of them cannot be evaluated, just the properties the rules read
            try:
                props[addr] = d.static_properties[addr] = d.resolve_properties(addr, resolver, memo)
            except HotcError:
                try:
                    props[addr] = d.resolve_properties(
                        addr, resolver, memo, only=_NEEDED.get(d.resources[addr].type)
                    )
                except HotcError:
                    props[addr] = {}
        return props[addr]

    for types in by_scope.values():
        edges.extend(_scope_edges(types, p, explicit))
    return edges


def _scope_edges(
    types: Mapping[str, list[str]], p: Any, explicit: Mapping[str, set[str]]
) -> list[tuple[str, str]]:
    """Implicit edges within one stack; every rule is a lookup in an index, so the cost is linear."""
    edges: list[tuple[str, str]] = []
    subnet_net: dict[str, Key] = {}
    by_net: dict[Key, list[str]] = {}
    unknown_net: list[str] = []
    for s in types.get(SUBNET, []):
        k = ref_key(p(s).get("network") or p(s).get("network_id"))
        subnet_net[s] = k
        if k is None:
            unknown_net.append(s)
        else:
            by_net.setdefault(k, []).append(s)
    # router interfaces by their subnet, and by the network of that subnet (when the subnet is in the stack)
    if_by_subnet: dict[Key, list[str]] = {}
    if_by_net: dict[Key, list[str]] = {}
    if_unsure: list[str] = []
    for ri in types.get(ROUTER_IF, []):
        sk = ref_key(p(ri).get("subnet") or p(ri).get("subnet_id"))
        if_by_subnet.setdefault(sk, []).append(ri)
        if sk is not None and sk[0] == "addr" and sk[1] in subnet_net and subnet_net[sk[1]] is not None:
            if_by_net.setdefault(subnet_net[sk[1]], []).append(ri)
        else:
            if_unsure.append(ri)
    ports = set(types.get(PORT, []))

    def interfaces_for_port(port_key: Key) -> list[str]:
        if port_key is None or port_key[0] != "addr" or port_key[1] not in ports:
            return []
        pp = p(port_key[1])
        fixed = pp.get("fixed_ips")
        if isinstance(fixed, list) and fixed:
            out: list[str] = []
            for f in fixed:
                if isinstance(f, dict):
                    out.extend(if_by_subnet.get(ref_key(f.get("subnet") or f.get("subnet_id")), []))
            return out
        net = ref_key(pp.get("network") or pp.get("network_id"))
        if net is None:
            return [ri for lst in if_by_subnet.values() for ri in lst]  # cannot tell: be safe
        return if_by_net.get(net, []) + if_unsure

    for port in types.get(PORT, []):
        net = ref_key(p(port).get("network") or p(port).get("network_id"))
        if net is not None:
            edges.extend((s, port) for s in by_net.get(net, []))
    for server in types.get(SERVER, []):
        nets = p(server).get("networks")
        keys = (
            {ref_key(n.get("network")) for n in nets if isinstance(n, dict) and n.get("network")}
            if isinstance(nets, list)
            else set()
        )
        keys.discard(None)
        edges.extend((s, server) for s in unknown_net)
        for k in keys:
            edges.extend((s, server) for s in by_net.get(k, []))
    routers_by_gw: dict[Key, list[str]] = {}
    for router in types.get(ROUTER, []):
        gw = p(router).get("external_gateway_info")
        if isinstance(gw, dict) and gw.get("network"):
            k = ref_key(gw.get("network"))
            if k is not None:
                edges.extend((s, router) for s in by_net.get(k, []))
                routers_by_gw.setdefault(k, []).append(router)
    # the legacy RouterGateway: after the router's interfaces and the subnets of its network (Heat's
    # RouterGateway.add_dependencies); floating IPs on that network come after it
    gws_by_net: dict[Key, list[str]] = {}
    if types.get(ROUTER_GW):
        if_by_router: dict[Key, list[str]] = {}
        for ri in types.get(ROUTER_IF, []):
            rk = ref_key(p(ri).get("router") or p(ri).get("router_id"))
            if rk is not None:
                if_by_router.setdefault(rk, []).append(ri)
        for gw in types[ROUTER_GW]:
            gp = p(gw)
            rk = ref_key(gp.get("router_id"))
            if rk is not None:
                edges.extend((ri, gw) for ri in if_by_router.get(rk, []))
            nk = ref_key(gp.get("network") or gp.get("network_id"))
            if nk is not None:
                edges.extend((s, gw) for s in by_net.get(nk, []))
                gws_by_net.setdefault(nk, []).append(gw)
    for fip in types.get(FIP, []):
        fp = p(fip)
        fnet = ref_key(fp.get("floating_network") or fp.get("floating_network_id"))
        if fnet is not None:
            edges.extend((r, fip) for r in routers_by_gw.get(fnet, []))
            edges.extend((g, fip) for g in gws_by_net.get(fnet, []))
        for dep in explicit.get(fip, ()):
            edges.extend((ri, fip) for ri in interfaces_for_port(("addr", dep)))
    for assoc in types.get(FIP_ASSOC, []):
        edges.extend((ri, assoc) for ri in interfaces_for_port(ref_key(p(assoc).get("port_id"))))
    return edges


def add_dependencies(d: DesiredStack, explicit: Mapping[str, set[str]]) -> None:
    """Set every leaf's ``depends_on`` (sorted leaf addresses), build ``d.graph`` and ``d.order``."""
    g = DiGraph()
    leaves = d.leaves_under
    enabled = [a for a, r in d.resources.items() if r.condition_enabled]
    g.add_nodes_from(enabled)
    deps: dict[str, set[str]] = {a: set() for a in enabled}
    for addr, needs in explicit.items():
        if addr not in deps:
            continue
        bucket = deps[addr]
        for n in needs:
            for leaf in leaves.get(n, ()):
                if leaf != addr:
                    bucket.add(leaf)
    for u, v in _implicit_edges(d, explicit):
        if u != v and v in deps and u in deps:
            deps[v].add(u)
    for v, us in deps.items():
        g.add_edges_from((u, v) for u in us)
    try:
        order = topological_sort(g)
    except CycleError:
        check_acyclic(g)
        raise
    for addr, us in deps.items():
        # the DesiredResource objects are still private to the builder: set the field in place (cheaper than
        # dataclasses.replace on every resource of a large stack)
        object.__setattr__(d.resources[addr], "depends_on", tuple(sorted(us)))
    d.graph = g
    d.order = order


def check_acyclic(g: DiGraph) -> None:
    """Raise a HotcError naming a cycle of ``g``, if there is one."""
    cycle = find_cycle(g)
    if cycle is None:
        return
    names = [*cycle, cycle[0]]
    raise HotcError("dependency cycle: " + " -> ".join(_reverse(names)) + " (each needs the next)")


def _reverse(names: list[str]) -> list[str]:
    # edges are dependency -> dependent; print as "a needs b needs c"
    return list(reversed(names))


def topological(g: DiGraph, nodes: Iterable[str] | None = None) -> list[str]:
    sub = g if nodes is None else g.subgraph(nodes)
    return topological_sort(sub)
