"""``--existing`` (Heat's ``stack update --existing``) and ``apply -t`` with plan's options, through the real
command line (no cloud: the quickstart's Heat-native types)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.apply.test_cli_apply import PROD_ENV, QUICKSTART, hotc, state_of


def test_existing_reuses_the_stored_template_environments_and_parameters(tmp_path: Path) -> None:
    r = hotc(
        tmp_path,
        "apply",
        "-t",
        str(QUICKSTART),
        "-e",
        str(PROD_ENV),
        "--parameter",
        "app_name=cart",
        "--auto-approve",
    )
    assert r.returncode == 0, r.stderr
    # nothing given: the stored inputs are the same inputs, so nothing changes
    r = hotc(tmp_path, "plan", "quickstart", "--existing", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout
    # one parameter overridden, the rest (the prod environment, app_name=cart) kept
    r = hotc(
        tmp_path, "plan", "quickstart", "--existing", "--parameter", "password_length=30", "--format", "json"
    )
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    changed = {c["address"]: c["actions"] for c in plan["resource_changes"] if c["actions"] != ["no-op"]}
    assert changed == {"db_password": ["create", "delete"]}, changed
    r = hotc(
        tmp_path, "apply", "quickstart", "--existing", "--parameter", "password_length=30", "--auto-approve"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    outs = json.loads(hotc(tmp_path, "output", "quickstart", "--format", "json", "--show-sensitive").stdout)
    assert outs["password_length"]["value"] == 30 and outs["replicas"]["value"] == 3
    assert outs["app_name"]["value"].startswith("cart-prod-")
    # the override is now part of what is stored
    r = hotc(tmp_path, "plan", "quickstart", "--existing", "--detailed-exitcode")
    assert r.returncode == 0 and "No changes" in r.stdout, r.stdout + r.stderr
    # a new environment given with --existing wins over the stored parameter values
    dev = tmp_path / "dev.env.yaml"
    dev.write_text("parameters:\n  environment: dev\n")
    r = hotc(tmp_path, "plan", "quickstart", "--existing", "-e", str(dev), "--format", "json")
    assert r.returncode == 0, r.stderr
    deleted = {c["address"] for c in json.loads(r.stdout)["resource_changes"] if c["actions"] == ["delete"]}
    assert deleted == {"backup"}


def test_existing_without_a_stored_template_says_so(tmp_path: Path) -> None:
    r = hotc(tmp_path, "plan", "nothing-here", "--existing")
    assert r.returncode == 1 and "has no stored template" in r.stderr


def test_apply_takes_target_exclude_and_replace(tmp_path: Path) -> None:
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--target", "web", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert set(state_of(tmp_path, "quickstart").resources) == {"suffix", "app_config", "web"}
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--exclude", "suffix", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    # suffix and everything that depends on it (app_config, web) untouched; the rest created
    assert set(state_of(tmp_path, "quickstart").resources) == {
        "suffix",
        "app_config",
        "web",
        "db_password",
        "placeholder",
    }
    before = state_of(tmp_path, "quickstart").resources["placeholder"].physical_id
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--replace", "placeholder", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert state_of(tmp_path, "quickstart").resources["placeholder"].physical_id != before
    # a saved plan is applied as it was made: planning options go to `hotc plan`
    r = hotc(tmp_path, "plan", "-t", str(QUICKSTART), "-o", "p.json")
    assert r.returncode == 0, r.stderr
    r = hotc(tmp_path, "apply", "p.json", "--target", "web")
    assert r.returncode == 1 and "give --refresh" in r.stderr


def test_plan_exclude_in_every_format(tmp_path: Path) -> None:
    r = hotc(tmp_path, "plan", "-t", str(QUICKSTART), "--exclude", "app_config", "--format", "json")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    assert plan["options"]["exclude"] == ["app_config"]
    assert {c["address"] for c in plan["resource_changes"]} == {"db_password", "suffix", "placeholder"}
    r = hotc(tmp_path, "plan", "-t", str(QUICKSTART), "--exclude", "nope")
    assert r.returncode == 1 and "--exclude nope: no resource matches" in r.stderr


NET = """heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: app}
  sub:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.3.0.0/24}
"""


def test_planned_import_in_every_format(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[2] / "hotc/planner/plan.schema.json").read_text())
    (tmp_path / "net.yaml").write_text(NET)
    r = hotc(tmp_path, "plan", "-t", "net.yaml", "--import", "net=abc-123", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema)
    net = next(c for c in doc["resource_changes"] if c["address"] == "net")
    assert net["importing"] == {"id": "abc-123", "external_id": False}
    assert net["action_reason"] == "import_by_request" and doc["options"]["imports"] == {"net": "abc-123"}
    sub = next(c for c in doc["resource_changes"] if c["address"] == "sub")
    assert sub["after"]["network"] == "abc-123"  # the imported object's id is known at plan time
    r = hotc(tmp_path, "plan", "-t", "net.yaml", "--import", "net=abc-123")
    assert "will be imported: existing object abc-123" in r.stdout and "(1 existing to adopt)" in r.stdout
    r = hotc(tmp_path, "plan", "-t", "net.yaml", "--import", "net=abc-123", "--format", "markdown")
    assert "Adopting: will be imported: existing object abc-123" in r.stdout
    r = hotc(tmp_path, "plan", "-t", "net.yaml", "--import", "nett=abc-123")
    assert r.returncode == 1 and "the template does not declare it" in r.stderr
    r = hotc(tmp_path, "plan", "-t", "net.yaml", "--import", "net")
    assert r.returncode == 1 and "expected ADDRESS=ID" in r.stderr


def test_apply_refresh_only_from_the_stack_alone(tmp_path: Path) -> None:
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    assert r.returncode == 0, r.stderr
    serial = state_of(tmp_path, "quickstart").serial
    r = hotc(tmp_path, "apply", "quickstart", "--refresh-only", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No drift" in r.stdout
    assert state_of(tmp_path, "quickstart").serial == serial  # nothing to record, nothing written
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--refresh", "--refresh-only")
    assert r.returncode == 1 and "cannot be combined" in r.stderr
    r = hotc(tmp_path, "apply", "nothing", "--refresh-only", "--auto-approve")
    assert r.returncode == 1 and "no state" in r.stderr
