"""The planner's own directed graph (hotc.planner.digraph): the same topological order as networkx gave the plans
before it (so change lists keep their order), cycles found and named, subgraphs and closures."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from hotc.errors import HotcError
from hotc.planner.digraph import CycleError, DiGraph, find_cycle, topological_sort
from hotc.planner.graph import check_acyclic, topological


def _random_dag(seed: int, n: int, p: float) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    names = [f"r{i}" for i in range(n)]
    rng.shuffle(names)  # insertion order differs from the name order
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < p:
                edges.append((names[i], names[j]))
    rng.shuffle(edges)
    return edges


@pytest.mark.parametrize("seed", range(40))
def test_the_topological_order_is_networkxs(seed: int) -> None:
    n = 5 + seed * 3
    edges = _random_dag(seed, n, 0.08 if seed % 2 else 0.3)
    nodes = sorted({f"r{i}" for i in range(n)}, key=lambda s: (len(s), s[::-1]))
    ours, theirs = DiGraph(), nx.DiGraph()
    ours.add_nodes_from(nodes)
    theirs.add_nodes_from(nodes)
    ours.add_edges_from(edges)
    theirs.add_edges_from(edges)
    order = topological_sort(ours)
    assert order == list(nx.topological_sort(theirs))
    at = {a: i for i, a in enumerate(order)}
    assert all(at[u] < at[v] for u, v in edges)
    assert find_cycle(ours) is None
    part = nodes[::2]
    assert topological(ours, part) == list(nx.topological_sort(theirs.subgraph(part)))


def test_a_cycle_is_found_and_named() -> None:
    g = DiGraph()
    g.add_edges_from([("net", "subnet"), ("subnet", "port"), ("port", "server"), ("server", "subnet")])
    with pytest.raises(CycleError):
        topological_sort(g)
    cycle = find_cycle(g)
    assert cycle is not None and set(cycle) == {"subnet", "port", "server"}
    for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
        assert g.has_edge(a, b)
    with pytest.raises(HotcError, match=r"dependency cycle: subnet -> server -> port -> subnet"):
        check_acyclic(g)


def test_a_self_loop_is_a_cycle() -> None:
    g = DiGraph()
    g.add_edge("a", "a")
    assert find_cycle(g) == ["a"]
    with pytest.raises(CycleError):
        topological_sort(g)


def test_neighbours_and_subgraphs() -> None:
    g = DiGraph()
    g.add_nodes_from(["a", "b", "c", "d"])
    g.add_edges_from([("a", "c"), ("b", "c"), ("c", "d"), ("a", "c")])
    assert list(g.successors("a")) == ["c"]
    assert list(g.predecessors("c")) == ["a", "b"]
    assert list(g.edges()) == [("a", "c"), ("b", "c"), ("c", "d")]
    assert "d" in g and "e" not in g and len(g) == 4
    sub = g.subgraph(["a", "c", "x"])
    assert list(sub) == ["a", "c"] and list(sub.edges()) == [("a", "c")]
    assert list(sub.predecessors("c")) == ["a"]
