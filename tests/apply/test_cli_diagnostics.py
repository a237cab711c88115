"""`hotc apply -t` reports template problems exactly as `hotc plan` and `hotc validate` do."""

from __future__ import annotations

from pathlib import Path

from tests.clirun import Result, run_hotc

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


UNSUPPORTED = (
    "heat_template_version: 2018-08-31\n"
    "resources:\n"
    "  s: {type: OS::Heat::RandomString}\n"
    "  p:\n"
    "    type: OS::Zaqar::Queue\n"
    "    properties: {name: q}\n"
)


def _hotc(cwd: Path, *args: str) -> Result:
    return run_hotc(cwd, *args)


def test_types_without_a_driver_are_plan_errors_and_validate_warnings(tmp_path: Path) -> None:
    """A plan never looks green for what apply cannot do: validate warns, plan and apply -t refuse with the
    resource's position and the reason, before anything is created."""
    (tmp_path / "t.yaml").write_text(UNSUPPORTED)
    v = _hotc(tmp_path, "validate", "-t", "t.yaml")
    assert v.returncode == 0, v.stderr
    assert "t.yaml:5:11: warning: OS::Zaqar::Queue: hotc cannot create or update this type" in v.stdout
    for args in (("plan", "-t", "t.yaml"), ("apply", "-t", "t.yaml", "--auto-approve")):
        r = _hotc(tmp_path, *args)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert "t.yaml:4:3: error: p: hotc cannot create or update OS::Zaqar::Queue: " in (r.stderr)
        assert "Plan for stack" not in r.stdout  # no green plan was shown
    assert not list((tmp_path / ".hotc").glob("*.json"))  # the RandomString was not created either


def test_a_heat_signal_transport_is_a_plan_error_naming_the_alternative(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  h:\n"
        "    type: OS::Heat::WaitConditionHandle\n"
        "    properties: {signal_transport: ZAQAR_SIGNAL}\n"
    )
    v = _hotc(tmp_path, "validate", "-t", "t.yaml")
    assert (
        v.returncode == 0
        and "warning: OS::Heat::WaitConditionHandle: signal_transport ZAQAR_SIGNAL" in v.stdout
    )
    r = _hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1
    assert "error: OS::Heat::WaitConditionHandle: signal_transport ZAQAR_SIGNAL needs the Zaqar" in r.stderr
    assert "use TOKEN_SIGNAL (the default) or TEMP_URL_SIGNAL" in r.stderr


def test_signals_without_a_signal_store_are_a_plan_error(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  h: {type: OS::Heat::WaitConditionHandle}\n"
        "  w:\n"
        "    type: OS::Heat::WaitCondition\n"
        "    properties: {handle: {get_resource: h}, timeout: 60}\n"
        "  quiet:\n"
        "    type: OS::Heat::WaitConditionHandle\n"
        "    properties: {signal_transport: NO_SIGNAL}\n"
    )
    r = _hotc(tmp_path, "plan", "-t", "t.yaml")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "t.yaml:3:3: error: h, w: signals need the signal store: no signal store is configured" in r.stderr
    assert "--signal-store s3://BUCKET/PREFIX" in r.stderr
