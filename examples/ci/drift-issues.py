"""One issue per stack from ``hotc drift --all --format markdown`` (GitLab; GitHub Actions does the same in
drift-github-actions.yml with actions/github-script).

Each stack's section opens with ``<!-- hotc-drift: STACK -->``. The open issue labelled ``hotc-drift`` whose
description starts with that line is the stack's issue: updated while the stack drifts, created when there is
none, closed (with a note) when the section says **No drift**. Standard library only.

    python drift-issues.py gitlab drift.md     # CI_API_V4_URL, CI_PROJECT_ID, DRIFT_ISSUES_TOKEN
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.parse
import urllib.request
from typing import Any

MARKER = re.compile(r"^<!-- hotc-drift: (.+?) -->$", re.M)
LABEL = "hotc-drift"


def sections(report: str) -> dict[str, str]:
    """Stack -> its section (marker line first)."""
    starts = list(MARKER.finditer(report))
    out = {}
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(report)
        out[m.group(1)] = report[m.start() : end].rstrip() + "\n"
    return out


def gitlab(method: str, path: str, data: dict[str, Any] | None = None) -> Any:
    base = os.environ["CI_API_V4_URL"].rstrip("/")
    project = urllib.parse.quote(os.environ["CI_PROJECT_ID"], safe="")
    req = urllib.request.Request(
        f"{base}/projects/{project}{path}",
        method=method,
        data=json.dumps(data).encode() if data is not None else None,
        headers={"PRIVATE-TOKEN": os.environ["DRIFT_ISSUES_TOKEN"], "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null")


def open_issues() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        batch = gitlab("GET", f"/issues?state=opened&labels={LABEL}&per_page=100&page={page}")
        out += batch
        if len(batch) < 100:
            return out
        page += 1


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] != "gitlab":
        print(__doc__, file=sys.stderr)
        return 1
    with open(argv[2], encoding="utf-8") as f:
        report = f.read()
    issues = open_issues()
    for stack, body in sections(report).items():
        marker = body.splitlines()[0]
        issue = next((i for i in issues if (i.get("description") or "").startswith(marker)), None)
        if "**No drift**" in body:
            if issue is not None:
                gitlab("POST", f"/issues/{issue['iid']}/notes", {"body": "The drift is gone: closing."})
                gitlab("PUT", f"/issues/{issue['iid']}", {"description": body, "state_event": "close"})
                print(f"{stack}: closed #{issue['iid']}")
        elif issue is not None:
            gitlab("PUT", f"/issues/{issue['iid']}", {"description": body})
            print(f"{stack}: updated #{issue['iid']}")
        else:
            made = gitlab(
                "POST", "/issues", {"title": f"Drift in stack {stack}", "description": body, "labels": LABEL}
            )
            print(f"{stack}: opened #{made['iid']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
