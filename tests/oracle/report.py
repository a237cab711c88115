"""Running cases through hotc against Heat's cached answers, and the agreement tables the bench prints."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle.compare import Verdict, compare
from tests.oracle.generate import Case, date_of
from tests.oracle.hotc_side import ask_hotc
from tests.oracle.known import reason_for


@dataclass(frozen=True)
class Result:
    case: Case
    heat: dict[str, Any]
    hotc: dict[str, Any]
    verdict: Verdict


def run_cases(
    cases: Iterable[Case], answers: dict[str, dict[str, Any]], root: Path | None = None
) -> tuple[list[Result], list[Case]]:
    """Each cached case through hotc and compared; also the cases Heat's cache has no answer for."""
    results: list[Result] = []
    missing: list[Case] = []
    for c in cases:
        heat = answers.get(c.key)
        if heat is None:
            missing.append(c)
            continue
        hotc = ask_hotc(c, root)
        results.append(Result(c, heat, hotc, compare(c, heat, hotc)))
    return results, missing


def agreement(results: list[Result]) -> float:
    return sum(r.verdict.agree for r in results) / max(1, len(results))


def _table(title: str, groups: dict[str, list[Result]]) -> list[str]:
    lines = [f"{title:<34} {'cases':>6} {'agree':>6} {'%':>7}"]
    for k in sorted(groups):
        rs = groups[k]
        ok = sum(r.verdict.agree for r in rs)
        lines.append(f"  {k:<32} {len(rs):>6} {ok:>6} {100 * ok / len(rs):>6.1f}%")
    return lines


def tables(results: list[Result], samples: int = 2) -> str:
    by_fn: dict[str, list[Result]] = defaultdict(list)
    by_family: dict[str, list[Result]] = defaultdict(list)
    by_ver: dict[str, list[Result]] = defaultdict(list)
    by_intent: dict[str, list[Result]] = defaultdict(list)
    by_verdict: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_fn[r.case.function].append(r)
        by_family[r.case.family].append(r)
        v = r.case.version
        by_ver[v if date_of(v) == v else f"{v} ({date_of(v)})"].append(r)
        by_intent[r.case.intent].append(r)
        h = r.heat
        kind = (
            "rejected by validate"
            if h["v"] == "error"
            else ("create fails" if h["c"] == "error" else "created")
        )
        by_verdict[kind].append(r)
    out: list[str] = []
    n = len(results)
    ok = sum(r.verdict.agree for r in results)
    out.append(f"Agreement with Heat: {ok}/{n} = {100 * ok / max(1, n):.2f}%")
    out.append("")
    for title, g in (
        ("by Heat's verdict", by_verdict),
        ("by generator family", by_family),
        ("by function / feature", by_fn),
        ("by heat_template_version", by_ver),
        ("by generator intent", by_intent),
    ):
        out += _table(title, g)
        out.append("")
    causes: Counter[str] = Counter()
    examples: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        if not r.verdict.agree:
            key = f"{r.verdict.cause} [{r.case.function}]"
            causes[key] += 1
            examples[key].append(r)
    out.append(f"Disagreements by cause ({n - ok}):")
    unexplained = 0
    for key, cnt in causes.most_common():
        out.append(f"  {cnt:>5}  {key}")
        for r in examples[key][:samples]:
            out.append(f"         case {r.case.index} ({r.case.key}): {r.verdict.detail[:200]}")
        reasons = {reason_for(r.verdict.cause, r.case.function, r.case.key) for r in examples[key]}
        for why in sorted(reasons, key=str):
            out.append(f"         reason: {why}" if why is not None else "         reason: NONE STATED")
        unexplained += sum(
            reason_for(r.verdict.cause, r.case.function, r.case.key) is None for r in examples[key]
        )
    out.append(f"Disagreements without a stated reason (tests/oracle/known.py): {unexplained}")
    return "\n".join(out)
