"""``hotc import`` against the real test cloud: a network, subnet, security group, port, server and volume made
with openstacksdk are imported; a plan of the matching template then shows no change; a plan of a template that
differs shows exactly the differences; hotc then manages them (destroy deletes them)."""

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
  cidr: {type: string}
  size: {type: number, default: 1}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {list_join: ['-', [{get_param: prefix}, net]]}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      name: {list_join: ['-', [{get_param: prefix}, subnet]]}
      network: {get_resource: net}
      cidr: {get_param: cidr}
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      name: {list_join: ['-', [{get_param: prefix}, sg]]}
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 0.0.0.0/0}
  port:
    type: OS::Neutron::Port
    properties:
      name: {list_join: ['-', [{get_param: prefix}, port]]}
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      security_groups: [{get_resource: sg}]
  server:
    type: OS::Nova::Server
    properties:
      name: {list_join: ['-', [{get_param: prefix}, vm]]}
      image: hotc-tiny
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
  vol:
    type: OS::Cinder::Volume
    properties:
      name: {list_join: ['-', [{get_param: prefix}, vol]]}
      size: {get_param: size}
"""


def make_objects(cloud: Any, shared: Any, tracker: Any) -> dict[str, str]:
    p = tracker.prefix
    net = tracker.track(cloud.network.create_network(name=f"{p}-net"))
    subnet = tracker.track(
        cloud.network.create_subnet(name=f"{p}-subnet", network_id=net.id, cidr="10.94.0.0/24", ip_version=4)
    )
    sg = tracker.track(cloud.network.create_security_group(name=f"{p}-sg"))
    for rule in list(cloud.network.security_group_rules(security_group_id=sg.id)):
        cloud.network.delete_security_group_rule(rule)  # Heat's security groups start with no egress rules
    cloud.network.create_security_group_rule(
        security_group_id=sg.id,
        direction="ingress",
        ethertype="IPv4",
        protocol="tcp",
        port_range_min=22,
        port_range_max=22,
        remote_ip_prefix="0.0.0.0/0",
    )
    port = tracker.track(
        cloud.network.create_port(
            name=f"{p}-port",
            network_id=net.id,
            fixed_ips=[{"subnet_id": subnet.id}],
            security_group_ids=[sg.id],
        )
    )
    vm = cloud.compute.create_server(
        name=f"{p}-vm", image_id=shared.image_id, flavor_id=shared.flavor_id, networks=[{"port": port.id}]
    )
    tracker.track(vm)
    vol = tracker.track(cloud.block_storage.create_volume(name=f"{p}-vol", size=1))
    cloud.compute.wait_for_server(vm, wait=180)
    cloud.block_storage.wait_for_status(vol, "available", wait=120)
    return {"net": net.id, "subnet": subnet.id, "sg": sg.id, "port": port.id, "server": vm.id, "vol": vol.id}


def test_import_six_types_then_plan_shows_no_change(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    ids = make_objects(cloud, cloud_shared, cloud_tracker)
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "map.json").write_text(json.dumps(ids))
    params = ["--parameter", f"prefix={cloud_tracker.prefix}", "--parameter", "cidr=10.94.0.0/24"]

    # one of them alone first, then the rest in bulk
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "net", ids["net"], "-t", "t.yaml", *params)
    assert r.returncode == 0, r.stdout + r.stderr
    rest = {k: v for k, v in ids.items() if k != "net"}
    (tmp_path / "rest.json").write_text(json.dumps(rest))
    # imported with a template that asks for size 2: the state records what the cloud has (1), not the template
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "import",
        stack,
        "--file",
        "rest.json",
        "-t",
        "t.yaml",
        *params,
        "--parameter",
        "size=2",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Import complete: 5 resource(s)" in r.stdout
    assert "cannot read this type's properties" not in r.stderr

    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *params, stack, "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout

    # a template that differs: the plan shows exactly that difference, with its reason
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "plan",
        "-t",
        "t.yaml",
        *params,
        "--parameter",
        "size=2",
        stack,
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    changes = {c["address"]: c for c in json.loads(r.stdout)["resource_changes"] if c["actions"] != ["no-op"]}
    assert set(changes) == {"vol"} and changes["vol"]["changed_paths"] == [["size"]]

    # importing again, or an id of the wrong type, is refused and writes nothing
    before = (tmp_path / ".hotc").exists() and sorted(p.name for p in (tmp_path / ".hotc").rglob("*"))
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "vol", ids["vol"], "-t", "t.yaml", *params)
    assert r.returncode == 1 and "already has vol" in r.stderr
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "import",
        cloud_tracker.name("other"),
        "vol",
        ids["net"],
        "-t",
        "t.yaml",
        *params,
    )
    assert r.returncode == 1 and f"there is no OS::Cinder::Volume with id {ids['net']}" in r.stderr
    assert before == sorted(p.name for p in (tmp_path / ".hotc").rglob("*") if "other" not in str(p))

    # hotc manages them now: destroy deletes every one
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.network.find_network(ids["net"]) is None
    assert cloud.compute.find_server(ids["server"]) is None
    assert cloud.block_storage.find_volume(ids["vol"]) is None


def test_planned_import_is_executed_by_apply(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    vol = cloud_tracker.track(cloud.block_storage.create_volume(name=cloud_tracker.name("vol"), size=1))
    cloud.block_storage.wait_for_status(vol, "available", wait=120)
    stack = cloud_tracker.name("stk")
    (tmp_path / "v.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  vol: {{type: OS::Cinder::Volume, properties: {{name: {vol.name}, size: 1}}}}\n"
        "  tag: {type: OS::Cinder::Volume, properties: {size: 1}}\n"
    )

    def count() -> int:
        return len(
            [v for v in cloud.block_storage.volumes() if (v.name or "").startswith(cloud_tracker.prefix)]
        )

    before = count()
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "v.yaml", stack, "--import", f"vol={vol.id}", "-o", "p.json"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"will be imported: existing object {vol.id}" in r.stdout
    r = hotc(tmp_path, hotc_cloud_env, "apply", "p.json")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "1 created" in r.stdout and "1 existing adopted" in r.stdout
    assert count() == before + 1  # only `tag` was created; `vol` was taken over
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "v.yaml", stack, "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert cloud.block_storage.find_volume(vol.id) is None
