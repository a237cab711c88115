"""Running a case through hotc the way a user would: ``hotc validate``, ``hotc plan -o``, ``hotc apply`` of
that plan and ``hotc output --format json``, in-process (:func:`tests.clirun.run_hotc`) in a scratch
directory holding the template, its files and environment files. The answer has the shape of Heat's
(:mod:`tests.oracle.heat`), so the two compare key for key."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests.clirun import run_hotc
from tests.oracle.generate import Case


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:500]
    return text.strip()[:500]


def ask_hotc(case: Case, root: Path | None = None) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="oracle-", dir=root))
    try:
        return _ask(case, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _ask(case: Case, work: Path) -> dict[str, Any]:
    (work / "template.yaml").write_text(case.template)
    for name, text in case.files.items():
        (work / name).write_text(text)
    params: list[str] = []
    for k, v in case.parameters.items():
        params += ["--parameter", f"{k}={v}"]
    common = ["-t", "template.yaml"]
    for e in case.env_files:
        common += ["-e", e]
    common += params
    r = run_hotc(work, "validate", *common)
    if r.returncode != 0:
        return {"v": "error", "vm": _first_error(r.stdout + r.stderr), "c": "skip"}
    answer: dict[str, Any] = {"v": "ok"}
    r = run_hotc(work, "plan", *common, "-o", "plan.json", case.stack_name)
    if r.returncode != 0:
        answer.update(c="error", cm="plan: " + _first_error(r.stdout + r.stderr))
        return answer
    r = run_hotc(work, "apply", "plan.json", *params)  # hidden parameters are not saved in a plan
    if r.returncode != 0:
        answer.update(c="error", cm="apply: " + _first_error(r.stdout + r.stderr))
        return answer
    answer["c"] = "ok"
    r = run_hotc(work, "output", case.stack_name, "--format", "json", "--show-sensitive")
    if r.returncode != 0:
        answer["o"] = {"*": ["e", "output: " + _first_error(r.stdout + r.stderr)]}
        return answer
    outs: dict[str, Any] = {}
    for k, o in json.loads(r.stdout).items():
        outs[k] = ["e", o["error"]] if o.get("error") is not None else ["v", o.get("value")]
    answer["o"] = outs
    return answer
