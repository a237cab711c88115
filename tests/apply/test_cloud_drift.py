"""``hotc drift`` on the real test cloud: drift made out of band with openstacksdk (a renamed network, an extra
security group rule, a deleted port, a resized volume) is found in every format with exit 2, the state is not
written; accepted entries turn it into exit 0, and entries past their date back into 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
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
  port:
    type: OS::Neutron::Port
    properties:
      network: hotc-private
      security_groups: [{get_resource: sg}]
  data:
    type: OS::Cinder::Volume
    properties:
      size: 1
"""


def hotc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    full.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "hotc", *args], cwd=cwd, env=full, text=True, capture_output=True, timeout=900
    )


def tail(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout[-4000:] + "\n--- stderr ---\n" + r.stderr[-4000:]


def serial(cwd: Path, stack: str) -> int:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(str(cwd / ".hotc"), cwd).read(stack)
    assert st is not None
    return st.serial


def test_cloud_drift_found_in_every_format_accepted_and_expired(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    from hotc.state import backend_from_config

    env = hotc_cloud_env
    stack = cloud_tracker.name("drift")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    r = hotc(
        tmp_path, env, "apply", "-t", "t.yaml", stack, "--parameter", f"prefix={stack}", "--auto-approve"
    )
    try:
        assert r.returncode == 0, tail(r)
        r = hotc(tmp_path, env, "drift", stack)
        assert r.returncode == 0, tail(r)  # right after the apply: nothing
        st, _ = backend_from_config(str(tmp_path / ".hotc"), tmp_path).read(stack)
        assert st is not None
        ids = {a: rs.physical_id for a, rs in st.resources.items()}

        cloud.network.update_network(ids["net"], name=f"{stack}-renamed")
        cloud.network.create_security_group_rule(
            security_group_id=ids["sg"],
            direction="ingress",
            ethertype="IPv4",
            protocol="tcp",
            port_range_min=3306,
            port_range_max=3306,
            remote_ip_prefix="0.0.0.0/0",
        )
        cloud.network.delete_port(ids["port"])
        cloud.block_storage.extend_volume(ids["data"], 2)
        cloud.block_storage.wait_for_status(
            cloud.block_storage.get_volume(ids["data"]), "available", wait=120
        )
        before = serial(tmp_path, stack)

        r = hotc(tmp_path, env, "drift", stack, "--format", "json")
        assert r.returncode == 2, tail(r)
        found = {
            (res["address"], res["kind"]): sorted(
                p["path"].split("[")[0].split(".")[0] for p in res["properties"]
            )
            for s in json.loads(r.stdout)["stacks"]
            for res in s["resources"]
            if res["counts"]
        }
        assert found == {
            ("net", "changed"): ["name"],
            ("sg", "changed"): ["rules"],
            ("port", "deleted"): [],
            ("data", "changed"): ["size"],
        }, r.stdout
        r = hotc(tmp_path, env, "drift", stack)
        assert r.returncode == 2 and f'"{stack}-net" -> "{stack}-renamed"' in r.stdout, tail(r)
        assert "port (OS::Neutron::Port" in r.stdout and "deleted out of band" in r.stdout
        r = hotc(tmp_path, env, "drift", "--all", "--format", "markdown")
        assert (
            r.returncode == 2 and f"<!-- hotc-drift: {stack} -->" in r.stdout and "**Drift** in 4" in r.stdout
        )
        r = hotc(tmp_path, env, "drift", stack, "--format", "sarif")
        assert r.returncode == 2, tail(r)
        rules = sorted({x["ruleId"] for x in json.loads(r.stdout)["runs"][0]["results"]})
        assert rules == ["HOTC-DRIFT-CHANGED", "HOTC-DRIFT-DELETED"]
        assert serial(tmp_path, stack) == before  # read-only

        keys = ["net:name", "sg:rules", "port:*", "data:size"]
        for key in keys:
            r = hotc(
                tmp_path, env, "drift", stack, "--accept", key, "--reason", "known", "--until", "2999-12-31"
            )
            assert r.returncode == 0, tail(r)
        r = hotc(tmp_path, env, "drift", stack)
        assert r.returncode == 0, tail(r)
        assert "Accepted (not counted)" in r.stdout and "known" in r.stdout

        for key in keys:
            r = hotc(
                tmp_path, env, "drift", stack, "--accept", key, "--reason", "was", "--until", "2020-01-01"
            )
            assert r.returncode == 0, tail(r)
        r = hotc(tmp_path, env, "drift", stack)
        assert r.returncode == 2 and "expired" in r.stdout, tail(r)
    finally:
        r = hotc(tmp_path, env, "destroy", stack, "--auto-approve")
        assert r.returncode == 0, tail(r)
