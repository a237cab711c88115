"""A snapshot restore killed with SIGKILL half-way, on the test cloud: the stack (a Heat-native value and two
Neutron networks, one added after the snapshot) is restored to its snapshot; the restore is held at the
value's ``pre-update`` hook (set by the environment stored with the snapshot: a restore is an update of the
stack, as Heat's) and killed there. Running the restore again pauses again, and once cleared converges: the
value back, the network added since deleted, and no network of this test left that the state does not
record."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import hotc
from tests.apply.test_cloud_hooks_heat_agrees import BOUND, HotcRun, _clear_until_done

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  v: {type: string, default: one}
  with_extra: {type: boolean, default: false}
conditions:
  extra: {get_param: with_extra}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
  net:
    type: OS::Neutron::Net
    properties: {name: {list_join: ["-", [{get_param: prefix}, net]]}}
  extra:
    type: OS::Neutron::Net
    condition: extra
    properties: {name: {list_join: ["-", [{get_param: prefix}, extra]]}}
outputs:
  out: {value: {get_attr: [a, output]}}
"""

ENV = """resource_registry:
  resources:
    a: {hooks: pre-update}
"""


def _until(what: str, check: Any, proc: subprocess.Popen[str]) -> Any:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(
                f"the run ended before {what}: rc={proc.returncode}\n{out[-3000:]}\n{err[-3000:]}"
            )
        time.sleep(0.5)
    raise AssertionError(f"never: {what}")


def _ids(cwd: Path, env: dict[str, str], stack: str) -> dict[str, str]:
    r = hotc(cwd, env, "resource", "list", stack, "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    rows = doc["resources"] if isinstance(doc, dict) else doc
    return {x["address"]: x["physical_id"] for x in rows}


def _restore(run: HotcRun) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hotc", "snapshot", "restore", run.stack, "s1", "--auto-approve"],
        cwd=run.cwd,
        env=run.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_restore_killed_at_a_hook_converges_when_run_again(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "env.yaml").write_text(ENV)
    stack = cloud_tracker.name("rk")
    run = HotcRun(tmp_path, hotc_cloud_env, stack)
    common = ("-t", "t.yaml", "-e", "env.yaml", "--parameter", f"prefix={stack}")

    def mine() -> set[str]:
        return {n.id for n in cloud.network.networks() if (n.name or "").startswith(stack + "-")}

    try:
        run.run("apply", *common, stack)  # a create: no pause (only pre-update is set)
        r = hotc(tmp_path, hotc_cloud_env, "snapshot", "create", stack, "--name", "s1")
        assert r.returncode == 0, r.stdout + r.stderr
        before = _ids(tmp_path, hotc_cloud_env, stack)
        # the update pauses at a's pre-update: cleared from outside as it comes
        pauses = run.run("apply", *common, "--parameter", "v=two", "--parameter", "with_extra=true", stack)
        assert pauses == [("a", "pre-update")]
        assert len(mine()) == 2

        proc = _restore(run)
        try:
            _until(
                "the restore pauses at a's pre-update", lambda: run.pending() == [("a", "pre-update")], proc
            )
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=BOUND)
        # the restore again: it pauses again (a is still to be updated back), and once cleared converges
        proc = _restore(run)
        try:
            seen = _clear_until_done(lambda: proc.poll() is not None, run.pending, run.clear)
            out, err = proc.communicate(timeout=BOUND)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, out[-3000:] + err[-3000:]
        assert seen == [("a", "pre-update")]
        after = _ids(tmp_path, hotc_cloud_env, stack)
        assert set(after) == {"a", "net"} and after["net"] == before["net"]
        o = hotc(tmp_path, hotc_cloud_env, "output", stack, "out", "--format", "json")
        assert o.returncode == 0 and json.loads(o.stdout) == "one", o.stdout + o.stderr
        # nothing orphaned: the networks of this test are exactly those the state records
        assert mine() == {after["net"]}
        # and the template of the snapshot applied again changes nothing
        r = hotc(tmp_path, hotc_cloud_env, "plan", *common, stack, "--detailed-exitcode")
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve", "--missing-ok")
    assert mine() == set()
