"""A cancel from a second process, half-way through a group's rolling update, under Heat of the test cloud and
under hotc: a ResourceGroup of 4 Neutron networks (renamed in place, batches of 2) pauses at its members'
``pre-update`` hook; the update is then cancelled from outside (Heat: ``openstack stack cancel``'s
``cancel_update`` action; hotc: ``hotc cancel``). Both roll the stack back and end ``ROLLBACK_COMPLETE``:
every member keeps its network (the same id as before the update), with its old name, and the same states.
The rollback is an update of the stack under both, so it pauses at the members' ``pre-update`` hook too; each
pause is cleared from outside as it is listed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hotc.state import backend_from_config
from tests.apply.cloud_cli import hotc
from tests.apply.test_cloud_hooks_heat_agrees import BOUND, HeatRun, HotcRun, _clear_until_done, _doc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  v: {type: string, default: one}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {max_batch_size: 2}
    properties:
      count: 4
      resource_def:
        type: OS::Neutron::Net
        properties:
          name: {list_join: ["-", [{get_param: prefix}, "%index%", {get_param: v}]]}
"""

ENV = """resource_registry:
  resources:
    g:
      "*": {hooks: pre-update}
"""


def _until(what: str, check: Any) -> Any:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.5)
    raise AssertionError(f"never: {what}")


def _nets(cloud: Any, prefix: str) -> dict[str, tuple[str, str]]:
    """index -> (network id, name) of this test's networks named with ``prefix``."""
    out: dict[str, tuple[str, str]] = {}
    for n in cloud.network.networks():
        if n.name and n.name.startswith(prefix + "-"):
            out[n.name[len(prefix) + 1 :].split("-", 1)[0]] = (n.id, n.name[len(prefix) + 1 :])
    return out


def test_heat_and_hotc_roll_back_a_cancelled_group_update_alike(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    heat_prefix = cloud_tracker.name("cnl-heat")
    st = heat.create_stack(
        name=heat_prefix, template=_doc(TEMPLATE), environment=_doc(ENV), parameters={"prefix": heat_prefix}
    )
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=BOUND)
    h = HeatRun(heat, st)
    heat_before = _nets(cloud, heat_prefix)
    r = heat.put(
        h.base,
        json={
            "template": _doc(TEMPLATE),
            "environment": _doc(ENV),
            "parameters": {"prefix": heat_prefix, "v": "two"},
        },
    )
    assert r.status_code < 300, r.text
    nested = _until("Heat's group is paused", lambda: _heat_nested_pauses(heat, st))
    assert nested
    r = heat.post(f"{h.base}/actions", json={"cancel_update": None})
    assert r.status_code < 300, r.text
    _heat_clear_nested_until_done(heat, st, h)
    heat_status = h.status()
    heat_after = _nets(cloud, heat_prefix)

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "env.yaml").write_text(ENV)
    stack = cloud_tracker.name("cnl-hotc")
    run = HotcRun(tmp_path, hotc_cloud_env, stack)
    params = ("--parameter", f"prefix={stack}")
    try:
        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "apply",
            "-t",
            "t.yaml",
            "-e",
            "env.yaml",
            *params,
            stack,
            "--auto-approve",
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        hotc_before = _nets(cloud, stack)
        proc = subprocess.Popen(
            [sys.executable, "-m", "hotc", "apply", "-t", "t.yaml", "-e", "env.yaml", *params]
            + ["--parameter", "v=two", "--rollback", stack, "--auto-approve"],
            cwd=tmp_path,
            env=run.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _until("hotc's group is paused", run.pending)
            cancel = subprocess.Popen(
                [sys.executable, "-m", "hotc", "cancel", stack],
                cwd=tmp_path,
                env=run.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            # the rollback is an update too: its pauses are cleared as they come (the cancelled pause is not
            # cleared: the cancel ends it)
            _until("the cancel reaches the apply", lambda: any("CANCEL" in s for _n, s, _r in run.events()))
            _clear_until_done(lambda: proc.poll() is not None, run.pending, run.clear)
            out, err = proc.communicate(timeout=BOUND)
            c_out, c_err = cancel.communicate(timeout=BOUND)
        finally:
            for p in [proc, *([cancel] if "cancel" in locals() else [])]:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        assert proc.returncode != 0, out + err  # a cancelled apply fails, saying who cancelled
        assert "cancelled by" in out + err, out + err
        assert cancel.returncode == 0, c_out + c_err
        state, _token = backend_from_config(None, tmp_path, env={}).read(stack)
        hotc_status = state.status
        hotc_after = _nets(cloud, stack)
    finally:
        hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve", "--missing-ok")

    assert heat_status == hotc_status == "ROLLBACK_COMPLETE"
    # every member kept its network and got its old name back
    assert heat_after == heat_before and len(heat_after) == 4
    assert hotc_after == hotc_before and len(hotc_after) == 4
    assert {i: name for i, (_id, name) in heat_after.items()} == {
        i: name for i, (_id, name) in hotc_after.items()
    }


def _heat_nested(heat: Any, st: Any) -> HeatRun | None:
    for r in heat.resources(st.id):
        if r.name == "g" and r.physical_resource_id:
            nested = heat.get_stack(r.physical_resource_id)
            return HeatRun(heat, nested)
    return None


def _heat_nested_pauses(heat: Any, st: Any) -> list[tuple[str, str]]:
    from tests.apply.test_cloud_hooks_heat_agrees import _pending

    n = _heat_nested(heat, st)
    return _pending(n.events()) if n is not None else []


def _heat_clear_nested_until_done(heat: Any, st: Any, top: HeatRun) -> None:
    from tests.apply.test_cloud_hooks_heat_agrees import _pending

    n = _heat_nested(heat, st)
    assert n is not None
    time.sleep(1)

    def done() -> bool:
        # the group's own stack as well as the top one: Heat may mark the top stack rolled back while the
        # group's stack still runs its rollback, paused at a member's hook
        return not top.status().endswith("IN_PROGRESS") and not n.status().endswith("IN_PROGRESS")

    _clear_until_done(done, lambda: _pending(n.events()), n.clear)
