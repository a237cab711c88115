"""hotc validate against what OpenStack Heat 27 itself answered for the shared corpus (HEAT_VERDICTS.tsv).

For each row (except class ``c``: Heat never saw the template, the client failed first), hotc's VALID/INVALID
must equal ``robust_verdict`` when validating with ``robust_env_files`` — except for the rows in
:data:`KNOWN_DIFFERENCES`, each with its reason. The agreement rate is printed (``pytest -s``).
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from hotc.errors import Severity, has_errors
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks
from tests.corpus.corpus import WHAT, Row, find_corpus, read_verdicts
from tests.inputs import needs_input

CORPUS = find_corpus(Path(__file__))

pytestmark = needs_input(CORPUS, WHAT)

#: rows where hotc and Heat disagree on purpose or for a reason outside this layer:
#: path -> (hotc's verdict, reason)
KNOWN_DIFFERENCES: dict[str, tuple[str, str]] = {
    # none at present: every row agrees. Add a row here only with hotc's verdict and the reason, e.g.
    # "path/under/corpus.yaml": ("INVALID", "hotc reports X, which certainly fails at create"),
}


def _rows() -> list[Row]:
    if CORPUS is None:
        return []
    return [r for r in read_verdicts(CORPUS) if r.klass != "c"]


def _verdict(row: Row) -> tuple[str, list[str]]:
    assert CORPUS is not None
    _, diags = load_stack(
        str(CORPUS / row.path),
        [str(CORPUS / e) for e in row.env_files],
        {},
        {},
        require_values=False,
        checks=type_checks(),
    )
    errs = [str(d) for d in diags if d.severity is Severity.ERROR]
    return ("INVALID" if has_errors(diags) else "VALID"), errs


def test_corpus_agreement_with_heat() -> None:
    rows = _rows()
    assert len(rows) > 500, "the verdict file looks truncated"
    agree = 0
    unexpected: list[str] = []
    known_seen: list[str] = []
    for row in rows:
        ours, errs = _verdict(row)
        if ours == row.verdict:
            agree += 1
            continue
        if row.path in KNOWN_DIFFERENCES:
            known_seen.append(row.path)
            continue
        unexpected.append(
            f"{row.path}: Heat {row.verdict} ({row.message[:160]}), hotc {ours}: " + "; ".join(errs[:2])
        )
    rate = agree / len(rows)
    print(
        f"\ncorpus agreement: {agree}/{len(rows)} rows = {rate:.1%} "
        f"({len(known_seen)} documented known differences)",
        file=sys.stderr,
    )
    assert not unexpected, "hotc disagrees with Heat on:\n" + "\n".join(unexpected)


def test_corpus_invalid_rows_have_positions() -> None:
    """Every error hotc reports on the corpus names a file and a line."""
    for row in _rows():
        if row.verdict != "INVALID" or row.path in KNOWN_DIFFERENCES:
            continue
        assert CORPUS is not None
        _, diags = load_stack(
            str(CORPUS / row.path),
            [str(CORPUS / e) for e in row.env_files],
            {},
            {},
            require_values=False,
            checks=type_checks(),
        )
        for d in diags:
            if d.severity is Severity.ERROR:
                assert d.pos is not None and d.pos.line >= 1, f"{row.path}: error without position: {d}"


def _all_inputs() -> list[Path]:
    if CORPUS is None:
        return []
    out = []
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and p.suffix in (".yaml", ".yml", ".template", ".json", ".env"):
            out.append(p)
    return out


def test_no_corpus_input_produces_a_traceback() -> None:
    """Every file in the corpus, used as a template and as an environment, gives diagnostics, never an
    exception."""
    files = _all_inputs()
    assert len(files) > 600
    anchor = CORPUS / "openstack__heat-templates/hot/hello_world.yaml" if CORPUS else None
    failures: list[str] = []
    for f in files:
        for as_env in (False, True):
            try:
                if as_env and anchor is not None:
                    load_stack(str(anchor), [str(f)], {}, {}, require_values=False, checks=type_checks())
                else:
                    load_stack(str(f), [], {}, {}, require_values=True, checks=type_checks())
            except Exception:  # noqa: BLE001 - this test exists to catch any of them
                failures.append(
                    f"{f} (as {'environment' if as_env else 'template'}):\n{traceback.format_exc()}"
                )
    assert not failures, "\n".join(failures[:5])
