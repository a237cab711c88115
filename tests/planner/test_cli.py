"""`hotc plan` / `hotc show` end to end: formats, exit codes, deny rules, saved plans, freshness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hotc.cli.app import main
from hotc.errors import HotcError
from hotc.planner.api import check_plan_fresh, load_plan, loaded_stack_from_plan, template_digest
from hotc.providers.checks import type_checks
from hotc.state import backend_from_config
from hotc.state.document import OutputState, ResourceState, StackState

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  size:
    type: number
    default: 10
  secret:
    type: string
    hidden: true
    default: dflt
resources:
  vol:
    type: OS::Cinder::Volume
    properties:
      size: {get_param: size}
  rnd:
    type: OS::Heat::RandomString
    properties:
      salt: {get_param: secret}
  cfg:
    type: OS::Heat::Value
    properties:
      value: {get_file: files/data.txt}
outputs:
  vol_id:
    value: {get_resource: vol}
"""


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "data.txt").write_text("hello\n")
    (tmp_path / "app.yaml").write_text(TEMPLATE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _store(work: Path, size: int = 10) -> StackState:
    backend = backend_from_config(str(work / ".hotc"))
    st = StackState.new("app")
    st = st.with_resource(
        ResourceState("vol", "OS::Cinder::Volume", "v-1", "CREATE_COMPLETE", {"size": size})
    )
    st = st.with_resource(
        ResourceState("rnd", "OS::Heat::RandomString", "r-1", "CREATE_COMPLETE", {"salt": "dflt"})
    )
    st = st.with_resource(
        ResourceState("cfg", "OS::Heat::Value", "c-1", "CREATE_COMPLETE", {"value": "hello\n"})
    )
    from dataclasses import replace

    st = replace(st, outputs={"vol_id": OutputState("v-1")}, status="CREATE_COMPLETE")
    with backend.lock("app", "test") as lock:
        return backend.write("app", st, lock)


def test_empty_state_plans_all_creates_without_a_cloud(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "plan", "-t", "app.yaml")
    assert code == 0, err
    assert out.startswith("Plan for stack 'app': 3 to create")
    assert "+ vol (OS::Cinder::Volume) will be created" in out
    assert "+ salt: (sensitive)" in out and "dflt" not in out


def test_detailed_exitcode(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "plan", "-t", "app.yaml", "--detailed-exitcode")[0] == 2
    _store(work)
    code, out, _ = run(capsys, "plan", "-t", "app.yaml", "--detailed-exitcode")
    assert code == 0 and "No changes." in out
    code, out, _ = run(capsys, "plan", "-t", "app.yaml", "--detailed-exitcode", "--parameter", "size=20")
    assert code == 2 and "~ size: 10 -> 20" in out
    code, _, err = run(capsys, "plan", "-t", "missing.yaml", "--detailed-exitcode")
    assert code == 1 and "Traceback" not in err


def test_plan_errors_exit_1_with_a_message(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store(work, size=10)
    code, _, err = run(capsys, "plan", "-t", "app.yaml", "--parameter", "size=5")
    assert code == 1 and "cannot shrink" in err and "Traceback" not in err


def test_formats(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plan", "-t", "app.yaml", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["create"] == 3 and doc["format_version"].startswith("1.")
    code, out, _ = run(capsys, "plan", "-t", "app.yaml", "--format", "markdown")
    assert code == 0 and "### hotc plan for stack `app`" in out.splitlines()[1] and "| ➕ create | 3 |" in out
    code, _, err = run(capsys, "plan", "-t", "app.yaml", "--format", "yaml")
    assert code == 1 and "--format" in err


def test_deny_rules_exit_3_and_name_the_resources(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store(work)
    code, out, err = run(
        capsys,
        "plan",
        "-t",
        "app.yaml",
        "--parameter",
        "secret=other",
        "--deny",
        "replace:OS::Heat::*",
        "--deny",
        "delete:*",
        "-o",
        "p.json",
    )
    assert code == 3
    assert "replace:OS::Heat::*" in err and "rnd (OS::Heat::RandomString)" in err
    assert "delete:*" not in err  # not violated
    assert "Plan for stack" in out and not (work / "p.json").exists()
    policy = work / "policy.yaml"
    policy.write_text("- update:OS::Cinder::*\n")
    code, _, err = run(
        capsys, "plan", "-t", "app.yaml", "--parameter", "size=20", "--policy-file", str(policy)
    )
    assert code == 3 and "vol (OS::Cinder::Volume)" in err and str(policy) in err
    code, _, err = run(capsys, "plan", "-t", "app.yaml", "--deny", "explode:*")
    assert code == 1 and "unknown action" in err


def test_saved_plan_roundtrip_show_and_freshness(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    st = _store(work)
    code, out, err = run(
        capsys,
        "plan",
        "-t",
        "app.yaml",
        "--parameter",
        "size=20",
        "--parameter",
        "secret=topsecret",
        "-o",
        "saved.plan",
    )
    assert code == 0, err
    raw = (work / "saved.plan").read_text()
    assert "topsecret" not in raw  # hidden values are not stored
    plan = load_plan(work / "saved.plan")
    assert plan.state_lineage == st.lineage and plan.state_serial == st.serial
    assert {c.address: c.action.value for c in plan.changes}["vol"] == "update"
    # show renders it in every format
    code, shown, _ = run(capsys, "show", "saved.plan")
    assert code == 0 and shown == out
    code, shown_json, _ = run(capsys, "show", "saved.plan", "--format", "json")
    assert json.loads(shown_json)["summary"]["update"] == 1
    # the plan reloads its own sources (hidden values given again) and is fresh against the same state
    with pytest.raises(HotcError, match="secret"):
        loaded_stack_from_plan(plan, checks=type_checks())
    loaded = loaded_stack_from_plan(plan, {"secret": "topsecret"}, checks=type_checks())
    assert loaded.files.get("files/data.txt") == "hello\n"
    assert template_digest(loaded) == plan.template_digest
    check_plan_fresh(plan, st, template_digest(loaded))
    with pytest.raises(HotcError, match="differs"):
        loaded_stack_from_plan(plan, {"secret": "wrong"}, checks=type_checks())
    # something moved: serial, lineage, template
    from dataclasses import replace

    with pytest.raises(HotcError, match="serial moved: plan made at serial 1, state is now at 2"):
        check_plan_fresh(plan, replace(st, serial=st.serial + 1), plan.template_digest)
    with pytest.raises(HotcError, match="lineage changed"):
        check_plan_fresh(plan, replace(st, lineage="other"), plan.template_digest)
    with pytest.raises(HotcError, match="template digest changed"):
        check_plan_fresh(plan, st, "sha256:" + "0" * 64)


def test_show_stack_renders_the_state(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store(work)
    code, out, _ = run(capsys, "show", "app")
    assert code == 0 and "Stack app: CREATE_COMPLETE" in out
    assert "vol" in out and "v-1" in out and 'vol_id = "v-1"' in out
    code, out, _ = run(capsys, "show", "app", "--format", "json")
    assert json.loads(out)["resources"][0]["physical_id"] in {"c-1", "r-1", "v-1"}
    code, _, err = run(capsys, "show", "nosuchstack")
    assert code == 1 and "neither a plan file nor a stack" in err


def test_destroy_and_target_and_replace_options(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store(work)
    code, out, _ = run(capsys, "plan", "--destroy", "app")
    assert code == 0 and "3 to delete" in out
    code, out, _ = run(capsys, "plan", "-t", "app.yaml", "--replace", "vol", "--format", "json")
    rc = {c["address"]: c for c in json.loads(out)["resource_changes"]}
    assert rc["vol"]["action_reason"] == "replace_by_request"
    code, out, _ = run(
        capsys, "plan", "-t", "app.yaml", "--parameter", "size=30", "--target", "rnd", "--format", "json"
    )
    assert [c["address"] for c in json.loads(out)["resource_changes"]] == ["rnd"]
    code, out, err = run(capsys, "plan", "-t", "app.yaml", "--refresh-only", "other")
    assert code == 0 and "Refresh-only plan for stack 'other'" in out and "No drift" in out


def test_deny_rule_matching_and_policy_file_forms(tmp_path: Path) -> None:
    from hotc.planner.api import load_policy_file, parse_deny_rule

    r = parse_deny_rule("replace:OS::Cinder::*")
    assert r.matches("replace", False, "OS::Cinder::Volume") and not r.matches(
        "replace", False, "OS::Nova::Server"
    )
    assert not r.matches("update", False, "OS::Cinder::Volume")
    rebuild = parse_deny_rule("rebuild:OS::Nova::Server")
    assert rebuild.matches("update", True, "OS::Nova::Server") and not rebuild.matches(
        "update", False, "OS::Nova::Server"
    )
    anything = parse_deny_rule("*:*")
    assert anything.matches("create", False, "X") and not anything.matches("no-op", False, "X")
    for bad in ("replace", "replace:", "blow:*"):
        with pytest.raises(HotcError):
            parse_deny_rule(bad)
    (tmp_path / "a.yaml").write_text("deny:\n  - delete:*\n  - {action: replace, type: 'OS::Cinder::*'}\n")
    assert [str(x) for x in load_policy_file(tmp_path / "a.yaml")] == ["delete:*", "replace:OS::Cinder::*"]
    (tmp_path / "b.json").write_text('["forget:*"]')
    assert [str(x) for x in load_policy_file(tmp_path / "b.json")] == ["forget:*"]
    (tmp_path / "c.yaml").write_text("just: text\n")
    with pytest.raises(HotcError, match="policy file"):
        load_policy_file(tmp_path / "c.yaml")
    with pytest.raises(HotcError, match="cannot read"):
        load_policy_file(tmp_path / "missing.yaml")


def test_plan_help_lists_every_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hotc.planner.api import DENY_EXIT_CODE

    monkeypatch.setenv("COLUMNS", "200")
    code, out, _err = run(capsys, "plan", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "0 success (with --detailed-exitcode: no changes), 1 error, 2 changes present" in text
    assert f"{DENY_EXIT_CODE} a --deny / --policy-file rule is violated" in text
