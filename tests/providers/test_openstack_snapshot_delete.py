"""``deletion_policy: Snapshot`` against the real test cloud: a server is deleted only after an image snapshot of
it is active in Glance; a volume only after a Cinder backup, and the test cloud has no backup service, so the
delete fails clearly and the volume (its data) stays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
resources:
  web:
    type: OS::Nova::Server
    deletion_policy: Snapshot
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{network: {get_param: network}}]
  data:
    type: OS::Cinder::Volume
    deletion_policy: Snapshot
    properties: {size: 1}
"""


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]


def test_cloud_deletion_policy_snapshot(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    from hotc.state import backend_from_config

    stack = cloud_tracker.name("snap")
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "apply",
        "-t",
        str(t),
        "--parameter",
        f"image={cloud_shared.image_name}",
        "--parameter",
        f"flavor={cloud_shared.flavor_name}",
        "--parameter",
        f"network={cloud_shared.private_network_id}",
        stack,
        "--auto-approve",
    )
    st, _ = backend_from_config(None, tmp_path).read(stack)
    sid, vid = st.resources["web"].physical_id, st.resources["data"].physical_id
    server_name = cloud.compute.get_server(sid).name if sid else ""
    try:
        assert r.returncode == 0, tail(r)
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
        assert d.returncode != 0, tail(d)
        st2, _ = backend_from_config(None, tmp_path).read(stack)
        assert set(st2.resources) == {"web", "data"}
        # the server: the test cloud's Nova (fake virt driver) ends its snapshot task without ever uploading the
        # image, so the snapshot fails after a grace period: the server is kept, the unfinished image removed
        assert st2.resources["web"].status == "DELETE_FAILED"
        assert "Nova finished the snapshot but the image stayed" in st2.resources["web"].status_reason, tail(
            d
        )
        assert str(cloud.compute.get_server(sid).status) == "ACTIVE"
        assert list(cloud.image.images(name=f"{server_name}-snapshot")) == []
        # the volume: no backup service, so the destroy fails before deleting it, saying why
        assert st2.resources["data"].status == "DELETE_FAILED"
        assert "no running Cinder backup service" in st2.resources["data"].status_reason, tail(d)
        assert "no running Cinder backup service" in d.stdout + d.stderr, tail(d)
        assert str(cloud.block_storage.get_volume(vid).status) == "available"
        assert [
            b.id for b in cloud.block_storage.backups() if b.volume_id == vid
        ] == []  # no failed backup left
    finally:
        for img in cloud.image.images(name=f"{server_name}-snapshot"):
            cloud.image.delete_image(img.id, ignore_missing=True)
        if sid:
            cloud.compute.delete_server(sid, ignore_missing=True)
        if vid:
            cloud_tracker.defer("volume", lambda: cloud.block_storage.delete_volume(vid, ignore_missing=True))
