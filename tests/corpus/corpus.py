"""Locating the shared corpus and reading HEAT_VERDICTS.tsv (helpers for the corpus tests and the bench)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from tests.inputs import find_shared

WHAT = "the shared HOT corpus with HEAT_VERDICTS.tsv (set HOTC_CORPUS, or check out next to shared/corpus)"


def find_corpus(start: Path | None = None) -> Path | None:
    """``$HOTC_CORPUS``, else the first ``shared/corpus`` found walking up from ``start`` (this file)."""
    p = find_shared("corpus", "HOTC_CORPUS", start or Path(__file__))
    return p if p is not None and (p / "HEAT_VERDICTS.tsv").is_file() else None


@dataclass(frozen=True)
class Row:
    path: str
    verdict: str  # robust_verdict: VALID | INVALID
    klass: str  # robust_class: '' | a | b | c | d
    kind: str
    message: str
    env_files: tuple[str, ...]


def read_verdicts(corpus: Path) -> list[Row]:
    rows: list[Row] = []
    with open(corpus / "HEAT_VERDICTS.tsv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            envs = tuple(e for e in (r.get("robust_env_files") or "").split(";") if e)
            rows.append(
                Row(
                    path=r["path"],
                    verdict=r["robust_verdict"],
                    klass=r["robust_class"],
                    kind=r["robust_kind"],
                    message=r["robust_message"],
                    env_files=envs,
                )
            )
    return rows
