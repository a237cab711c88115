"""The documentation's table of the corpus's resource types (docs/reference/corpus-types.md) says what the
code does (regenerate with ``python -m tests.corpus.types_table --write``)."""

from __future__ import annotations

from tests.corpus.corpus import WHAT, find_corpus
from tests.corpus.types_table import PAGE, readme_table, render
from tests.inputs import needs_input

CORPUS = find_corpus()
pytestmark = needs_input(CORPUS, WHAT)


def test_readme_types_table_is_current() -> None:
    assert CORPUS is not None
    table = readme_table(PAGE.read_text(encoding="utf-8"))
    assert table is not None, f"{PAGE} lacks the corpus-types section"
    assert table == render(CORPUS), (
        "the corpus types table is stale: python -m tests.corpus.types_table --write"
    )
