"""``hotc graph``: the dependency graph as Graphviz DOT or Mermaid.

Nodes are resource addresses; an edge ``a -> b`` means ``a`` is made before ``b`` (``b`` depends on ``a``).
For a plan, nodes are coloured by action (create green, update amber, rebuild orange, replace red with a
double border, delete grey and dashed, forget dotted, no-op plain) and the critical path (see
:mod:`hotc.planner.cost`) is drawn in bold. Pure text rendering; running Graphviz is the CLI's job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from hotc.model import model
from hotc.planner.plan import Action, Plan

_COLOURS = {
    "create": "#2da44e",
    "update": "#bf8700",
    "rebuild": "#e16f24",
    "replace": "#cf222e",
    "delete": "#6e7781",
    "forget": "#6e7781",
    "no-op": "#57606a",
}


@model(slots=True)
class GraphNode:
    address: str
    type: str
    action: str = ""  # "" for a template graph (no plan)
    moved_from: str = ""  # a planned move brings the record here first (hotc.planner.moves)


@model(slots=True)
class GraphModel:
    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str], ...]  # (dependency, dependent)
    critical: tuple[str, ...] = ()


def from_plan(plan: Plan, critical: Iterable[str] = (), *, include_noop: bool = True) -> GraphModel:
    nodes = []
    for c in plan.changes:
        if c.deposed or (c.action is Action.NOOP and not include_noop):
            continue
        action = "rebuild" if c.action is Action.UPDATE and c.rebuild else c.action.value
        nodes.append(GraphNode(c.address, c.type, action, c.moved_from or ""))
    names = {n.address for n in nodes}
    edges = sorted(
        {(d, c.address) for c in plan.changes if c.address in names for d in c.depends_on if d in names}
    )
    return GraphModel(tuple(sorted(nodes, key=lambda n: n.address)), tuple(edges), tuple(critical))


def from_dependencies(types: Mapping[str, str], depends_on: Mapping[str, Iterable[str]]) -> GraphModel:
    nodes = tuple(GraphNode(a, t) for a, t in sorted(types.items()))
    edges = sorted({(d, a) for a, ds in depends_on.items() for d in ds if d in types and a in types})
    return GraphModel(nodes, tuple(edges))


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(g: GraphModel, title: str = "") -> str:
    crit = set(g.critical)
    crit_edges = set(zip(g.critical, g.critical[1:], strict=False))
    lines = [
        "digraph hotc {",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname=Helvetica];',
    ]
    if title:
        lines.append(f"  label={_dot_id(title)}; labelloc=t;")
    for n in g.nodes:
        parts = [n.address, n.type] + ([n.action] if n.action else [])
        if n.moved_from:
            parts.append(f"moved from {n.moved_from}")
        attrs = ["label=" + '"' + "\\n".join(_dot_id(p)[1:-1] for p in parts) + '"']
        if n.action:
            colour = _COLOURS.get(n.action, "#57606a")
            attrs.append(f'color="{colour}"')
            if n.action != "no-op":
                attrs.append(f'fillcolor="{colour}22"')
            if n.action == "replace":
                attrs.append("peripheries=2")
            if n.action == "delete":
                attrs.append('style="rounded,dashed"')
            if n.action == "forget":
                attrs.append('style="rounded,dotted"')
        if n.address in crit:
            attrs.append("penwidth=3")
        lines.append(f"  {_dot_id(n.address)} [{', '.join(attrs)}];")
    for a, b in g.edges:
        extra = " [penwidth=3]" if (a, b) in crit_edges else ""
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)}{extra};")
    lines.append("}")
    return "\n".join(lines) + "\n"


_MERMAID_SAFE = re.compile(r"[^A-Za-z0-9_]")


def _mid(address: str, ids: dict[str, str]) -> str:
    if address not in ids:
        ids[address] = f"n{len(ids)}_{_MERMAID_SAFE.sub('_', address)[:40]}"
    return ids[address]


def _mermaid_label(text: str) -> str:
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def render_mermaid(g: GraphModel) -> str:
    ids: dict[str, str] = {}
    crit = set(g.critical)
    crit_edges = set(zip(g.critical, g.critical[1:], strict=False))
    lines = ["flowchart LR"]
    for n in g.nodes:
        label = f"{_mermaid_label(n.address)}<br/><small>{_mermaid_label(n.type)}</small>"
        if n.action:
            label += f"<br/><b>{n.action}</b>"
        if n.moved_from:
            label += f"<br/><i>moved from {_mermaid_label(n.moved_from)}</i>"
        shape = ('[["', '"]]') if n.action == "replace" else ('("', '")')
        lines.append(f"  {_mid(n.address, ids)}{shape[0]}{label}{shape[1]}")
    edge_index: list[int] = []
    for i, (a, b) in enumerate(g.edges):
        lines.append(f"  {_mid(a, ids)} --> {_mid(b, ids)}")
        if (a, b) in crit_edges:
            edge_index.append(i)
    used = sorted({n.action for n in g.nodes if n.action})
    for action in used:
        colour = _COLOURS.get(action, "#57606a")
        dash = ",stroke-dasharray: 5 5" if action in ("delete", "forget") else ""
        lines.append(f"  classDef {action.replace('-', '')} stroke:{colour},stroke-width:2px{dash}")
    for action in used:
        members = [_mid(n.address, ids) for n in g.nodes if n.action == action]
        lines.append(f"  class {','.join(members)} {action.replace('-', '')}")
    if crit:
        lines.append("  classDef critical stroke-width:4px")
        lines.append(f"  class {','.join(_mid(a, ids) for a in g.critical)} critical")
    if edge_index:
        lines.append(f"  linkStyle {','.join(map(str, edge_index))} stroke-width:4px")
    return "\n".join(lines) + "\n"
