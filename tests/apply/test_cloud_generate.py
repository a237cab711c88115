"""``hotc import --generate`` against the test cloud: a small project made with openstacksdk (a network and subnet,
a router with a gateway and an interface, two ports, a security group with a rule, a server, a volume attached
to it, a floating IP) is written as a template that both ``hotc validate`` and Heat's ``template validate``
accept; ``hotc import`` of its map takes all of it over, and ``plan --refresh`` then shows no change, nothing
having been made or deleted in the cloud."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def make_project(cloud: Any, shared: Any, tracker: Any) -> dict[str, str]:
    p = tracker.prefix
    net = tracker.track(cloud.network.create_network(name=f"{p}-net"))
    sub = tracker.track(
        cloud.network.create_subnet(name=f"{p}-subnet", network_id=net.id, cidr="10.96.0.0/24", ip_version=4)
    )
    router = tracker.track(
        cloud.network.create_router(
            name=f"{p}-router", external_gateway_info={"network_id": shared.public_network_id}
        )
    )
    cloud.network.add_interface_to_router(router, subnet_id=sub.id)
    sg = tracker.track(cloud.network.create_security_group(name=f"{p}-sg"))
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
            name=f"{p}-port", network_id=net.id, fixed_ips=[{"subnet_id": sub.id}], security_group_ids=[sg.id]
        )
    )
    spare = tracker.track(cloud.network.create_port(name=f"{p}-spare", network_id=net.id))
    vm = tracker.track(
        cloud.compute.create_server(
            name=f"{p}-vm", image_id=shared.image_id, flavor_id=shared.flavor_id, networks=[{"port": port.id}]
        )
    )
    vol = tracker.track(cloud.block_storage.create_volume(name=f"{p}-vol", size=1))
    fip = cloud.network.create_ip(floating_network_id=shared.public_network_id, port_id=port.id)
    tracker.track(fip, delete=lambda: cloud.network.delete_ip(fip, ignore_missing=True))
    cloud.compute.wait_for_server(vm, wait=180)
    cloud.block_storage.wait_for_status(vol, "available", wait=120)
    cloud.compute.create_volume_attachment(vm, volume_id=vol.id)
    cloud.block_storage.wait_for_status(vol, "in-use", wait=120)
    return {
        "net": net.id,
        "subnet": sub.id,
        "router": router.id,
        "sg": sg.id,
        "port": port.id,
        "spare": spare.id,
        "vm": vm.id,
        "vol": vol.id,
        "fip": fip.id,
    }


def inventory(cloud: Any, prefix: str, net_id: str) -> set[str]:
    """The ids of this test's objects of the generated types: named with its prefix, or on its network (a port,
    a floating IP on such a port). Other tests make and delete objects in the same project at the same time."""
    n = cloud.network
    ports = {str(p.id) for p in n.ports() if p.network_id == net_id or (p.name or "").startswith(prefix)}
    ids = set(ports)
    for objs in (n.networks(), n.subnets(), n.routers(), n.security_groups()):
        ids |= {str(o.id) for o in objs if (o.name or "").startswith(prefix)}
    ids |= {str(f.id) for f in n.ips() if f.port_id in ports}
    ids |= {str(s.id) for s in cloud.compute.servers() if (s.name or "").startswith(prefix)}
    ids |= {str(v.id) for v in cloud.block_storage.volumes() if (v.name or "").startswith(prefix)}
    return ids


def test_generate_validate_import_then_no_change(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    ids = make_project(cloud, cloud_shared, cloud_tracker)
    stack = cloud_tracker.name("stk")
    prefix = f"{cloud_tracker.prefix}-"

    r = hotc(
        tmp_path, hotc_cloud_env, "import", stack, "--generate", "gen", "--reachable-from", ids["net"],
        "--name-prefix", prefix,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    tpl = yaml.safe_load((tmp_path / "gen/template.yaml").read_text())
    env = yaml.safe_load((tmp_path / "gen/parameters.yaml").read_text())
    imap = yaml.safe_load((tmp_path / "gen/import-map.yaml").read_text())
    res = tpl["resources"]
    # every object, under its name without the prefix; the router interface and the attachment by their ids
    fip = next(k for k in imap if k.startswith("floating_ip_"))
    assert {k: v for k, v in imap.items() if ":" not in v} == {
        "net": ids["net"],
        "subnet": ids["subnet"],
        "router": ids["router"],
        "sg": ids["sg"],
        "port": ids["port"],
        "spare": ids["spare"],
        "vm": ids["vm"],
        "vol": ids["vol"],
        fip: ids["fip"],
    }
    assert imap["router_interface"] == f"{ids['router']}:subnet_id={ids['subnet']}"
    assert imap["volume_attachment"] == f"{ids['vm']}:{ids['vol']}"
    assert res["port"]["properties"]["network"] == {"get_resource": "net"}
    assert res["port"]["properties"]["security_groups"] == [{"get_resource": "sg"}]
    assert res["subnet"]["properties"]["network"] == {"get_resource": "net"}
    assert res["vm"]["properties"]["networks"] == [{"port": {"get_resource": "port"}}]
    assert res["vm"]["properties"]["image"] == {"get_param": "image"}
    assert res["vm"]["properties"]["flavor"] == {"get_param": "flavor"}
    assert res["volume_attachment"]["properties"] == {
        "instance_uuid": {"get_resource": "vm"},
        "volume_id": {"get_resource": "vol"},
    }
    assert res[fip]["properties"]["port_id"] == {"get_resource": "port"}
    assert res["router_interface"]["properties"] == {
        "router": {"get_resource": "router"},
        "subnet": {"get_resource": "subnet"},
    }
    assert env["parameters"]["external_network"] == cloud_shared.public_network_id
    assert {"image", "flavor", "external_network"} <= set(tpl["parameters"])

    # Heat accepts the template as it is
    cloud.orchestration.validate_template(template=tpl, environment=env, template_url=None)
    r = hotc(tmp_path, hotc_cloud_env, "validate", "-t", "gen/template.yaml", "-e", "gen/parameters.yaml")
    assert r.returncode == 0, r.stdout + r.stderr

    before = inventory(cloud, prefix, ids["net"])
    files = ["-t", "gen/template.yaml", "-e", "gen/parameters.yaml"]
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--file", "gen/import-map.yaml", *files)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Import complete: {len(imap)} resource(s)" in r.stdout
    r = hotc(tmp_path, hotc_cloud_env, "plan", *files, stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout
    assert inventory(cloud, prefix, ids["net"]) == before  # nothing made, nothing deleted
