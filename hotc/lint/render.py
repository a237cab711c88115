"""The outputs of ``hotc lint``: text (``FILE:LINE:COL: SEVERITY: RULE …``), json, sarif (SARIF 2.1.0 for code
scanning: every rule with its ``helpUri`` and ``fullDescription``, every result at its ``FILE:LINE:COL``) and
markdown (for a pull-request comment).

Paths are written relative to the working directory when the file is under it, as the other commands print
them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any

from hotc import __version__
from hotc.errors import Pos
from hotc.lint.engine import LintFinding, LintReport
from hotc.lint.rule import Kind, Level, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {Level.CRITICAL: "error", Level.HIGH: "error", Level.MEDIUM: "warning", Level.LOW: "note"}
# GitHub code scanning ranks security alerts by this number (critical > 9.0, high 7.0-8.9, medium 4.0-6.9)
SECURITY_SEVERITY = {Level.CRITICAL: "9.5", Level.HIGH: "8.0", Level.MEDIUM: "5.5", Level.LOW: "3.0"}
FORMATS = ("text", "json", "sarif", "markdown")


def display_path(path: str) -> str:
    try:
        cwd = os.getcwd()
    except OSError:
        return path
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, cwd)
    return absolute if rel.startswith("..") else rel


def where(pos: Pos | None) -> str:
    if pos is None:
        return "(template)"
    return f"{display_path(pos.file)}:{pos.line}:{pos.col}"


def summary(report: LintReport, fail_on: Level) -> dict[str, Any]:
    active = report.active()
    by = Counter(f.severity.value for f in active)
    return {
        "findings": len(active),
        "by_severity": {lv.value: by.get(lv.value, 0) for lv in reversed(Level)},
        "suppressed": sum(1 for f in report.findings if f.kind is Kind.FINDING and f.suppressed is not None),
        "cannot_tell": sum(1 for f in report.findings if f.kind is Kind.CANNOT_TELL),
        "rules": len(report.rules),
        "fail_on": fail_on.value,
        "failed": bool(report.failing(fail_on)),
    }


# -------------------------------------------------------------------------------------------------- text


def _line(f: LintFinding) -> str:
    head = f"{where(f.pos)}: "
    body = f"{f.rule.id} {f.rule.name}: {f.subject}: {f.message}"
    if f.kind is Kind.CANNOT_TELL:
        return f"{head}cannot tell: {body}"
    if f.suppressed is not None:
        return f"{head}suppressed ({f.suppressed_by}: {f.suppressed}): {f.severity.value}: {body}"
    return f"{head}{f.severity.value}: {body}"


def render_text(report: LintReport, fail_on: Level, *, cannot_tell: bool = True) -> str:
    lines = [_line(f) for f in report.findings if cannot_tell or f.kind is not Kind.CANNOT_TELL]
    s = summary(report, fail_on)
    counts = ", ".join(f"{n} {lv}" for lv, n in s["by_severity"].items() if n)
    lines.append(
        f"{s['findings']} finding(s){f' ({counts})' if counts else ''}, {s['suppressed']} suppressed, "
        f"{s['cannot_tell']} cannot tell; {s['rules']} rules"
        + (f"; failing at --fail-on {fail_on.value}" if s["failed"] else "")
    )
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------------- json


def finding_json(f: LintFinding) -> dict[str, Any]:
    return {
        "rule": f.rule.id,
        "name": f.rule.name,
        "severity": f.severity.value,
        "title": f.rule.title,
        "kind": f.kind.value,
        "message": f.message,
        "file": display_path(f.pos.file) if f.pos else None,
        "line": f.pos.line if f.pos else None,
        "col": f.pos.col if f.pos else None,
        "resource": f.subject,
        "type": f.resource_type or None,
        "suppressed": None if f.suppressed is None else {"reason": f.suppressed, "by": f.suppressed_by},
        "help_uri": f.rule.help_uri,
    }


def report_json(report: LintReport, fail_on: Level) -> dict[str, Any]:
    return {
        "format_version": "1",
        "summary": summary(report, fail_on),
        "findings": [finding_json(f) for f in report.findings],
    }


def render_json(report: LintReport, fail_on: Level) -> str:
    return json.dumps(report_json(report, fail_on), indent=2) + "\n"


# ------------------------------------------------------------------------------------------------- sarif


def rule_sarif(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {
            "text": f"{rule.rationale} Fix: {rule.fix}",
            "markdown": f"{rule.rationale}\n\n**Fix:** {rule.fix}",
        },
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        "properties": {
            "tags": ["security", rule.service.lower()],
            "security-severity": SECURITY_SEVERITY[rule.severity],
            "problem.severity": rule.severity.value,
        },
    }


def _uri(path: str) -> str:
    return display_path(path).replace(os.sep, "/")


def result_sarif(f: LintFinding, index: int) -> dict[str, Any]:
    key = "\x1f".join((f.rule.id, _uri(f.pos.file) if f.pos else "", f.subject, f.message))
    out: dict[str, Any] = {
        "ruleId": f.rule.id,
        "ruleIndex": index,
        "message": {"text": f"{f.subject}: {f.message}"},
        "partialFingerprints": {"hotc/v1": hashlib.sha256(key.encode()).hexdigest()[:32]},
    }
    if f.kind is Kind.CANNOT_TELL:
        out["kind"] = "review"
        out["level"] = "none"
    else:
        out["level"] = SARIF_LEVEL[f.severity]
    if f.pos is not None:
        out["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.pos.file), "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": max(f.pos.line, 1), "startColumn": max(f.pos.col, 1)},
                }
            }
        ]
    if f.suppressed is not None:
        out["suppressions"] = [
            {
                "kind": "inSource" if f.suppressed_by == "inline" else "external",
                "justification": f.suppressed,
            }
        ]
    return out


def sarif_run(report: LintReport) -> dict[str, Any]:
    """One SARIF run of hotc's security rules: every rule that ran, every result."""
    rules = list(report.rules)
    index = {r.id: i for i, r in enumerate(rules)}
    cwd = os.getcwd().replace(os.sep, "/").rstrip("/") + "/"
    return {
        "tool": {
            "driver": {
                "name": "hotc-lint",
                "version": __version__,
                "rules": [rule_sarif(r) for r in rules],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + ("" if cwd.startswith("/") else "/") + cwd}},
        "results": [result_sarif(f, index[f.rule.id]) for f in report.findings],
    }


def render_sarif(report: LintReport) -> str:
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [sarif_run(report)]}
    return json.dumps(doc, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------- markdown

_ICON = {Level.CRITICAL: "🟥", Level.HIGH: "🟧", Level.MEDIUM: "🟨", Level.LOW: "⬜"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: LintReport, fail_on: Level) -> str:
    """A section for a pull-request comment: the findings as a table, then the suppressed ones and the ones
    that could not be told, folded."""
    s = summary(report, fail_on)
    counts = ", ".join(f"{n} {lv}" for lv, n in s["by_severity"].items() if n) or "none"
    out = [
        "### Security rules (hotc lint)",
        "",
        f"**{s['findings']} finding(s)** ({counts}); {s['suppressed']} suppressed; {s['cannot_tell']} cannot "
        f"tell. "
        + (
            f"Fails at `--fail-on {fail_on.value}`."
            if s["failed"]
            else f"Passes `--fail-on {fail_on.value}`."
        ),
        "",
    ]
    active = report.active()
    if active:
        out += ["| severity | rule | resource | where | finding |", "|---|---|---|---|---|"]
        for f in sorted(active, key=lambda f: -f.severity.rank):
            out.append(
                f"| {_ICON[f.severity]} {f.severity.value} | [{f.rule.id}]({f.rule.help_uri}) {_cell(f.rule.title)} "
                f"| `{_cell(f.subject)}` | `{where(f.pos)}` | {_cell(f.message)} |"
            )
        out.append("")
    suppressed = [f for f in report.findings if f.kind is Kind.FINDING and f.suppressed is not None]
    if suppressed:
        out += [f"<details><summary>{len(suppressed)} suppressed</summary>", ""]
        out += ["| rule | resource | where | reason |", "|---|---|---|---|"]
        for f in suppressed:
            out.append(
                f"| {f.rule.id} | `{_cell(f.subject)}` | `{where(f.pos)}` | {_cell(f.suppressed or '')} "
                f"({f.suppressed_by}) |"
            )
        out += ["", "</details>", ""]
    unknown = [f for f in report.findings if f.kind is Kind.CANNOT_TELL]
    if unknown:
        out += [f"<details><summary>{len(unknown)} cannot tell (values known only at apply)</summary>", ""]
        for f in unknown:
            out.append(f"- {f.rule.id} `{_cell(f.subject)}` at `{where(f.pos)}`: {_cell(f.message)}")
        out += ["", "</details>", ""]
    return "\n".join(out)


def render(report: LintReport, fmt: str, fail_on: Level) -> str:
    if fmt == "json":
        return render_json(report, fail_on)
    if fmt == "sarif":
        return render_sarif(report)
    if fmt == "markdown":
        return render_markdown(report, fail_on)
    return render_text(report, fail_on)
