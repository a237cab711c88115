"""Heat's restricted_actions in an environment's resource_registry are enforced at plan time."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hotc.cli.app import main

T = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
  n: {type: number, default: 1}
resources:
  db:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}, update_replace: true}
  cfg:
    type: OS::Heat::Value
    properties: {value: {get_param: v}}
  grp:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}, update_replace: true}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(textwrap.dedent(T).lstrip())
    code, _out, err = run(capsys, "apply", "-t", "s.yaml", "--auto-approve")
    assert code == 0, err
    return tmp_path


def _env(path: Path, body: str) -> str:
    (path / "env.yaml").write_text(textwrap.dedent(body).lstrip())
    return "env.yaml"


def test_a_restricted_replace_fails_the_plan_at_the_resource(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _env(stack, "resource_registry:\n  resources:\n    db: {restricted_actions: [replace]}\n")
    code, _out, err = run(capsys, "plan", "-t", "s.yaml", "-e", env, "--parameter", "v=b")
    assert code == 1
    assert "s.yaml:6:3: error: Replace to resource db is restricted" in err
    assert "cfg" not in err.split("error: Replace", 1)[1].split("\n", 1)[0]
    # nothing was saved, nothing applied
    code, _out, err = run(capsys, "apply", "-t", "s.yaml", "-e", env, "--parameter", "v=b", "--auto-approve")
    assert code == 1 and "restricted" in err
    code, out, _err = run(capsys, "output", "s", "--format", "json")
    assert code == 0


def test_update_restriction_blocks_in_place_updates_only(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _env(stack, "resource_registry:\n  resources:\n    '*': {restricted_actions: update}\n")
    code, _out, err = run(capsys, "plan", "-t", "s.yaml", "-e", env, "--parameter", "v=b")
    assert code == 1
    assert "Update to resource cfg is restricted" in err
    assert "resource db is restricted" not in err  # db is replaced, and only update is restricted


def test_group_members_see_the_settings_given_for_their_group(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _env(
        stack,
        "resource_registry:\n  resources:\n    grp:\n      '1': {restricted_actions: [replace]}\n",
    )
    code, _out, err = run(capsys, "plan", "-t", "s.yaml", "-e", env, "--parameter", "v=b")
    assert code == 1
    assert "Replace to resource grp[1] is restricted" in err and "grp[0]" not in err


def test_no_restriction_plans_normally(stack: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = _env(
        stack, "resource_registry:\n  resources:\n    other: {restricted_actions: [replace, update]}\n"
    )
    code, out, err = run(capsys, "plan", "-t", "s.yaml", "-e", env, "--parameter", "v=b")
    assert code == 0, err
    assert "restricted" not in err
