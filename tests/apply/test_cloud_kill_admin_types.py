"""A run killed (SIGKILL) at random moments while it creates the admin types that have no tags to carry hotc's
stamp, or carry it elsewhere (server groups, roles, users, groups, QoS specs and Octavia flavor profiles by the
name hotc generated; volume types by their extra specs; projects by their tags), then one more apply: the stack
converges, every object the killed runs made is adopted (none orphaned, none made twice), a further apply has
nothing to do, and destroy leaves nothing. Every check asks openstacksdk."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import REPO, hotc
from tests.apply.test_cloud_apply import recorded_ids, state_of

pytestmark = pytest.mark.cloud

COPIES = 2


def template(stack: str) -> str:
    out = ["heat_template_version: 2018-08-31", "resources:"]
    for i in range(COPIES):
        out += [
            f"  sg{i}: {{type: OS::Nova::ServerGroup, properties: {{policies: [anti-affinity]}}}}",
            f"  vt{i}: {{type: OS::Cinder::VolumeType, properties: {{name: {stack}-vt{i}, is_public: false}}}}",
            f"  proj{i}: {{type: OS::Keystone::Project}}",
            f"  role{i}: {{type: OS::Keystone::Role}}",
            f"  user{i}: {{type: OS::Keystone::User, properties: {{default_project: {{get_resource: proj{i}}}}}}}",
            f"  grp{i}: {{type: OS::Keystone::Group}}",
            f"  qos{i}: {{type: OS::Cinder::QoSSpecs, properties: {{specs: {{read_iops_sec: '10'}}}}}}",
            f"  fp{i}: {{type: OS::Octavia::FlavorProfile, properties: {{flavor_data: '{{}}', provider_name: amphora}}}}",
        ]
    return "\n".join(out) + "\n"


def made(cloud: Any, uniq: str) -> dict[str, str]:
    """Every object of these types whose name carries the test's unique part: id -> kind."""
    found: dict[str, str] = {}
    listings = {
        "server group": cloud.compute.server_groups(),
        "volume type": cloud.block_storage.types(is_public="None"),
        "project": cloud.identity.projects(),
        "role": cloud.identity.roles(),
        "user": cloud.identity.users(),
        "group": cloud.identity.groups(),
        "qos specs": cloud.block_storage.qos_specs(),
        "flavor profile": cloud.load_balancer.flavor_profiles(),
    }
    for kind, items in listings.items():
        for obj in items:
            if uniq in str(obj.name or ""):
                found[str(obj.id)] = kind
    return found


def test_killed_runs_of_admin_types_converge_with_nothing_orphaned(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("k")
    uniq = cloud_tracker.prefix.rsplit("-", 1)[1]

    def cleanup() -> None:
        for oid, kind in made(cloud, uniq).items():
            delete = {
                "server group": cloud.compute.delete_server_group,
                "volume type": cloud.block_storage.delete_type,
                "project": cloud.identity.delete_project,
                "role": cloud.identity.delete_role,
                "user": cloud.identity.delete_user,
                "group": cloud.identity.delete_group,
                "qos specs": cloud.block_storage.delete_qos_spec,
                "flavor profile": cloud.load_balancer.delete_flavor_profile,
            }[kind]
            delete(oid)

    cloud_tracker.defer("admin types of the kill test", cleanup)
    (tmp_path / "t.yaml").write_text(template(stack))
    env = {**hotc_cloud_env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    rng = random.Random(os.getpid())
    for _ in range(4):
        p = subprocess.Popen(
            [sys.executable, "-m", "hotc", "apply", "-t", "t.yaml", stack, "--auto-approve"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(1.5, 4.0))  # start-up is ~1-2 s; the creates take a few seconds
        p.kill()
        p.wait()
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    st = state_of(tmp_path, stack)
    assert len(st.resources) == 8 * COPIES
    assert all(rs.status.endswith("_COMPLETE") for rs in st.resources.values())
    assert all(rs.deposed == () for rs in st.resources.values())
    # nothing orphaned, nothing made twice: what exists is exactly what the state records
    assert set(made(cloud, uniq)) == recorded_ids(st)
    again = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "t.yaml", stack, "--auto-approve")
    assert again.returncode == 0 and "No changes" in again.stdout, again.stdout + again.stderr
    d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, d.stdout[-3000:] + d.stderr[-3000:]
    assert made(cloud, uniq) == {}
