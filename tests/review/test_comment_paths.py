"""The pull-request comment (plan --format markdown) shows paths relative to the project root (the directory
of hotc.toml): the same comment whichever directory of the project the plan ran from and wherever the runner
checked the project out."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.clirun import run_hotc

ROOT = Path(__file__).resolve().parents[2]


def _project(base: Path) -> Path:
    (base / "stacks").mkdir(parents=True)
    (base / "envs").mkdir()
    (base / "params").mkdir()
    shutil.copy(ROOT / "examples" / "quickstart.yaml", base / "stacks" / "web.yaml")
    (base / "envs" / "prod.yaml").write_text("parameters:\n  environment: prod\n")
    (base / "params" / "name.txt").write_text("shop")
    (base / "hotc.toml").write_text("")
    return base


def _comment(cwd: Path, *args: str) -> str:
    res = run_hotc(cwd, "plan", "--format", "markdown", *args)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_the_comment_is_the_same_from_any_directory_and_checkout(tmp_path: Path) -> None:
    a = _project(tmp_path / "a")
    b = _project(tmp_path / "elsewhere" / "b")
    from_root = _comment(
        a,
        "-t",
        "stacks/web.yaml",
        "-e",
        "envs/prod.yaml",
        "--parameter-file",
        "app_name=params/name.txt",
        "web",
    )
    from_sub = _comment(
        a / "stacks",
        *("-t", "web.yaml", "-e", "../envs/prod.yaml", "--parameter-file", "app_name=../params/name.txt"),
        "web",
    )
    other_checkout = _comment(
        b / "envs",
        *("-t", str(b / "stacks" / "web.yaml"), "-e", "prod.yaml"),
        *("--parameter-file", f"app_name={b / 'params' / 'name.txt'}", "web"),
    )
    apply = "hotc apply -t stacks/web.yaml -e envs/prod.yaml --parameter-file app_name=params/name.txt web"
    assert apply in from_root, from_root
    assert (
        "| template | `stacks/web.yaml` |" in from_root and "| environment | `envs/prod.yaml` |" in from_root
    )
    assert "| parameter `app_name` | file `params/name.txt` |" in from_root
    assert "none in local directory .hotc (a new stack)" in from_root
    assert str(tmp_path) not in from_root
    assert from_sub == from_root
    assert other_checkout == from_root


def test_a_saved_plan_is_named_from_the_project_root(tmp_path: Path) -> None:
    a = _project(tmp_path / "a")
    md = _comment(a / "stacks", "-t", "web.yaml", "-o", "../plans/web.plan", "web")
    assert "hotc apply plans/web.plan\n" in md, md
    res = run_hotc(a / "envs", "show", "../plans/web.plan", "--format", "markdown")
    assert res.returncode == 0 and "hotc apply plans/web.plan\n" in res.stdout, res.stdout
    assert "| template | `stacks/web.yaml` |" in res.stdout
