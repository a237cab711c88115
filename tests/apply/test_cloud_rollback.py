"""Rollback on the real test cloud: an update whose second step fails in a real driver (a Neutron port given a
fixed IP outside its subnet) after the first succeeded (the network renamed) is rolled back by ``hotc apply
--rollback``: the network gets its name back, the port keeps its object and address, what the update created is
deleted. Then the same template through real Heat (``stack update`` with rollback enabled) ends the same way."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  version: {type: string}
  ip: {type: string}
  extra: {type: boolean, default: false}
conditions:
  with_extra: {get_param: extra}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      name: {list_join: ["-", [{get_param: prefix}, net, {get_param: version}]]}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: 10.77.0.0/24
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}, ip_address: {get_param: ip}}]
  sg:
    type: OS::Neutron::SecurityGroup
    condition: with_extra
    properties:
      name: {list_join: ["-", [{get_param: prefix}, sg]]}
"""
GOOD = {"version": "1", "ip": "10.77.0.10"}
# the network is renamed (in place), the group is created, then the port's update fails: 10.77.1.10 is not in
# the subnet
BAD = {"version": "2", "ip": "10.77.1.10", "extra": "true"}


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=600
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-4000:] + "\n--- stderr ---\n" + r.stderr[-4000:]


def params(prefix: str, values: dict[str, str]) -> list[str]:
    out = ["--parameter", f"prefix={prefix}"]
    for k, v in values.items():
        out += ["--parameter", f"{k}={v}"]
    return out


def live_view(conn: Any, net_id: str, port_id: str, prefix: str) -> dict[str, Any]:
    """What the test compares: the network's name (without the prefix), the port's addresses, and whether the
    group the failed update made is still there."""
    net = conn.network.get_network(net_id)
    port = conn.network.get_port(port_id)
    groups = [g for g in conn.network.security_groups(name=f"{prefix}-sg")]
    return {
        "net": str(net.name).removeprefix(prefix),
        "ips": sorted(str(f["ip_address"]) for f in port.fixed_ips),
        "sg": len(groups),
    }


def test_cloud_update_rolled_back_after_a_driver_failure(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    from hotc.state import backend_from_config

    env = hotc_cloud_env
    stack = cloud_tracker.name("rb")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(tmp_path, env, "apply", "-t", "t.yaml", stack, *params(stack, GOOD), "--auto-approve")
    try:
        assert r.returncode == 0, tail(r)
        be = backend_from_config(str(tmp_path / ".hotc"), tmp_path)
        good, _ = be.read(stack)
        assert good is not None
        ids = {a: rs.physical_id for a, rs in good.resources.items()}
        assert live_view(cloud, ids["net"], ids["port"], stack) == {
            "net": "-net-1",
            "ips": ["10.77.0.10"],
            "sg": 0,
        }

        r = hotc(
            tmp_path, env, "apply", "-t", "t.yaml", stack, *params(stack, BAD), "--auto-approve", "--rollback"
        )
        assert r.returncode == 1, tail(r)
        assert "Traceback" not in r.stderr
        assert "update port" in r.stderr and "Rolling back:" in r.stdout, tail(r)
        st, _ = be.read(stack)
        assert st is not None
        assert st.status == "ROLLBACK_COMPLETE", tail(r)
        # the same objects, back as they were; the group the failed update made is gone
        assert {a: rs.physical_id for a, rs in st.resources.items()} == ids
        assert live_view(cloud, ids["net"], ids["port"], stack) == {
            "net": "-net-1",
            "ips": ["10.77.0.10"],
            "sg": 0,
        }
        assert st.template == good.template and st.parameters == good.parameters
        events = [e.status for e in be.read_events(stack) if e.type == "OS::Heat::Stack"]
        assert events[-2:] == ["ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"]
        r = hotc(tmp_path, env, "plan", "-t", "t.yaml", stack, *params(stack, GOOD), "--refresh")
        assert r.returncode == 0 and "No changes" in r.stdout, tail(r)
    finally:
        r = hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--missing-ok")
        assert r.returncode == 0, tail(r)


def _heat_wait(conn: Any, stack_id: str, done: tuple[str, ...], timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = conn.orchestration.get_stack(stack_id)
        if st.status in done or (st.status.endswith("_FAILED") and st.status not in ("UPDATE_FAILED",)):
            return st
        time.sleep(2)
    raise AssertionError(f"Heat stack {stack_id} not in {done} after {timeout}s")


def _heat_delete(conn: Any, stack_id: str) -> None:
    conn.orchestration.delete_stack(stack_id, ignore_missing=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            st = conn.orchestration.get_stack(stack_id)
        except Exception:  # noqa: BLE001 -- gone
            return
        if st is None or st.status == "DELETE_COMPLETE":
            return
        time.sleep(2)


def test_cloud_heat_rolls_the_same_update_back_the_same_way(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """Heat's end state after the same failed update with rollback enabled: the same objects, the network's
    name and the port's address back, the group gone, ROLLBACK_COMPLETE. hotc's test above asserts the same."""
    if cloud.session.get_endpoint(service_type="orchestration") is None:
        pytest.skip("no orchestration service in the catalog")
    name = cloud_tracker.name("rbheat")
    st = cloud.orchestration.create_stack(
        name=name, template=TEMPLATE, parameters={"prefix": name, **GOOD}, timeout_mins=5
    )
    cloud_tracker.defer(f"Heat stack {name}", lambda: _heat_delete(cloud, st.id))
    created = _heat_wait(cloud, st.id, ("CREATE_COMPLETE",))
    assert created.status == "CREATE_COMPLETE", created.status_reason
    before = {r.name: r.physical_resource_id for r in cloud.orchestration.resources(st.id)}
    cloud.orchestration.put(
        f"/stacks/{name}/{st.id}",
        json={"template": TEMPLATE, "parameters": {"prefix": name, **BAD}, "disable_rollback": False},
    ).raise_for_status()
    time.sleep(3)
    ended = _heat_wait(cloud, st.id, ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "UPDATE_COMPLETE"))
    assert ended.status == "ROLLBACK_COMPLETE", ended.status_reason
    after = {r.name: r.physical_resource_id for r in cloud.orchestration.resources(st.id)}
    assert after == before  # the same objects (the group is not in the rolled-back stack)
    assert live_view(cloud, before["net"], before["port"], name) == {
        "net": "-net-1",
        "ips": ["10.77.0.10"],
        "sg": 0,
    }
