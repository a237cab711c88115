"""Rollback of a failed apply (Heat's ``disable_rollback: false``): ``hotc apply --rollback`` returns the stack to
its last good template, environments and parameters through a plan that is printed before it runs; a replaced
resource gets its original (kept deposed) back, what the failed apply made is deleted, what it did not make is
never deleted; a failed create is rolled back by deleting what it made. The stack's default is stored as
``disable_rollback`` only when set. Heat-native types (OS::Heat::TestResource fails on ``fail: true``), local
and S3 state."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hotc.state import ResourceState, StackState, backend_from_config
from tests.clirun import run_hotc as hotc

REPO = Path(__file__).resolve().parents[2]

V1 = """
heat_template_version: 2018-08-31
parameters:
  tag: {type: string, default: one}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: tag}%(a_extra)s}
  r:
    type: OS::Heat::TestResource
    properties: {value: r1, update_replace: true}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [r, output]}}
outputs:
  out: {value: {get_attr: [b, output]}}
"""
# a updated in place, r replaced (its original kept deposed), n created, then b fails
V2 = """
heat_template_version: 2018-08-31
parameters:
  tag: {type: string, default: one}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {list_join: ['-', [{get_param: tag}, two]]}}
  r:
    type: OS::Heat::TestResource
    properties: {value: r2, update_replace: true}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [r, output]}, fail: true}
  n:
    type: OS::Heat::TestResource
    properties: {value: new}
outputs:
  out: {value: {get_attr: [b, output]}}
"""


def v1(a_extra: str = "") -> str:
    return V1 % {"a_extra": a_extra}


@pytest.fixture(params=["local", "s3"])
def backend(request: Any) -> tuple[str, ...]:
    if request.param == "local":
        return ()
    bucket = request.getfixturevalue("s3_bucket")
    request.getfixturevalue("monkeypatch").setenv("HOTC_STATE_KEY", "rollback test key")
    return ("--backend", bucket.url)


def _state(cwd: Path, b: tuple[str, ...], stack: str = "st") -> StackState:
    st, _ = backend_from_config(b[1] if b else None, cwd).read(stack)
    assert st is not None
    return st


def _events(cwd: Path, b: tuple[str, ...], stack: str = "st") -> list[Any]:
    return list(backend_from_config(b[1] if b else None, cwd).read_events(stack))


def _ids(st: StackState) -> dict[str, str | None]:
    return {a: r.physical_id for a, r in st.resources.items()}


def _write(tmp: Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return name


def test_failed_update_rolls_back_to_the_last_good_template(tmp_path: Path, backend: tuple[str, ...]) -> None:
    b = backend
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    r = hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve", "--parameter", "tag=uno", *b)
    assert r.returncode == 0, r.stderr
    good = _state(tmp_path, b)
    assert good.disable_rollback is None  # stored only when set
    r = hotc(
        tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--parameter", "tag=dos", "--rollback", *b
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    # the way back is a plan, printed before it runs
    assert "Rolling back: stack 'st' returns to its last good template" in r.stdout
    back = r.stdout.split("Rolling back:", 1)[1]
    assert "Plan for stack 'st'" in back and "- n (OS::Heat::TestResource) will be deleted" in back
    assert "r (deposed)" in back and '~ value: "dos-two" -> "uno"' in back
    assert "+ r " not in back  # the original is reused, not made again
    st = _state(tmp_path, b)
    assert st.status == "ROLLBACK_COMPLETE" and "Test Resource failed b" in st.status_reason
    assert st.disable_rollback is False
    # the same objects as before the failed apply, with their last good properties; nothing it made is left
    assert _ids(st) == _ids(good)
    assert all(not x.deposed and x.status.endswith("_COMPLETE") for x in st.resources.values())
    assert st.resources["a"].properties["value"] == "uno"
    assert st.resources["r"].properties["value"] == "r1" and st.resources["b"].properties["value"] == "r1"
    assert "fail" not in st.resources["b"].properties or not st.resources["b"].properties["fail"]
    # the template, environments and parameters recorded are the last good ones
    assert st.template == good.template and st.template_digest == good.template_digest
    assert st.parameters["tag"].value == "uno"
    assert st.outputs["out"].value == "r1"
    statuses = [e.status for e in _events(tmp_path, b) if e.type == "OS::Heat::Stack"]
    assert statuses[-3:] == ["UPDATE_FAILED", "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"]
    # the stack is as the last good template says: no changes
    r = hotc(tmp_path, "plan", "-t", "v1.yaml", "st", "--parameter", "tag=uno", *b)
    assert r.returncode == 0 and "No changes" in r.stdout, r.stdout


def test_stored_default_and_no_rollback(tmp_path: Path) -> None:
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    # a create with --rollback stores the stack's default (openstack stack create --enable-rollback)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve", "--rollback").returncode == 0
    doc = json.loads((tmp_path / ".hotc" / "st.json").read_text())
    assert doc["disable_rollback"] is False
    good = _state(tmp_path, ())
    # the next failed apply rolls back without being asked
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve")
    assert r.returncode == 1 and "Rolling back:" in r.stdout
    assert _state(tmp_path, ()).status == "ROLLBACK_COMPLETE" and _ids(_state(tmp_path, ())) == _ids(good)
    # --no-rollback: this failure is left as it failed, and it is the default from now on
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--no-rollback")
    assert r.returncode == 1 and "Rolling back" not in r.stdout
    st = _state(tmp_path, ())
    assert st.status == "UPDATE_FAILED" and st.disable_rollback is True
    assert "n" in st.resources and st.resources["r"].deposed


def test_no_flag_and_no_stored_default_does_not_roll_back(tmp_path: Path) -> None:
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve")
    assert r.returncode == 1 and "Rolling back" not in r.stdout
    doc = json.loads((tmp_path / ".hotc" / "st.json").read_text())
    assert "disable_rollback" not in doc and doc["status"] == "UPDATE_FAILED"


def test_failed_create_deletes_what_it_made(tmp_path: Path, backend: tuple[str, ...]) -> None:
    b = backend
    _write(tmp_path, "v2.yaml", V2)
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback", *b)
    assert r.returncode == 1, r.stderr
    assert "Rolling back: stack 'st' was being created: what the failed apply created is deleted" in r.stdout
    st = _state(tmp_path, b)
    assert st.status == "ROLLBACK_COMPLETE" and not st.resources and not st.template
    assert st.disable_rollback is False
    deleted = {e.address for e in _events(tmp_path, b) if e.status == "DELETE_COMPLETE"}
    assert {"a", "r", "n"} <= deleted
    # the stack can be created again from there
    _write(tmp_path, "v1.yaml", v1())
    r = hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve", *b)
    assert r.returncode == 0, r.stderr
    assert set(_state(tmp_path, b).resources) == {"a", "r", "b"}


def test_rollback_never_deletes_what_the_failed_apply_did_not_make(tmp_path: Path) -> None:
    """The state holds an object its last good template does not have (recorded by hand here): the failed
    apply did not make it, so the way back, planned from that template, leaves it."""
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    be = backend_from_config(None, tmp_path)
    with be.lock("st", "test") as lk:
        st, _ = be.read("st")
        keep = ResourceState("keep", "OS::Heat::TestResource", "st-keep-handmade", "CREATE_COMPLETE")
        be.write("st", st.with_resource(keep), lk)
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback", "--exclude", "keep")
    assert r.returncode == 1
    assert "the rollback leaves keep in place" in r.stderr
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_COMPLETE" and st.resources["keep"].physical_id == "st-keep-handmade"
    assert "n" not in st.resources and not st.resources["r"].deposed
    assert not any(e.address == "keep" for e in _events(tmp_path, ()))


def test_a_rollback_that_fails_leaves_the_state_exact_and_says_what_is_left(tmp_path: Path) -> None:
    # a's last good properties take 30 s to update: with a 1 s timeout the way back fails at a
    _write(tmp_path, "v1.yaml", v1(", action_wait_secs: {update: 30}"))
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    good = _state(tmp_path, ())
    r = hotc(
        tmp_path,
        "apply",
        "-t",
        "v2.yaml",
        "st",
        "--auto-approve",
        "--rollback",
        "--timeout",
        "OS::Heat::TestResource=1",
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "Rolling back:" in r.stdout and "Rollback FAILED" in r.stdout
    assert "error: the rollback of stack 'st' failed" in r.stderr
    assert "What is left, as the state records it:" in r.stderr
    assert "a: UPDATE_FAILED" in r.stderr
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_FAILED"
    assert st.resources["a"].status == "UPDATE_FAILED"
    # the steps that ran are recorded: the original of r is current again, the failed apply's instance is
    # either deposed (waiting) or deleted, never lost
    assert st.resources["r"].physical_id == good.resources["r"].physical_id
    assert [e.status for e in _events(tmp_path, ()) if e.type == "OS::Heat::Stack"][-1] == "ROLLBACK_FAILED"
    # the template recorded is still the last good one: --existing applies it
    assert st.template == good.template
    r = hotc(tmp_path, "apply", "st", "--existing", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    st = _state(tmp_path, ())
    assert set(st.resources) == {"a", "r", "b"} and not any(x.deposed for x in st.resources.values())


def test_killed_during_rollback_then_apply_converges_with_nothing_orphaned(tmp_path: Path) -> None:
    """SIGKILL while the rollback updates a (its last good properties take 30 s to update): the state written
    step by step says what exists, and the next apply of the last good template converges. Every object ever
    made is either in the final state or was deleted: nothing is orphaned."""
    _write(tmp_path, "v1.yaml", v1(", action_wait_secs: {update: 30}"))
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    good = _state(tmp_path, ())
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    p = subprocess.Popen(
        [sys.executable, "-m", "hotc", "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback"],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st, _ = backend_from_config(None, tmp_path).read("st")
        if st is not None and st.status == "ROLLBACK_IN_PROGRESS" and st.resources["a"].in_progress:
            break
        time.sleep(0.05)
    else:
        p.kill()
        raise AssertionError("the rollback never reached a: " + p.communicate()[1])
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    killed = _state(tmp_path, ())
    assert killed.status == "ROLLBACK_IN_PROGRESS"
    # the original of r was made current again before the rollback's steps ran
    assert killed.resources["r"].physical_id == good.resources["r"].physical_id
    r = hotc(
        tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve", "--timeout", "OS::Heat::TestResource=60"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    st = _state(tmp_path, ())
    assert st.status.endswith("_COMPLETE") and set(st.resources) == {"a", "r", "b"}
    assert all(not x.deposed and x.status.endswith("_COMPLETE") for x in st.resources.values())
    assert st.resources["r"].physical_id == good.resources["r"].physical_id
    events = _events(tmp_path, ())
    made = {e.physical_id for e in events if e.status == "CREATE_COMPLETE" and e.physical_id}
    gone = {e.physical_id for e in events if e.status == "DELETE_COMPLETE" and e.physical_id}
    assert made - gone == {x.physical_id for x in st.resources.values()}
    assert r.stdout.count("No changes") == 0 and "Plan for stack 'st'" in r.stdout
    assert "No changes" in hotc(tmp_path, "plan", "-t", "v1.yaml", "st").stdout


def test_the_policy_holds_the_way_back(tmp_path: Path) -> None:
    """The rollback plan is held to the apply's deny rules as any plan: one that deletes n is refused, nothing
    of it runs, and the stack is ROLLBACK_FAILED with what is left said."""
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback", "--deny", "delete:*@n")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        "Rolling back:" in r.stdout
        and "error: 1 deny rule(s) violated; the stack was not rolled back" in r.stderr
    )
    assert "a deny rule refuses the rollback plan" in r.stderr
    assert "n: made by the failed apply, still there" in r.stderr
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_FAILED" and "n" in st.resources
    assert not any(e.status == "DELETE_COMPLETE" for e in _events(tmp_path, ()))


def test_a_move_is_moved_back(tmp_path: Path) -> None:
    """The failed apply moved a to a2 (--move: the record moves first, in the state alone): the way back moves
    it back, the same object, and deletes nothing of it."""
    _write(tmp_path, "v1.yaml", v1())
    moved = V2.replace("\n  a:\n", "\n  a2:\n")
    _write(tmp_path, "v2.yaml", moved)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    good = _state(tmp_path, ())
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback", "--move", "a=a2")
    assert r.returncode == 1 and "Rolling back:" in r.stdout, r.stdout + r.stderr
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_COMPLETE", st.status_reason
    assert _ids(st) == _ids(good) and st.resources["a"].properties["value"] == "one"
    assert not any(e.status == "DELETE_COMPLETE" and e.address in ("a", "a2") for e in _events(tmp_path, ()))


def test_hidden_parameters_come_back_sealed(tmp_path: Path) -> None:
    """The last good parameters include a hidden one: the way back gets its value from the state (sealed with
    the state key) and never shows it."""
    pw = "  tag: {type: string, default: one}\n  pw: {type: string, hidden: true}"
    s_res = "  s:\n    type: OS::Heat::TestResource\n    properties: {value: {get_param: pw}}\n  r:\n"
    both = [
        x.replace("  tag: {type: string, default: one}", pw).replace("  r:\n", s_res, 1) for x in (V1, V2)
    ]
    _write(tmp_path, "v1.yaml", both[0] % {"a_extra": ""})
    _write(tmp_path, "v2.yaml", both[1])
    r = hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve", "--parameter", "pw=s3cret-value")
    assert r.returncode == 0, r.stderr
    good = _state(tmp_path, ())
    r = hotc(
        tmp_path,
        "apply",
        "-t",
        "v2.yaml",
        "st",
        "--auto-approve",
        "--rollback",
        "--parameter",
        "pw=other-value",
    )
    assert r.returncode == 1 and "Rolling back:" in r.stdout, r.stdout + r.stderr
    assert "s3cret-value" not in r.stdout + r.stderr
    st = _state(tmp_path, ())
    assert st.status == "ROLLBACK_COMPLETE", st.status_reason
    assert st.resources["s"].physical_id == good.resources["s"].physical_id
    assert "s3cret-value" not in (tmp_path / ".hotc" / "st.json").read_text()
    r = hotc(tmp_path, "plan", "-t", "v1.yaml", "st", "--parameter", "pw=s3cret-value")
    assert r.returncode == 0 and "No changes" in r.stdout, r.stdout


def test_json_run_document_ends_with_the_rollback(tmp_path: Path) -> None:
    _write(tmp_path, "v1.yaml", v1())
    _write(tmp_path, "v2.yaml", V2)
    assert hotc(tmp_path, "apply", "-t", "v1.yaml", "st", "--auto-approve").returncode == 0
    r = hotc(tmp_path, "apply", "-t", "v2.yaml", "st", "--auto-approve", "--rollback", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["exit_code"] == 1
    assert doc["status"] == "ROLLBACK_COMPLETE" and "Test Resource failed b" in doc["status_reason"]
    assert any(x["address"] == "n" and x["status"] == "DELETE_COMPLETE" for x in doc["resources"])
