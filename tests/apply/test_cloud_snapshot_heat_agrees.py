"""Heat of the test cloud and hotc restore a snapshot alike: the same template (Heat-native resources only: this
cloud has no Cinder backup service for Heat's volume snapshots, and its fake Nova never uploads an image) is
snapshotted, updated (a changed value, one more resource), then restored; under both, the restore puts the value
back in place (the same resource, updated), deletes what was added since, and the outputs agree. Heat's snapshot
API is called as ``openstack stack snapshot create|restore`` calls it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apply.cloud_cli import hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
  with_extra: {type: boolean, default: false}
conditions:
  extra: {get_param: with_extra}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
  extra:
    type: OS::Heat::TestResource
    condition: extra
    properties: {value: added}
outputs:
  out: {value: {get_attr: [a, output]}}
"""


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(TEMPLATE)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


def _settled(heat: Any, stack_id: str, action: str) -> Any:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        st = heat.get_stack(stack_id)
        if st.status in (f"{action}_COMPLETE", f"{action}_FAILED"):
            assert st.status == f"{action}_COMPLETE", st.status_reason
            return st
        time.sleep(1)
    raise AssertionError(f"Heat's {action} did not end")


def test_heat_and_hotc_restore_a_snapshot_alike(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    heat = cloud.orchestration
    st = heat.create_stack(name=cloud_tracker.name("heat"), template=_doc(), parameters={"v": "one"})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=300)
    base = f"/stacks/{st.name}/{st.id}"

    def heat_view() -> tuple[dict[str, str], Any]:
        got = heat.get_stack(st.id)
        return (
            {r.name: r.physical_resource_id for r in heat.resources(st.id)},
            {o["output_key"]: o["output_value"] for o in got.outputs}["out"],
        )

    r = heat.post(f"{base}/snapshots", json={"name": "s1"})
    assert r.status_code < 300, r.text
    snap_id = r.json()["id"]
    _settled(heat, st.id, "SNAPSHOT")
    heat_before, _ = heat_view()
    r = heat.put(base, json={"template": _doc(), "parameters": {"v": "two", "with_extra": True}})
    assert r.status_code < 300, r.text
    time.sleep(1)
    _settled(heat, st.id, "UPDATE")
    r = heat.post(f"{base}/snapshots/{snap_id}/restore")
    assert r.status_code < 300, r.text
    time.sleep(1)
    _settled(heat, st.id, "RESTORE")
    heat_after, heat_out = heat_view()

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    env = hotc_cloud_env
    stack = cloud_tracker.name("hotc")

    def hotc_view() -> tuple[dict[str, str], Any]:
        r = hotc(tmp_path, env, "resource", "list", stack, "--format", "json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        rows = doc["resources"] if isinstance(doc, dict) else doc
        o = hotc(tmp_path, env, "output", stack, "out", "--format", "json")
        assert o.returncode == 0, o.stderr
        return {x["address"]: x["physical_id"] for x in rows}, json.loads(o.stdout)

    try:
        r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        r = hotc(tmp_path, env, "snapshot", "create", stack, "--name", "s1")
        assert r.returncode == 0, r.stdout + r.stderr
        hotc_before, _ = hotc_view()
        r = hotc(
            tmp_path,
            env,
            "apply",
            "-t",
            "t.yaml",
            stack,
            "--parameter",
            "v=two",
            "--parameter",
            "with_extra=true",
            "--auto-approve",
        )
        assert r.returncode == 0, r.stdout + r.stderr
        r = hotc(tmp_path, env, "snapshot", "restore", stack, "s1", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        hotc_after, hotc_out = hotc_view()
    finally:
        hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--missing-ok")

    # the same outcome: the value back on the same resource, what was added since gone
    assert set(heat_after) == set(hotc_after) == {"a"}
    assert heat_after["a"] == heat_before["a"] and hotc_after["a"] == hotc_before["a"]
    assert heat_out == hotc_out == "one"
