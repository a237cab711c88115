"""``hotc plan --format markdown``: a pull-request comment.

Layout: a hidden marker (a bot finds and updates its earlier comment), a title and Terraform's one-line
headline, a caution banner for changes that interrupt service or lose data, policy findings, the summary table
(always complete), the destructive actions (deletes, replaces, rebuilds, forgets) listed first, drift, outputs,
then one collapsed ``<details>`` block per changed resource (destructive first), planning warnings, the exact
apply command and the inputs (template, environments, parameters with hidden ones masked, state serial).
GitHub refuses comments over 65,536 characters: the summary and the title are never cut; the destructive list
is cut only if it alone would not fit; details are dropped from the end, with a note saying how many were left
out and how to see the full plan.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from hotc.planner.cost import format_duration
from hotc.planner.disruption import disruptions
from hotc.planner.hooks import pause_lines
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.present import (
    SENSITIVE,
    changed_lines,
    fmt,
    import_verb,
    is_destructive,
    label,
    mask,
    move_lines,
    ordered,
    reason_text,
    string_diff,
    summary_counts,
)
from hotc.planner.quota import markdown_lines as quota_markdown_lines
from hotc.planner.render.graph import from_plan, render_mermaid
from hotc.planner.render.groups import markdown_lines as group_markdown_lines
from hotc.planner.render.groups import split_changes
from hotc.planner.render.groups import summary_line as group_summary
from hotc.state.secrets import shown_physical_id

GITHUB_COMMENT_LIMIT = 65536
ICON = {
    "create": "➕",
    "update": "🔧",
    "rebuild": "⚠️",
    "replace": "♻️",
    "delete": "🗑️",
    "forget": "📤",
    "move": "↪️",
    "no-op": "·",
}


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _caused_by(plan: Plan) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for cause, effects in (plan.review.get("blast_radius") or {}).items():
        for e in effects:
            out.setdefault(str(e["address"]), []).append(str(cause))
    return out


def _details(c: ResourceChange, caused_by: list[str] | None = None) -> str:
    kind = label(c)
    lines = [
        f"<details><summary>{ICON[kind]} <b>{kind}</b> <code>{_esc(c.address)}</code> ({_esc(c.type)})</summary>",
        "",
    ]
    if c.moved_from:
        lines.append(
            f"Moved from: `{_esc(c.moved_from)}` (the record moves first, state only; the object is kept)"
        )
        lines.append("")
    adopting = import_verb(c)
    if adopting is not None:
        lines.append(f"Adopting: {_esc(adopting)}")
        lines.append("")
    if c.action is not Action.CREATE:
        lines.append(f"Reason: {_esc(reason_text(c))}")
        lines.append("")
    if caused_by:
        lines.append("Caused by: " + ", ".join(f"`{_esc(a)}`" for a in caused_by))
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


def comment_marker(stack_name: str) -> str:
    """The hidden first line a bot looks for to update its earlier comment instead of adding one."""
    return f"<!-- hotc-plan-comment stack={stack_name} -->"


def headline(plan: Plan) -> str:
    """The one-line count, in the words of the text plan and the summary table:
    ``Plan: 2 to create, 1 to update, 1 to replace, 0 to delete``."""
    c = summary_counts(plan)
    text = (
        f"Plan: {c['create']} to create, {c['update']} to update, {c['replace']} to replace, "
        f"{c['delete']} to delete"
    )
    if c["forget"]:
        text += f", {c['forget']} to forget"
    if c["move"]:
        text += f", {c['move']} to move"
    return text


def apply_command(plan: Plan, saved_as: str | None) -> str:
    """The exact command that applies this plan: the saved plan file, or the inputs it was made from (hidden
    parameter values are never written out: they show as ``…``)."""
    if saved_as:
        return f"hotc apply {shlex.quote(saved_as)}"
    inputs = _shown_inputs(plan)
    words = ["hotc", "apply"]
    if inputs.get("template"):
        words += ["-t", shlex.quote(str(inputs["template"]))]
    for env in inputs.get("environments", ()):
        words += ["-e", shlex.quote(str(env))]
    for key, value in sorted((inputs.get("parameters") or {}).items()):
        shown = "…" if isinstance(value, dict) else str(value)
        words += ["--parameter", shlex.quote(f"{key}={shown}")]
    for key, value in sorted((inputs.get("parameter_files") or {}).items()):
        shown = "…" if isinstance(value, dict) else str(value)
        words += ["--parameter-file", shlex.quote(f"{key}={shown}")]
    for m in plan.moves:
        if m.source == "--move":  # (the moves of hotc.toml and of the moves file are read again)
            words += ["--move", shlex.quote(str(m))]
    words.append(shlex.quote(plan.stack_name))
    return " ".join(words)


def _shown_inputs(plan: Plan) -> dict[str, Any]:
    """The plan's inputs with their paths as the project shows them (``project_paths``: relative to the
    project root, recorded when the plan was made), so the comment reads the same from any checkout; a plan
    without them keeps the paths it stores (relative to its files' common directory)."""
    inputs = dict(plan.inputs or {})
    shown = inputs.get("project_paths")
    if not isinstance(shown, Mapping):
        return inputs
    inputs["template"] = shown.get("template") or inputs.get("template")
    if len(shown.get("environments") or ()) == len(inputs.get("environments") or ()):
        inputs["environments"] = list(shown.get("environments") or ())
    files = dict(inputs.get("parameter_files") or {})
    for key, path in (shown.get("parameter_files") or {}).items():
        if key in files and not isinstance(files[key], dict):  # a hidden one stays masked
            files[key] = path
    inputs["parameter_files"] = files
    return inputs


def _backend_shown(plan: Plan) -> str | None:
    shown = (plan.inputs or {}).get("project_paths")
    if isinstance(shown, Mapping) and isinstance(shown.get("backend"), str):
        return str(shown["backend"])
    return plan.backend


def _inputs_block(plan: Plan) -> list[str]:
    inputs = _shown_inputs(plan)
    rows: list[str] = []
    if inputs.get("template"):
        rows.append(f"| template | `{_esc(str(inputs['template']))}` |")
    for env in inputs.get("environments", ()):
        rows.append(f"| environment | `{_esc(str(env))}` |")
    for key, value in sorted((inputs.get("parameters") or {}).items()):
        shown = SENSITIVE if isinstance(value, dict) else fmt(value, 80)
        rows.append(f"| parameter `{_esc(key)}` | {_esc(shown)} |")
    for key, value in sorted((inputs.get("parameter_files") or {}).items()):
        shown = SENSITIVE if isinstance(value, dict) else f"file `{_esc(str(value))}`"
        rows.append(f"| parameter `{_esc(key)}` | {shown} |")
    backend = _backend_shown(plan)
    state = (
        (f"none in {_esc(backend)} (a new stack)" if backend else "none yet (a new stack)")
        if plan.state_lineage is None
        else f"serial {plan.state_serial}, lineage `{plan.state_lineage}`"
    )
    rows.append(f"| state | {state} |")
    return [
        "<details><summary>Inputs</summary>",
        "",
        "| input | value |",
        "|---|---|",
        *rows,
        "",
        "</details>",
        "",
    ]


def _banners(plan: Plan) -> list[str]:
    found = disruptions(plan)
    if not found:
        return []
    lines = ["> [!CAUTION]", "> **This plan interrupts service or loses data:**"]
    for d in found:
        lines.append(f"> - `{_esc(d.address)}` ({d.kind}): {_esc(d.text)}")
    return [*lines, ""]


def _policy_block(plan: Plan) -> list[str]:
    if not plan.policy_findings:
        return []
    denied = [f for f in plan.policy_findings if f.level == "deny"]
    title = "#### ⛔ Policy violations" if denied else "#### Policy warnings"
    lines = [title, ""]
    for f in sorted(plan.policy_findings, key=lambda f: (f.level != "deny", f.address)):
        icon = "⛔ deny" if f.level == "deny" else "⚠️ warn"
        why = f" — {_esc(f.message)}" if f.message else ""
        lines.append(
            f"- {icon}: **{f.action}** `{_esc(f.address)}` ({_esc(f.type)}) by rule `{_esc(f.rule)}` "
            f"from {_esc(f.source)}{why}"
        )
    if denied:
        lines += ["", "_The gate fails (exit 3): this plan cannot be applied as it is._"]
    return [*lines, ""]


def _review_lines(plan: Plan) -> list[str]:
    lines: list[str] = []
    est = plan.review.get("estimate")
    if est and plan.has_changes:
        path = " → ".join(f"`{_esc(a)}`" for a in est["critical_path"][:8])
        if len(est["critical_path"]) > 8:
            path += " → …"
        basis = "measured in this stack's history" if est["measured_types"] else "built-in type durations"
        lines.append(
            f"Estimated apply: **{format_duration(float(est['seconds']))}** along the critical path {path} ({basis})."
        )
    cost = plan.review.get("cost")
    if cost:
        sign = "+" if cost["monthly_delta"] >= 0 else "−"
        text = f"Monthly cost: **{sign}{abs(cost['monthly_delta']):.2f} {_esc(cost['currency'])}**"
        if cost["unpriced"]:
            text += f" ({len(cost['unpriced'])} change(s) not priced: values known only after apply or not in the table)"
        lines.append(text + ".")
    return [*lines, ""] if lines else []


def _graph_block(plan: Plan) -> str:
    changed = [c for c in plan.changes if c.action is not Action.NOOP]
    if not changed or len(changed) > 60:
        return ""
    est = plan.review.get("estimate") or {}
    model = from_plan(plan, est.get("critical_path", ()), include_noop=False)
    return (
        "<details><summary>Graph</summary>\n\n```mermaid\n" + render_mermaid(model) + "```\n\n</details>\n\n"
    )


def _warnings_block(plan: Plan) -> list[str]:
    if not plan.warnings:
        return []
    return ["#### Warnings", "", *[f"- {_esc(w)}" for w in plan.warnings], ""]


def render_markdown(
    plan: Plan,
    *,
    limit: int = GITHUB_COMMENT_LIMIT,
    plan_hint: str = "hotc show PLANFILE",
    saved_as: str | None = None,
) -> str:
    counts = summary_counts(plan)
    head: list[str] = [comment_marker(plan.stack_name)]
    mode = "" if plan.mode == "normal" else f" ({plan.mode})"
    head.append(f"### hotc plan for stack `{plan.stack_name}`{mode}")
    head.append("")
    if plan.has_changes:
        head.append(f"**{headline(plan)}**")
        new = plan.new_stack_line
        if new and plan.backend:
            new = new.replace(plan.backend, _backend_shown(plan) or plan.backend, 1)
        if new:
            head += ["", f"🆕 **{_esc(new[:1].upper() + new[1:])}.**"]
    else:
        head.append("**No changes.** The stack matches the template.")
    head.append("")
    head += _review_lines(plan)
    head += _banners(plan)
    head += _policy_block(plan)
    head += quota_markdown_lines(plan.quota)
    paused = pause_lines(plan)
    if paused:  # the environment's hooks (breakpoints): where the apply waits for `hotc hook clear`
        head += ["#### ⏸️ Pauses (hooks)", "", *(f"- {_esc(line)}" for line in paused), ""]
    head.append("| Action | Count |")
    head.append("|---|---:|")
    for key in ("delete", "replace", "rebuild", "update", "create", "forget", "move", "no-op"):
        if key in ("rebuild", "move") and not counts[key]:
            continue
        name = {
            "no-op": "unchanged",
            "rebuild": "rebuild (root disk wiped)",
            "update": "update in place",
            "move": "move (state only)",
        }.get(key, key)
        n = counts[key] - counts["rebuild"] if key == "update" else counts[key]  # rebuilds have their own row
        head.append(f"| {ICON[key]} {name} | {n} |")
    head.append("")
    summary = "\n".join(head) + "\n"

    tail_lines = _warnings_block(plan)
    if plan.has_changes and plan.mode != "refresh-only":
        tail_lines += ["#### Apply", "", "```sh", apply_command(plan, saved_as), "```", ""]
    tail_lines += _inputs_block(plan)
    tail = "\n" + "\n".join(tail_lines) + "\n"

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
    if plan.moves:
        dlines += ["#### ↪️ Moves (state only, no cloud call)", ""]
        dlines += [f"- {_esc(line)}" for line in move_lines(plan)]
        dlines.append("")
    if plan.groups:
        dlines.append("#### Groups")
        dlines.append("")
        dlines.extend(group_markdown_lines(plan, _esc))
        dlines.append("")
    if plan.resource_drift:
        dlines.append("#### Changed outside hotc (refresh)")
        dlines.append("")
        for c in plan.resource_drift:
            what = "gone" if c.action is Action.DELETE else "changed: " + ", ".join(c.changed_paths)
            dlines.append(f"- `{c.address}` ({_esc(c.type)}): {_esc(what)}")
            if c.action is not Action.DELETE:  # each drifted property: recorded -> live
                dlines.extend(
                    f"  - `{_esc(path)}`: {_esc(old)} → {_esc(new)}"
                    for path, old, new, _f in changed_lines(c)
                )
        dlines.append("")
    outs = [o for o in plan.output_changes if o.action is not Action.NOOP or o.error]
    olines: list[str] = []
    if outs:
        olines.append("#### Outputs")
        olines.append("")
        for o in outs:
            after = SENSITIVE if o.sensitive and o.action is not Action.DELETE else fmt(o.after, 120)
            if o.error:
                after = f"(error: {o.error})"
            if o.action is Action.UPDATE:
                before = SENSITIVE if o.sensitive else fmt(o.before, 120)
                olines.append(f"- `{o.name}`: {o.action.value} {_esc(before)} → {_esc(after)}")
            else:
                olines.append(f"- `{o.name}`: {o.action.value} → {_esc(after)}")
        olines.append("")

    budget = limit - len(summary) - len(tail) - 200  # room for a truncation note
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
    caused = _caused_by(plan)
    gtext = _graph_block(plan)
    if gtext and len(gtext) <= budget // 4:
        out.append(gtext)
        budget -= len(gtext)
    if changes:
        out.append("#### Details\n\n")
        budget -= 14
        shown = 0
        loose, grouped = split_changes(plan, changes)
        blocks = [_details(c, caused.get(c.address)) for c in loose]
        for r, members in grouped:  # a group's members inside one block under its summary line
            inner = "".join(_details(c, caused.get(c.address)) for c in members)
            blocks.append(
                f"<details><summary>👥 <b>{_esc(group_summary(r))}</b></summary>\n\n{inner}\n</details>\n\n"
            )
            blocks.extend("" for _ in members[1:])  # keeps the count of changes shown
        for block in blocks:
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
    out.append(tail)
    return "".join(out)


def render_error_markdown(stack_name: str, message: str, diagnostics: list[str]) -> str:
    """The comment of a plan that failed: the same marker (a bot replaces its earlier comment, so a stale
    plan does not stay posted), what failed and every diagnostic, and that nothing was planned."""
    lines = [
        comment_marker(stack_name),
        f"### hotc plan for stack `{stack_name}`",
        "",
        "> [!CAUTION]",
        "> **The plan failed**: nothing was planned and nothing can be applied.",
        "",
        "```text",
        *[d.replace("```", "ʼʼʼ") for d in diagnostics],
        f"error: {message}".replace("```", "ʼʼʼ"),
        "```",
        "",
    ]
    return "\n".join(lines)
