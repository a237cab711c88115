"""``external_id`` against the real test cloud: a network and a server made with openstacksdk are adopted,
never duplicated, never changed, and left in place by destroy (objects counted with openstacksdk)."""

from __future__ import annotations

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
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def census(conn: Any, prefix: str, net_id: str, vm_id: str) -> dict[str, set[str]]:
    """Ids of the objects this test could make or leak, per kind: named with the test's prefix (the stack is
    named with it too, so every name hotc generates starts with it), on the test's network, or attached to its
    server. The cloud is shared: other tests' objects are not counted."""

    def ours(o: Any) -> bool:
        return (o.name or "").startswith(prefix)

    return {
        "networks": {n.id for n in conn.network.networks() if ours(n)},
        "subnets": {s.id for s in conn.network.subnets() if ours(s) or s.network_id == net_id},
        "ports": {
            p.id for p in conn.network.ports() if ours(p) or p.network_id == net_id or p.device_id == vm_id
        },
        "servers": {s.id for s in conn.compute.servers() if ours(s)},
    }


TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  net_id: {type: string}
  server_id: {type: string}
  cidr: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    external_id: {get_param: net_id}
  vm:
    type: OS::Nova::Server
    external_id: {get_param: server_id}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: {get_param: cidr}
outputs:
  net_name: {value: {get_attr: [net, name]}}
  vm_name: {value: {get_attr: [vm, name]}}
"""


def test_external_id_adopts_a_network_and_a_server_without_duplicates(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    net = cloud_tracker.track(cloud.network.create_network(name=cloud_tracker.name("net")))
    vm = cloud.compute.create_server(
        name=cloud_tracker.name("vm"),
        image_id=cloud_shared.image_id,
        flavor_id=cloud_shared.flavor_id,
        networks=[{"uuid": cloud_shared.private_network_id}],
    )
    cloud_tracker.track(vm)
    vm = cloud.compute.wait_for_server(vm, wait=180)
    (tmp_path / "adopt.yaml").write_text(TEMPLATE)
    params = [
        "--parameter",
        f"net_id={net.id}",
        "--parameter",
        f"server_id={vm.id}",
        "--parameter",
        "cidr=10.93.0.0/24",
    ]
    stack = cloud_tracker.name("stk")
    count = lambda: census(cloud, cloud_tracker.prefix, net.id, vm.id)  # noqa: E731
    before = count()
    vm_before = cloud.compute.get_server(vm.id)

    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "adopt.yaml", *params, stack)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"will be adopted: existing object {net.id}" in r.stdout
    assert f"will be adopted: existing object {vm.id}" in r.stdout

    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "adopt.yaml", *params, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    after = count()
    # exactly one new object (the subnet hotc made on the adopted network); no duplicate network or server
    assert after["networks"] == before["networks"] and after["servers"] == before["servers"]
    new_subnets = after["subnets"] - before["subnets"]
    assert len(new_subnets) == 1
    assert cloud.network.get_subnet(next(iter(new_subnets))).network_id == net.id
    # the adopted objects are untouched (no hotc tags, no metadata, same name)
    assert not cloud.network.get_network(net.id).tags
    live_vm = cloud.compute.get_server(vm.id)
    assert live_vm.metadata == vm_before.metadata and live_vm.name == vm_before.name
    out = hotc(tmp_path, hotc_cloud_env, "output", stack, "--format", "json")
    assert '"' + net.name + '"' in out.stdout and '"' + vm.name + '"' in out.stdout

    # a refreshed plan agrees: nothing to do, no "external_id changed"
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "adopt.yaml", *params, stack, "--refresh")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout

    # destroy: the subnet goes, the adopted network and server stay, and nothing else is left
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    final = count()
    assert net.id in final["networks"] and vm.id in final["servers"]
    assert final["subnets"] == before["subnets"]
    assert final["networks"] == before["networks"] and final["servers"] == before["servers"]
    assert cloud.compute.get_server(vm.id).status == "ACTIVE"
