"""An import inside a function says why it is not at the top of its module.

Imports go at the top of the module. One stays inside a function only for a reason, given by a comment that
starts with one of these tags, on the line above the import or at the end of its line (an import that follows
another one directly, or after a blank line, shares the comment of the first):

- ``# lazy:`` start-up: the command line imports a command's modules only when that command runs, and a light
  command (``hotc --help``, ``validate``, ``check``) must not load what only another one needs
  (tests/review/test_startup_imports.py, tests/review/test_lazy_cli.py);
- ``# cycle:`` a real import cycle (say which module imports this one);
- ``# heavy:`` a heavy dependency needed on one path only (openstacksdk, boto3, yaql, lark, cryptography,
  deepdiff, ...);

The total may only shrink: it is held under ``MAX_LOCAL_IMPORTS``.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

HOTC = Path(__file__).resolve().parents[2] / "hotc"

TAGS = ("lazy", "cycle", "heavy")
TAG = re.compile(r"#\s*(" + "|".join(TAGS) + r"):\s*\S")

#: the number of function-local imports in hotc/ today. When you move some to the top of their modules and the
#: count printed by test_function_local_imports_only_shrink goes down, lower this number to that count (never
#: raise it: a new import inside a function needs a reason above, and one more means one of the others goes).
MAX_LOCAL_IMPORTS = 209


def _local_imports(path: Path) -> list[tuple[int, str | None]]:
    """(line, tag or None) of every import statement inside a function of ``path``."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(text, filename=str(path)), False)
    found.sort(key=lambda n: n.lineno)
    tag_of_end: dict[int, str | None] = {}  # last line of an import -> its tag
    out: list[tuple[int, str | None]] = []
    for node in found:
        tag: str | None = None
        own = "\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
        above = lines[node.lineno - 2] if node.lineno >= 2 else ""
        if m := TAG.search(own):
            tag = m.group(1)
        elif m := TAG.search(above):
            tag = m.group(1)
        else:
            j = node.lineno - 1  # the line above, past blank lines, may end the import this one follows
            while j >= 1 and not lines[j - 1].strip():
                j -= 1
            tag = tag_of_end.get(j)
        tag_of_end[node.end_lineno or node.lineno] = tag
        out.append((node.lineno, tag))
    return out


def _all() -> list[tuple[str, int, str | None]]:
    root = HOTC.parent
    return [
        (str(path.relative_to(root)), line, tag)
        for path in sorted(HOTC.rglob("*.py"))
        for line, tag in _local_imports(path)
    ]


def test_every_function_local_import_says_why() -> None:
    missing = [f"{path}:{line}" for path, line, tag in _all() if tag is None]
    assert missing == [], (
        "an import inside a function goes to the top of its module, or carries a reason comment on the line "
        f"above or at the end of its line, starting with one of {', '.join('# ' + t + ':' for t in TAGS)} "
        "(see this test's module doc and CONTRIBUTING.md):\n  " + "\n  ".join(missing)
    )


def test_function_local_imports_only_shrink() -> None:
    found = _all()
    counts = Counter(tag or "no reason" for _path, _line, tag in found)
    summary = ", ".join(f"{tag} {n}" for tag, n in sorted(counts.items())) + f"; total {len(found)}"
    print(f"function-local imports in hotc/: {summary}")
    assert len(found) <= MAX_LOCAL_IMPORTS, (
        f"{len(found)} function-local imports ({summary}), more than MAX_LOCAL_IMPORTS = {MAX_LOCAL_IMPORTS}: "
        "move the new one to the top of its module (or another one, if it must stay)"
    )


def test_the_check_sees_a_local_import_without_a_reason(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import os\n\n\n"
        "def f() -> None:\n"
        "    import json\n\n"
        "    # lazy: only f needs it\n"
        "    import csv\n"
        "    from typing import Any\n\n"
        "    from hotc import errors\n\n"
        "    import zlib  # heavy: only here\n"
        "    x = 1\n"
        "    import uuid\n"
    )
    assert _local_imports(module) == [
        (5, None),
        (8, "lazy"),
        (9, "lazy"),
        (11, "lazy"),
        (13, "heavy"),
        (15, None),
    ]
