"""The policy (--deny, --warn, --policy-file) holds on every path that plans, not only ``hotc plan``: an
apply that plans on the spot, ``apply --existing``, ``destroy`` and ``import``. A plan a deny rule refuses
exits 3 and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import run_hotc as hotc

TWO = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: one}
  b:
    type: OS::Heat::TestResource
    properties: {value: two}
"""

ONE = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: one}
"""


def _state(tmp: Path, stack: str = "s") -> dict:
    return json.loads((tmp / ".hotc" / f"{stack}.json").read_text())


def _applied(tmp: Path) -> Path:
    (tmp / "two.yaml").write_text(TWO)
    (tmp / "one.yaml").write_text(ONE)
    r = hotc(tmp, "apply", "-t", "two.yaml", "s", "--auto-approve")
    assert r.returncode == 0, r.stderr
    return tmp


def test_apply_on_the_spot_refuses_a_plan_that_deletes(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    before = _state(tmp)
    r = hotc(tmp, "apply", "-t", "one.yaml", "s", "--auto-approve", "--deny", "delete:*")
    assert r.returncode == 3, r.stderr
    assert "deny rule delete:* (from --deny) matches b (OS::Heat::TestResource)" in r.stderr
    assert "1 deny rule(s) violated; nothing was applied" in r.stderr
    after = _state(tmp)
    assert after["serial"] == before["serial"] and set(after["resources"]) == {"a", "b"}
    # a rule that does not match lets the same apply run
    r = hotc(tmp, "apply", "-t", "one.yaml", "s", "--auto-approve", "--deny", "replace:*")
    assert r.returncode == 0, r.stderr
    assert set(_state(tmp)["resources"]) == {"a"}


def test_a_warn_rule_reports_and_applies(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    r = hotc(tmp, "apply", "-t", "one.yaml", "s", "--auto-approve", "--warn", "delete:*@b")
    assert r.returncode == 0, r.stderr
    assert "warning: warn rule delete:*@b (from --warn) matches b" in r.stderr
    assert set(_state(tmp)["resources"]) == {"a"}


def test_apply_existing_and_a_policy_file(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    (tmp / "policy.yaml").write_text(
        "deny:\n  - action: delete\n    type: '*'\n    message: keep everything\n"
    )
    before = _state(tmp)
    r = hotc(
        tmp, "apply", "s", "--existing", "-t", "one.yaml", "--auto-approve", "--policy-file", "policy.yaml"
    )
    assert r.returncode == 3, r.stderr
    assert "matches b (OS::Heat::TestResource): keep everything" in r.stderr
    assert _state(tmp)["serial"] == before["serial"]


def test_destroy_refuses_what_the_policy_denies(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    before = _state(tmp)
    r = hotc(tmp, "destroy", "s", "--auto-approve", "--deny", "delete:*@a")
    assert r.returncode == 3, r.stderr
    assert "deny rule delete:*@a (from --deny) matches a (OS::Heat::TestResource)" in r.stderr
    after = _state(tmp)
    assert after["serial"] == before["serial"] and set(after["resources"]) == {"a", "b"}
    r = hotc(tmp, "destroy", "s", "--auto-approve", "--deny", "delete:OS::Nova::*")
    assert r.returncode == 0, r.stderr
    assert _state(tmp)["resources"] == {}


def test_a_bad_rule_fails_before_anything_runs(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    for args in (
        ("apply", "-t", "one.yaml", "s", "--auto-approve", "--deny", "explode:*"),
        ("destroy", "s", "--auto-approve", "--deny", "explode:*"),
    ):
        r = hotc(tmp, *args)
        assert r.returncode == 1 and "rule 'explode:*'" in r.stderr, r.stderr
    assert set(_state(tmp)["resources"]) == {"a", "b"}


def test_a_saved_plan_takes_no_policy_options(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    assert hotc(tmp, "plan", "-t", "one.yaml", "s", "-o", "p.json").returncode == 0
    r = hotc(tmp, "apply", "p.json", "--deny", "delete:*")
    assert r.returncode == 1 and "give --deny, --warn and --policy-file to 'hotc plan'" in r.stderr


def test_destroy_of_a_stack_that_does_not_exist(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    r = hotc(tmp, "destroy", "ghost", "--auto-approve")
    assert r.returncode == 1
    assert "stack not found: 'ghost'" in r.stderr and "stacks there: s" in r.stderr
    assert not (tmp / ".hotc" / "ghost.lock").exists()
    assert not any(p.name.startswith("ghost") for p in (tmp / ".hotc").iterdir())
    r = hotc(tmp, "destroy", "ghost", "--auto-approve", "--missing-ok")
    assert r.returncode == 0 and "nothing to destroy" in r.stdout
    assert not any(p.name.startswith("ghost") for p in (tmp / ".hotc").iterdir())
    # an empty backend: no stacks to list
    empty = tmp_path / "empty"
    empty.mkdir()
    r = hotc(empty, "destroy", "x", "--auto-approve")
    assert r.returncode == 1 and "stacks there: none" in r.stderr
    assert not (empty / ".hotc" / "x.lock").exists()


def test_lifecycle_of_a_stack_that_does_not_exist(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    for action in ("check", "suspend", "resume"):
        r = hotc(tmp, action, "ghost")
        assert r.returncode == 1 and "stack not found: 'ghost'" in r.stderr and "stacks there: s" in r.stderr
    assert not any(p.name.startswith("ghost") for p in (tmp / ".hotc").iterdir())


def test_a_plan_from_the_state_of_a_stack_that_does_not_exist(tmp_path: Path) -> None:
    tmp = _applied(tmp_path)
    for flag in ("--destroy", "--refresh-only"):
        r = hotc(tmp, "plan", "ghost", flag)
        assert (
            r.returncode == 1 and "stack not found: 'ghost'" in r.stderr and "nothing to destroy" in r.stderr
        )
    assert not any(p.name.startswith("ghost") for p in (tmp / ".hotc").iterdir())
