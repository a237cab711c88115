"""OS::Nova::ServerGroup against the real Nova of the test cloud, through the hotc CLI: a group and a server
placed in it with ``scheduler_hints: {group: {get_resource: ...}}`` (Nova lists the server as a member); a fresh
apply shows no drift; a policy change replaces the group (Nova cannot change one) and the server with it (its
``scheduler_hints`` are not update_allowed); a group made outside hotc is imported and then managed; destroy
deletes what hotc made. Every check asks openstacksdk what really exists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  policy: {type: string, default: affinity}
resources:
  sg:
    type: OS::Nova::ServerGroup
    properties:
      name: {list_join: ['-', [{get_param: prefix}, sg]]}
      policies: [{get_param: policy}]
  vm:
    type: OS::Nova::Server
    properties:
      name: {list_join: ['-', [{get_param: prefix}, vm]]}
      image: hotc-tiny
      flavor: m1.tiny
      networks: [{network: hotc-private}]
      scheduler_hints: {group: {get_resource: sg}}
outputs:
  group: {value: {get_attr: [sg, show, policy]}}
"""


def changes(out: str) -> dict[str, Any]:
    return {c["address"]: c for c in json.loads(out)["resource_changes"] if c["actions"] != ["no-op"]}


def test_server_group_with_a_member_update_replaces_import_and_delete(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    made: list[str] = []

    def cleanup() -> None:
        for gid in made:
            cloud.compute.delete_server_group(gid, ignore_missing=True)

    cloud_tracker.defer("server groups", cleanup)
    params = ["--parameter", f"prefix={p}"]

    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", *params, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    groups = [g for g in cloud.compute.server_groups() if g.name == f"{p}-sg"]
    assert len(groups) == 1
    group = groups[0]
    made.append(group.id)
    vm = cloud.compute.find_server(f"{p}-vm")
    assert vm is not None
    assert group.policy == "affinity"
    assert vm.id in cloud.compute.get_server_group(group.id).member_ids  # the hint reached Nova
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "group")
    assert r.returncode == 0 and "affinity" in r.stdout, r.stdout + r.stderr

    # a fresh apply reads back as it was written: no drift, no change
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *params, stack, "--refresh", "--detailed-exitcode"
    )
    assert r.returncode == 0, r.stdout + r.stderr

    # a new policy replaces the group, and the server whose hints name it
    new = [*params, "--parameter", "policy=anti-affinity"]
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *new, stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = changes(r.stdout)
    assert set(planned) == {"sg", "vm"}
    assert "create" in planned["sg"]["actions"] and "delete" in planned["sg"]["actions"]
    assert "create" in planned["vm"]["actions"]
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", *new, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.compute.find_server_group(group.id) is None
    groups = [g for g in cloud.compute.server_groups() if g.name == f"{p}-sg"]
    assert len(groups) == 1 and groups[0].policy == "anti-affinity"
    made.append(groups[0].id)
    vm2 = cloud.compute.find_server(f"{p}-vm")
    assert vm2 is not None and vm2.id != vm.id
    assert cloud.compute.get_server_group(groups[0].id).member_ids == [vm2.id]
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *new, stack, "--refresh", "--detailed-exitcode"
    )
    assert r.returncode == 0, r.stdout + r.stderr

    # a group made outside hotc, imported into another stack, then managed by it
    outside = cloud.compute.create_server_group(name=f"{p}-imp", policy="soft-affinity")
    made.append(outside.id)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  grp: {{type: OS::Nova::ServerGroup, properties: {{name: {p}-imp, policies: [soft-affinity]}}}}\n"
    )
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "grp", outside.id, "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    # the import recorded what Nova has: a template asking for another policy is a replace of exactly that
    (tmp_path / "i2.yaml").write_text(
        (tmp_path / "i.yaml").read_text().replace("[soft-affinity]", "[affinity]")
    )
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i2.yaml", other, "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = changes(r.stdout)
    assert set(planned) == {"grp"} and planned["grp"]["changed_paths"] == [["policies", 0]]
    assert "create" in planned["grp"]["actions"] and "delete" in planned["grp"]["actions"]
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.compute.find_server_group(outside.id) is None

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.compute.find_server_group(groups[0].id) is None
    assert cloud.compute.find_server(vm2.id) is None
