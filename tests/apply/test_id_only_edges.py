"""Which creates may start once another resource exists, before its create has ended: the template's
references (DesiredStack.id_only_parents) and the apply graph's edges (hotc.apply.graph.id_only_edges)."""

from __future__ import annotations

from hotc.apply.graph import build_graph, id_only_edges
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.state.document import StackState
from tests.planner.helpers import lookup, stack

DOC = {
    "parameters": {"which": {"type": "string", "default": "net"}},
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "n"}},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"},
        },
        "router": {"type": "OS::Neutron::Router"},
        "iface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": {"get_resource": "router"}, "subnet": {"get_resource": "subnet"}},
        },
        # the network by id, the subnet by an attribute: only the network is an id-only parent
        "port": {
            "type": "OS::Neutron::Port",
            "properties": {
                "network": {"get_resource": "net"},
                "fixed_ips": [{"subnet": {"get_attr": ["subnet", "id"]}}],
            },
        },
        # the port by id, and an explicit depends_on on the router: only the port
        "server": {
            "type": "OS::Nova::Server",
            "depends_on": ["router"],
            "properties": {
                "image": "cirros",
                "flavor": "m1.tiny",
                "networks": [{"port": {"get_resource": "port"}}],
            },
        },
        # a name computed from a parameter: which resource it is depends on values
        "computed": {
            "type": "OS::Neutron::Port",
            "properties": {
                "network": {"get_resource": {"get_param": "which"}},
                "name": {"get_resource": "net"},
            },
        },
        # the same parent by id and by attribute in metadata: waits for the whole create
        "both": {
            "type": "OS::Neutron::Port",
            "properties": {"network": {"get_resource": "net"}},
            "metadata": {"mtu": {"get_attr": ["net", "mtu"]}},
        },
    },
}


def test_a_resource_needs_only_the_id_of_what_it_names_by_get_resource_alone() -> None:
    d = build_desired(stack(DOC), "s", None)
    got = {a: d.id_only_parents(a) for a in DOC["resources"]}
    assert got == {
        "net": frozenset(),
        "subnet": {"net"},
        "router": frozenset(),
        "iface": {"router", "subnet"},
        "port": {"net"},
        "server": {"port"},
        "computed": frozenset(),
        "both": frozenset(),
    }
    assert d.id_only_parents("nope") == frozenset()


def test_the_apply_graph_lets_only_creates_on_id_only_references_start_early() -> None:
    d = build_desired(stack(DOC), "s", None)
    plan = make_plan(d, None, PlanOptions(), schemas=lookup)
    graph = build_graph(plan, StackState.new("s"))
    assert id_only_edges(graph, d.id_only_parents) == {
        ("apply:subnet", "apply:net"),
        ("apply:iface", "apply:router"),
        ("apply:iface", "apply:subnet"),
        ("apply:port", "apply:net"),
        ("apply:server", "apply:port"),
    }
    # every other edge of the graph waits for the end of the step it is on
    assert "apply:subnet" in graph.waits_on["apply:port"]
    assert "apply:router" in graph.waits_on["apply:server"]
