"""``hotc drift``'s view: a :class:`hotc.ops.drift.DriftResult` as text, JSON, Markdown or SARIF 2.1.0.

Markdown is one section per stack, each opening with a hidden marker line ``<!-- hotc-drift: STACK -->`` and a
status line ``**Drift**``, ``**No drift**`` or ``**Error**``: a scheduled CI job splits the report at the
markers and opens, updates or closes one issue per stack (``examples/ci/drift-*.yml``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

from hotc.ops.drift import Accepted, DriftResult, PropertyDrift, ResourceDrift, StackDrift, split_key
from hotc.planner.api import Plan
from hotc.state.document import StackState
from hotc.state.secrets import canonical_json

FORMAT_VERSION = "1.0"
MARKER = "<!-- hotc-drift: {stack} -->"
_SHOWN = 120

RULES = {
    "changed": ("HOTC-DRIFT-CHANGED", "A property changed outside hotc"),
    "deleted": ("HOTC-DRIFT-DELETED", "A resource was deleted outside hotc"),
    "untracked": ("HOTC-DRIFT-UNTRACKED", "An object carries the stack's tag but is not in its state"),
    "unreadable": ("HOTC-DRIFT-UNREADABLE", "A resource could not be read from the cloud"),
}


def _v(value: Any) -> str:
    text = canonical_json(value).decode()
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _acc(a: Accepted) -> str:
    e = a.entry
    state = f"expired {e.until}" if a.expired else f"until {e.until}"
    by = f", by {e.by}" if e.by else ""
    return f"accepted ({a.source}{by}, {state}): {e.reason}"


def _stack_status(s: StackDrift) -> str:
    return "error" if s.errors else "drift" if s.drifted else "no drift"


# ------------------------------------------------------------------------------------------------------ text


def _prop_line(p: PropertyDrift) -> str:
    line = f"{p.path}: {_v(p.recorded)} -> {_v(p.live)}"
    if p.accepted is not None:
        line += f"  [{_acc(p.accepted)}]"
    return line


def render_text(result: DriftResult) -> str:
    out: list[str] = []
    for s in result.stacks:
        if s.error:
            out.append(f"Stack {s.stack}: error: {s.error}")
            continue
        counting = [r for r in s.resources if r.counts]
        accepted = [r for r in s.resources if not r.counts and r.kind in ("changed", "deleted", "untracked")]
        other = [r for r in s.resources if r.kind in ("scaled", "unreadable")]
        head = f"Stack {s.stack} (serial {s.serial}, {s.resource_count} resource(s)): "
        if counting:
            out.append(head + f"drift in {len(counting)} resource(s)")
        else:
            out.append(head + "no drift")
        for r in counting:
            out += _resource_text(r, only_counting=True)
        if (
            any(r.kind == "changed" and any(not p.counts for p in r.properties) for r in s.resources)
            or accepted
        ):
            out.append("  Accepted (not counted):")
            for r in s.resources:
                if r.kind == "changed":
                    for p in r.properties:
                        if not p.counts:
                            out.append(f"    ~ {r.address} {_prop_line(p)}")
                elif r in accepted and r.accepted is not None:
                    out.append(f"    - {r.address} ({r.type}) {r.detail}  [{_acc(r.accepted)}]")
        for r in other:
            sign = "!" if r.kind == "unreadable" else "="
            what = "error" if r.kind == "unreadable" else "scaled, not drift"
            out.append(f"  {sign} {r.address} ({r.type}) {what}: {r.detail}")
        for a in s.expired:
            out.append(
                f"  note: accepted drift {a.key} expired on {a.entry.until} ({a.source}): it counts again"
            )
    drifted = [s.stack for s in result.stacks if s.drifted]
    failed = [s.stack for s in result.stacks if s.errors]
    summary = f"{len(result.stacks)} stack(s) scanned: {len(drifted)} with drift"
    if failed:
        summary += f", {len(failed)} with errors ({', '.join(failed)})"
    out.append(summary + ".")
    return "\n".join(out) + "\n"


def _resource_text(r: ResourceDrift, *, only_counting: bool) -> list[str]:
    if r.kind == "changed":
        lines = [f"  ~ {r.address} ({r.type}, {r.physical_id}) changed outside hotc:"]
        lines += [f"      {_prop_line(p)}" for p in r.properties if p.counts or not only_counting]
        return lines
    if r.kind == "deleted":
        extra = f"  [{_acc(r.accepted)}]" if r.accepted is not None else ""
        return [f"  - {r.address} ({r.type}, {r.physical_id}) deleted out of band{extra}"]
    return [f"  + {r.address} ({r.type}, {r.physical_id}) untracked: {r.detail}"]


# ------------------------------------------------------------------------------------------------------ json


def _acc_json(a: Accepted | None) -> dict[str, Any] | None:
    if a is None:
        return None
    e = a.entry
    return {
        "key": a.key,
        "reason": e.reason,
        "until": e.until,
        "by": e.by,
        "source": a.source,
        "expired": a.expired,
    }


def result_json(result: DriftResult) -> dict[str, Any]:
    stacks = []
    for s in result.stacks:
        stacks.append(
            {
                "stack": s.stack,
                "status": _stack_status(s),
                "drifted": s.drifted,
                "serial": s.serial,
                "resource_count": s.resource_count,
                "error": s.error,
                "resources": [
                    {
                        "address": r.address,
                        "type": r.type,
                        "kind": r.kind,
                        "physical_id": r.physical_id,
                        "counts": r.counts,
                        "detail": r.detail,
                        "accepted": _acc_json(r.accepted),
                        "properties": [
                            {
                                "path": p.path,
                                "recorded": p.recorded,
                                "live": p.live,
                                "counts": p.counts,
                                "accepted": _acc_json(p.accepted),
                            }
                            for p in r.properties
                        ],
                    }
                    for r in s.resources
                ],
                "expired_accepted": [_acc_json(a) for a in s.expired],
            }
        )
    return {
        "format_version": FORMAT_VERSION,
        "date": result.today,
        "drifted": result.drifted,
        "exit_code": result.exit_code,
        "stacks": stacks,
    }


def render_json(result: DriftResult) -> str:
    return json.dumps(result_json(result), indent=2, sort_keys=False, default=str) + "\n"


# -------------------------------------------------------------------------------------------------- markdown


def _md(value: Any) -> str:
    return "`" + _v(value).replace("`", "'").replace("|", "\\|") + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown_stack(s: StackDrift, today: str) -> str:
    lines = [MARKER.format(stack=s.stack)]
    if s.error:
        lines += [f"## hotc drift: stack `{s.stack}`", "", f"**Error**: {s.error}", ""]
        return "\n".join(lines) + "\n"
    counting = [r for r in s.resources if r.counts]
    status = f"**Drift** in {len(counting)} resource(s)" if counting else "**No drift**"
    if s.errors:
        status = "**Error**: " + "; ".join(s.errors)
    lines += [
        f"## hotc drift: stack `{s.stack}`",
        "",
        f"{status} (serial {s.serial}, {s.resource_count} resource(s), checked {today}).",
        "",
    ]
    rows = []
    accepted_rows = []
    for r in s.resources:
        if r.kind == "changed":
            for p in r.properties:
                row = (
                    f"| `{r.address}` | {r.type} | changed | `{p.path}` | {_md(p.recorded)} | {_md(p.live)} |"
                )
                if p.counts:
                    note = f" accepted until {p.accepted.entry.until}, expired |" if p.accepted else " |"
                    rows.append(row + note)
                else:
                    assert p.accepted is not None
                    accepted_rows.append(
                        f"| `{r.address}` | `{p.path}` | {_cell(p.accepted.entry.reason)} | {p.accepted.entry.until} | "
                        f"{p.accepted.source} |"
                    )
        elif r.kind in ("deleted", "untracked"):
            if r.counts:
                live = "(gone)" if r.kind == "deleted" else f"`{r.physical_id}`"
                recorded = f"`{r.physical_id}`" if r.kind == "deleted" else "(not in the state)"
                note = f"accepted until {r.accepted.entry.until}, expired" if r.accepted is not None else ""
                rows.append(f"| `{r.address}` | {r.type} | {r.kind} | | {recorded} | {live} | {note} |")
            elif r.accepted is not None:
                accepted_rows.append(
                    f"| `{r.address}` | `*` | {_cell(r.accepted.entry.reason)} | {r.accepted.entry.until} | "
                    f"{r.accepted.source} |"
                )
    if rows:
        lines += [
            "| Resource | Type | Drift | Property | Recorded | Live | Note |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    if accepted_rows:
        lines += [
            "<details><summary>Accepted drift (not counted)</summary>",
            "",
            "| Resource | Property | Reason | Until | Declared in |",
            "|---|---|---|---|---|",
            *accepted_rows,
            "",
            "</details>",
            "",
        ]
    for r in s.resources:
        if r.kind == "scaled":
            lines.append(f"- `{r.address}` scaled (not drift): {r.detail}")
        elif r.kind == "unreadable":
            lines.append(f"- `{r.address}` could not be read: {r.detail}")
    return "\n".join(lines).rstrip("\n") + "\n"


def render_markdown(result: DriftResult) -> str:
    return "\n".join(render_markdown_stack(s, result.today) for s in result.stacks)


# ----------------------------------------------------------------------------------------------------- sarif


def render_sarif(result: DriftResult) -> str:
    results: list[dict[str, Any]] = []
    for s in result.stacks:
        for r in s.resources:
            if r.kind not in RULES:
                continue
            rule_id = RULES[r.kind][0]
            if r.kind == "changed":
                for p in r.properties:
                    results.append(
                        _sarif_result(
                            rule_id,
                            s.stack,
                            f"{r.address}:{p.path}",
                            f"{s.stack}: {r.address} ({r.type}) {p.path} changed outside hotc: recorded "
                            f"{_v(p.recorded)}, live {_v(p.live)}",
                            p.accepted,
                        )
                    )
            else:
                results.append(
                    _sarif_result(
                        rule_id,
                        s.stack,
                        r.address,
                        f"{s.stack}: {r.address} ({r.type}, {r.physical_id}): {r.detail}",
                        r.accepted,
                        level="error" if r.kind == "unreadable" else "warning",
                    )
                )
        if s.error:
            results.append(
                _sarif_result(
                    RULES["unreadable"][0], s.stack, "", f"{s.stack}: {s.error}", None, level="error"
                )
            )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hotc drift",
                        "informationUri": "https://hotc.invalid/docs/drift",
                        "rules": [
                            {"id": rid, "shortDescription": {"text": text}} for rid, text in RULES.values()
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, default=str) + "\n"


def _sarif_result(
    rule_id: str, stack: str, name: str, text: str, accepted: Accepted | None, level: str = "warning"
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": rule_id,
        "level": level,
        "message": {"text": text},
        "locations": [
            {
                "logicalLocations": [
                    {"name": name or stack, "fullyQualifiedName": f"{stack}/{name}" if name else stack}
                ]
            }
        ],
        "partialFingerprints": {"hotcDrift/v1": f"{stack}/{name}/{rule_id}"},
    }
    if accepted is not None:
        out["suppressions"] = [
            {
                "kind": "external",
                "status": "rejected" if accepted.expired else "accepted",
                "justification": f"{accepted.entry.reason} (until {accepted.entry.until}, {accepted.source})",
            }
        ]
    return out


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown, "sarif": render_sarif}


def accepted_lines(pairs: dict[str, list[tuple[str, Accepted]]]) -> list[str]:
    """Lines for a refresh-only plan: the drift accepted-drift entries cover, apart."""
    out = []
    for addr, items in sorted(pairs.items()):
        for path, a in items:
            out.append(f"  {addr}:{path} {_acc(a)}")
    return out


def note_accepted(plan: Plan, state: StackState | None, err: IO[str] | None = None) -> None:
    """After a refresh-only plan: the drift it found that accepted-drift entries cover (kept in the state or
    declared in hotc.toml), listed apart on stderr (every output format stays as it is)."""
    if plan.mode != "refresh-only" or state is None or not plan.resource_drift:
        return
    # lazy: only the command that needs it loads it (a module holds several commands; test_lazy_cli)
    from hotc.ops.drift import accepted_apart, accepted_from_toml

    pairs = accepted_apart(
        state, plan.resource_drift, accepted_from_toml(Path.cwd() / "hotc.toml", plan.stack_name)
    )
    if pairs:
        stream = err if err is not None else sys.stderr
        stream.write("Accepted drift (hotc drift --accept or hotc.toml; an expired entry counts again):\n")
        stream.write("\n".join(accepted_lines(pairs)) + "\n")


__all__ = [
    "RENDERERS",
    "accepted_lines",
    "note_accepted",
    "render_markdown_stack",
    "result_json",
    "split_key",
]
