"""Heat's recorded answers, one gzip'd JSON-lines file per Heat version (``data/heat-VERSION.jsonl.gz``),
each line ``{"k": CASE_KEY, ...answer}`` in key order. Project-generated test data: written by
``python -m tests.oracle.refresh`` against the test cloud, read offline by the CI test and the bench."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
#: The Heat version the committed cache was recorded with (the test cloud's Heat 27).
HEAT_VERSION = "27.0.1"


def path_for(version: str = HEAT_VERSION) -> Path:
    return DATA / f"heat-{version}.jsonl.gz"


def usable(answer: dict[str, Any]) -> bool:
    """False for an answer that says more about the run than about the case: a stack left behind by an
    interrupted run (its name is the case's), or a wait that timed out. Such answers are asked again."""
    msg = str(answer.get("cm", ""))
    return not (msg.startswith("The Stack (fo-") and msg.endswith("already exists.")) and not msg.startswith(
        "oracle:"
    )


def internal_error(answer: dict[str, Any]) -> bool:
    """Whether Heat's engine failed the create with an internal error (a 500 RemoteError). Under load such a
    failure is mostly the engine's RPC, not a verdict: the first refresh's four, asked again, were each an
    ordinary answer (which hotc matched). The refresh asks these again; one that stays is kept as it is."""
    return '"code": 500' in str(answer.get("cm", ""))


def load(version: str = HEAT_VERSION) -> dict[str, dict[str, Any]]:
    p = path_for(version)
    if not p.exists():
        return {}
    out: dict[str, dict[str, Any]] = {}
    with gzip.open(p, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            key = rec.pop("k")
            if usable(rec):
                out[key] = rec
    return out


def save(answers: dict[str, dict[str, Any]], version: str = HEAT_VERSION) -> Path:
    p = path_for(version)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    # mtime=0: the same answers give the same bytes
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        for k in sorted(answers):
            fh.write((json.dumps({"k": k, **answers[k]}, sort_keys=True, ensure_ascii=False) + "\n").encode())
    os.replace(tmp, p)
    return p
