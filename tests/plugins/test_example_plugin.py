"""The example plugin package (examples/plugins/hotc-example-file), installed with pip as a separate
distribution, is used by validate, plan and apply: hotc finds its type through the entry point group."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "examples" / "plugins" / "hotc-example-file"

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
  where: {type: string}
resources:
  motd:
    type: Example::Local::File
    properties:
      path: {get_param: where}
      content: {list_join: [' ', [{get_param: greeting}, world]]}
outputs:
  digest: {value: {get_attr: [motd, sha256]}}
  size: {value: {get_attr: [motd, size]}}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pip installs the plugin (its own distribution, with its entry point) into a directory of its own."""
    target = tmp_path_factory.mktemp("plugin-site")
    build = tmp_path_factory.mktemp("plugin-build")
    source = build / "hotc-example-file"
    shutil.copytree(PLUGIN, source)  # setuptools writes build files beside the sources: never in the repo
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=build,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert any(p.name.startswith("hotc_example_file-1.0.0.dist-info") for p in target.iterdir())
    return target


def hotc(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_types_list_shows_the_plugin_and_its_package(site: Path, tmp_path: Path) -> None:
    res = hotc(site, tmp_path, "types", "list", "--filter", "Example::*", "--format", "json")
    assert res.returncode == 0, res.stderr
    [row] = json.loads(res.stdout)["resource_types"]
    assert row["resource_type"] == "Example::Local::File" and row["apply"] == "supported"
    assert (
        "hotc-example-file 1.0.0" in row["source"]
        and "example-file = hotc_example_file:resource_types" in row["source"]
    )
    res = hotc(site, tmp_path, "types", "show", "Example::Local::File")
    assert res.returncode == 0 and "path: string, required, replace on change" in res.stdout


def test_validate_plan_apply_update_replace_destroy(site: Path, tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text(textwrap.dedent(TEMPLATE).lstrip())
    target = tmp_path / "motd.txt"
    res = hotc(site, tmp_path, "validate", "-t", "f.yaml")
    assert res.returncode == 0 and res.stdout.strip().endswith("OK"), res.stdout + res.stderr
    # the plugin's schema is enforced like a built-in one
    (tmp_path / "bad.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  f:\n    type: Example::Local::File\n"
        "    properties: {path: relative, colour: red}\n"
    )
    res = hotc(site, tmp_path, "plan", "-t", "bad.yaml")
    assert res.returncode == 1 and "colour" in res.stderr
    res = hotc(site, tmp_path, "apply", "-t", "f.yaml", "--parameter", f"where={target}", "--auto-approve")
    assert res.returncode == 0, res.stderr
    assert target.read_text() == "hello world"
    res = hotc(site, tmp_path, "output", "f", "--format", "json")
    outs = json.loads(res.stdout)
    assert outs["size"]["value"] == 11 if isinstance(outs.get("size"), dict) else outs["size"] == 11
    # update in place
    res = hotc(
        site,
        tmp_path,
        "apply",
        "-t",
        "f.yaml",
        "--parameter",
        f"where={target}",
        "--parameter",
        "greeting=bye",
        "--auto-approve",
    )
    assert res.returncode == 0, res.stderr
    assert target.read_text() == "bye world"
    # drift: the plugin's read reports the live content
    target.write_text("changed by hand")
    res = hotc(
        site,
        tmp_path,
        "plan",
        "-t",
        "f.yaml",
        "--parameter",
        f"where={target}",
        "--parameter",
        "greeting=bye",
        "--refresh-only",
    )
    assert res.returncode == 0 and "content" in res.stdout, res.stdout + res.stderr
    # a new path replaces the file
    other = tmp_path / "motd2.txt"
    res = hotc(
        site, tmp_path, "plan", "-t", "f.yaml", "--parameter", f"where={other}", "--parameter", "greeting=bye"
    )
    assert res.returncode == 0 and "-/+" in res.stdout, res.stdout
    res = hotc(
        site,
        tmp_path,
        "apply",
        "-t",
        "f.yaml",
        "--parameter",
        f"where={other}",
        "--parameter",
        "greeting=bye",
        "--auto-approve",
    )
    assert res.returncode == 0, res.stderr
    assert other.read_text() == "bye world" and not target.exists()
    res = hotc(site, tmp_path, "destroy", "f", "--auto-approve")
    assert res.returncode == 0 and not other.exists(), res.stderr


def test_without_the_plugin_the_type_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text(textwrap.dedent(TEMPLATE).lstrip())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run(
        [sys.executable, "-m", "hotc", "validate", "-t", "f.yaml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1 and "The Resource Type (Example::Local::File) could not be found" in res.stdout
