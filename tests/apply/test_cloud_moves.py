"""A planned move on the real test cloud: a server renamed in the template and applied with ``--move`` keeps its
id (the record moves, the server is neither deleted nor made again); without the move the plan would replace
it, and says which ``--move`` keeps it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  NAME:
    type: OS::Nova::Server
    properties:
      name: SERVER
      image: IMAGE
      flavor: FLAVOR
      networks: [{network: NETWORK}]
"""


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-4000:] + "\n--- stderr ---\n" + r.stderr[-4000:]


def test_cloud_renamed_server_moved_keeps_its_id(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    env = hotc_cloud_env
    stack = cloud_tracker.name("moves")
    text = (
        TEMPLATE.replace("SERVER", cloud_tracker.name("srv"))
        .replace("IMAGE", cloud_shared.image_name)
        .replace("FLAVOR", cloud_shared.flavor_name)
        .replace("NETWORK", cloud_shared.private_network_name)
    )
    (tmp_path / "t.yaml").write_text(text.replace("NAME", "server"))
    r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    try:
        assert r.returncode == 0, tail(r)
        from hotc.state import backend_from_config

        st, _ = backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)
        assert st is not None
        server_id = st.resources["server"].physical_id

        (tmp_path / "t.yaml").write_text(text.replace("NAME", "web"))
        r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack)
        assert r.returncode == 0 and "--move server=web" in r.stderr, tail(r)

        r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, "--move", "server=web", "--format", "json")
        assert r.returncode == 0, tail(r)
        doc = json.loads(r.stdout)
        assert [(c["address"], c["actions"], c["moved"]) for c in doc["resource_changes"]] == [
            ("web", ["no-op"], {"from": "server", "to": "web"})
        ]

        r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, "--move", "server=web", "--auto-approve")
        assert r.returncode == 0, tail(r)
        st, _ = backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)
        assert st is not None and set(st.resources) == {"web"}
        assert st.resources["web"].physical_id == server_id
        assert cloud.compute.get_server(server_id).status == "ACTIVE"
    finally:
        r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
