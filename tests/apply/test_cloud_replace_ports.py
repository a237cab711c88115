"""Replacing a server that uses an explicit port, against the real test cloud (Heat's
``Server.prepare_for_replace`` / ``restore_prev_rsrc``): the old server lets go of the port before its
replacement is created, and takes it back when the replacement fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
  version: {type: string, default: "1"}
  zone: {type: string, default: ""}
conditions:
  has_zone: {not: {equals: [{get_param: zone}, ""]}}
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_param: network}
  web:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      user_data: {str_replace: {template: "#!/bin/sh\\necho vVERSION\\n", params: {VERSION: {get_param: version}}}}
      availability_zone: {if: [has_zone, {get_param: zone}, null]}
      networks:
        - port: {get_resource: port}
outputs:
  ip:
    value: {get_attr: [web, first_address]}
"""


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]


def state_of(cwd: Path, stack: str) -> Any:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd).read(stack)
    return st


def server_ports(conn: Any, sid: str) -> list[str]:
    return [str(i.port_id) for i in conn.compute.server_interfaces(sid)]


def live(conn: Any, sid: str) -> Any:
    from openstack import exceptions

    try:
        s = conn.compute.get_server(sid)
    except exceptions.NotFoundException:
        return None
    return None if str(s.status).upper() in ("DELETED", "SOFT_DELETED") else s


def test_cloud_replace_server_keeps_its_explicit_port(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("rport")
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    base = [
        "-t",
        str(t),
        "--parameter",
        f"image={cloud_shared.image_name}",
        "--parameter",
        f"flavor={cloud_shared.flavor_name}",
        "--parameter",
        f"network={cloud_shared.private_network_id}",
    ]
    try:
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
        st = state_of(tmp_path, stack)
        port_id, old_sid = st.resources["port"].physical_id, st.resources["web"].physical_id
        assert server_ports(cloud, old_sid) == [port_id]
        ip = st.outputs["ip"].value
        assert ip == cloud.network.get_port(port_id).fixed_ips[0]["ip_address"]

        # a failed replacement (an availability zone Nova does not have) gives the port back to the old server
        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "apply",
            *base,
            "--parameter",
            "zone=hotc-no-such-zone",
            stack,
            "--auto-approve",
        )
        assert r.returncode != 0, tail(r)
        st = state_of(tmp_path, stack)
        assert st.resources["web"].status == "CREATE_FAILED", st.resources["web"]
        assert [d.physical_id for d in st.resources["web"].deposed] == [old_sid]
        port = cloud.network.get_port(port_id)
        assert port.device_id == old_sid, (port.device_id, st.resources["web"].status_reason, tail(r))
        assert f"re-attaching port {port_id} to the old server {old_sid}" in r.stdout, tail(r)
        assert server_ports(cloud, old_sid) == [port_id]

        # a replacement (user_data with the default user_data_update_policy REPLACE) takes the port over
        r = hotc(
            tmp_path, hotc_cloud_env, "apply", *base, "--parameter", "version=2", stack, "--auto-approve"
        )
        assert r.returncode == 0, tail(r)
        st = state_of(tmp_path, stack)
        new_sid = st.resources["web"].physical_id
        assert new_sid != old_sid and st.resources["web"].status == "CREATE_COMPLETE"
        assert st.resources["web"].deposed == ()
        assert st.resources["port"].physical_id == port_id  # the port survives, same id and address
        port = cloud.network.get_port(port_id)
        assert port.device_id == new_sid
        assert port.fixed_ips[0]["ip_address"] == ip
        assert server_ports(cloud, new_sid) == [port_id]
        assert live(cloud, old_sid) is None
        assert st.outputs["ip"].value == ip
    finally:
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert live(cloud, new_sid) is None
    from openstack import exceptions

    with pytest.raises(exceptions.NotFoundException):
        cloud.network.get_port(port_id)


EXAMPLES = REPO / "examples"


def stamped_leftovers(conn: Any, lineage: str) -> list[str]:
    tag = f"hotc-lineage={lineage}"
    left = [f"port {p.id}" for p in conn.network.ports(tags=tag)]
    left += [f"net {n.id}" for n in conn.network.networks(tags=tag)]
    left += [
        f"server {s.id}" for s in conn.compute.servers() if (s.metadata or {}).get("hotc-lineage") == lineage
    ]
    left += [
        f"volume {v.id}"
        for v in conn.block_storage.volumes()
        if (v.metadata or {}).get("hotc-lineage") == lineage
    ]
    return left


def test_cloud_multitier_example_replaces_a_server_on_its_port(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """The multi-tier example's update scenario with a server replacement: ``web_b_revision`` changes web_b's
    user_data, so web_b is replaced; the new server takes over web_b_port, keeping its private address, its
    floating IP (associated to the port) and its pool member, while web_a is updated in place."""
    stack = cloud_tracker.name("webr")
    args = [
        "-t",
        str(EXAMPLES / "multitier.yaml"),
        "-e",
        str(EXAMPLES / "multitier-production.env.yaml"),
        stack,
        "--auto-approve",
    ]
    lineage = None
    try:
        r = hotc(tmp_path, hotc_cloud_env, "apply", *args)
        st = state_of(tmp_path, stack)
        lineage = st.lineage if st is not None else None
        assert r.returncode == 0, tail(r)
        ids = {a: rs.physical_id for a, rs in st.resources.items()}
        ip_b = cloud.network.get_port(ids["web_b_port"]).fixed_ips[0]["ip_address"]
        member_b = ids["member_b"]

        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "apply",
            *args,
            "--parameter",
            "app_version=2",
            "--parameter",
            "web_b_revision=2",
        )
        assert r.returncode == 0, tail(r)
        st2 = state_of(tmp_path, stack)
        ids2 = {a: rs.physical_id for a, rs in st2.resources.items()}
        assert all(rs.status.endswith("_COMPLETE") and rs.deposed == () for rs in st2.resources.values())
        # web_b replaced: a new server on the same port; the old one deleted after the new one was created
        assert ids2["web_b"] != ids["web_b"] and live(cloud, ids["web_b"]) is None
        assert {a for a in ids if ids2[a] != ids[a]} == {"web_b"}
        assert server_ports(cloud, ids2["web_b"]) == [ids["web_b_port"]]
        assert cloud.network.get_port(ids["web_b_port"]).device_id == ids2["web_b"]
        assert cloud.network.get_ip(ids["web_b_fip"]).port_id == ids["web_b_port"]
        assert [m.address for m in cloud.load_balancer.members(ids["pool"]) if m.id == member_b] == [ip_b]
        assert st2.outputs["web_private_ips"].value[1] == ip_b
        # web_a updated in place
        assert cloud.compute.get_server(ids["web_a"]).metadata["version"] == "2"
        lines = r.stdout.splitlines()
        order = [
            next(i for i, x in enumerate(lines) if x.startswith(p))
            for p in ("web_b: CREATE_COMPLETE", "web_b: DELETE_COMPLETE")
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
            "web_b_revision=2",
        )
        assert again.returncode == 0 and "No changes" in again.stdout, tail(again)
    finally:
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert lineage is not None and stamped_leftovers(cloud, lineage) == []


KEYPAIR = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  public_key: {type: string, default: ""}
  type: {type: string, default: ssh}
resources:
  kp:
    type: OS::Nova::KeyPair
    properties:
      name: {get_param: name}
      public_key: {get_param: public_key}
      type: {get_param: type}
"""


def new_public_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate().public_key()
    return key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def test_cloud_replace_key_pair_under_the_same_name(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """Heat's KeyPair.prepare_for_replace: a new public_key replaces the key pair under the same name (the old one
    is deleted first); a replacement that fails re-imports the old key."""
    stack = cloud_tracker.name("kp")
    name = cloud_tracker.name("key")
    cloud_tracker.defer("keypair", lambda: cloud.compute.delete_keypair(name, ignore_missing=True))
    t = tmp_path / "kp.yaml"
    t.write_text(KEYPAIR)
    k1, k2 = new_public_key(), new_public_key()
    base = ["-t", str(t), "--parameter", f"name={name}", stack, "--auto-approve"]
    try:
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", f"public_key={k1}")
        assert r.returncode == 0, tail(r)
        assert cloud.compute.get_keypair(name).public_key.split()[:2] == k1.split()[:2]

        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", f"public_key={k2}")
        assert r.returncode == 0, tail(r)
        st = state_of(tmp_path, stack)
        assert st.resources["kp"].physical_id == name and st.resources["kp"].deposed == ()
        assert cloud.compute.get_keypair(name).public_key.split()[:2] == k2.split()[:2]

        # x509 without a public key is refused by the driver after the old key pair was deleted: k2 comes back
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", "type=x509")
        assert r.returncode != 0, tail(r)
        assert "x509" in r.stdout + r.stderr and "re-importing the old key pair" in r.stdout, tail(r)
        assert cloud.compute.get_keypair(name).public_key.split()[:2] == k2.split()[:2]

        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", f"public_key={k2}")
        assert r.returncode == 0, tail(r)
    finally:
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    assert [k.name for k in cloud.compute.keypairs() if k.name == name] == []


FIXED_IP = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  version: {type: string, default: "1"}
  zone: {type: string, default: ""}
conditions:
  has_zone: {not: {equals: [{get_param: zone}, ""]}}
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.61.0.0/24}
  web:
    type: OS::Nova::Server
    depends_on: [subnet]
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      user_data: {str_replace: {template: "#!/bin/sh\\necho vVERSION\\n", params: {VERSION: {get_param: version}}}}
      availability_zone: {if: [has_zone, {get_param: zone}, null]}
      networks:
        - network: {get_resource: net}
          fixed_ip: 10.61.0.50
"""


def server_ips(conn: Any, sid: str) -> list[str]:
    return [f["ip_address"] for i in conn.compute.server_interfaces(sid) for f in i.fixed_ips or []]


def test_cloud_replace_server_keeps_its_fixed_ip(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """A ``{network, fixed_ip}`` entry (a port Nova makes): the old server lets go of the IP for its replacement,
    and gets it back when the replacement fails."""
    stack = cloud_tracker.name("rip")
    t = tmp_path / "t.yaml"
    t.write_text(FIXED_IP)
    base = [
        "-t",
        str(t),
        "--parameter",
        f"image={cloud_shared.image_name}",
        "--parameter",
        f"flavor={cloud_shared.flavor_name}",
    ]
    try:
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
        old_sid = state_of(tmp_path, stack).resources["web"].physical_id
        assert server_ips(cloud, old_sid) == ["10.61.0.50"]

        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "apply",
            *base,
            "--parameter",
            "zone=hotc-no-such-zone",
            stack,
            "--auto-approve",
        )
        assert r.returncode != 0, tail(r)
        assert server_ips(cloud, old_sid) == ["10.61.0.50"], tail(r)
        assert "re-attaching an interface with 10.61.0.50" in r.stdout, tail(r)

        r = hotc(
            tmp_path, hotc_cloud_env, "apply", *base, "--parameter", "version=2", stack, "--auto-approve"
        )
        assert r.returncode == 0, tail(r)
        st = state_of(tmp_path, stack)
        new_sid = st.resources["web"].physical_id
        assert new_sid != old_sid and st.resources["web"].deposed == ()
        assert server_ips(cloud, new_sid) == ["10.61.0.50"]
        assert live(cloud, old_sid) is None
    finally:
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
