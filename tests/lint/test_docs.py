"""docs/lint-rules.md is generated from the rules (``python -m hotc.lint.docs > docs/lint-rules.md``)."""

from __future__ import annotations

from pathlib import Path

from hotc.lint.api import all_rules
from hotc.lint.docs import generate

DOC = Path(__file__).resolve().parents[2] / "docs" / "lint-rules.md"


def test_the_rules_document_is_up_to_date() -> None:
    assert DOC.read_text() == generate(), "run: python -m hotc.lint.docs > docs/lint-rules.md"


def test_every_rule_has_its_section() -> None:
    text = DOC.read_text()
    for r in all_rules():
        assert f"\n### {r.id}\n" in text and f"(#{r.id.lower()})" in text
