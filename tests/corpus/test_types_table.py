"""README's table of the corpus's resource types says what the code does (regenerate with
``python -m tests.corpus.types_table --write``)."""

from __future__ import annotations

from tests.corpus.corpus import WHAT, find_corpus
from tests.corpus.types_table import REPO, readme_table, render
from tests.inputs import needs_input

CORPUS = find_corpus()
pytestmark = needs_input(CORPUS, WHAT)


def test_readme_types_table_is_current() -> None:
    assert CORPUS is not None
    table = readme_table((REPO / "README.md").read_text(encoding="utf-8"))
    assert table is not None, "README.md lacks the corpus-types section"
    assert table == render(CORPUS), (
        "README's corpus types table is stale: python -m tests.corpus.types_table --write"
    )
