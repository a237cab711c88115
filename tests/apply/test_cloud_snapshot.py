"""``hotc snapshot`` on the test cloud: a stack snapshot takes a Cinder snapshot of the volume and an image of the
server; the restore makes a new volume from that snapshot and rebuilds the server from that image (the fake
drivers hold no data: what is checked is where the restored objects came from); the template applied again
then changes nothing; ``snapshot delete`` removes the volume snapshot, the image and the old volume that was kept
only because Cinder deletes no volume that has snapshots."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import REPO, hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  data:
    type: OS::Cinder::Volume
    properties: {size: 1}
  srv:
    type: OS::Nova::Server
    properties:
      image: IMAGE
      flavor: FLAVOR
      networks: [{network: NETWORK}]
"""


def tail(r: Any) -> str:
    return r.stdout[-4000:] + "\n--- stderr ---\n" + r.stderr[-4000:]


def _ids(cwd: Path, env: dict[str, str], stack: str) -> dict[str, str]:
    r = hotc(cwd, env, "resource", "list", stack, "--format", "json")
    assert r.returncode == 0, tail(r)
    doc = json.loads(r.stdout)
    rows = doc["resources"] if isinstance(doc, dict) else doc
    return {x["address"]: x["physical_id"] for x in rows}


def _create_uploading(cloud: Any, cwd: Path, env: dict[str, str], stack: str, image_name: str) -> Any:
    """``hotc snapshot create STACK --name s1``, with the test in the place of a real virt driver: the test
    cloud's Nova (fake driver) makes the server's image but never uploads it, so the test uploads a few bytes to
    it, and Glance makes it active as a real Nova's upload would."""
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotc", "snapshot", "create", stack, "--name", "s1"],
        cwd=cwd,
        env=full,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        for img in cloud.image.images(name=image_name):
            if str(img.status) == "queued":
                cloud.image.update_image(img.id, disk_format="raw", container_format="bare")
                up = cloud.image.put(
                    f"/images/{img.id}/file",
                    data=b"snapshot of the root disk",
                    headers={"Content-Type": "application/octet-stream"},
                )
                assert up.status_code < 300, up.text
        time.sleep(1)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_cloud_snapshot_restore_volume_and_server(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    env = hotc_cloud_env
    stack = cloud_tracker.name("snap")
    (tmp_path / "t.yaml").write_text(
        TEMPLATE.replace("IMAGE", cloud_shared.image_name)
        .replace("FLAVOR", cloud_shared.flavor_name)
        .replace("NETWORK", cloud_shared.private_network_name)
    )
    taken: dict[str, Any] | None = {}
    try:
        r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
        before = _ids(tmp_path, env, stack)

        r = _create_uploading(cloud, tmp_path, env, stack, f"hotc-{stack}-s1-srv")
        assert r.returncode == 0, tail(r)
        r = hotc(tmp_path, env, "snapshot", "show", stack, "s1", "--format", "json")
        assert r.returncode == 0, tail(r)
        taken = json.loads(r.stdout)["physical_snapshots"]
        snap_id, image_id = taken["data"]["snapshot_id"], taken["srv"]["image_id"]
        snap = cloud.block_storage.get_snapshot(snap_id)
        assert str(snap.volume_id) == before["data"] and snap.status == "available"
        assert cloud.image.get_image(image_id).status == "active"

        r = hotc(tmp_path, env, "snapshot", "restore", stack, "s1", "--auto-approve")
        assert r.returncode == 0, tail(r)
        assert "-/+ data (OS::Cinder::Volume) must be replaced" in r.stdout, tail(r)
        assert "srv (OS::Nova::Server) will be REBUILT in place" in r.stdout, tail(r)
        after = _ids(tmp_path, env, stack)
        assert after["data"] != before["data"]
        assert str(cloud.block_storage.get_volume(after["data"]).snapshot_id) == snap_id
        assert (cloud.compute.get_server(after["srv"]).image or {}).get("id") == image_id
        # the old volume holds the snapshot: kept (Cinder would refuse its deletion), marked for snapshot delete
        old = cloud.block_storage.get_volume(before["data"])
        assert (old.metadata or {}).get("hotc-kept-for-snapshots") == "true"

        r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, "--detailed-exitcode")
        assert r.returncode == 0, tail(r)  # the restored stack matches its template: nothing to rebuild

        r = hotc(tmp_path, env, "snapshot", "delete", stack, "s1")
        assert r.returncode == 0, tail(r)
        assert cloud.block_storage.find_snapshot(snap_id, ignore_missing=True) is None
        assert cloud.image.find_image(image_id, ignore_missing=True) is None
        assert cloud.block_storage.find_volume(before["data"], ignore_missing=True) is None
        taken = None
    finally:
        if taken is not None:  # a failed create keeps what it took, for this delete
            hotc(tmp_path, env, "snapshot", "delete", stack, "s1")
        r = hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--missing-ok")
        assert r.returncode == 0, tail(r)
