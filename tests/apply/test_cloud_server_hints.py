"""Servers' ``scheduler_hints`` read back from the real Nova of the test cloud (Nova 34: from microversion 2.100
``GET /servers/{id}`` reports the hints given at boot, every value as a list; openstacksdk asks for 2.100).

A server made outside hotc with hints is imported: the import records the hints Nova reports, so a refresh
plan of a template giving the same hints shows no change, and a template giving other hints plans a replace
of exactly that property (``scheduler_hints`` is not ``update_allowed`` in Heat). Every check asks
openstacksdk what really exists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hotc.state import backend_from_config
from tests.apply.cloud_cli import changes, hotc

pytestmark = pytest.mark.cloud


def template(prefix: str, shared: Any, hints: str) -> str:
    return f"""heat_template_version: 2018-08-31
resources:
  vm:
    type: OS::Nova::Server
    properties:
      name: {prefix}-vm
      image: {shared.image_name}
      flavor: {shared.flavor_name}
      networks: [{{network: {shared.private_network_name}}}]
      scheduler_hints: {hints}
"""


def test_imported_server_records_the_hints_nova_reports(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    p = cloud_tracker.prefix
    group = cloud.compute.create_server_group(name=f"{p}-sg", policy="affinity")
    cloud_tracker.defer(f"server group {group.id}", lambda: cloud.compute.delete_server_group(group.id))
    server = cloud.compute.create_server(
        name=f"{p}-vm",
        image_id=cloud_shared.image_id,
        flavor_id=cloud_shared.flavor_id,
        networks=[{"uuid": cloud_shared.private_network_id}],
        scheduler_hints={"group": group.id, "hotc_hint": "x"},
    )
    cloud_tracker.defer(f"server {server.id}", lambda: cloud.compute.delete_server(server.id))
    server = cloud.compute.wait_for_server(server, wait=300)
    # what Nova itself reports (the read relies on it)
    assert cloud.compute.get_server(server.id).scheduler_hints == {"group": [group.id], "hotc_hint": ["x"]}

    same = template(p, cloud_shared, f"{{group: {group.id}, hotc_hint: x}}")
    (tmp_path / "t.yaml").write_text(same)
    stack = cloud_tracker.name("stk")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "vm", server.id, "-t", "t.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    recorded = backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)[0].resources["vm"]
    assert recorded.properties["scheduler_hints"] == {"group": group.id, "hotc_hint": "x"}  # as written
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr  # read back as written: no drift, no change

    # the import recorded what Nova has: other hints in the template are a replace of exactly that property
    (tmp_path / "other.yaml").write_text(template(p, cloud_shared, f"{{group: {group.id}, hotc_hint: y}}"))
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "other.yaml", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    planned = changes(r.stdout)
    assert set(planned) == {"vm"}
    assert "create" in planned["vm"]["actions"] and "delete" in planned["vm"]["actions"]
    assert planned["vm"]["changed_paths"] and all(
        path[0] == "scheduler_hints" for path in planned["vm"]["changed_paths"]
    ), planned["vm"]

    # a refresh-only plan after the import finds nothing changed outside hotc
    r = hotc(tmp_path, hotc_cloud_env, "plan", stack, "--refresh-only", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["resource_drift"] == []

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    left = cloud.compute.find_server(server.id)
    assert left is None or str(left.status).upper() == "DELETED", (left.status, r.stdout[-3000:])
