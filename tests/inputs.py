"""Test inputs that live outside the repository (the shared HOT corpus, the Heat reference tables).

Locally a test whose input is missing is skipped. Under CI (``CI`` or ``HOTC_REQUIRE_CORPUS`` set, as
``.ci/run`` does) it FAILS instead: a gate that silently skips holds no bar.

- in a module: ``pytestmark = needs_input(CORPUS, "the shared corpus (set HOTC_CORPUS)")`` (the hook in
  ``tests/conftest.py`` skips or fails each test of the module);
- inside a test or fixture: ``missing_input("...")``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

MARK = "needs_input"


def inputs_required() -> bool:
    return bool(os.environ.get("HOTC_REQUIRE_CORPUS") or os.environ.get("CI"))


def needs_input(found: object, what: str) -> pytest.MarkDecorator:
    """A mark for a module or test that reads ``found`` (None when the input was not found)."""
    return getattr(pytest.mark, MARK)(found is not None, what=what)


def missing_input(what: str) -> NoReturn:
    if inputs_required():
        pytest.fail(f"required test input missing (CI / HOTC_REQUIRE_CORPUS is set): {what}", pytrace=False)
    pytest.skip(f"test input not found: {what}")


def check_needed_inputs(item: pytest.Item) -> None:
    for mark in item.iter_markers(MARK):
        if not mark.args[0]:
            missing_input(mark.kwargs["what"])


def find_shared(relative: str, env: str, start: Path | None = None) -> Path | None:
    """``$env`` if set (it must exist), else the first ``shared/<relative>`` walking up from ``start``."""
    value = os.environ.get(env)
    if value:
        p = Path(value)
        return p if p.exists() else None
    here = (start or Path(__file__)).resolve()
    for parent in [here, *here.parents]:
        cand = parent / "shared" / relative
        if cand.exists():
            return cand
    return None


def find_reference() -> Path | None:
    """heat-hot.md, the reference whose §2.6 tables the schemas are checked against (``$HOTC_REFERENCE``)."""
    p = find_shared("reference/heat-hot.md", "HOTC_REFERENCE")
    return p if p is not None and p.is_file() else None
