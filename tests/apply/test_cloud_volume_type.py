"""OS::Cinder::VolumeType against the real Cinder of the test cloud (its admin credentials: volume types are
admin-only under Cinder's default policy), through the hotc CLI: a private type with extra specs and project
access; a fresh apply shows no drift; a change made outside hotc shows as drift; name, description, metadata and
is_public are updated in place (Heat allows every property to change, so nothing replaces it); a type made outside
hotc is imported and then managed; destroy deletes. Every check asks openstacksdk what really exists."""

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
  name: {type: string}
  project: {type: string}
  description: {type: string, default: first}
  tier: {type: string, default: gold}
resources:
  vt:
    type: OS::Cinder::VolumeType
    properties:
      name: {get_param: name}
      description: {get_param: description}
      is_public: false
      projects: [{get_param: project}]
      metadata: {"hotc_test:tier": {get_param: tier}, "hotc_test:copies": 2}
"""


def changes(out: str) -> dict[str, Any]:
    return {c["address"]: c for c in json.loads(out)["resource_changes"] if c["actions"] != ["no-op"]}


def access(cloud: Any, type_id: str) -> set[str]:
    return {a["project_id"] for a in cloud.block_storage.get_type_access(type_id)}


def find_type(cloud: Any, name: str) -> list[Any]:
    return [t for t in cloud.block_storage.types(is_public="None") if t.name == name]


def test_volume_type_create_drift_update_import_delete(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    made: list[str] = []

    def cleanup() -> None:
        for tid in made:
            cloud.block_storage.delete_type(tid, ignore_missing=True)

    cloud_tracker.defer("volume types", cleanup)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    project = cloud.current_project_id
    params = ["--parameter", f"name={p}-vt", "--parameter", f"project={project}"]

    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", *params, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    found = find_type(cloud, f"{p}-vt")
    assert len(found) == 1
    vt = cloud.block_storage.get_type(found[0].id)
    made.append(vt.id)
    assert vt.is_public is False and vt.description == "first"
    specs = dict(vt.extra_specs)
    assert specs["hotc_test:tier"] == "gold" and specs["hotc_test:copies"] == "2"
    assert "hotc:lineage" in specs  # hotc's stamp, which a read leaves out of metadata
    assert access(cloud, vt.id) == {project}

    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *params, stack, "--refresh", "--detailed-exitcode"
    )
    assert r.returncode == 0, r.stdout + r.stderr

    # drift: a description changed outside hotc is planned back, in place
    cloud.block_storage.put(f"/types/{vt.id}", json={"volume_type": {"description": "changed outside"}})
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *params, stack, "--refresh", "--format", "json"
    )
    assert r.returncode == 0, r.stderr
    planned = changes(r.stdout)
    assert set(planned) == {"vt"} and planned["vt"]["actions"] == ["update"]
    assert planned["vt"]["changed_paths"] == [["description"]]

    # name, description and metadata change in place: the same volume type afterwards
    new = ["--parameter", f"name={p}-vt2", "--parameter", f"project={project}", "--parameter", "tier=silver"]
    new += ["--parameter", "description=second"]
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *new, stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = changes(r.stdout)
    assert set(planned) == {"vt"} and planned["vt"]["actions"] == ["update"]
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", *new, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    after = cloud.block_storage.get_type(vt.id)
    assert after.name == f"{p}-vt2" and after.description == "second"
    assert dict(after.extra_specs)["hotc_test:tier"] == "silver"
    assert access(cloud, vt.id) == {project}
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *new, stack, "--refresh", "--detailed-exitcode"
    )
    assert r.returncode == 0, r.stdout + r.stderr

    # is_public flips in place too
    (tmp_path / "pub.yaml").write_text(
        TEMPLATE.replace("is_public: false", "is_public: true").replace(
            "projects: [{get_param: project}]", "projects: []"
        )
    )
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "pub.yaml", *new, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.block_storage.get_type(vt.id).is_public is True
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "pub.yaml", *new, stack, "--refresh", "--detailed-exitcode"
    )
    assert r.returncode == 0, r.stdout + r.stderr

    # a type made outside hotc, imported into another stack, then managed (and deleted) by it
    outside = cloud.block_storage.create_type(
        name=f"{p}-imp", description="made outside", extra_specs={"k:v": "1"}
    )
    made.append(outside.id)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  imp: {{type: OS::Cinder::VolumeType, properties: {{name: {p}-imp, description: made outside, "
        "metadata: {'k:v': '1'}}}\n"
    )
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "imp", outside.id, "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert find_type(cloud, f"{p}-imp") == []

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert find_type(cloud, f"{p}-vt2") == []
