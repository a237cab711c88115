"""``hotc plan --format markdown``: a pull-request comment.

Layout: a title, the summary table (always complete), the destructive actions (deletes, replaces, rebuilds,
forgets) listed first, then one collapsed ``<details>`` block per changed resource (destructive first).
GitHub refuses comments over 65,536 characters: the summary and the title are never cut; the destructive list
is cut only if it alone would not fit; details are dropped from the end, with a note saying how many were left
out and how to see the full plan.
"""

from __future__ import annotations

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.present import (
    SENSITIVE,
    changed_lines,
    fmt,
    is_destructive,
    label,
    mask,
    ordered,
    reason_text,
    string_diff,
    summary_counts,
)
from hotc.state.secrets import shown_physical_id

GITHUB_COMMENT_LIMIT = 65536
ICON = {
    "create": "➕",
    "update": "🔧",
    "rebuild": "⚠️",
    "replace": "♻️",
    "delete": "🗑️",
    "forget": "📤",
    "no-op": "·",
}


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _details(c: ResourceChange) -> str:
    kind = label(c)
    lines = [
        f"<details><summary>{ICON[kind]} <b>{kind}</b> <code>{_esc(c.address)}</code> ({_esc(c.type)})</summary>",
        "",
    ]
    if c.action is not Action.CREATE:
        lines.append(f"Reason: {_esc(reason_text(c))}")
        lines.append("")
    body: list[str] = []
    if c.action is Action.CREATE:
        after = mask(c.after, c.sensitive_paths) or {}
        body = [f"+ {k}: {SENSITIVE if after[k] == SENSITIVE else fmt(after[k], 300)}" for k in sorted(after)]
    elif c.action in (Action.UPDATE, Action.REPLACE):
        for path, old, new, forces in changed_lines(c):
            tail = "   # forces replacement" if forces and c.action is Action.REPLACE else ""
            diff = string_diff(c, path, limit=40)
            if diff is not None:
                body.append(f"  {path}:{tail}")
                body.extend(f"{d[:1]}     {d[1:]}" if d[:1] in "+-" else f"      {d}" for d in diff)
            else:
                body.append(f"- {path}: {old}")
                body.append(f"+ {path}: {new}{tail}")
    elif c.previous_physical_id:
        body = [f"- physical id: {shown_physical_id(c.type, c.previous_physical_id)}"]
    if body:
        lines += ["```diff", *[b.replace("```", "ʼʼʼ") for b in body], "```"]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def render_markdown(
    plan: Plan, *, limit: int = GITHUB_COMMENT_LIMIT, plan_hint: str = "hotc show PLANFILE"
) -> str:
    counts = summary_counts(plan)
    head: list[str] = []
    mode = "" if plan.mode == "normal" else f" ({plan.mode})"
    head.append(f"### hotc plan for stack `{plan.stack_name}`{mode}")
    head.append("")
    if not plan.has_changes:
        head.append("**No changes.** The stack matches the template.")
    head.append("| Action | Count |")
    head.append("|---|---:|")
    for key in ("delete", "replace", "rebuild", "update", "create", "forget", "no-op"):
        if key == "rebuild" and not counts["rebuild"]:
            continue
        name = {
            "no-op": "unchanged",
            "rebuild": "rebuild (root disk wiped)",
            "update": "update in place",
        }.get(key, key)
        n = counts[key] - counts["rebuild"] if key == "update" else counts[key]  # rebuilds have their own row
        head.append(f"| {ICON[key]} {name} | {n} |")
    head.append("")
    summary = "\n".join(head) + "\n"

    changes = ordered(plan)
    destructive = [c for c in changes if is_destructive(c) or c.action is Action.FORGET]
    dlines: list[str] = []
    if destructive:
        dlines.append("#### ⚠️ Destructive actions")
        dlines.append("")
        for c in destructive:
            kind = label(c)
            dlines.append(f"- {ICON[kind]} **{kind}** `{c.address}` ({_esc(c.type)}): {_esc(reason_text(c))}")
        dlines.append("")
    if plan.resource_drift:
        dlines.append("#### Changed outside hotc (refresh)")
        dlines.append("")
        for c in plan.resource_drift:
            what = "gone" if c.action is Action.DELETE else "changed: " + ", ".join(c.changed_paths)
            dlines.append(f"- `{c.address}` ({_esc(c.type)}): {_esc(what)}")
        dlines.append("")
    outs = [o for o in plan.output_changes if o.action is not Action.NOOP]
    olines: list[str] = []
    if outs:
        olines.append("#### Outputs")
        olines.append("")
        for o in outs:
            after = SENSITIVE if o.sensitive and o.action is not Action.DELETE else fmt(o.after, 120)
            olines.append(f"- `{o.name}`: {o.action.value} → {_esc(after)}")
        olines.append("")

    budget = limit - len(summary) - 200  # room for a truncation note
    out = [summary]
    dtext = "\n".join(dlines) + ("\n" if dlines else "")
    if len(dtext) > budget:
        kept: list[str] = []
        size = 0
        for line in dlines:
            if size + len(line) + 1 > budget - 200:
                break
            kept.append(line)
            size += len(line) + 1
        left = len(dlines) - len(kept)
        dtext = "\n".join(kept) + f"\n\n… {left} more destructive actions not shown (see `{plan_hint}`).\n"
    out.append(dtext)
    budget -= len(dtext)
    otext = "\n".join(olines) + ("\n" if olines else "")
    if len(otext) <= budget:
        out.append(otext)
        budget -= len(otext)
    if changes:
        out.append("#### Details\n\n")
        budget -= 14
        shown = 0
        for c in changes:
            block = _details(c)
            if len(block) > budget:
                break
            out.append(block)
            budget -= len(block)
            shown += 1
        if shown < len(changes):
            out.append(
                f"\n_… details of {len(changes) - shown} more change(s) left out to fit GitHub's comment limit; "
                f"run `{plan_hint}` for the full plan._\n"
            )
    text = "".join(out)
    return text
