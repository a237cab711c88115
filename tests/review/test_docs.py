"""The README and the documentation site stay what a newcomer can use: the README is short, its test command is
exactly the one ``.ci/run`` runs, its links lead somewhere, nothing in the user-facing text cites a tracker
entry, and the generated references (``docs/hooks/reference.py``, run by ``mkdocs build``) list every command
and every resource type. ``.ci/run`` also builds the whole site with ``mkdocs build --strict``."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]

#: what a reader cannot follow: a tracker entry, or a work period of the people who wrote the code
CITATION = re.compile(
    r"\bissues? #?\d+|\bround \d+'s|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"previous|this|last|that) session\b",
    re.IGNORECASE,
)


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "docs_reference_hook", REPO / "docs" / "hooks" / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_readme_test_command_is_the_one_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    body = re.search(r"readme_test_command\(\) \{\n(.*?)\n\}", ci, re.DOTALL)
    assert body is not None, ".ci/run has no readme_test_command"
    command = body.group(1).strip()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"```sh\n{command}\n```" in readme, f"the README's test command is not .ci/run's: {command}"


def test_readme_links_lead_somewhere() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links into the docs"
    missing = [t for t in local if not (REPO / t).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_user_facing_text_cites_no_tracker() -> None:
    files = [
        REPO / "README.md",
        REPO / "ARCHITECTURE.md",
        REPO / "CONTRIBUTING.md",
        REPO / "CHANGELOG.md",
        *(REPO / "docs").rglob("*.md"),
        *(REPO / "docs").rglob("*.py"),
        *(REPO / "bench").rglob("*.md"),
        *(REPO / "bench").rglob("*.py"),
        *(p for p in (REPO / "examples").rglob("*") if p.is_file()),
        *(REPO / "hotc").rglob("*.py"),
        *(p for p in (REPO / "tests").rglob("*.py") if p != Path(__file__).resolve()),
    ]
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if CITATION.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "say what the thing is instead:\n" + "\n".join(found)


def test_cli_reference_lists_every_command() -> None:
    from hotc.cli.app import COMMANDS

    page = _hook().cli_page()
    missing = [name for name in COMMANDS if f"## `hotc {name}`" not in page]
    assert not missing, f"the generated CLI reference lacks {missing}"
    assert "### `hotc state list`" in page  # sub-commands of a group are walked too
    assert "`--auto-approve`" in page


def test_resource_type_reference_lists_every_type() -> None:
    from hotc.providers.registry import builtin_schemas

    page = _hook().resource_types_page()
    missing = [name for name in builtin_schemas() if f"### {name}\n" not in page]
    assert not missing, f"the generated resource-type reference lacks {missing}"
    # what a change of a property does is Heat's: a server's flavor is resized in place, a new availability
    # zone replaces the server
    server = page.split("### OS::Nova::Server\n", 1)[1].split("\n### ", 1)[0]
    assert "| `flavor` | string | yes | update in place |" in server
    assert "| `availability_zone` | string |  | replace |" in server


def test_format_pages_come_from_the_schemas() -> None:
    hook = _hook()
    plan = hook.schema_page("plan")
    state = hook.schema_page("state")
    assert "| `resource_changes` |" in plan and "| `format_version` |" in plan
    assert "| `lineage` | string | yes |" in state


def test_readme_tour_works_as_written(tmp_path: Path) -> None:
    """The README's offline tour, pasted in order in a fresh directory holding the examples: every command
    succeeds (the venv's ``hotc`` is this interpreter's ``-m hotc``)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## A tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in tour.splitlines()]
    commands = [line for line in lines if line and line != ". .venv/bin/activate"]
    assert len(commands) >= 8 and all(c.startswith("hotc ") for c in commands), commands
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "HOTC_"))}
    env["PYTHONPATH"] = str(REPO)
    for command in commands:
        argv = [sys.executable, "-m", "hotc", *shlex.split(command)[1:]]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
