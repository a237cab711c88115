"""``hotc apply`` against the real test cloud (tests/cloud): create, in-place update, replacement in Heat's
order, destroy; and SIGKILL at random moments followed by a converging apply with nothing left behind."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

NET_STACK = """
heat_template_version: 2018-08-31
parameters:
  cidr: {type: string, default: 10.77.0.0/24}
  net_label: {type: string, default: one}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      value_specs: {description: {get_param: net_label}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: {get_param: cidr}
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      security_groups: [{get_resource: sg}]
outputs:
  port_ip:
    value: {get_attr: [port, fixed_ips, 0, ip_address]}
"""


def hotc(
    cwd: Path, env: dict[str, str], *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=full,
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    """The end of a run's output: where the errors are."""
    return r.stdout[-2500:] + "\n--- stderr ---\n" + r.stderr[-2500:]


def state_of(cwd: Path, stack: str) -> Any:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd).read(stack)
    return st


def tagged(conn: Any, lineage: str) -> dict[str, str]:
    """Neutron objects stamped with ``lineage``: id -> kind."""
    tag = f"hotc-lineage={lineage}"
    found: dict[str, str] = {}
    for kind, items in (
        ("net", conn.network.networks(tags=tag)),
        ("subnet", conn.network.subnets(tags=tag)),
        ("sg", conn.network.security_groups(tags=tag)),
        ("port", conn.network.ports(tags=tag)),
    ):
        for o in items:
            found[o.id] = kind
    return found


def named(conn: Any, stack: str) -> set[str]:
    """Neutron objects named as hotc names this stack's resources (``<stack>-<address>-<random>``), stamped or
    not (a run killed between a create and its tagging leaves an untagged object)."""
    found: set[str] = set()
    for items in (
        conn.network.networks(),
        conn.network.subnets(),
        conn.network.security_groups(),
        conn.network.ports(),
    ):
        found.update(o.id for o in items if (o.name or "").startswith(stack + "-"))
    return found


def named_compute(conn: Any, stack: str) -> set[str]:
    """Servers and volumes named as hotc names this stack's resources."""
    found = {s.id for s in conn.compute.servers() if (s.name or "").startswith(stack + "-")}
    found |= {v.id for v in conn.block_storage.volumes() if (v.name or "").startswith(stack + "-")}
    return found


def recorded_ids(state: Any) -> set[str]:
    ids = set()
    for rs in state.resources.values():
        if rs.physical_id:
            ids.add(rs.physical_id)
        ids.update(d.physical_id for d in rs.deposed)
    return ids


def test_cloud_network_stack_create_update_replace_destroy(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("net")
    t = tmp_path / "net.yaml"
    t.write_text(NET_STACK)
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", str(t), stack, "--auto-approve")
    assert r.returncode == 0, tail(r)
    st = state_of(tmp_path, stack)
    ids = {a: rs.physical_id for a, rs in st.resources.items()}
    assert set(ids) == {"net", "subnet", "sg", "port"}
    # every object carries lineage and address
    net = cloud.network.get_network(ids["net"])
    assert f"hotc-lineage={st.lineage}" in net.tags and "hotc-address=net" in net.tags
    port = cloud.network.get_port(ids["port"])
    assert port.fixed_ips[0]["subnet_id"] == ids["subnet"] and port.security_group_ids == [ids["sg"]]
    assert st.outputs["port_ip"].value == port.fixed_ips[0]["ip_address"]

    # in place (net) + replacement (subnet: cidr cannot be updated): new subnet, port moved, old subnet deleted
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "apply",
        "-t",
        str(t),
        stack,
        "--auto-approve",
        "--parameter",
        "cidr=10.78.0.0/24",
        "--parameter",
        "net_label=two",
    )
    assert r.returncode == 0, tail(r)
    st2 = state_of(tmp_path, stack)
    assert st2.resources["net"].physical_id == ids["net"]
    assert st2.resources["port"].physical_id == ids["port"]
    new_subnet = st2.resources["subnet"].physical_id
    assert new_subnet != ids["subnet"] and st2.resources["subnet"].deposed == ()
    assert cloud.network.find_subnet(ids["subnet"]) is None
    assert cloud.network.get_subnet(new_subnet).cidr == "10.78.0.0/24"
    assert cloud.network.get_port(ids["port"]).fixed_ips[0]["subnet_id"] == new_subnet
    assert cloud.network.get_network(ids["net"]).description == "two"
    lines = r.stdout.splitlines()
    create_new = next(i for i, x in enumerate(lines) if x.startswith("subnet: CREATE_COMPLETE"))
    port_upd = next(i for i, x in enumerate(lines) if x.startswith("port: UPDATE_COMPLETE"))
    old_del = next(i for i, x in enumerate(lines) if x.startswith("subnet: DELETE_COMPLETE"))
    assert create_new < port_upd < old_del

    d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert state_of(tmp_path, stack).resources == {}
    assert tagged(cloud, st.lineage) == {}


KILL_STACK = (
    """
heat_template_version: 2018-08-31
resources:
"""
    + "".join(
        f"""
  net{i}:
    type: OS::Neutron::Net
  subnet{i}:
    type: OS::Neutron::Subnet
    properties:
      network: {{get_resource: net{i}}}
      cidr: 10.9{i}.0.0/24
  sg{i}:
    type: OS::Neutron::SecurityGroup
  port{i}:
    type: OS::Neutron::Port
    properties:
      network: {{get_resource: net{i}}}
      fixed_ips: [{{subnet: {{get_resource: subnet{i}}}}}]
      security_groups: [{{get_resource: sg{i}}}]
"""
        for i in range(3)
    )
    + """
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1}
  srv:
    type: OS::Nova::Server
    properties:
      image: {{image}}
      flavor: {{flavor}}
      networks: [{port: {get_resource: port0}}]
  attach:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: srv}
      volume_id: {get_resource: vol}
"""
)


def test_cloud_sigkill_at_random_moments_then_apply_converges(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("kill")
    t = tmp_path / "kill.yaml"
    # the server needs the shared image and flavor: asked for through cloud_shared, which makes them on a
    # fresh cloud (the test passed before only when an earlier test had made them)
    t.write_text(
        KILL_STACK.replace("{{image}}", cloud_shared.image_name).replace(
            "{{flavor}}", cloud_shared.flavor_name
        )
    )
    env = {**hotc_cloud_env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    rng = random.Random(os.getpid())
    for _ in range(4):
        p = subprocess.Popen(
            [sys.executable, "-m", "hotc", "apply", "-t", str(t), stack, "--auto-approve"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(2.0, 6.0))  # startup is ~1-2 s; creates run for several seconds
        p.kill()
        p.wait()
        st = state_of(tmp_path, stack)
        if st is None:
            continue
        # whatever exists in the cloud is either recorded, or left IN_PROGRESS with no id for adoption
        unknown = (
            set(tagged(cloud, st.lineage)) | named(cloud, stack) | named_compute(cloud, stack)
        ) - recorded_ids(st)
        pending = [a for a, rs in st.resources.items() if rs.in_progress and rs.physical_id is None]
        assert len(unknown) <= len(pending), (unknown, pending)
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", str(t), stack, "--auto-approve")
    assert r.returncode == 0, tail(r)
    st = state_of(tmp_path, stack)
    assert len(st.resources) == 15 and all(rs.status.endswith("_COMPLETE") for rs in st.resources.values())
    assert all(rs.deposed == () for rs in st.resources.values())
    recorded = recorded_ids(st) - {st.resources["attach"].physical_id}  # an attachment is not an object
    # nothing orphaned, nothing lost
    assert set(tagged(cloud, st.lineage)) | named(cloud, stack) | named_compute(cloud, stack) == recorded
    # and every object carries the stamp (one killed before its tagging got it back when kept)
    stamped = set(tagged(cloud, st.lineage))
    stamped |= {x.id for x in cloud.compute.servers() if (x.metadata or {}).get("hotc-lineage") == st.lineage}
    stamped |= {
        v.id for v in cloud.block_storage.volumes() if (v.metadata or {}).get("hotc-lineage") == st.lineage
    }
    assert stamped == recorded
    again = hotc(tmp_path, hotc_cloud_env, "apply", "-t", str(t), stack, "--auto-approve")
    assert again.returncode == 0 and "No changes" in again.stdout
    d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert (
        tagged(cloud, st.lineage) == {}
        and named(cloud, stack) == set()
        and named_compute(cloud, stack) == set()
    )


MULTITIER = REPO / "examples" / "multitier.yaml"
MULTITIER_PROD = REPO / "examples" / "multitier-production.env.yaml"


def leftovers(conn: Any, lineage: str) -> list[str]:
    """Everything in the cloud stamped with ``lineage``: neutron (tags), servers and volumes (metadata), LBs."""
    left = [f"{kind} {oid}" for oid, kind in tagged(conn, lineage).items()]
    tag = f"hotc-lineage={lineage}"
    left += [f"router {r.id}" for r in conn.network.routers(tags=tag)]
    left += [f"fip {f.id}" for f in conn.network.ips(tags=tag)]
    left += [
        f"server {s.id}" for s in conn.compute.servers() if (s.metadata or {}).get("hotc-lineage") == lineage
    ]
    left += [
        f"volume {v.id}"
        for v in conn.block_storage.volumes()
        if (v.metadata or {}).get("hotc-lineage") == lineage
    ]
    left += [f"lb {lb.id}" for lb in conn.load_balancer.load_balancers() if tag in (lb.tags or [])]
    return left


def test_cloud_multitier_example_apply_update_replace_destroy(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("web")
    args = ["-t", str(MULTITIER), "-e", str(MULTITIER_PROD), stack, "--auto-approve"]
    r = hotc(tmp_path, hotc_cloud_env, "apply", *args)
    st = state_of(tmp_path, stack)
    if r.returncode != 0:  # leave nothing behind even when the apply fails
        hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, tail(r)
    assert len(st.resources) == 20 and all(rs.status == "CREATE_COMPLETE" for rs in st.resources.values())
    ids = {a: rs.physical_id for a, rs in st.resources.items()}
    web_a = cloud.compute.get_server(ids["web_a"])
    assert web_a.metadata["hotc-lineage"] == st.lineage and web_a.metadata["hotc-address"] == "web_a"
    assert web_a.metadata["version"] == "1"
    vol = cloud.block_storage.get_volume(ids["data"])
    assert vol.size == 2 and [a["server_id"] for a in vol.attachments] == [ids["web_a"]]
    members = list(cloud.load_balancer.members(ids["pool"]))
    assert sorted(m.address for m in members) == sorted(st.outputs["web_private_ips"].value)
    fip_b = cloud.network.get_ip(ids["web_b_fip"])
    assert fip_b.port_id == ids["web_b_port"]
    assert len(st.outputs["web_public_ips"].value) == 2 and st.outputs["lb_vip"].value

    # one in-place update (server metadata) and one replacement (the volume: availability_zone cannot be updated):
    # the new volume is created, the attachment moved to it, then the old volume deleted
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "apply",
        *args,
        "--parameter",
        "app_version=2",
        "--parameter",
        "volume_az=nova",
    )
    assert r.returncode == 0, tail(r)
    st2 = state_of(tmp_path, stack)
    assert (
        st2.resources["web_a"].physical_id == ids["web_a"]
        and st2.resources["web_b"].physical_id == ids["web_b"]
    )
    assert cloud.compute.get_server(ids["web_a"]).metadata["version"] == "2"
    new_vol = st2.resources["data"].physical_id
    assert new_vol != ids["data"] and cloud.block_storage.find_volume(ids["data"]) is None
    assert [a["server_id"] for a in cloud.block_storage.get_volume(new_vol).attachments] == [ids["web_a"]]
    assert st2.outputs["volume_id"].value == new_vol
    lines = r.stdout.splitlines()
    order = [
        next(i for i, x in enumerate(lines) if x.startswith(p))
        for p in ("data: CREATE_COMPLETE", "data_attachment: UPDATE_COMPLETE", "data: DELETE_COMPLETE")
    ]
    assert order == sorted(order)
    again = hotc(
        tmp_path,
        hotc_cloud_env,
        "apply",
        *args,
        "--parameter",
        "app_version=2",
        "--parameter",
        "volume_az=nova",
    )
    assert again.returncode == 0 and "No changes" in again.stdout

    d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert state_of(tmp_path, stack).resources == {}
    assert leftovers(cloud, st.lineage) == []
