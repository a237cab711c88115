"""The quota check at plan time, on the real test cloud, in a project of the test's own (its quota set low does
not touch the tests running beside it): a group beyond the instance quota is refused before anything is made;
with the quota raised it applies; a replacement whose peak (new and old servers at once) exceeds the quota
while its final count does not is refused too, and the servers are left as they were; `apply
--quota-max-size` counts a scaling group at its max_size."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  count: {type: number}
  drive: {type: boolean, default: false}
resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: OS::Nova::Server
        properties:
          image: hotc-tiny
          flavor: m1.tiny
          config_drive: {get_param: drive}
          networks: [{allocate_network: none}]
"""


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]


def _own_project(
    cloud: Any, cloud_config: Any, base_env: dict[str, str], name: str, tmp_path: Path
) -> tuple[Any, dict[str, str]]:
    """A project for this test alone, the admin user a member of it, and the environment that plans in it."""
    project = cloud.identity.create_project(name=name, domain_id="default")
    cloud.identity.assign_project_role_to_user(
        project, cloud.identity.find_user("admin"), cloud.identity.find_role("admin")
    )
    config = yaml.safe_load(Path(cloud_config.config_file).read_text())
    base = config["clouds"][cloud_config.cloud_name]
    mine = {**base, "auth": {**base["auth"], "project_name": name}}
    (tmp_path / "clouds.yaml").write_text(yaml.safe_dump({"clouds": {"quota-test": mine}}))
    env = {**base_env, "OS_CLIENT_CONFIG_FILE": str(tmp_path / "clouds.yaml"), "OS_CLOUD": "quota-test"}
    return project, env


def _servers(cloud: Any, project: Any) -> list[Any]:
    return list(cloud.compute.servers(all_projects=True, project_id=project.id))


ASG = """heat_template_version: 2018-08-31
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      resource:
        type: OS::Nova::Server
        properties:
          image: hotc-tiny
          flavor: m1.tiny
          networks: [{allocate_network: none}]
"""


def test_cloud_quota_refuses_at_plan_time(
    cloud: Any,
    cloud_shared: Any,
    cloud_config: Any,
    cloud_tracker: Any,
    hotc_cloud_env: dict[str, str],
    tmp_path: Path,
) -> None:
    name = cloud_tracker.name("quota")
    project, env = _own_project(cloud, cloud_config, hotc_cloud_env, name, tmp_path)
    cloud_tracker.defer(f"project {name}", lambda: cloud.identity.delete_project(project))
    (tmp_path / "g.yaml").write_text(TEMPLATE)
    apply = ("apply", "-t", "g.yaml", name, "--auto-approve")
    try:
        # instance quota 2, a group of 3: refused before anything runs
        cloud.compute.update_quota_set(project.id, instances=2)
        r = hotc(tmp_path, env, *apply, "--parameter", "count=3")
        assert r.returncode == 1, tail(r)
        assert "quota compute.instances: the plan needs 3 servers at its peak, and 2 are left" in r.stderr
        assert _servers(cloud, project) == []
        # raised to 3: it applies
        cloud.compute.update_quota_set(project.id, instances=3)
        r = hotc(tmp_path, env, *apply, "--parameter", "count=3")
        assert r.returncode == 0, tail(r)
        before = sorted(s.id for s in _servers(cloud, project))
        assert len(before) == 3
        # config_drive cannot change in place: three new servers before the old three go, 6 at the peak for a
        # quota of 3, though the stack ends with 3
        r = hotc(
            tmp_path, env, "plan", "-t", "g.yaml", name, "--parameter", "count=3", "--parameter", "drive=true"
        )
        assert r.returncode == 1, tail(r)
        assert "quota compute.instances: the plan needs 3 servers at its peak, and 0 are left" in r.stderr
        assert "(3 in use of 3; 6 at the peak, 200 %)" in r.stderr
        assert sorted(s.id for s in _servers(cloud, project)) == before
        # with room for one more server, a scaling group of one fits as it is; `apply --quota-max-size`
        # counts it at its max_size of 3 (what scaling signals may reach later), and there is no room for that
        cloud.compute.update_quota_set(project.id, instances=4)
        (tmp_path / "asg.yaml").write_text(ASG)
        grow = ("apply", "-t", "asg.yaml", f"{name}-asg", "--auto-approve")
        r = hotc(tmp_path, env, *grow, "--quota-max-size")
        assert r.returncode == 1, tail(r)
        assert "quota compute.instances: the plan needs 3 servers at its peak, and 1 are left" in r.stderr
        assert not (tmp_path / ".hotc" / f"{name}-asg.json").exists()
        assert sorted(s.id for s in _servers(cloud, project)) == before
        r = hotc(tmp_path, env, *grow)
        assert r.returncode == 0, tail(r)
        assert len(_servers(cloud, project)) == 4
    finally:
        # the state is in tmp_path: deleting the servers is all the clean-up there is
        for s in _servers(cloud, project):
            cloud.compute.delete_server(s.id)
        deadline = time.monotonic() + 60
        while _servers(cloud, project) and time.monotonic() < deadline:
            time.sleep(1)
