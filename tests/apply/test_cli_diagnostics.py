"""`hotc apply -t` reports template problems exactly as `hotc plan` and `hotc validate` do."""

from __future__ import annotations

from pathlib import Path

from tests.clirun import run_hotc

BAD = """heat_template_version: 2016-10-14
parameters:
  size: {type: number, default: 0, constraints: [{range: {min: 1}, description: at least one}]}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      nmae: x
"""


def _diag_lines(cwd: Path, *args: str) -> tuple[int, list[str]]:
    r = run_hotc(cwd, *args)
    assert "Traceback" not in r.stderr
    return r.returncode, [ln for ln in r.stderr.splitlines() if ln.startswith("bad.yaml:")]


def test_apply_plan_and_validate_print_the_same_problems_once(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(BAD)
    rc_v, validate = _diag_lines(tmp_path, "validate", "-t", "bad.yaml")
    rc_p, plan = _diag_lines(tmp_path, "plan", "-t", "bad.yaml")
    rc_a, apply = _diag_lines(tmp_path, "apply", "-t", "bad.yaml", "--auto-approve")
    assert (rc_v, rc_p, rc_a) == (1, 1, 1)
    assert plan == apply
    assert plan == sorted(set(plan))  # each problem once, in file order
    assert [ln for ln in plan if "Invalid default 0" in ln] == [
        "bad.yaml:3:33: error: Parameter 'size' is invalid: Invalid default 0 (at least one)"
    ]
    assert any("unknown property nmae" in ln for ln in plan)
    assert set(validate) <= set(plan)
    assert not (tmp_path / ".hotc").exists() or not any(
        (tmp_path / ".hotc").glob("*.json")
    )  # nothing written


def test_apply_refuses_types_without_a_driver_before_doing_anything(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  s: {type: OS::Heat::RandomString}\n"
        "  h: {type: OS::Heat::WaitConditionHandle}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "no driver to create or update OS::Heat::WaitConditionHandle (h); nothing was applied" in r.stderr
    assert "s: CREATE" not in r.stdout  # the supported resource was not created either
    assert not list((tmp_path / ".hotc").glob("*.json"))
