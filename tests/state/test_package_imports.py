"""No module of hotc/state/ imports its own package's ``__init__`` (``hotc.state``): that import runs the
package's ``__init__``, which imports the backends and the factory, and so closes an import cycle through
``hotc.state`` from every module that does it. Modules inside the package import the submodule they need."""

from __future__ import annotations

import ast
from pathlib import Path

import hotc.state

PACKAGE_DIR = Path(hotc.state.__file__).parent


def package_imports(source: str) -> list[tuple[int, str]]:
    """Each import of the ``hotc.state`` package itself in ``source``, as (line, the statement's text)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if a.name == "hotc.state"]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module == "hotc.state":
                found.append((node.lineno, f"from hotc.state import {', '.join(a.name for a in node.names)}"))
            elif node.level == 1 and node.module is None:
                found.append((node.lineno, f"from . import {', '.join(a.name for a in node.names)}"))
    return found


def test_the_check_recognises_each_form_of_the_package_import() -> None:
    src = (
        "import hotc.state\n"
        "from hotc.state import codec\n"
        "def f():\n"
        "    from . import secrets\n"
        "import hotc.state.codec as codec\n"
        "from hotc.state.codec import loads\n"
        "from .codec import dumps\n"
    )
    assert [line for line, _ in package_imports(src)] == [1, 2, 4]


def test_no_module_in_hotc_state_imports_the_package_itself() -> None:
    modules = sorted(PACKAGE_DIR.glob("*.py"))
    assert len(modules) > 5
    offenders = [
        f"{path.name}:{line}: {text}"
        for path in modules
        if path.name != "__init__.py"
        for line, text in package_imports(path.read_text())
    ]
    assert offenders == []
