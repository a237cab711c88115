"""How the plan renderers show groups: one summary line per ResourceGroup / AutoScalingGroup ("3 → 5
members"), its update policy and its batches in order (members of each batch, the pauses), with the members'
own changes shown under the group rather than as unrelated resources."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hotc.planner.plan import Action, GroupBatch, GroupRollout, Plan, ResourceChange
from hotc.planner.present import label

SYMBOL = {"create": "+", "update": "~", "rebuild": "~!", "replace": "-/+", "delete": "-", "forget": "x"}


def member_of(rollout: GroupRollout, address: str) -> bool:
    """Whether ``address`` is a member of the group (``g[2]``) or a resource inside one (``g[2].port``)."""
    head = rollout.address + "["
    if not address.startswith(head):
        return False
    end = address.find("]", len(head))
    return end != -1 and address[len(head) : end].isdigit() and address[end + 1 :][:1] in ("", ".")


def group_of(plan: Plan, c: ResourceChange) -> GroupRollout | None:
    """The innermost group rollout ``c`` belongs to (None: not a group member)."""
    best: GroupRollout | None = None
    for r in plan.groups:
        if member_of(r, c.address) and (best is None or len(r.address) > len(best.address)):
            best = r
    return best


def _unit_symbol(changes: Iterable[ResourceChange], unit: str, temporary: bool, removing: bool) -> str:
    if temporary:
        return "-" if removing else "+"
    kinds = [label(c) for c in changes if (c.address == unit or c.address.startswith(unit + "."))]
    kinds = [k for k in kinds if k != "no-op"]
    for k in ("replace", "rebuild", "delete", "forget", "update", "create"):
        if k in kinds:
            return SYMBOL[k]
    return "~"


def policy_text(r: GroupRollout) -> str:
    if not r.policy:
        return "all members at once"
    parts = [f"max_batch_size {r.max_batch_size}"]
    if r.policy != "batch_create":
        parts.append(f"min_in_service {r.min_in_service}")
    parts.append(f"pause_time {r.pause_time:g} s")
    return f"{r.policy} ({', '.join(parts)})"


def summary_line(r: GroupRollout) -> str:
    text = f"{r.address} ({r.type}): {r.before} → {r.after} members"
    touched = len([m for m in r.members if m not in r.temporary])
    if touched:
        text += f", {touched} changed"
    if r.batches:
        text += f", in {len(r.batches)} batch{'es' if len(r.batches) != 1 else ''}: {policy_text(r)}"
    elif r.policy == "" and touched:
        text += " (all at once)"
    return text


def batch_members(plan: Plan, r: GroupRollout, b: GroupBatch) -> list[str]:
    """``+ g[4] (temporary)``, ``~ g[3]`` … for one batch."""
    out = []
    removing = set(b.cleanup)
    for unit in b.members:
        temp = unit in r.temporary
        sym = _unit_symbol(plan.changes, unit, temp, unit in removing and unit not in b.apply)
        out.append(f"{sym} {unit}" + (" (temporary)" if temp else ""))
    return out


def text_lines(plan: Plan) -> list[str]:
    """The "Groups:" section of the text plan."""
    lines: list[str] = []
    for r in plan.groups:
        lines.append(f"  {summary_line(r)}")
        if r.note:
            lines.append(f"    note: {r.note}")
        for b in r.batches:
            lines.append(
                f"    batch {b.number} ({b.size} member{'s' if b.size != 1 else ''} after): "
                + (", ".join(batch_members(plan, r, b)) or "no member changes")
            )
            if b.pause_after > 0 and b.number < len(r.batches):
                lines.append(f"    pause {b.pause_after:g} s")
    return lines


def markdown_lines(plan: Plan, esc: Any) -> list[str]:
    lines: list[str] = []
    for r in plan.groups:
        lines.append(f"- **{esc(summary_line(r))}**")
        if r.note:
            lines.append(f"  - note: {esc(r.note)}")
        for b in r.batches:
            pause = (
                f" — then pause {b.pause_after:g} s"
                if b.pause_after > 0 and b.number < len(r.batches)
                else ""
            )
            members = ", ".join(f"`{esc(m)}`" for m in batch_members(plan, r, b)) or "no member changes"
            lines.append(f"  {b.number}. batch {b.number} ({b.size} members after): {members}{pause}")
    return lines


def groups_json(plan: Plan) -> list[dict[str, Any]]:
    return [
        {
            "address": r.address,
            "type": r.type,
            "members_before": r.before,
            "members_after": r.after,
            "policy": None
            if not r.policy
            else {
                "name": r.policy,
                "max_batch_size": r.max_batch_size,
                "min_in_service": r.min_in_service,
                "pause_time": r.pause_time,
            },
            "members": list(r.members),
            "temporary_members": list(r.temporary),
            "note": r.note or None,
            "batches": [
                {
                    "batch": b.number,
                    "members": list(b.members),
                    "apply": list(b.apply),
                    "cleanup": list(b.cleanup),
                    "size": b.size,
                    "updates": b.updates,
                    "pause_after": b.pause_after,
                }
                for b in r.batches
            ],
        }
        for r in plan.groups
    ]


def split_changes(
    plan: Plan, changes: list[ResourceChange]
) -> tuple[list[ResourceChange], list[tuple[GroupRollout, list[ResourceChange]]]]:
    """``changes`` without group members, and each group with its members' changes (plan order)."""
    loose: list[ResourceChange] = []
    grouped: dict[str, list[ResourceChange]] = {r.address: [] for r in plan.groups}
    for c in changes:
        r = group_of(plan, c)
        if r is None:
            loose.append(c)
        elif c.action is not Action.NOOP:
            grouped[r.address].append(c)
    return loose, [(r, grouped[r.address]) for r in plan.groups if grouped[r.address]]
