"""The result comment of an apply (hotc-ci.sh apply writes it to OUT/apply.md): what was applied (the reviewed
plan's digest and its summary counts), how long it took, what failed, and the stack's outputs (sensitive ones
masked: ``hotc output STACK --format json`` gives them as null). Standard library only.

    python apply-comment.py OUT STACK PR EXIT_CODE SECONDS

reads OUT/plan.json (the plan applied), OUT/plan.show.json (``hotc show PLAN --format json``), OUT/apply.json
(``hotc apply PLAN --format json``, may be missing or empty) and OUT/outputs.json (``hotc output STACK --format
json``, may be missing). Its first line is the hidden marker ``<!-- hotc-apply-comment stack=STACK -->`` a bot
finds its earlier comment by.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

LIMIT = 65536  # GitHub's comment size limit (characters)
COUNTS = ("create", "update", "replace", "delete", "forget", "move", "no-op")


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _cell(v: Any) -> str:
    text = json.dumps(v, default=str) if not isinstance(v, str) else v
    text = text.replace("|", "\\|").replace("\n", " ")
    return f"`{text}`" if len(text) <= 200 else f"`{text[:197]}…`"


def render(out: Path, stack: str, pr: str, code: int, seconds: int) -> str:
    plan_bytes = (out / "plan.json").read_bytes() if (out / "plan.json").is_file() else b""
    show = _load(out / "plan.show.json") or {}
    run = _load(out / "apply.json") or {}
    outputs = _load(out / "outputs.json")
    ok = code == 0
    lines = [f"<!-- hotc-apply-comment stack={stack} -->"]
    head = "applied" if ok else "apply FAILED"
    lines.append(f"### hotc: stack `{stack}` {head}" + (f" (PR #{pr})" if pr else ""))
    lines.append("")
    prior = show.get("prior_state") or {}
    made_at = f"state serial {prior.get('serial')}" if prior else "no state (a new stack)"
    if plan_bytes:
        digest = "sha256:" + hashlib.sha256(plan_bytes).hexdigest()
        lines.append(f"Applied exactly the reviewed plan `{digest}`, made at {made_at}.")
    summary = show.get("summary") or {}
    counts = ", ".join(f"{summary[k]} {k}" for k in COUNTS if summary.get(k))
    lines.append("")
    lines.append(f"**Plan:** {counts or 'no changes'}.  **Took:** {seconds} s.  **Exit:** {code}.")
    status = run.get("status")
    if status:
        reason = run.get("status_reason") or ""
        lines.append(f"**Stack status:** `{status}`" + (f" ({reason})" if reason else "") + ".")
    failed = [r for r in run.get("resources") or [] if str(r.get("status", "")).endswith("_FAILED")]
    if failed:
        lines += ["", "#### Failures", "", "| resource | type | status | reason |", "|---|---|---|---|"]
        for r in failed:
            lines.append(
                f"| {_cell(r.get('address'))} | {_cell(r.get('type'))} | {_cell(r.get('status'))} "
                f"| {_cell(r.get('reason') or '')} |"
            )
    elif not ok:
        lines += ["", "The apply failed before any resource changed; see the job's log."]
    if isinstance(outputs, dict) and outputs:
        lines += ["", "#### Outputs", "", "| output | value |", "|---|---|"]
        for name, o in outputs.items():
            if not isinstance(o, dict):
                continue
            if o.get("error"):
                shown = f"(error: {_cell(o['error'])})"
            elif o.get("sensitive"):
                shown = "(sensitive)"
            else:
                shown = _cell(o.get("value"))
            lines.append(f"| `{name}` | {shown} |")
    text = "\n".join(lines) + "\n"
    if len(text) > LIMIT:
        text = text[: LIMIT - 80] + "\n\n… (cut at GitHub's comment limit; the job's artifact has it all)\n"
    return text


def main(argv: list[str]) -> int:
    if len(argv) != 6:
        sys.stderr.write("usage: apply-comment.py OUT STACK PR EXIT_CODE SECONDS\n")
        return 1
    out = Path(argv[1])
    text = render(out, argv[2], argv[3], int(argv[4]), int(argv[5]))
    (out / "apply.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
