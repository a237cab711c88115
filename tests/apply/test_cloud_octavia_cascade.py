"""A load balancer deleted with its whole chain goes first, with Octavia's ``cascade`` (hotc.apply.cascade), on the
test cloud's Octavia, through the CLI: the plan still lists every delete; the load balancer's delete completes
before any child's delete starts; every child's delete is an event that says it went with the load balancer; the
server behind a member is deleted only after the member is gone; Octavia has none of the objects afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  subnet: {type: string}
  network: {type: string}
  image: {type: string}
resources:
  server:
    type: OS::Nova::Server
    properties: {image: {get_param: image}, flavor: m1.tiny, networks: [{network: {get_param: network}}]}
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {vip_subnet: {get_param: subnet}}
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, protocol_port: 80}
  pool:
    type: OS::Octavia::Pool
    properties: {listener: {get_resource: listener}, protocol: HTTP, lb_algorithm: ROUND_ROBIN}
  member:
    type: OS::Octavia::PoolMember
    properties:
      pool: {get_resource: pool}
      address: {get_attr: [server, first_address]}
      protocol_port: 80
      subnet: {get_param: subnet}
  monitor:
    type: OS::Octavia::HealthMonitor
    properties: {pool: {get_resource: pool}, type: HTTP, delay: 5, timeout: 3, max_retries: 2}
"""

CHILDREN = ("listener", "pool", "member", "monitor")


def test_destroy_deletes_the_load_balancer_first_with_cascade(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("stk")
    lbs: list[str] = []
    servers: list[str] = []

    def cleanup() -> None:
        for lid in lbs:
            cloud.load_balancer.delete_load_balancer(lid, ignore_missing=True, cascade=True)
        for sid in servers:
            cloud.compute.delete_server(sid, ignore_missing=True)

    cloud_tracker.defer("octavia load balancer and server", cleanup)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = [
        "--parameter",
        f"subnet={cloud_shared.private_subnet_name}",
        "--parameter",
        f"network={cloud_shared.private_network_name}",
        "--parameter",
        f"image={cloud_shared.image_name}",
    ]
    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    cli.apply()
    ids = cli.ids()
    lbs.append(ids["lb"])
    servers.append(ids["server"])
    pool = cloud.load_balancer.get_pool(ids["pool"])
    assert [m["id"] for m in pool.members] == [ids["member"]]

    # the plan still says every delete
    r = hotc(tmp_path, hotc_cloud_env, "plan", "--destroy", stack, "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    planned = {c["address"]: c["actions"] for c in json.loads(r.stdout)["resource_changes"]}
    assert planned == {a: ["delete"] for a in ("server", "lb", *CHILDREN)}

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "events", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    deletes = [e for e in events if e["status"].startswith("DELETE_") and e["address"] != stack]
    at = {(e["address"], e["status"]): i for i, e in enumerate(deletes)}
    for child in CHILDREN:
        assert at[("lb", "DELETE_COMPLETE")] < at[(child, "DELETE_IN_PROGRESS")], child
        done = next(e for e in deletes if e["address"] == child and e["status"] == "DELETE_COMPLETE")
        assert done["reason"] == "deleted with lb (cascade)"
    assert at[("member", "DELETE_COMPLETE")] < at[("server", "DELETE_IN_PROGRESS")]
    assert cloud.load_balancer.find_load_balancer(ids["lb"]) is None
    for kind, oid in (
        ("listener", ids["listener"]),
        ("pool", ids["pool"]),
        ("health_monitor", ids["monitor"]),
    ):
        assert getattr(cloud.load_balancer, f"find_{kind}")(oid) is None, kind
    assert cloud.compute.find_server(ids["server"]) is None
