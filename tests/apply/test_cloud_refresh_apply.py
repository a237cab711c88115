"""``hotc apply -t T --refresh`` on the real test cloud: a network disabled out of band is put back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.apply.test_cloud_adopt import hotc

pytestmark = pytest.mark.cloud


def test_apply_refresh_undoes_an_out_of_band_change(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    stack = cloud_tracker.name("stk")
    (tmp_path / "net.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  net: {type: OS::Neutron::Net}\n"
    )
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "net.yaml", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    shown = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, "net", "--format", "json")
    net_id = json.loads(shown.stdout)["physical_id"]
    cloud.network.update_network(net_id, admin_state_up=False)
    # without --refresh the recorded state says all is well
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "net.yaml", stack, "--auto-approve")
    assert r.returncode == 0 and "No changes" in r.stdout, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "net.yaml", stack, "--refresh", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "admin_state_up" in r.stdout and "1 updated" in r.stdout
    assert cloud.network.get_network(net_id).is_admin_state_up is True
    # apply --refresh-only (from the stack alone) records an out-of-band change; the next plan wants it back
    cloud.network.update_network(net_id, admin_state_up=False)
    r = hotc(tmp_path, hotc_cloud_env, "apply", stack, "--refresh-only", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 resource(s) updated from the cloud: net" in r.stdout
    assert cloud.network.get_network(net_id).is_admin_state_up is False  # the cloud was not changed
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "net.yaml", stack, "--format", "json")
    (net,) = [c for c in json.loads(r.stdout)["resource_changes"] if c["address"] == "net"]
    assert net["actions"] == ["update"] and net["changed_paths"] == [["admin_state_up"]]
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
