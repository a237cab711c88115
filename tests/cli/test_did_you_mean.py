"""Names that do not exist get "did you mean": stacks (with the list of those that exist), --target /
--exclude / --replace and state addresses, and function names that look misspelt (a warning: Heat takes
such a mapping as data, so the template stays valid)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.clirun import run_hotc

ROOT = Path(__file__).resolve().parents[2]
MISSPELT = """heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {list_joinn: [",", [a, b]]}
  w:
    type: OS::Heat::Value
    properties:
      value: {network: private}
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "examples" / "quickstart.yaml", tmp_path / "quickstart.yaml")
    (tmp_path / "misspelt.yaml").write_text(MISSPELT)
    return tmp_path


@pytest.fixture
def applied(work: Path) -> Path:
    assert run_hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve").returncode == 0
    return work


def test_a_missing_stack_lists_the_stacks_and_the_closest(applied: Path) -> None:
    for args in (
        ("output", "qucikstart"),
        ("state", "list", "qucikstart"),
        ("state", "pull", "qucikstart"),
        ("state", "history", "qucikstart"),
        ("events", "qucikstart"),
        ("resource", "list", "qucikstart"),
        ("show", "qucikstart"),
        ("graph", "qucikstart"),
    ):
        res = run_hotc(applied, *args)
        assert res.returncode == 1, args
        assert "Did you mean 'quickstart'?" in res.stderr, (args, res.stderr)
        assert "Stacks in local directory .hotc: quickstart." in res.stderr, (args, res.stderr)
    res = run_hotc(applied, "output", "zzz")
    assert "Did you mean" not in res.stderr and "Stacks in local directory .hotc: quickstart." in res.stderr


@pytest.mark.parametrize("command", ["check", "suspend", "resume", "destroy", "protect"])
def test_stack_operations_suggest_the_close_stack(applied: Path, command: str) -> None:
    res = run_hotc(applied, command, "qucikstart")
    assert res.returncode == 1 and "Did you mean 'quickstart'?" in res.stderr, res.stderr
    assert not (applied / ".hotc" / "qucikstart.lock").exists()


@pytest.mark.parametrize("args", [("drift", "qucikstart"), ("signal", "qucikstart", "app")])
def test_drift_and_signal_suggest_the_close_stack(applied: Path, args: tuple[str, ...]) -> None:
    res = run_hotc(applied, *args)
    said = res.stdout + res.stderr
    assert res.returncode == 1 and "Did you mean 'quickstart'?" in said, said
    assert not (applied / ".hotc" / "qucikstart.lock").exists()


@pytest.mark.parametrize("flag", ["--target", "--exclude", "--replace"])
def test_plan_address_options_suggest_the_close_address(work: Path, flag: str) -> None:
    res = run_hotc(work, "plan", "-t", "quickstart.yaml", flag, "wbe")
    assert res.returncode == 1 and "Did you mean 'web'?" in res.stderr, res.stderr


def test_destroy_target_suggests_the_close_address(applied: Path) -> None:
    res = run_hotc(applied, "plan", "--destroy", "quickstart", "--target", "app_confg")
    assert res.returncode == 1 and "Did you mean 'app_config'?" in res.stderr, res.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("state", "rm", "quickstart", "wbe"),
        ("state", "mv", "quickstart", "wbe", "x"),
        ("state", "show", "quickstart", "wbe"),
    ],
)
def test_state_addresses_suggest_the_close_one(applied: Path, args: tuple[str, ...]) -> None:
    res = run_hotc(applied, *args)
    assert res.returncode == 1 and "Did you mean 'web'?" in res.stderr, res.stderr


def test_a_misspelt_function_is_a_warning_not_an_error(work: Path) -> None:
    res = run_hotc(work, "validate", "-t", "misspelt.yaml")
    assert res.returncode == 0, res.stderr
    said = res.stdout + res.stderr  # validate reports on stdout
    assert "misspelt.yaml:6:14: warning:" in said and "Did you mean 'list_join'?" in said
    assert "network" not in said  # a plain single-key data map is not questioned
    res = run_hotc(work, "plan", "-t", "misspelt.yaml")
    assert res.returncode == 0 and res.stderr.count("Did you mean 'list_join'?") == 1, res.stderr
    res = run_hotc(work, "validate", "-t", "misspelt.yaml", "--format", "sarif")
    rules = [r["ruleId"] for r in json.loads(res.stdout)["runs"][0]["results"]]
    assert rules == ["template/function-spelling"]
