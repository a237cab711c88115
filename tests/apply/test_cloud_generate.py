"""``hotc import --generate`` against the test cloud: a project of 29 objects made with openstacksdk (two networks
and subnets, a router with a gateway and two interfaces, two security groups with rules on groups (one on its own
group; the two name each other), five ports, a key pair, a server group, two servers (one with two NICs), two
volumes attached to them, two floating IPs, an Octavia load balancer with a listener, a pool, a member and a
health monitor) is written as a template that both ``hotc validate`` and Heat's ``template validate`` accept;
``hotc import`` of its map takes all of it over, ``apply`` then changes nothing, ``plan --refresh`` shows no
change, nothing having been made or deleted in the cloud; ``destroy`` deletes it all."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
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
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


def _wait_lb(cloud: Any, lb_id: str) -> None:
    deadline = time.monotonic() + 300
    while str(cloud.load_balancer.get_load_balancer(lb_id).provisioning_status).upper() != "ACTIVE":
        assert time.monotonic() < deadline, f"load balancer {lb_id} not ACTIVE"
        time.sleep(1)


def make_project(cloud: Any, shared: Any, tracker: Any) -> dict[str, str]:
    p = tracker.prefix
    n = cloud.network
    ids: dict[str, str] = {}
    lbs: list[str] = []

    def drop_lbs() -> None:
        for lid in lbs:
            cloud.load_balancer.delete_load_balancer(lid, cascade=True, ignore_missing=True)
        deadline = time.monotonic() + 300
        while any(cloud.load_balancer.find_load_balancer(lid) for lid in lbs) and time.monotonic() < deadline:
            time.sleep(1)

    tracker.defer("load balancer", drop_lbs)
    net_a = tracker.track(n.create_network(name=f"{p}-net-a"))
    net_b = tracker.track(n.create_network(name=f"{p}-net-b"))
    sub_a = tracker.track(
        n.create_subnet(name=f"{p}-sub-a", network_id=net_a.id, cidr="10.96.0.0/24", ip_version=4)
    )
    sub_b = tracker.track(
        n.create_subnet(name=f"{p}-sub-b", network_id=net_b.id, cidr="10.96.1.0/24", ip_version=4)
    )
    router = tracker.track(
        n.create_router(name=f"{p}-router", external_gateway_info={"network_id": shared.public_network_id})
    )
    n.add_interface_to_router(router, subnet=sub_a.id)
    n.add_interface_to_router(router, subnet=sub_b.id)
    web = tracker.track(n.create_security_group(name=f"{p}-web"))
    db = tracker.track(n.create_security_group(name=f"{p}-db"))
    rule = {"direction": "ingress", "ethertype": "IPv4", "protocol": "tcp"}
    n.create_security_group_rule(
        security_group_id=web.id, port_range_min=22, port_range_max=22, remote_ip_prefix="0.0.0.0/0", **rule
    )
    n.create_security_group_rule(security_group_id=web.id, remote_group_id=web.id, **rule)  # its own group
    n.create_security_group_rule(
        security_group_id=db.id, port_range_min=5432, port_range_max=5432, remote_group_id=web.id, **rule
    )
    # and back: a loop of groups
    n.create_security_group_rule(
        security_group_id=web.id, port_range_min=8080, port_range_max=8080, remote_group_id=db.id, **rule
    )
    web_a = tracker.track(n.create_port(name=f"{p}-web-a", network_id=net_a.id, security_group_ids=[web.id]))
    web_b = tracker.track(n.create_port(name=f"{p}-web-b", network_id=net_b.id, security_group_ids=[web.id]))
    db_a = tracker.track(n.create_port(name=f"{p}-db-a", network_id=net_a.id, security_group_ids=[db.id]))
    spare = tracker.track(n.create_port(name=f"{p}-spare", network_id=net_b.id))  # in the default group
    fixed = tracker.track(
        n.create_port(
            name=f"{p}-fixed",
            network_id=net_a.id,
            fixed_ips=[{"subnet_id": sub_a.id, "ip_address": "10.96.0.200"}],
            security_group_ids=[web.id, db.id],
        )
    )
    # the load balancer after the port with a fixed address (its VIP takes any free one), its chain made while
    # the servers boot
    lb = cloud.load_balancer.create_load_balancer(name=f"{p}-lb", vip_subnet_id=sub_a.id)
    lbs.append(lb.id)

    def lb_chain() -> tuple[Any, Any, Any, Any]:
        _wait_lb(cloud, lb.id)
        o = cloud.load_balancer
        listener = o.create_listener(
            name=f"{p}-listener", loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80
        )
        _wait_lb(cloud, lb.id)
        pool = o.create_pool(
            name=f"{p}-pool", listener_id=listener.id, protocol="HTTP", lb_algorithm="ROUND_ROBIN"
        )
        _wait_lb(cloud, lb.id)
        address = db_a.fixed_ips[0]["ip_address"]
        member = o.create_member(
            pool, name=f"{p}-member", address=address, protocol_port=80, subnet_id=sub_a.id
        )
        _wait_lb(cloud, lb.id)
        monitor = o.create_health_monitor(
            name=f"{p}-monitor", pool_id=pool.id, type="HTTP", delay=5, timeout=3, max_retries=2
        )
        _wait_lb(cloud, lb.id)
        return listener, pool, member, monitor

    chain = ThreadPoolExecutor(max_workers=1).submit(lb_chain)
    key = cloud.compute.create_keypair(name=f"{p}-key")
    tracker.track(key, delete=lambda: cloud.compute.delete_keypair(key, ignore_missing=True))
    group = cloud.compute.create_server_group(name=f"{p}-group", policies=["affinity"])
    tracker.track(group, delete=lambda: cloud.compute.delete_server_group(group, ignore_missing=True))
    hints = {"group": group.id}
    vm1 = tracker.track(
        cloud.compute.create_server(
            name=f"{p}-vm1",
            image_id=shared.image_id,
            flavor_id=shared.flavor_id,
            key_name=key.name,
            networks=[{"port": web_a.id}, {"port": web_b.id}],
            scheduler_hints=hints,
        )
    )
    vm2 = tracker.track(
        cloud.compute.create_server(
            name=f"{p}-vm2",
            image_id=shared.image_id,
            flavor_id=shared.flavor_id,
            networks=[{"port": db_a.id}],
            scheduler_hints=hints,
        )
    )
    vols = [tracker.track(cloud.block_storage.create_volume(name=f"{p}-vol{i}", size=1)) for i in (1, 2)]
    fips = []
    for port in (web_a, db_a):
        fip = n.create_ip(floating_network_id=shared.public_network_id, port_id=port.id)
        tracker.track(fip, delete=lambda fip=fip: n.delete_ip(fip, ignore_missing=True))
        fips.append(fip)
    for vm, vol in zip((vm1, vm2), vols, strict=True):
        cloud.compute.wait_for_server(vm, wait=300)
        cloud.block_storage.wait_for_status(vol, "available", wait=120)
        cloud.compute.create_volume_attachment(vm, volume_id=vol.id)
    listener, pool, member, monitor = chain.result()
    for vol in vols:
        cloud.block_storage.wait_for_status(vol, "in-use", wait=120)
    named = {
        "net-a": net_a, "net-b": net_b, "sub-a": sub_a, "sub-b": sub_b, "router": router, "web": web, "db": db,
        "web-a": web_a, "web-b": web_b, "db-a": db_a, "spare": spare, "fixed": fixed, "group": group,
        "vm1": vm1, "vm2": vm2, "vol1": vols[0], "vol2": vols[1], "lb": lb, "listener": listener,
        "pool": pool, "member": member, "monitor": monitor,
    }  # fmt: skip
    ids = {k: str(o.id) for k, o in named.items()}
    ids["key"] = str(key.name)
    ids["fip1"], ids["fip2"] = (str(f.id) for f in fips)
    return ids


def inventory(cloud: Any, prefix: str, net_ids: set[str]) -> set[str]:
    """The ids of this test's objects of the generated types: named with its prefix, or on its networks (a
    port, a floating IP on such a port). Other tests make and delete objects in the same project at the same
    time."""
    n, lb = cloud.network, cloud.load_balancer

    def mine(objs: Any) -> set[str]:
        return {str(o.id) for o in objs if (o.name or "").startswith(prefix)}

    ports = {str(p.id) for p in n.ports() if p.network_id in net_ids or (p.name or "").startswith(prefix)}
    ids = set(ports)
    for objs in (n.networks(), n.subnets(), n.routers(), n.security_groups()):
        ids |= mine(objs)
    ids |= {str(f.id) for f in n.ips() if f.port_id in ports}
    ids |= mine(cloud.compute.servers()) | mine(cloud.block_storage.volumes())
    ids |= mine(cloud.compute.server_groups())
    ids |= {str(k.name) for k in cloud.compute.keypairs() if k.name.startswith(prefix)}
    ids |= mine(lb.load_balancers()) | mine(lb.listeners()) | mine(lb.health_monitors())
    for pool in lb.pools():
        if (pool.name or "").startswith(prefix):
            ids |= {str(pool.id)} | mine(lb.members(pool.id))
    return ids


def test_generate_validate_import_apply_then_no_change(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    clock = [time.monotonic()]

    def took(what: str) -> None:  # the time of each step, shown with -s
        now = time.monotonic()
        print(f"{what}: {now - clock[0]:.1f} s")
        clock[0] = now

    ids = make_project(cloud, cloud_shared, cloud_tracker)
    took("making the project")
    stack = cloud_tracker.name("stk")
    prefix = f"{cloud_tracker.prefix}-"

    r = hotc(
        tmp_path, hotc_cloud_env, "import", stack, "--generate", "gen", "--reachable-from", ids["net-a"],
        "--name-prefix", prefix,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    took("import --generate")
    tpl = yaml.safe_load((tmp_path / "gen/template.yaml").read_text())
    env = yaml.safe_load((tmp_path / "gen/parameters.yaml").read_text())
    imap = yaml.safe_load((tmp_path / "gen/import-map.yaml").read_text())
    res = tpl["resources"]
    # every object, under its name without the prefix; the router interfaces and attachments by their ids
    fips = sorted(k for k in imap if k.startswith("floating_ip_"))
    ifaces = {f"{ids['router']}:subnet_id={ids[s]}" for s in ("sub-a", "sub-b")}
    attachments = {f"{ids['vm1']}:{ids['vol1']}", f"{ids['vm2']}:{ids['vol2']}"}
    assert set(imap.values()) == set(ids.values()) | ifaces | attachments
    assert len(imap) == 29
    by_id = {v: k for k, v in imap.items()}
    assert {by_id[ids[k]] for k in ("net-a", "web-a", "vm1", "key", "lb", "monitor")} == {
        "net-a", "web-a", "vm1", "key", "lb", "monitor",
    }  # fmt: skip
    assert len(fips) == 2
    get = {"get_resource": "web"}
    rules = res["web"]["properties"]["rules"]
    assert {"protocol": "tcp", "remote_mode": "remote_group_id"} in rules  # on its own group
    assert [r.get("remote_group_id") for r in res["db"]["properties"]["rules"]] == [get]
    assert ids["db"] in [r.get("remote_group_id") for r in rules]  # the rule closing the loop: by id
    assert res["vm1"]["properties"]["networks"] == [
        {"port": {"get_resource": "web-a"}},
        {"port": {"get_resource": "web-b"}},
    ]  # the server's NIC order
    assert res["vm1"]["properties"]["key_name"] == {"get_resource": "key"}
    assert res["vm1"]["properties"]["scheduler_hints"] == {"group": {"get_resource": "group"}}
    assert res["vm1"]["properties"]["image"] == {"get_param": "image"}
    assert "security_groups" not in res["spare"]["properties"]  # the default group alone
    groups = res["fixed"]["properties"]["security_groups"]
    assert sorted(groups, key=str) == [{"get_resource": "db"}, get]
    assert res["listener"]["properties"]["loadbalancer"] == {"get_resource": "lb"}
    assert "default_pool" not in res["listener"]["properties"]
    assert res["pool"]["properties"]["listener"] == {"get_resource": "listener"}
    assert res["member"]["properties"]["pool"] == {"get_resource": "pool"}
    assert res["monitor"]["properties"]["pool"] == {"get_resource": "pool"}
    assert "name" not in res["monitor"]["properties"]
    assert res["lb"]["properties"]["vip_subnet"] == {"get_resource": "sub-a"}
    assert env["parameters"]["external_network"] == cloud_shared.public_network_id
    assert {"image", "flavor", "external_network"} <= set(tpl["parameters"])

    # Heat accepts the template as it is
    cloud.orchestration.validate_template(template=tpl, environment=env, template_url=None)
    r = hotc(tmp_path, hotc_cloud_env, "validate", "-t", "gen/template.yaml", "-e", "gen/parameters.yaml")
    assert r.returncode == 0, r.stdout + r.stderr

    nets = {ids["net-a"], ids["net-b"]}
    before = inventory(cloud, prefix, nets)
    files = ["-t", "gen/template.yaml", "-e", "gen/parameters.yaml"]
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--file", "gen/import-map.yaml", *files)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Import complete: {len(imap)} resource(s)" in r.stdout
    took("import --file")
    r = hotc(tmp_path, hotc_cloud_env, "apply", *files, stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    took("apply")
    r = hotc(tmp_path, hotc_cloud_env, "plan", *files, stack, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No changes" in r.stdout
    took("plan --refresh")
    assert inventory(cloud, prefix, nets) == before  # nothing made, nothing deleted

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    took("destroy")
    assert not inventory(cloud, prefix, nets) & set(ids.values())
