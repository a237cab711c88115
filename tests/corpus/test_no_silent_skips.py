"""Tests that read the shared corpus go through ``tests/inputs.py`` (``needs_input`` / ``missing_input``), which
skips them locally but FAILS them under CI when the corpus is missing; a plain ``pytest.skip`` or
``pytest.mark.skipif`` on the corpus would let CI pass without running them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TypeGuard

TESTS = Path(__file__).resolve().parents[1]


def _names(node: ast.AST) -> set[str]:
    return {n.id.lower() for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr.lower() for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _is_call_to(node: ast.AST, attr: str) -> TypeGuard[ast.Call]:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and isinstance(node.func.value, ast.Name | ast.Attribute)
    )


def silent_corpus_skips(source: str) -> list[int]:
    """Lines of ``source`` that skip when the corpus is missing without failing under CI: a ``skipif`` whose
    condition names the corpus, or a ``pytest.skip`` under an ``if`` whose test names it."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if _is_call_to(node, "skipif") and any("corpus" in name for arg in node.args for name in _names(arg)):
            lines.append(node.lineno)
        elif isinstance(node, ast.If) and any("corpus" in name for name in _names(node.test)):
            lines += [n.lineno for stmt in node.body for n in ast.walk(stmt) if _is_call_to(n, "skip")]
    return sorted(lines)


def test_the_check_finds_both_forms() -> None:
    src = (
        "@pytest.mark.skipif(CORPUS is None, reason='x')\n"
        "def test_a(): ...\n"
        "def test_b():\n"
        "    corpus = find_corpus()\n"
        "    if corpus is None:\n"
        "        pytest.skip('not here')\n"
        "    if other is None:\n"
        "        pytest.skip('fine: not the corpus')\n"
        "@needs_input(CORPUS, WHAT)\n"
        "def test_c(): ...\n"
    )
    assert silent_corpus_skips(src) == [1, 6]


def test_no_test_skips_silently_when_the_corpus_is_missing() -> None:
    files = [p for p in sorted(TESTS.rglob("*.py")) if "corpus" in p.read_text(encoding="utf-8").lower()]
    assert len(files) > 5
    found = [
        f"{p.relative_to(TESTS.parent)}:{line}"
        for p in files
        if p != Path(__file__).resolve()
        for line in silent_corpus_skips(p.read_text(encoding="utf-8"))
    ]
    assert found == [], "use tests.inputs.needs_input / missing_input instead: " + ", ".join(found)
