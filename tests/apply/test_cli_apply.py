"""End to end through the command line, local state, no cloud: the quickstart's apply / update / destroy,
failures, saved plans (in-process through ``hotc.cli.app.main``), and in real processes what needs one:
Ctrl-C/SIGTERM to a running apply, events followed from another process while an apply runs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.clirun import Result, run_hotc

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart.yaml"
PROD_ENV = REPO / "examples" / "quickstart-prod.env.yaml"


def hotc(cwd: Path, *args: str, input: str | None = None) -> Result:
    """The command line in-process (a subprocess would only add start-up time here)."""
    return run_hotc(cwd, *args, input=input)


def popen(cwd: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    return subprocess.Popen(
        [sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )


def state_of(cwd: Path, stack: str):
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd).read(stack)
    return st


def test_quickstart_apply_update_destroy(tmp_path: Path) -> None:
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert "Apply complete! Resources: 5 created" in r.stdout
    # app_name is derived from a RandomString (get_resource: suffix): sensitive, shown only on request
    masked = hotc(tmp_path, "output", "quickstart", "app_name")
    assert masked.returncode == 1 and "--show-sensitive" in masked.stderr and masked.stdout == ""
    name = hotc(tmp_path, "output", "quickstart", "app_name", "--show-sensitive")
    assert name.returncode == 0 and re.fullmatch(r"shop-dev-[a-z]{6}\n", name.stdout), name
    outs = json.loads(hotc(tmp_path, "output", "quickstart", "--format", "json", "--show-sensitive").stdout)
    assert outs["replicas"]["value"] == 1 and outs["password_length"]["value"] == 16
    assert outs["web_output"]["value"] == "web for " + name.stdout.strip()
    st = state_of(tmp_path, "quickstart")
    assert st.status == "CREATE_COMPLETE" and set(st.resources) == {
        "db_password",
        "suffix",
        "app_config",
        "web",
        "placeholder",
    }
    assert all(rs.status == "CREATE_COMPLETE" for rs in st.resources.values())
    assert (
        st.template["main"].endswith("quickstart.yaml")
        and "OS::Heat::TestResource" in hotc(tmp_path, "template", "show", "quickstart").stdout
    )
    # as in Heat, the physical id is a physical name and the string is the (sensitive) value attribute,
    # which get_resource gives
    pw = st.resources["db_password"]
    password = pw.attributes["value"]
    assert len(password) == 16 and pw.reference_id == password
    assert re.fullmatch(r"quickstart-db_password-[a-z0-9]{12}", pw.physical_id)
    suffix = st.resources["suffix"].attributes["value"]
    assert name.stdout.strip() == f"shop-dev-{suffix}"  # the get_resource consumer saw the value
    # the secret is never stored in clear: not in the state documents, the backup or the events
    for f in (tmp_path / ".hotc").iterdir():
        assert password.encode() not in f.read_bytes(), f.name
    stored = json.loads((tmp_path / ".hotc" / "quickstart.json").read_bytes())["resources"]["db_password"]
    assert set(stored["attributes"]["value"]) == {"__sensitive__", "encrypted"}
    assert stored["sensitive_attributes"] == ["value"] and stored["reference_attribute"] == "value"
    # the secret never shows in listings and events
    listing = hotc(tmp_path, "resource", "list", "quickstart").stdout
    events = hotc(tmp_path, "events", "quickstart").stdout
    assert password not in listing and password not in events and "CREATE_COMPLETE" in events
    for show in (
        ("resource", "show", "quickstart", "db_password"),
        ("resource", "show", "quickstart", "db_password", "--format", "json"),
        ("state", "show", "quickstart", "db_password"),
        ("state", "show", "quickstart", "db_password", "--format", "json"),
    ):
        shown = hotc(tmp_path, *show)
        assert shown.returncode == 0 and "__sensitive__" in shown.stdout and password not in shown.stdout, (
            show
        )

    # the same template again: nothing to do; the stack is updated (UPDATE_COMPLETE, as Heat records an update
    # with no change), and once more: nothing written
    again = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    assert again.returncode == 0 and "No changes" in again.stdout
    st = state_of(tmp_path, "quickstart")
    assert st.status == "UPDATE_COMPLETE"
    again = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    assert again.returncode == 0 and "No changes" in again.stdout
    assert state_of(tmp_path, "quickstart").serial == st.serial

    # prod: a condition turns on, a Value and a TestResource are updated, the password is replaced
    up = hotc(tmp_path, "apply", "-t", str(QUICKSTART), "-e", str(PROD_ENV), "--auto-approve")
    assert up.returncode == 0, up.stderr
    assert "1 created, 2 updated, 1 replaced" in up.stdout
    st2 = state_of(tmp_path, "quickstart")
    assert st2.resources["db_password"].physical_id != pw.physical_id
    assert len(st2.resources["db_password"].attributes["value"]) == 24
    assert st2.resources["db_password"].deposed == ()
    assert st2.resources["suffix"].physical_id == st.resources["suffix"].physical_id  # unchanged: kept
    assert st2.resources["suffix"].attributes["value"] == suffix  # its value survived the reload
    assert st2.resources["web"].physical_id == st.resources["web"].physical_id  # updated in place
    assert st2.outputs["replicas"].value == 3 and st2.outputs["backup"].value == "nightly backups enabled"

    d = hotc(tmp_path, "destroy", "quickstart", "--auto-approve")
    assert d.returncode == 0, d.stderr
    assert "Destroy complete! Resources: 0 created, 0 updated, 0 replaced, 6 deleted" in d.stdout
    st3 = state_of(tmp_path, "quickstart")
    assert st3.resources == {} and st3.outputs == {} and st3.status == "DELETE_COMPLETE"
    assert "has no stored template" in hotc(tmp_path, "template", "show", "quickstart").stderr


def test_apply_needs_approval_without_a_terminal(tmp_path: Path) -> None:
    r = hotc(tmp_path, "apply", "-t", str(QUICKSTART), input="yes\n")
    assert r.returncode == 1
    assert "--auto-approve" in r.stderr and "Traceback" not in r.stderr
    assert state_of(tmp_path, "quickstart") is None


FAILING = """
heat_template_version: 2018-08-31
parameters:
  fail: {type: boolean, default: true}
resources:
  good:
    type: OS::Heat::TestResource
    properties: {value: ok, action_wait_secs: {create: 0.3}}
  bad:
    type: OS::Heat::TestResource
    properties: {value: boom, fail: {get_param: fail}}
  after_bad:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [bad, output]}}
outputs:
  out: {value: {get_attr: [after_bad, output]}}
"""


def test_failure_reports_and_next_apply_replaces_failed(tmp_path: Path) -> None:
    t = tmp_path / "failing.yaml"
    t.write_text(FAILING)
    r = hotc(tmp_path, "apply", "-t", str(t), "--auto-approve")
    assert r.returncode == 1
    assert "Apply FAILED" in r.stdout
    assert "error: create bad: Test Resource failed bad" in r.stderr
    assert "never started (1): create after_bad" in r.stderr
    assert "Traceback" not in r.stderr
    st = state_of(tmp_path, "failing")
    assert st.resources["good"].status == "CREATE_COMPLETE"  # in flight when bad failed: finished
    assert st.resources["bad"].status == "CREATE_FAILED" and "after_bad" not in st.resources
    assert st.status == "CREATE_FAILED"
    r2 = hotc(tmp_path, "apply", "-t", str(t), "--parameter", "fail=false", "--auto-approve")
    assert r2.returncode == 0, r2.stderr
    assert "1 to create, 0 to update, 1 to replace" in r2.stdout
    assert "Apply complete! Resources: 1 created, 0 updated, 1 replaced" in r2.stdout
    st2 = state_of(tmp_path, "failing")
    assert {a: rs.status for a, rs in st2.resources.items()} == {
        "good": "CREATE_COMPLETE",
        "bad": "CREATE_COMPLETE",
        "after_bad": "CREATE_COMPLETE",
    }
    assert st2.outputs["out"].value == "boom"


def _save_plan(cwd: Path, template: Path, stack: str, params: dict[str, str] | None = None) -> Path:
    """What 'hotc plan -t T -o FILE' does, through the planner's API."""
    from dataclasses import replace

    from hotc.parser.api import load_stack
    from hotc.planner.api import (
        PlanOptions,
        build_desired,
        make_plan,
        plan_inputs,
        save_plan,
        template_digest,
    )
    from hotc.providers.checks import type_checks

    loaded, diags = load_stack(str(template), [], params or {}, {}, require_values=True, checks=type_checks())
    assert loaded is not None, diags
    state = state_of(cwd, stack)
    desired = build_desired(loaded, stack, state.lineage if state else None, state=state)
    plan = make_plan(desired, state, PlanOptions())
    plan = replace(
        plan,
        template_digest=template_digest(loaded),
        inputs=plan_inputs(loaded, template, [], params or {}, {}),
    )
    path = cwd / f"{stack}.plan"
    save_plan(plan, path)
    return path


def test_saved_plan_applies_and_stale_plan_is_refused(tmp_path: Path) -> None:
    t = tmp_path / "qs.yaml"
    t.write_text(QUICKSTART.read_text())
    plan = tmp_path / "qs.plan"
    made = hotc(tmp_path, "plan", "-t", str(t), "-o", str(plan))
    assert made.returncode == 0, made.stderr
    r = hotc(tmp_path, "apply", str(plan))
    assert r.returncode == 0, r.stderr
    assert "Apply complete! Resources: 5 created" in r.stdout
    # the same plan again: the state moved on since it was made
    stale = hotc(tmp_path, "apply", str(plan))
    assert stale.returncode == 1 and "stale" in stale.stderr and "state" in stale.stderr
    # a fresh plan whose stored template no longer matches its digest (edited after planning)
    plan2 = _save_plan(tmp_path, t, "qs", {"app_name": "other"})
    doc = json.loads(plan2.read_text())
    src = doc["plan"]["inputs"]["sources"]
    key = next(k for k in src if k.endswith("qs.yaml"))
    src[key] = src[key].replace("default: shop", "default: shop2")
    plan2.write_text(json.dumps(doc))
    moved = hotc(tmp_path, "apply", str(plan2))
    assert moved.returncode == 1 and "stale" in moved.stderr and "template digest" in moved.stderr
    # a template changed on disk after planning does not matter: the plan holds what was planned
    plan3 = _save_plan(tmp_path, t, "qs", {"app_name": "other"})
    t.write_text("garbage: [")
    ok = hotc(tmp_path, "apply", str(plan3))
    assert ok.returncode == 0, ok.stderr
    assert state_of(tmp_path, "qs").outputs["app_name"].value.startswith("other-dev-")
    # a saved destroy plan needs no template
    dplan = tmp_path / "destroy.plan"
    assert hotc(tmp_path, "plan", "--destroy", "qs", "-o", str(dplan)).returncode == 0
    gone = hotc(tmp_path, "apply", str(dplan))
    assert (
        gone.returncode == 0
        and "Destroy complete! Resources: 0 created, 0 updated, 0 replaced, 5 deleted" in gone.stdout
    )
    assert state_of(tmp_path, "qs").resources == {}
    # a plan file that does not exist, and a template passed as a plan
    assert "no such plan file" in hotc(tmp_path, "apply", "nope.plan").stderr
    assert "looks like a template" in hotc(tmp_path, "apply", str(t)).stderr


SLOW = """
heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: a, action_wait_secs: {create: 4}}
  c:
    type: OS::Heat::TestResource
    properties: {value: c, action_wait_secs: {create: 4}}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [a, output]}}
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_finishes_in_flight_saves_state_and_releases_lock(tmp_path: Path, sig: int) -> None:
    t = tmp_path / "slow.yaml"
    t.write_text(SLOW)
    p = popen(tmp_path, "apply", "-t", str(t), "--auto-approve")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until both slow creates are recorded in flight
        st = state_of(tmp_path, "slow")
        if st is not None and all(x in st.resources and st.resources[x].physical_id for x in "ac"):
            break
        time.sleep(0.05)
    else:
        p.kill()
        raise AssertionError("the apply never started")
    assert st.resources["a"].status == "CREATE_IN_PROGRESS" and st.resources["a"].physical_id is not None
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 1, (out, err)
    assert "stopping" in err and "Traceback" not in err
    assert "Apply INTERRUPTED" in out and "never started (1): create b" in err
    st = state_of(tmp_path, "slow")
    assert st.resources["a"].status == "CREATE_COMPLETE" and st.resources["c"].status == "CREATE_COMPLETE"
    assert "b" not in st.resources and st.status == "CREATE_FAILED"
    # the lock was released: the next apply runs and converges
    r = hotc(tmp_path, "apply", "-t", str(t), "--auto-approve")
    assert r.returncode == 0, r.stderr
    assert "1 created" in r.stdout and set(state_of(tmp_path, "slow").resources) == {"a", "b", "c"}


def test_events_follow_from_another_process_while_apply_runs(tmp_path: Path) -> None:
    t = tmp_path / "slow.yaml"
    t.write_text(SLOW)
    p = popen(tmp_path, "apply", "-t", str(t), "--auto-approve")
    deadline = time.monotonic() + 20
    while state_of(tmp_path, "slow") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    follow = popen(tmp_path, "events", "slow", "--follow", "--poll", "0.1")
    p.communicate(timeout=120)
    assert p.returncode == 0
    # the apply is over: --follow prints the last event and ends by itself. A follower still running well
    # after that hangs (it used to be waited out for 120 s)
    try:
        out, err = follow.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        follow.kill()
        out, err = follow.communicate()
        raise AssertionError(
            f"hotc events --follow never ended after the stack completed: {out[-400:]!r}"
        ) from None
    lines = out.splitlines()
    assert follow.returncode == 0, err
    assert any("[a]: CREATE_IN_PROGRESS" in x for x in lines) and any(
        "[b]: CREATE_COMPLETE" in x for x in lines
    )
    assert lines[-1].endswith("CREATE_COMPLETE: Stack create completed successfully")


def test_read_commands_errors(tmp_path: Path) -> None:
    r = hotc(tmp_path, "output", "nostack")
    assert r.returncode == 1 and "has no state" in r.stderr
    hotc(tmp_path, "apply", "-t", str(QUICKSTART), "--auto-approve")
    r = hotc(tmp_path, "output", "quickstart", "nope")
    assert r.returncode == 1 and "no output 'nope'" in r.stderr and "app_name" in r.stderr
    r = hotc(tmp_path, "resource", "show", "quickstart", "nope")
    assert r.returncode == 1 and "no resource 'nope'" in r.stderr
    show = json.loads(hotc(tmp_path, "resource", "show", "quickstart", "web", "--format", "json").stdout)
    assert show["type"] == "OS::Heat::TestResource" and show["dependencies"] == ["app_config"]
    # web's value reads app_config, which reads a RandomString: its attributes are stored and shown masked
    assert set(show["attributes"]["output"]) == {"__sensitive__"}
    r = hotc(tmp_path, "destroy", "ghost", "--auto-approve")
    assert r.returncode == 1 and "stack not found" in r.stderr and "quickstart" in r.stderr
    r = hotc(tmp_path, "destroy", "ghost", "--auto-approve", "--missing-ok")
    assert r.returncode == 0 and "nothing to destroy" in r.stdout


CHILD = """
heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  rnd:
    type: OS::Heat::RandomString
    properties: {length: 8}
  val:
    type: OS::Heat::Value
    properties:
      value: {list_join: [':', [{get_param: label}, {get_attr: [rnd, value]}]]}
outputs:
  joined: {value: {get_attr: [val, value]}}
"""

PARENT = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: child.yaml
        properties:
          label: member-%index%
  single:
    type: child.yaml
    properties:
      label: single
  summary:
    type: OS::Heat::Value
    properties:
      value:
        group: {get_attr: [group, joined]}
        single: {get_attr: [single, joined]}
outputs:
  summary: {value: {get_attr: [summary, value]}}
"""


def test_nested_templates_and_groups_apply_and_scale_down(tmp_path: Path) -> None:
    (tmp_path / "child.yaml").write_text(CHILD)
    (tmp_path / "parent.yaml").write_text(PARENT)
    r = hotc(tmp_path, "apply", "-t", "parent.yaml", "--auto-approve")
    assert r.returncode == 0, r.stderr
    st = state_of(tmp_path, "parent")
    assert set(st.resources) == {f"group[{i}].{n}" for i in range(3) for n in ("rnd", "val")} | {
        "single.rnd",
        "single.val",
        "summary",
    }
    summary = st.outputs["summary"].value
    assert [v.split(":")[0] for v in summary["group"]] == ["member-0", "member-1", "member-2"]
    assert summary["group"][1] == "member-1:" + st.resources["group[1].rnd"].attributes["value"]
    assert summary["single"] == "single:" + st.resources["single.rnd"].attributes["value"]
    down = hotc(tmp_path, "apply", "-t", "parent.yaml", "--parameter", "count=2", "--auto-approve")
    assert down.returncode == 0, down.stderr
    st2 = state_of(tmp_path, "parent")
    assert (
        "group[2].rnd" not in st2.resources and st2.outputs["summary"].value["group"] == summary["group"][:2]
    )
    assert st2.resources["group[0].rnd"].physical_id == st.resources["group[0].rnd"].physical_id
    top = hotc(tmp_path, "events", "parent", "--nested-depth", "0").stdout
    everything = hotc(tmp_path, "events", "parent").stdout
    assert "[summary]" in top and "[group[2].rnd]" not in top and "[single.val]" not in top
    assert "[single.val]: CREATE_COMPLETE" in everything and "[group[2].rnd]: DELETE_COMPLETE" in everything
