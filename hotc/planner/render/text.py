"""Human-readable plan: the summary first, destructive actions listed before everything else, then
per-resource diffs (old -> new, reasons, "known after apply", "(sensitive)")."""

from __future__ import annotations

from hotc.planner.hooks import pause_lines
from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.present import (
    MASK_KEY,
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
    summary_line,
)
from hotc.planner.quota import text_lines as quota_text_lines
from hotc.planner.render.groups import split_changes
from hotc.planner.render.groups import summary_line as group_summary
from hotc.planner.render.groups import text_lines as group_text_lines
from hotc.state.secrets import shown_physical_id
from hotc.values import Unknown

SYMBOL = {"create": "+", "update": "~", "rebuild": "~!", "replace": "-/+", "delete": "-", "forget": "x"}
VERB = {
    "create": "will be created",
    "update": "will be updated in place",
    "rebuild": "will be REBUILT in place (root disk wiped)",
    "replace": "must be replaced (new one created first, then the old one deleted)",
    "delete": "will be deleted",
    "forget": "will be forgotten (removed from the state, left in the cloud)",
}
_ANSI = {"create": "32", "update": "33", "rebuild": "1;31", "replace": "1;35", "delete": "31", "forget": "36"}


def _c(text: str, kind: str, color: bool) -> str:
    return f"\x1b[{_ANSI[kind]}m{text}\x1b[0m" if color else text


def _resource_block(c: ResourceChange, color: bool, indent: str = "") -> list[str]:
    """The lines of one change, each starting with ``indent``."""
    if c.action is Action.CREATE and c.import_id is None:  # most lines of a large plan: straight to the text
        head = f"+ {c.address}" + (" (deposed)" if c.deposed else "") + f" ({c.type}) will be created"
        lines = [indent + _c(head, "create", color)]
        paths = c.sensitive_paths
        after = (mask(c.after, paths) if paths else c.after) or {}  # secrets inside a value: masked there
        hide_all = "*" in paths
        lead = indent + "    + "
        for k in sorted(after):
            v = after[k]
            hidden = hide_all or k in paths or (isinstance(v, dict) and MASK_KEY in v)
            lines.append(f"{lead}{k}: {SENSITIVE if hidden else fmt(v)}")
        return lines
    return [indent + line for line in _change_block(c, color)]


def _change_block(c: ResourceChange, color: bool) -> list[str]:
    kind = label(c)
    verb = import_verb(c) or VERB[kind]
    head = f"{SYMBOL[kind]} {c.address}" + (" (deposed)" if c.deposed else "") + f" ({c.type}) {verb}"
    lines = [_c(head, kind, color)]
    if c.moved_from:
        lines.append(f"    moved from: {c.moved_from} (the record moves first; the object is kept)")
    if c.action is not Action.CREATE and (c.action_reason or c.reason_detail):
        lines.append(f"    reason: {reason_text(c)}")
    if c.previous_physical_id and c.action in (Action.REPLACE, Action.DELETE, Action.FORGET):
        lines.append(f"    physical id: {shown_physical_id(c.type, c.previous_physical_id)}")
    if c.action is Action.CREATE:
        # what mask() then fmt() print, in one pass over each value (fmt masks the state's markers inside)
        paths = c.sensitive_paths
        after = (mask(c.after, paths) if paths else c.after) or {}  # secrets inside a value: masked there
        hide_all = "*" in paths
        for k in sorted(after):
            v = after[k]
            hidden = hide_all or k in paths or (isinstance(v, dict) and MASK_KEY in v)
            lines.append(f"    + {k}: {SENSITIVE if hidden else fmt(v)}")
    elif c.action in (Action.UPDATE, Action.REPLACE):
        for path, old, new, forces in changed_lines(c):
            tail = "   # forces replacement" if forces and c.action is Action.REPLACE else ""
            diff = string_diff(c, path)
            if diff is not None:
                lines.append(f"    ~ {path}:{tail}")
                lines.extend(f"        {d}" for d in diff)
            else:
                lines.append(f"    ~ {path}: {old} -> {new}{tail}")
        for p in c.replace_paths:
            if p not in {cp.split(".")[0].split("[")[0] for cp in c.changed_paths} and p != "type":
                lines.append(f"    ! {p} forces replacement")
    return lines


def render_text(plan: Plan, *, color: bool = False, show_noop: bool = False) -> str:
    out: list[str] = []
    mode = "" if plan.mode == "normal" else f" ({plan.mode})"
    if plan.mode == "refresh-only":
        n = len(plan.resource_drift)
        out.append(
            f"Refresh-only plan for stack {plan.stack_name!r}: {n} resource(s) changed outside hotc; "
            "applying it only records the live values in the state."
        )
    else:
        out.append(f"Plan for stack {plan.stack_name!r}{mode}: {summary_line(plan)}.")
        new = plan.new_stack_line
        if new:
            out.append(new[:1].upper() + new[1:] + ".")
    changes = ordered(plan)
    destructive = [c for c in changes if is_destructive(c) or c.action is Action.FORGET]
    # the list singles out what is destructive among other changes; when every change is one (a destroy
    # plan) it would list each of them a second time above their blocks
    if destructive and len(destructive) < len(changes):
        out.append("")
        out.append("Destructive actions:")
        for c in destructive:
            kind = label(c)
            out.append(
                _c(
                    f"  {SYMBOL[kind]:>3} {kind:<8} {c.address}"
                    + (" (deposed)" if c.deposed else "")
                    + f" ({c.type}): {reason_text(c)}",
                    kind,
                    color,
                )
            )
    if plan.moves:  # state only: each record takes its new address, nothing in the cloud changes
        out.extend(["", "Moves (state only, no cloud call):", *(f"  -> {line}" for line in move_lines(plan))])
    paused = pause_lines(plan)
    if paused:  # the environment's hooks (breakpoints): where the apply waits for `hotc hook clear`
        out.extend(["", "Pauses (hooks):", *(f"  || {line}" for line in paused)])
    if plan.groups:
        out.append("")
        out.append("Groups:")
        out.extend(group_text_lines(plan))
    if plan.resource_drift:
        out.append("")
        out.append("Changed outside hotc (found by refresh):")
        for c in plan.resource_drift:
            what = "gone" if c.action is Action.DELETE else "changed: " + ", ".join(c.changed_paths)
            out.append(f"  ~ {c.address} ({c.type}) {what}")
            if c.action is not Action.DELETE:  # each drifted property: recorded -> live
                out.extend(f"      {path}: {old} -> {new}" for path, old, new, _f in changed_lines(c))
    if changes:
        out.append("")
        out.append("Resource changes:")
        loose, grouped = split_changes(plan, changes)
        for c in loose:
            out.append("")
            out.extend(_resource_block(c, color, "  "))
        for r, members in grouped:  # a group's members under its summary line, not as unrelated resources
            out.append("")
            out.append(f"  {group_summary(r)}:")
            for c in members:
                out.append("")
                out.extend(_resource_block(c, color, "    "))
    if show_noop:
        noop = [c for c in plan.changes if c.action is Action.NOOP]
        if noop:
            out.append("")
            out.append("Unchanged: " + ", ".join(c.address for c in noop))
    outs = [o for o in plan.output_changes if o.action is not Action.NOOP]
    if outs:
        out.append("")
        out.append("Outputs:")
        for o in outs:
            before = SENSITIVE if o.sensitive else fmt(o.before)
            after = SENSITIVE if (o.sensitive and not _unknown(o.after)) else fmt(o.after)
            if o.error:
                after = f"(error: {o.error})"
            if o.action is Action.CREATE:
                out.append(f"  + {o.name}: {after}")
            elif o.action is Action.DELETE:
                out.append(f"  - {o.name}: {before}")
            else:
                out.append(f"  ~ {o.name}: {before} -> {after}")
    if plan.quota:  # the project's quotas against what the apply needs at its peak (hotc.planner.quota)
        out.extend(["", *quota_text_lines(plan.quota)])
    if plan.mode == "refresh-only" and not plan.resource_drift:
        out.append("")
        out.append("No drift: the cloud matches the state.")
    elif plan.creates_stack and not changes and not outs:
        out.append("")
        out.append("Nothing in it to create: applying creates it as an empty stack, as Heat does.")
    elif not plan.has_changes and not plan.resource_drift:
        out.append("")
        out.append("No changes. The stack matches the template.")
    return "\n".join(out) + "\n"


def _unknown(v: object) -> bool:
    return isinstance(v, Unknown)
