"""The plan is what apply does (a plan comes true): an attribute of a resource updated in place
is "known after apply" in the plan, the applier resolves it once the update is done and carries the change
to its dependents in the same apply, so one apply converges. Offline, Heat-native types, in-process CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotc.cli.app import main

CHAIN = """\
heat_template_version: 2018-08-31
parameters:
  tag: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [a, {get_param: tag}]]}
  v:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [a, output]}
outputs:
  out: {value: {get_attr: [v, value]}}
"""

REPLACED_DOWNSTREAM = """\
heat_template_version: 2018-08-31
parameters:
  tag: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [a, {get_param: tag}]]}
  b:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [a, output]}
      update_replace: true
  v:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [b, output]}
outputs:
  out: {value: {get_attr: [v, value]}}
"""


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _outputs(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, err = run(capsys, "output", "s", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    return {k: (v["value"] if isinstance(v, dict) and "value" in v else v) for k, v in doc.items()}


@pytest.mark.parametrize("template", [CHAIN, REPLACED_DOWNSTREAM], ids=["update", "update-then-replace"])
def test_one_apply_carries_an_updated_attribute_through(
    work: Path, capsys: pytest.CaptureFixture[str], template: str
) -> None:
    (work / "s.yaml").write_text(template)
    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--parameter", "tag=v1", "--auto-approve")
    assert code == 0, out + err
    assert _outputs(capsys)["out"] == "a-v1"

    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2", "--format", "json")
    assert code == 0, err
    plan = json.loads(out)
    changes = {c["address"]: c for c in plan["resource_changes"]}
    assert changes["v"]["actions"] == ["update"]
    assert changes["v"]["after_unknown"].get("value") is True
    assert plan["output_changes"]["out"]["actions"] == ["update"]
    assert plan["output_changes"]["out"]["after_unknown"] is True

    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2")
    assert '~ out: "a-v1" -> (known after apply)' in out, out  # the text plan's Outputs section
    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2", "--format", "markdown")
    assert '- `out`: update "a-v1" → (known after apply)' in out, out

    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--parameter", "tag=v2", "--auto-approve")
    assert code == 0, out + err
    assert "differs from what the plan promised" not in out + err
    assert _outputs(capsys)["out"] == "a-v2"

    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2", "--detailed-exitcode")
    assert code == 0, out + err  # converged in one apply
    assert "No changes" in out


SAME_OUTPUT = """\
heat_template_version: 2018-08-31
parameters:
  tag: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: same
      client_name: {get_param: tag}
  b:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [a, output]}
      update_replace: true
  v:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [b, output]}
"""


def test_a_change_known_only_after_apply_that_keeps_its_value_is_not_made(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Heat decides each update with the values it has when it gets there: ``a`` is updated in place but its
    ``output`` stays the same, so ``b`` (planned as a possible replace) and ``v`` are left alone."""
    from hotc.state import backend_from_config

    (work / "s.yaml").write_text(SAME_OUTPUT)
    assert run(capsys, "apply", "-t", "s.yaml", "--parameter", "tag=v1", "--auto-approve")[0] == 0
    before, _ = backend_from_config(None, work).read("s")
    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2", "--format", "json")
    actions = {c["address"]: c["actions"] for c in json.loads(out)["resource_changes"]}
    assert actions == {"a": ["update"], "b": ["create", "delete"], "v": ["update"]}  # b: a possible replace

    code, out, err = run(capsys, "apply", "-t", "s.yaml", "--parameter", "tag=v2", "--auto-approve")
    assert code == 0, out + err
    assert "0 replaced" in out and "2 unchanged after all" in out, out
    after, _ = backend_from_config(None, work).read("s")
    assert after.resources["b"].physical_id == before.resources["b"].physical_id  # not replaced
    assert after.resources["b"].updated_at == before.resources["b"].updated_at
    assert after.resources["a"].properties["client_name"] == "v2"
    code, out, err = run(capsys, "plan", "-t", "s.yaml", "--parameter", "tag=v2", "--detailed-exitcode")
    assert code == 0, out + err
