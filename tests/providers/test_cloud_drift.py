"""Drift on the real test cloud: right after an apply a refresh finds nothing (every supported type of the
multitier and webapp examples: the noise test), and each change made outside hotc (a network renamed and set
down, an extra security group rule, a volume grown and re-labelled, a server resized and re-labelled, a load
balancer setting) is found as exactly the properties it touched; ``plan --refresh`` then plans the updates
that bring the objects back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.providers.test_openstack_glance import web_server  # noqa: F401, F811 -- the fixture
from tests.providers.test_openstack_nova import PUBKEY

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-4000:] + "\n--- stderr ---\n" + r.stderr[-4000:]


def drift_of(cwd: Path, env: dict[str, str], stack: str, *template: str) -> dict[str, list[str]]:
    """``plan --refresh-only``'s drift: address -> changed top-level properties (["<gone>"] when gone)."""
    r = hotc(cwd, env, "plan", *template, stack, "--refresh-only", "--format", "json")
    assert r.returncode in (0, 2), tail(r)
    doc = json.loads(r.stdout)
    out: dict[str, list[str]] = {}
    for c in doc["resource_drift"]:
        if c["actions"] == ["delete"]:
            out[c["address"]] = ["<gone>"]
        else:
            out[c["address"]] = sorted({str(p[0]) for p in c["changed_paths"]})
    return out


def applied(cwd: Path, env: dict[str, str], stack: str, *template: str) -> None:
    r = hotc(cwd, env, "apply", *template, stack, "--auto-approve")
    if r.returncode != 0:
        hotc(cwd, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, tail(r)


def types_of(cwd: Path, stack: str) -> set[str]:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(str(cwd / ".hotc"), cwd).read(stack)
    assert st is not None
    return {rs.type for rs in st.resources.values()}


@pytest.mark.parametrize(
    "template",
    [
        ["-t", str(EXAMPLES / "multitier.yaml"), "-e", str(EXAMPLES / "multitier-production.env.yaml")],
        [
            "-t",
            str(EXAMPLES / "webapp.yaml"),
            "-e",
            str(EXAMPLES / "webapp-env.yaml"),
            "--parameter",
            "image=hotc-tiny",
        ],
    ],
    ids=["multitier", "webapp"],
)
def test_cloud_no_drift_right_after_apply(
    template: list[str],
    cloud: Any,
    cloud_shared: Any,
    cloud_tracker: Any,
    hotc_cloud_env: dict[str, str],
    tmp_path: Path,
) -> None:
    stack = cloud_tracker.name("noise")
    applied(tmp_path, hotc_cloud_env, stack, *template)
    try:
        assert drift_of(tmp_path, hotc_cloud_env, stack, *template) == {}
        r = hotc(tmp_path, hotc_cloud_env, "plan", *template, stack, "--refresh", "--detailed-exitcode")
        assert r.returncode == 0, tail(r)  # and nothing to do
        assert len(types_of(tmp_path, stack)) >= 8
    finally:
        destroy(cloud, tmp_path, hotc_cloud_env, stack)


def destroy(cloud: Any, cwd: Path, env: dict[str, str], stack: str) -> None:
    """Destroy the stack; webapp's volume has ``deletion_policy: Snapshot`` and the test cloud has no backup
    service, so hotc keeps it (as it must): forget it, delete it directly, and finish the destroy."""
    from hotc.state import backend_from_config

    r = hotc(cwd, env, "destroy", stack, "--auto-approve")
    if r.returncode != 0 and "deletion_policy Snapshot: the volume is kept" in r.stdout + r.stderr:
        st, _ = backend_from_config(str(cwd / ".hotc"), cwd).read(stack)
        assert st is not None
        kept = [a for a, rs in st.resources.items() if rs.type == "OS::Cinder::Volume"]
        for addr in kept:
            vid = st.resources[addr].physical_id
            assert hotc(cwd, env, "state", "rm", stack, addr).returncode == 0
            for att in cloud.block_storage.get_volume(vid).attachments or []:
                cloud.compute.delete_volume_attachment(att["server_id"], vid)
            cloud.block_storage.wait_for_status(cloud.block_storage.get_volume(vid), "available", wait=120)
            cloud.block_storage.delete_volume(vid)
        r = hotc(cwd, env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, tail(r)


TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  size: {type: number, default: 1}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      name: {list_join: ["-", [{get_param: prefix}, net]]}
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}
  data:
    type: OS::Cinder::Volume
    properties:
      size: {get_param: size}
      metadata: {tier: db}
  web:
    type: OS::Nova::Server
    properties:
      image: hotc-tiny
      flavor: m1.tiny
      networks: [{network: hotc-private}]
      security_groups: [{get_resource: sg}]
      metadata: {role: web}
  lb:
    type: OS::Octavia::LoadBalancer
    properties:
      vip_subnet: hotc-private-subnet
      description: front door
"""


def test_cloud_out_of_band_changes_are_drift_and_refresh_plans_them_back(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    from hotc.state import backend_from_config

    stack = cloud_tracker.name("drift")
    t = tmp_path / "drift.yaml"
    t.write_text(TEMPLATE)
    template = ["-t", str(t), "--parameter", f"prefix={stack}"]
    applied(tmp_path, hotc_cloud_env, stack, *template)
    try:
        assert drift_of(tmp_path, hotc_cloud_env, stack, *template) == {}
        st, _ = backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)
        ids = {a: rs.physical_id for a, rs in st.resources.items()}
        # out of band, as an operator would with the openstack CLI
        cloud.network.update_network(ids["net"], name=f"{stack}-renamed", admin_state_up=False)
        cloud.network.create_security_group_rule(
            security_group_id=ids["sg"],
            direction="ingress",
            ethertype="IPv4",
            protocol="tcp",
            port_range_min=3306,
            port_range_max=3306,
            remote_ip_prefix="0.0.0.0/0",
        )
        cloud.block_storage.extend_volume(ids["data"], 2)
        cloud.block_storage.wait_for_status(
            cloud.block_storage.get_volume(ids["data"]), "available", wait=120
        )
        cloud.block_storage.set_volume_metadata(ids["data"], tier="web")
        small = cloud.compute.find_flavor("m1.small")
        cloud.compute.resize_server(ids["web"], small.id)
        cloud.compute.wait_for_server(cloud.compute.get_server(ids["web"]), status="VERIFY_RESIZE", wait=300)
        cloud.compute.confirm_server_resize(ids["web"])
        cloud.compute.wait_for_server(cloud.compute.get_server(ids["web"]), status="ACTIVE", wait=300)
        cloud.compute.set_server_metadata(ids["web"], role="db")
        cloud.load_balancer.update_load_balancer(
            ids["lb"], description="changed by hand", admin_state_up=False
        )
        cloud.load_balancer.wait_for_load_balancer(ids["lb"], status="ACTIVE", wait=300)

        found = drift_of(tmp_path, hotc_cloud_env, stack, *template)
        assert found == {
            "net": ["admin_state_up", "name"],
            "sg": ["rules"],
            "data": ["metadata", "size"],
            "web": ["flavor", "metadata"],
            "lb": ["admin_state_up", "description"],
        }
        r = hotc(tmp_path, hotc_cloud_env, "plan", *template, stack, "--refresh-only")
        assert f'name: "{stack}-renamed" -> ' not in r.stdout  # recorded -> live, in that order
        assert f'"{stack}-net" -> "{stack}-renamed"' in r.stdout, tail(r)

        # --refresh plans what brings them back (the volume cannot shrink: the template now says 2 GB)
        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "plan",
            *template,
            "--parameter",
            "size=2",
            stack,
            "--refresh",
            "--format",
            "json",
        )
        assert r.returncode in (0, 2), tail(r)
        planned = {c["address"]: c["actions"] for c in json.loads(r.stdout)["resource_changes"]}
        assert planned == {
            "net": ["update"],
            "sg": ["update"],
            "data": ["update"],
            "web": ["update"],
            "lb": ["update"],
        }
        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "plan",
            *template,
            "--parameter",
            "size=2",
            stack,
            "--refresh",
            "-o",
            str(tmp_path / "back.plan"),
        )
        assert r.returncode in (0, 2), tail(r)
        r = hotc(tmp_path, hotc_cloud_env, "apply", str(tmp_path / "back.plan"))
        assert r.returncode == 0, tail(r)
        net = cloud.network.get_network(ids["net"])
        assert net.name == f"{stack}-net" and net.is_admin_state_up is True
        assert not [
            r
            for r in cloud.network.security_group_rules(security_group_id=ids["sg"])
            if r.port_range_min == 3306
        ]
        assert cloud.block_storage.get_volume(ids["data"]).metadata["tier"] == "db"
        web = cloud.compute.get_server(ids["web"])
        assert web.flavor.original_name == "m1.tiny" and web.metadata["role"] == "web"
        lb = cloud.load_balancer.get_load_balancer(ids["lb"])
        assert lb.description == "front door" and lb.is_admin_state_up is True
        assert drift_of(tmp_path, hotc_cloud_env, stack, *template, "--parameter", "size=2") == {}
    finally:
        destroy(cloud, tmp_path, hotc_cloud_env, stack)


def test_cloud_no_drift_for_the_types_the_examples_do_not_have(
    cloud: Any,
    cloud_shared: Any,
    cloud_tracker: Any,
    web_server: str,  # noqa: F811
) -> None:
    """KeyPair, Flavor, SecurityGroupRule, FloatingIPAssociation and WebImage: made through their drivers, read
    back with no drift, and each out-of-band change found. (The test cloud has no Swift: the Container driver is
    tested offline.)"""
    from tests.providers.offline.helpers import drift, driver
    from tests.providers.test_openstack_common import make_ctx

    lineage = cloud_tracker.name("lin")
    made: list[tuple[str, str, dict[str, Any]]] = []

    def make(address: str, type_name: str, props: dict[str, Any]) -> tuple[Any, str]:
        ctx = make_ctx(cloud, address, type_name, lineage=lineage, stack=cloud_tracker.name("s"))
        out = driver(type_name).create(ctx, props)
        made.append((address, type_name, props | {"__pid": out.physical_id}))
        assert drift(type_name, props, driver(type_name).read(ctx, out.physical_id, props)) == [], type_name
        return ctx, out.physical_id

    try:
        kp_props = {"name": cloud_tracker.name("kp"), "public_key": PUBKEY}
        make("kp", "OS::Nova::KeyPair", kp_props)
        fl_props = {"name": cloud_tracker.name("fl"), "ram": 64, "vcpus": 1, "extra_specs": {"hw:x": "1"}}
        fl_ctx, fl_id = make("fl", "OS::Nova::Flavor", fl_props)
        sg = cloud.network.create_security_group(name=cloud_tracker.name("sg"))
        cloud_tracker.track(sg)
        rule_props = {"security_group": sg.id, "port_range_min": 443, "port_range_max": 443}
        make("rule", "OS::Neutron::SecurityGroupRule", rule_props)
        port = cloud.network.create_port(
            name=cloud_tracker.name("port"), network_id=cloud_shared.private_network_id
        )
        cloud_tracker.track(port)
        fip_ctx, fip_id = make("fip", "OS::Neutron::FloatingIP", {"floating_network": "public"})
        assoc = {"floatingip_id": fip_id, "port_id": port.id}
        make("assoc", "OS::Neutron::FloatingIPAssociation", assoc)
        img_props = {
            "location": f"{web_server}/image.raw",
            "disk_format": "raw",
            "container_format": "bare",
            "name": cloud_tracker.name("img"),
            "tags": ["t1"],
            "min_ram": 1,
        }
        img_ctx, img_id = make("img", "OS::Glance::WebImage", img_props)
        # out of band
        cloud.compute.update_flavor_extra_specs_property(fl_id, "hw:x", "2")
        cloud.image.update_image(img_id, min_ram=7)
        assert drift(
            "OS::Nova::Flavor", fl_props, driver("OS::Nova::Flavor").read(fl_ctx, fl_id, fl_props)
        ) == ["extra_specs"]
        assert drift(
            "OS::Glance::WebImage", img_props, driver("OS::Glance::WebImage").read(img_ctx, img_id, img_props)
        ) == ["min_ram"]
    finally:
        for address, type_name, props in reversed(made):
            pid = props.pop("__pid")
            ctx = make_ctx(cloud, address, type_name, lineage=lineage)
            driver(type_name).delete(ctx, pid, props)
