"""hotc's plan against REAL Heat on the test cloud (Heat's two-tier example), and custom constraints
checked against the cloud at plan time.

The two-tier web app of ``tests/planner/data/two_tier_web.yaml`` is created with Heat and updated with a new
``app_port``; what Heat really replaced (physical id changed) and updated in place (same id, UPDATE_COMPLETE)
is recorded. The same template is applied with hotc, and ``hotc plan --format json`` with the new port must
replace exactly what Heat replaced and update in place what Heat updated in place; applying it must converge.
Both stacks are destroyed and nothing of theirs is left in the cloud.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = Path(__file__).parent / "data" / "two_tier_web.yaml"
OLD_PORT, NEW_PORT = 8080, 9090


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
    return r.stdout[-3000:] + "\n--- stderr ---\n" + r.stderr[-3000:]


# ------------------------------------------------------------------------------------------ custom constraints


def test_wrong_image_name_fails_the_plan_against_the_cloud(
    cloud_shared: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    bad = hotc(
        tmp_path,
        hotc_cloud_env,
        "plan",
        "-t",
        str(TEMPLATE),
        "web",
        "--parameter",
        "image=hotc-no-such-image",
        timeout=120,
    )
    assert bad.returncode == 1, tail(bad)
    assert bad.stdout == "", tail(bad)  # no plan shown
    assert (
        f"{TEMPLATE}:20:9: error: parameter 'image' is invalid: image 'hotc-no-such-image' not found "
        "(neither an id nor the name of one)"
    ) in bad.stderr, tail(bad)
    assert "error: 1 value(s) do not meet their custom constraint; nothing was planned" in bad.stderr
    good = hotc(tmp_path, hotc_cloud_env, "plan", "-t", str(TEMPLATE), "web", "--format", "json", timeout=120)
    assert good.returncode == 0, tail(good)
    assert "not checked" not in good.stderr, tail(good)  # the cloud was asked
    doc = json.loads(good.stdout)
    assert {tuple(c["actions"]) for c in doc["resource_changes"]} == {("create",)}
    # without a cloud configured the same wrong name plans, and says what was not checked
    env = {k: v for k, v in hotc_cloud_env.items() if k not in ("OS_CLOUD", "OS_AUTH_URL", "OS_AUTH_TYPE")}
    off = hotc(
        tmp_path,
        env,
        "plan",
        "-t",
        str(TEMPLATE),
        "web",
        "--parameter",
        "image=hotc-no-such-image",
        timeout=120,
    )
    assert off.returncode == 0, tail(off)
    assert (
        off.stderr.count("custom constraints glance.image, neutron.network, nova.flavor were not checked")
        == 1
    )


# ------------------------------------------------------------------------------------------ Heat vs hotc


def _wait_stack(conn: Any, stack_id: str, want: str, timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = conn.orchestration.get_stack(stack_id)
        if st.status == want:
            return st
        if st.status.endswith("_FAILED"):
            raise AssertionError(f"Heat stack {st.name}: {st.status}: {st.status_reason}")
        time.sleep(2)
    raise AssertionError(f"Heat stack {stack_id} not {want} after {timeout}s")


def _heat_resources(conn: Any, stack_id: str) -> dict[str, tuple[str, str]]:
    return {r.name: (r.physical_resource_id, r.status) for r in conn.orchestration.resources(stack_id)}


def heat_update_effects(conn: Any, tracker: Any, template: str) -> tuple[set[str], set[str]]:
    """Create the stack with Heat, update app_port, return (replaced, updated in place)."""
    name = tracker.name("heat")
    st = conn.orchestration.create_stack(
        name=name, template=template, parameters={"app_port": OLD_PORT}, timeout_mins=10
    )
    tracker.defer(f"Heat stack {name}", lambda: _delete_heat_stack(conn, st.id))  # if the test stops early
    _wait_stack(conn, st.id, "CREATE_COMPLETE")
    before = _heat_resources(conn, st.id)
    resp = conn.orchestration.put(
        f"/stacks/{name}/{st.id}", json={"template": template, "parameters": {"app_port": NEW_PORT}}
    )
    assert resp.status_code == 202, resp.text
    deadline = time.monotonic() + 60
    while conn.orchestration.get_stack(st.id).status == "CREATE_COMPLETE" and time.monotonic() < deadline:
        time.sleep(1)  # the update has not started yet
    _wait_stack(conn, st.id, "UPDATE_COMPLETE")
    after = _heat_resources(conn, st.id)
    assert set(before) == set(after)
    replaced = {n for n in before if before[n][0] != after[n][0]}
    updated = {n for n in before if n not in replaced and after[n][1] == "UPDATE_COMPLETE"}
    tracker.problems.extend(_delete_heat_stack(conn, st.id))
    return replaced, updated


def _delete_heat_stack(conn: Any, stack_id: str) -> list[str]:
    conn.orchestration.delete_stack(stack_id, ignore_missing=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            st = conn.orchestration.get_stack(stack_id)
        except Exception:  # noqa: BLE001 -- gone
            return []
        if st is None or st.status == "DELETE_COMPLETE":
            return []
        if st.status == "DELETE_FAILED":
            return [f"Heat stack delete failed: {st.status_reason}"]
        time.sleep(2)
    return ["Heat stack still there after 300 s"]


def _leftovers(conn: Any, prefix: str) -> list[str]:
    """Everything in the cloud whose name starts with PREFIX (Heat and hotc name objects after the stack)."""

    def mine(o: Any) -> bool:
        return bool(getattr(o, "name", None)) and str(o.name).startswith(prefix)

    found = [f"stack {s.name}" for s in conn.orchestration.stacks() if mine(s)]
    found += [f"lb {o.name}" for o in conn.load_balancer.load_balancers() if mine(o)]
    found += [f"server {o.name}" for o in conn.compute.servers() if mine(o)]
    for kind, items in (
        ("net", conn.network.networks()),
        ("subnet", conn.network.subnets()),
        ("router", conn.network.routers()),
        ("sg", conn.network.security_groups()),
        ("port", conn.network.ports()),
    ):
        found += [f"{kind} {o.name}" for o in items if mine(o)]
    return found


def test_plan_matches_what_heat_really_does(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    template = TEMPLATE.read_text()
    heat_replaced, heat_updated = heat_update_effects(cloud, cloud_tracker, template)
    # what Heat really does: the server whose user_data embeds the port and both pool members are
    # replaced; the security group is updated in place; nothing else is touched
    assert heat_replaced == {"app_a", "member_a", "member_b"}, heat_replaced
    assert heat_updated == {"app_sg"}, heat_updated

    stack = cloud_tracker.name("hotc")
    r = hotc(
        tmp_path,
        hotc_cloud_env,
        "apply",
        "-t",
        str(TEMPLATE),
        stack,
        "--auto-approve",
        "--parameter",
        f"app_port={OLD_PORT}",
    )
    try:
        assert r.returncode == 0, tail(r)
        plan = hotc(
            tmp_path,
            hotc_cloud_env,
            "plan",
            "-t",
            str(TEMPLATE),
            stack,
            "--format",
            "json",
            "--parameter",
            f"app_port={NEW_PORT}",
            timeout=120,
        )
        assert plan.returncode == 0, tail(plan)
        changes = json.loads(plan.stdout)["resource_changes"]
        acts = {c["address"]: tuple(c["actions"]) for c in changes}
        hotc_replaced = {a for a, x in acts.items() if x == ("create", "delete")}
        hotc_updated = {a for a, x in acts.items() if x == ("update",)}
        assert hotc_replaced == heat_replaced, acts
        assert heat_updated <= hotc_updated, acts
        # and nothing else: every other resource is left alone
        assert {a for a, x in acts.items() if x != ("no-op",)} == heat_replaced | heat_updated, acts
        reasons = {c["address"]: c.get("replace_paths") for c in changes if c["address"] in hotc_replaced}
        assert ["protocol_port"] in reasons["member_a"] and ["user_data"] in reasons["app_a"], reasons

        r = hotc(
            tmp_path,
            hotc_cloud_env,
            "apply",
            "-t",
            str(TEMPLATE),
            stack,
            "--auto-approve",
            "--parameter",
            f"app_port={NEW_PORT}",
        )
        assert r.returncode == 0, tail(r)
        again = hotc(
            tmp_path,
            hotc_cloud_env,
            "plan",
            "-t",
            str(TEMPLATE),
            stack,
            "--detailed-exitcode",
            "--refresh",
            "--parameter",
            f"app_port={NEW_PORT}",
            timeout=120,
        )
        assert again.returncode == 0, tail(again)  # converged, and the cloud agrees: no changes, no drift
        assert "note" not in again.stderr, tail(again)  # the live objects were read
        sgs = [g for g in cloud.network.security_groups() if str(g.name).startswith(stack)]
        assert len(sgs) == 1, [g.name for g in sgs]
        ports = {x.port_range_min for x in cloud.network.security_group_rules(security_group_id=sgs[0].id)}
        assert NEW_PORT in ports and OLD_PORT not in ports, ports  # updated in the cloud, in place
    finally:
        d = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert d.returncode == 0, tail(d)
    prefix = cloud_tracker.name()
    assert _leftovers(cloud, prefix) == []
