"""A rolling update on the real test cloud: an AutoScalingGroup of servers changes flavor with
``rolling_updates: {max_batch_size: 1, min_in_service: 1}``. A thread watches Nova while the update runs: never
fewer than one member ACTIVE (with three members and batches of one, never more than one member changing), the
members change in the plan's batch order. The same template under real Heat: the same member count
throughout, one member changing at a time, every member changed once."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cloud import connect

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string, default: m1.tiny}
resources:
  g:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      desired_capacity: 3
      rolling_updates: {max_batch_size: 1, min_in_service: 1, pause_time: 1}
      resource:
        type: OS::Nova::Server
        properties:
          image: hotc-tiny
          flavor: {get_param: flavor}
          networks: [{network: hotc-private}]
"""


def hotc(
    cwd: Path, env: dict[str, str], *args: str, timeout: float = 900
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


class NovaWatch:
    """Polls Nova (its own connection) for the servers whose name starts with ``prefix`` (or whose id is in
    ``ids``); keeps every snapshot (server id -> status) in order."""

    def __init__(self, cloud_config: Any, prefix: str = "", ids: frozenset[str] = frozenset()) -> None:
        self.conn = connect(cloud_config)
        self.prefix = prefix
        self.ids = ids
        self.snapshots: list[dict[str, str]] = []
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                # by prefix: Nova lists only those (a regex on the name), so each poll costs Nova and Neutron
                # (the servers' security groups) nothing for the other tests' servers
                query = {"name": "^" + re.escape(self.prefix)} if self.prefix else {}
                snap = {
                    s.id: s.status
                    for s in self.conn.compute.servers(**query)
                    if (self.prefix and (s.name or "").startswith(self.prefix)) or s.id in self.ids
                }
            except Exception as exc:  # noqa: BLE001 -- reported by the test
                self.errors.append(repr(exc))
                snap = None
            if snap is not None:
                self.snapshots.append(snap)
            self.stop.wait(0.2)

    def __enter__(self) -> NovaWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)

    def left_active(self) -> list[str]:
        """Server ids in the order they were first seen not ACTIVE."""
        order: list[str] = []
        for snap in self.snapshots:
            for sid, status in snap.items():
                if status != "ACTIVE" and sid not in order:
                    order.append(sid)
        return order

    def fewest_active(self) -> int:
        return min(sum(1 for s in snap.values() if s == "ACTIVE") for snap in self.snapshots)

    def most_changing(self) -> int:
        return max(sum(1 for s in snap.values() if s != "ACTIVE") for snap in self.snapshots)

    def most_members(self) -> int:
        return max(len(snap) for snap in self.snapshots)


def _wait_stack(conn: Any, stack_id: str, want: str, timeout: float = 600) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = conn.orchestration.get_stack(stack_id)
        if st.status == want:
            return st
        if st.status.endswith("_FAILED"):
            raise AssertionError(f"Heat stack {st.name}: {st.status}: {st.status_reason}")
        time.sleep(2)
    raise AssertionError(f"Heat stack {stack_id} not {want} after {timeout}s")


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


def test_cloud_asg_rolling_flavor_update_keeps_members_in_service_in_batch_order(
    cloud: Any,
    cloud_shared: Any,
    cloud_config: Any,
    cloud_tracker: Any,
    hotc_cloud_env: dict[str, str],
    tmp_path: Path,
) -> None:
    (tmp_path / "asg.yaml").write_text(TEMPLATE)
    stack = cloud_tracker.name("asg")
    created = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "asg.yaml", stack, "--auto-approve")
    assert created.returncode == 0, tail(created)
    try:
        plan = hotc(
            tmp_path,
            hotc_cloud_env,
            "plan",
            "-t",
            "asg.yaml",
            stack,
            "--parameter",
            "flavor=m1.small",
            "--format",
            "json",
        )
        assert plan.returncode == 0, tail(plan)
        (group,) = json.loads(plan.stdout)["group_changes"]
        assert group["policy"] == {
            "name": "rolling_updates",
            "max_batch_size": 1,
            "min_in_service": 1,
            "pause_time": 1,
        }
        planned = [b["members"] for b in group["batches"]]
        assert len(planned) == 3 and all(len(m) == 1 for m in planned)
        before = _state(tmp_path, stack)
        ids = {a: before.resources[a].physical_id for a in ("g[0]", "g[1]", "g[2]")}
        with NovaWatch(cloud_config, stack + "-") as watch:
            upd = hotc(
                tmp_path,
                hotc_cloud_env,
                "apply",
                "-t",
                "asg.yaml",
                stack,
                "--parameter",
                "flavor=m1.small",
                "--auto-approve",
            )
        assert upd.returncode == 0, tail(upd)
        assert "Batches of g: 1 complete, 2 complete, 3 complete." in upd.stdout, tail(upd)
        assert not watch.errors, watch.errors
        assert watch.snapshots and watch.fewest_active() >= 1
        assert watch.most_changing() <= 1 and watch.most_members() == 3
        # the servers left ACTIVE in the plan's batch order (a resize is seen in Nova as RESIZE/VERIFY_RESIZE)
        seen = watch.left_active()
        expected = [ids[m[0]] for m in planned]
        assert [s for s in expected if s in seen] == seen, (seen, expected)
        assert len(seen) >= 2, watch.snapshots[-5:]  # the watcher saw the resizes it orders
        # the hotc events agree: each member's update ends before the next one's starts
        after = _state(tmp_path, stack)
        assert {after.resources[a].physical_id for a in ids} == set(ids.values())  # resized in place
        events = hotc(tmp_path, hotc_cloud_env, "events", stack)
        lines = [ln for ln in events.stdout.splitlines() if "UPDATE_" in ln and "[g[" in ln]
        order = [ln.split("[g[")[1].split("]")[0] for ln in lines]
        assert order == [i for m in planned for i in (m[0][2], m[0][2])], lines
    finally:
        gone = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
        assert gone.returncode == 0, tail(gone)

    # the same template under real Heat
    heat_name = cloud_tracker.name("heat")
    st = cloud.orchestration.create_stack(
        name=heat_name, template=TEMPLATE, parameters={"flavor": "m1.tiny"}, timeout_mins=15
    )
    cloud_tracker.defer(f"Heat stack {heat_name}", lambda: _delete_heat_stack(cloud, st.id))
    _wait_stack(cloud, st.id, "CREATE_COMPLETE")
    # Heat shortens the names of a nested stack's servers: watch them by id
    (group_res,) = [r for r in cloud.orchestration.resources(st.id) if r.name == "g"]
    nested = cloud.orchestration.get_stack(group_res.physical_resource_id)
    servers = frozenset(r.physical_resource_id for r in cloud.orchestration.resources(nested))
    assert len(servers) == 3
    with NovaWatch(cloud_config, ids=servers) as hwatch:
        resp = cloud.orchestration.put(
            f"/stacks/{heat_name}/{st.id}", json={"template": TEMPLATE, "parameters": {"flavor": "m1.small"}}
        )
        assert resp.status_code == 202, resp.text
        deadline = time.monotonic() + 60
        while (
            cloud.orchestration.get_stack(st.id).status == "CREATE_COMPLETE" and time.monotonic() < deadline
        ):
            time.sleep(1)
        _wait_stack(cloud, st.id, "UPDATE_COMPLETE")
    assert not hwatch.errors, hwatch.errors
    # Heat: the same member count throughout, one member changing at a time, each once, never fewer than one
    # ACTIVE -- what hotc did above
    assert hwatch.most_members() == 3 and hwatch.most_changing() <= 1 and hwatch.fewest_active() >= 1
    assert len(hwatch.left_active()) >= 2
    flavors = {
        s.flavor.get("original_name") or s.flavor.get("name")
        for s in cloud.compute.servers()
        if s.id in servers
    }
    assert flavors == {"m1.small"}
    cloud_tracker.problems.extend(_delete_heat_stack(cloud, st.id))


def _state(cwd: Path, stack: str) -> Any:
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd).read(stack)
    return st


SURGE = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
resources:
  g:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 10
      desired_capacity: 4
      rolling_updates: {max_batch_size: 2, min_in_service: 3, pause_time: 0}
      resource:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}}
"""


def test_cloud_asg_min_in_service_surge_matches_heat_counts(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    """4 members, max_batch_size 2, min_in_service 3: Heat grows the group to 5 for two batches, then back to
    4 -- three batches and one member made and one removed. hotc plans the same batches (5, 5, 4) and the same
    cloud work (one new member instance, one old one deleted); where Heat leaves one member updated in place
    on the old value (verified here), hotc leaves none."""
    heat_name = cloud_tracker.name("heat")
    st = cloud.orchestration.create_stack(
        name=heat_name, template=SURGE, parameters={"v": "a"}, timeout_mins=10
    )
    cloud_tracker.defer(f"Heat stack {heat_name}", lambda: _delete_heat_stack(cloud, st.id))
    _wait_stack(cloud, st.id, "CREATE_COMPLETE")
    (group_res,) = [r for r in cloud.orchestration.resources(st.id) if r.name == "g"]
    nested = cloud.orchestration.get_stack(group_res.physical_resource_id)
    before = {r.name: r.physical_resource_id for r in cloud.orchestration.resources(nested)}
    resp = cloud.orchestration.put(
        f"/stacks/{heat_name}/{st.id}", json={"template": SURGE, "parameters": {"v": "b"}}
    )
    assert resp.status_code == 202, resp.text
    deadline = time.monotonic() + 60
    while cloud.orchestration.get_stack(st.id).status == "CREATE_COMPLETE" and time.monotonic() < deadline:
        time.sleep(1)
    _wait_stack(cloud, st.id, "UPDATE_COMPLETE")
    events = cloud.orchestration.get(
        f"/stacks/{heat_name}/{st.id}/events?nested_depth=2&sort_dir=asc&limit=1000"
    ).json()["events"]
    updates = [
        e for e in events if e["resource_name"] == nested.name and e["resource_status"] == "UPDATE_COMPLETE"
    ]
    members = {r.name: r for r in cloud.orchestration.resources(nested)}
    created = set(members) - set(before)
    removed = set(before) - set(members)
    heat_batches = len(updates) - 1  # the rolling batches, then Heat's resize to desired_capacity
    assert heat_batches == 3 and len(created) == 1 and len(removed) == 1 and len(members) == 4
    stale = [
        n
        for n, r in members.items()
        if cloud.orchestration.get(f"/stacks/{nested.name}/{nested.id}/resources/{n}")
        .json()["resource"]["attributes"]
        .get("output")
        == "a"
    ]
    assert len(stale) == 1  # Heat's own accounting leaves one member updated in place on the old value
    cloud_tracker.problems.extend(_delete_heat_stack(cloud, st.id))

    # hotc on the same template (in-process members, no cloud objects)
    (tmp_path / "surge.yaml").write_text(SURGE)
    made = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "surge.yaml", "surge", "--auto-approve")
    assert made.returncode == 0, tail(made)
    plan = hotc(
        tmp_path,
        hotc_cloud_env,
        "plan",
        "-t",
        "surge.yaml",
        "surge",
        "--parameter",
        "v=b",
        "--format",
        "json",
    )
    assert plan.returncode == 0, tail(plan)
    doc = json.loads(plan.stdout)
    (group,) = doc["group_changes"]
    assert [b["size"] for b in group["batches"]] == [5, 5, 4]  # Heat's: 5 members for two batches, then 4
    actions = [c["actions"] for c in doc["resource_changes"] if c["actions"] != ["no-op"]]
    assert sorted(map(tuple, actions)) == [("create", "delete")] + [("update",)] * 3  # one made, one removed
    upd = hotc(
        tmp_path, hotc_cloud_env, "apply", "-t", "surge.yaml", "surge", "--parameter", "v=b", "--auto-approve"
    )
    assert upd.returncode == 0, tail(upd)
    after = _state(tmp_path, "surge")
    assert len(after.resources) == 4 and {rs.properties["value"] for rs in after.resources.values()} == {"b"}
