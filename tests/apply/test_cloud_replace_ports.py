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
    return subprocess.run([sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True,
                          timeout=600)


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]


def state_of(cwd: Path, stack: str) -> Any:
    from hotc.state.backend import backend_from_config

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


def test_cloud_replace_server_keeps_its_explicit_port(cloud: Any, cloud_shared: Any, cloud_tracker: Any,
                                                       hotc_cloud_env: dict[str, str], tmp_path: Path) -> None:
    stack = cloud_tracker.name("rport")
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE)
    base = ["-t", str(t), "--parameter", f"image={cloud_shared.image_name}",
            "--parameter", f"flavor={cloud_shared.flavor_name}",
            "--parameter", f"network={cloud_shared.private_network_id}"]
    try:
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
        st = state_of(tmp_path, stack)
        port_id, old_sid = st.resources["port"].physical_id, st.resources["web"].physical_id
        assert server_ports(cloud, old_sid) == [port_id]
        ip = st.outputs["ip"].value
        assert ip == cloud.network.get_port(port_id).fixed_ips[0]["ip_address"]

        # a failed replacement (an availability zone Nova does not have) gives the port back to the old server
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", "zone=hotc-no-such-zone", stack,
                 "--auto-approve")
        assert r.returncode != 0, tail(r)
        st = state_of(tmp_path, stack)
        assert st.resources["web"].status == "CREATE_FAILED", st.resources["web"]
        assert [d.physical_id for d in st.resources["web"].deposed] == [old_sid]
        port = cloud.network.get_port(port_id)
        assert port.device_id == old_sid, (port.device_id, st.resources["web"].status_reason, tail(r))
        assert server_ports(cloud, old_sid) == [port_id]

        # a replacement (user_data with the default user_data_update_policy REPLACE) takes the port over
        r = hotc(tmp_path, hotc_cloud_env, "apply", *base, "--parameter", "version=2", stack, "--auto-approve")
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
