"""The project file's stacks (``hotc.toml``): found in the working directory or a parent, each stack's
template, environments and settings pinned; ``hotc init`` writes an entry from the flags and never a hidden
value; the template's identity is its path relative to the project root."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hotc.cli.project import load_project, template_identity
from hotc.errors import HotcError
from tests.clirun import run_hotc as hotc

T = """
heat_template_version: 2018-08-31
parameters:
  size: {type: number, default: 1}
  pw: {type: string, hidden: true, default: x}
resources:
  a: {type: OS::Heat::TestResource, properties: {value: {get_param: size}}}
"""


def test_init_writes_an_entry_that_reads_back(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "template.yaml").write_text(T)
    (tmp_path / "web" / "prod.yaml").write_text("parameters: {size: 3}\n")
    r = hotc(
        tmp_path,
        "init",
        "-t",
        "web/template.yaml",
        "-e",
        "web/prod.yaml",
        "--parameter",
        "size=2",
        "--deny",
        "delete:*",
        "--parallelism",
        "4",
        "web",
    )
    assert r.returncode == 0, r.stderr
    doc = tomllib.loads((tmp_path / "hotc.toml").read_text())
    assert doc["stacks"]["web"] == {
        "template": "web/template.yaml",
        "environments": ["web/prod.yaml"],
        "parameters": {"size": "2"},
        "deny": ["delete:*"],
        "parallelism": 4,
    }
    # found from a subdirectory, paths made absolute against the project root
    project = load_project(tmp_path / "web")
    assert project is not None and project.root == tmp_path.resolve()
    entry = project.stacks["web"]
    assert entry.template == tmp_path.resolve() / "web" / "template.yaml"
    assert template_identity(entry.template, project) == "web/template.yaml"
    # a second entry is appended; the same name again needs --force
    r = hotc(tmp_path, "init", "-t", "web/template.yaml", "web")
    assert r.returncode == 1 and "already pinned" in r.stderr
    r = hotc(tmp_path, "init", "-t", "web/template.yaml", "web", "--force")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "init", "-t", "web/template.yaml", "other")
    assert r.returncode == 0
    doc = tomllib.loads((tmp_path / "hotc.toml").read_text())
    assert doc["stacks"]["web"] == {"template": "web/template.yaml"} and "other" in doc["stacks"]


def test_init_never_writes_a_hidden_value(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(T)
    r = hotc(tmp_path, "init", "-t", "t.yaml", "--parameter", "pw=s3cret")
    assert r.returncode == 1 and "hidden" in r.stderr and "pw" in r.stderr
    assert not (tmp_path / "hotc.toml").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("[stacks.a]\nenvironments = []\n", "needs a template"),
        ("[stacks.a]\ntemplate = 't.yaml'\ntemplat = 'x'\n", "unknown key 'templat'"),
        ("[stacks.a]\ntemplate = 3\n", "must be a str"),
        ("[stacks\n", "hotc.toml: error"),
    ],
)
def test_a_broken_project_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "hotc.toml").write_text(text)
    with pytest.raises(HotcError) as exc:
        load_project(tmp_path)
    assert message in str(exc.value)


def test_identity_outside_a_project_is_the_absolute_path(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(T)
    assert template_identity(tmp_path / "t.yaml", None) == (tmp_path / "t.yaml").resolve().as_posix()
