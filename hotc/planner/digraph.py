"""A small directed graph for the planner: what it needs of one, without networkx (whose import alone costs
about 0.15–0.2 s of CPU, more than a whole plan of a small stack).

Nodes keep their insertion order, and so do each node's successors and predecessors, so every traversal is
deterministic. :func:`topological_sort` is Kahn's algorithm by generations: the nodes with no dependency in
insertion order, then those they release in the order they release them, and so on (the order networkx's
``topological_sort`` gives, so plans list their changes in the same order as before).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


class CycleError(Exception):
    """The graph has a cycle: no topological order exists."""


class DiGraph:
    """Nodes are strings (addresses); an edge ``u -> v`` means ``u`` comes before ``v``."""

    __slots__ = ("_succ", "_pred")

    def __init__(self) -> None:
        self._succ: dict[str, dict[str, None]] = {}
        self._pred: dict[str, dict[str, None]] = {}

    def add_node(self, node: str) -> None:
        if node not in self._succ:
            self._succ[node] = {}
            self._pred[node] = {}

    def add_nodes_from(self, nodes: Iterable[str]) -> None:
        for n in nodes:
            self.add_node(n)

    def add_edge(self, u: str, v: str) -> None:
        self.add_node(u)
        self.add_node(v)
        self._succ[u][v] = None
        self._pred[v][u] = None

    def add_edges_from(self, edges: Iterable[tuple[str, str]]) -> None:
        """``add_edge`` of each (written out: a plan adds one or more edges per resource)."""
        succ, pred = self._succ, self._pred
        for u, v in edges:
            su = succ.get(u)
            if su is None:
                su = succ[u] = {}
                pred[u] = {}
            pv = pred.get(v)
            if pv is None:
                succ[v] = {}
                pv = pred[v] = {}
            su[v] = None
            pv[u] = None

    def __contains__(self, node: object) -> bool:
        return node in self._succ

    def __iter__(self) -> Iterator[str]:
        return iter(self._succ)

    def __len__(self) -> int:
        return len(self._succ)

    def successors(self, node: str) -> Iterator[str]:
        return iter(self._succ[node])

    def predecessors(self, node: str) -> Iterator[str]:
        return iter(self._pred[node])

    def has_edge(self, u: str, v: str) -> bool:
        return v in self._succ.get(u, ())

    def edges(self) -> Iterator[tuple[str, str]]:
        for u, vs in self._succ.items():
            for v in vs:
                yield u, v

    def subgraph(self, nodes: Iterable[str]) -> DiGraph:
        """The graph induced on ``nodes`` (those of them in the graph), in this graph's node order."""
        keep = {n for n in nodes if n in self._succ}
        sub = DiGraph()
        for n in self._succ:
            if n in keep:
                sub._succ[n] = {v: None for v in self._succ[n] if v in keep}
                sub._pred[n] = {u: None for u in self._pred[n] if u in keep}
        return sub


def topological_sort(g: DiGraph) -> list[str]:
    """Every node after all its predecessors (see the module docstring for the order); raises
    :class:`CycleError` when there is a cycle."""
    succ = g._succ
    indegree = {v: len(us) for v, us in g._pred.items() if us}
    generation = [v for v, us in g._pred.items() if not us]
    order: list[str] = []
    while generation:
        order.extend(generation)
        released: list[str] = []
        for node in generation:
            for child in succ[node]:
                left = indegree[child] - 1
                if left:
                    indegree[child] = left
                else:
                    del indegree[child]
                    released.append(child)
        generation = released
    if indegree:
        raise CycleError("the graph has a cycle")
    return order


def find_cycle(g: DiGraph) -> list[str] | None:
    """The nodes of one cycle ``[a, b, …]`` (each has an edge to the next, the last to the first), found by a
    depth-first walk in node order; None when the graph is acyclic."""
    succ = g._succ
    done: set[str] = set()
    for root in succ:
        if root in done:
            continue
        path: list[str] = [root]
        on_path = {root: 0}
        work: list[Iterator[str]] = [iter(succ[root])]
        while work:
            nxt = next(work[-1], None)
            if nxt is None:
                work.pop()
                node = path.pop()
                del on_path[node]
                done.add(node)
                continue
            if nxt in on_path:
                return path[on_path[nxt] :]
            if nxt in done:
                continue
            on_path[nxt] = len(path)
            path.append(nxt)
            work.append(iter(succ[nxt]))
    return None


__all__ = ["DiGraph", "CycleError", "topological_sort", "find_cycle"]
