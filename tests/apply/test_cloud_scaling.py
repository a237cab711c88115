"""Scaling on the real test cloud: an AutoScalingGroup of servers with a port each (a member template), two
ScalingPolicies, moto's S3 as the signal store. ``hotc watch --listen`` runs as a process and the test plays
Aodh: it POSTs alarms (JSON, no credential) to the policies' ``alarm_url``. Scale up, scale down (the oldest
member goes, and the group enters down's cooldown), then an alarm inside the cooldown is refused and recorded. Nova and Neutron are asked what
exists after each step. The same template under the cloud's Heat, signalled with the resource-signal API
(the cloud has no Aodh), gives the same member counts.

The waits are order gates (the watcher's log lines, Heat's SIGNAL events); their deadlines only keep a broken
run from hanging the suite."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.test_scaling_watch import GUARD, Watcher, aodh_post
from tests.fixtures.cloud import CloudConfig, CloudTracker, SharedResources, connect
from tests.fixtures.s3 import S3Bucket, free_port

pytestmark = pytest.mark.cloud

MEMBER = """heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: network}}
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{port: {get_resource: port}}]
outputs:
  ip: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
"""

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      desired_capacity: 1
      resource:
        type: member.yaml
        properties:
          image: {get_param: image}
          flavor: {get_param: flavor}
          network: {get_param: network}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: asg}
      adjustment_type: change_in_capacity
      scaling_adjustment: 1
      cooldown: 0
  down:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: asg}
      adjustment_type: change_in_capacity
      scaling_adjustment: -1
      cooldown: 3600
outputs:
  size: {value: {get_attr: [asg, current_size]}}
  ips: {value: {get_attr: [asg, outputs_list, ip]}}
"""


def _params(shared: SharedResources) -> dict[str, str]:
    return {"image": shared.image_name, "flavor": shared.flavor_name, "network": shared.private_network_name}


def _members(cwd: Path, stack: str) -> dict[str, tuple[str, str]]:
    """member address -> (server id, port id) as hotc's state records them."""
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, cwd, env={}).read(stack)
    assert st is not None
    out: dict[str, tuple[str, str]] = {}
    for addr, rs in st.resources.items():
        if addr.startswith("asg[") and addr.endswith("].server"):
            m = addr[: -len(".server")]
            port = st.resources[m + ".port"]
            out[m] = (str(rs.physical_id), str(port.physical_id))
    return out


def _live(cloud: Any, members: dict[str, tuple[str, str]]) -> None:
    """Every member's server is ACTIVE in Nova on its own port in Neutron."""
    for addr, (sid, pid) in members.items():
        server = cloud.compute.get_server(sid)
        assert server.status == "ACTIVE", (addr, server.status)
        port = cloud.network.get_port(pid)
        assert port.device_id == sid, (addr, port.device_id)


def _hotc(cwd: Path, env: dict[str, str], *args: str) -> Any:
    from tests.clirun import run_hotc

    return run_hotc(cwd, *args, env=env)


def _heat_members(cloud: Any, stack_id: str) -> int:
    (group,) = [r for r in cloud.orchestration.resources(stack_id) if r.name == "asg"]
    return len(list(cloud.orchestration.resources(group.physical_resource_id)))


def _heat_signal_events(cloud: Any, name: str, stack_id: str, policy: str) -> int:
    r = cloud.orchestration.get(f"/stacks/{name}/{stack_id}/events?resource_name={policy}&limit=200")
    r.raise_for_status()
    return sum(1 for e in r.json()["events"] if e["resource_status"] == "SIGNAL_COMPLETE")


def _heat_signal(cloud: Any, name: str, stack_id: str, policy: str, before: int) -> None:
    """``openstack stack resource signal`` (Heat runs it in the background), then wait for its event."""
    r = cloud.orchestration.post(
        f"/stacks/{name}/{stack_id}/resources/{policy}/signal",
        json={"previous": "ok", "current": "alarm", "reason": "test"},
    )
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + GUARD * 3
    while _heat_signal_events(cloud, name, stack_id, policy) <= before:
        assert time.monotonic() < deadline, f"Heat never handled the signal to {policy}"
        time.sleep(2)


def _wait_heat(cloud: Any, stack_id: str, want: str) -> Any:
    deadline = time.monotonic() + 900
    while True:
        st = cloud.orchestration.get_stack(stack_id)
        if st.status == want:
            return st
        assert not st.status.endswith("_FAILED"), f"{st.status}: {st.status_reason}"
        assert time.monotonic() < deadline, f"Heat stack not {want}: {st.status}"
        time.sleep(2)


def test_cloud_asg_scales_through_alarm_url_with_cooldown_as_heat_does(
    cloud: Any,
    cloud_config: CloudConfig,
    cloud_shared: SharedResources,
    cloud_tracker: CloudTracker,
    hotc_cloud_env: dict[str, str],
    s3_bucket: S3Bucket,
    tmp_path: Path,
) -> None:
    # its own connection with a long API timeout: the shared cloud can be slow to answer while other users
    # load it (the fixture's 30 s were seen to run out)
    cloud = connect(cloud_config, timeout=300)
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    (tmp_path / "member.yaml").write_text(MEMBER)
    stack = cloud_tracker.name("scale")
    store = f"s3://{s3_bucket.name}/sig"
    port = free_port()
    env = {**hotc_cloud_env, "AWS_ENDPOINT_URL_S3": os.environ["AWS_ENDPOINT_URL_S3"]}
    env["HOTC_SIGNAL_RECEIVER"] = f"http://127.0.0.1:{port}"
    params = [a for k, v in _params(cloud_shared).items() for a in ("--parameter", f"{k}={v}")]
    r = _hotc(
        tmp_path, env, "apply", "-t", "t.yaml", stack, "--auto-approve", "--signal-store", store, *params
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    hotc_counts = [len(_members(tmp_path, stack))]
    urls = {}
    # the URLs are secrets: read them from the state with its key, as an operator wiring Aodh would
    from hotc.state import backend_from_config

    st, _ = backend_from_config(None, tmp_path, env={}).read(stack)
    assert st is not None
    for policy in ("up", "down"):
        url = st.resources[policy].attributes["alarm_url"]
        assert isinstance(url, str) and url.startswith(f"http://127.0.0.1:{port}/v1/signal/"), url
        urls[policy] = url

    w = Watcher(tmp_path, store, port, stack=stack, env=env)
    try:
        w.wait_for("receiving alarms on")
        w.wait_for(f"watching stack {stack!r}")
        first = _members(tmp_path, stack)
        assert aodh_post(urls["up"]).status_code == 202
        assert "asg 1 → 2 members" in w.wait_for("scaling:")
        w.wait_for("Apply complete")
        grown = _members(tmp_path, stack)
        hotc_counts.append(len(grown))
        _live(cloud, grown)
        assert aodh_post(urls["down"]).status_code == 202
        assert "asg 2 → 1 members" in w.wait_for("scaling:")
        w.wait_for("Apply complete")
        shrunk = _members(tmp_path, stack)
        hotc_counts.append(len(shrunk))
        _live(cloud, shrunk)
        # the oldest member went first (Heat's order): the one made by the scale-up is left
        assert set(shrunk) == set(grown) - set(first)
        # down's cooldown holds the group: the next alarm (to up, which has none of its own) is refused and
        # recorded, as Heat keeps the cooldown on the group
        assert aodh_post(urls["up"]).status_code == 202
        assert "refused: due to cooldown" in w.wait_for("scaling:")
        hotc_counts.append(len(_members(tmp_path, stack)))
    finally:
        code = w.stop()
    assert code == 0, w.seen
    st, _ = backend_from_config(None, tmp_path, env={}).read(stack)
    assert st is not None
    assert [(d.policy, d.accepted) for d in st.groups["asg"].decisions] == [
        ("up", True),
        ("down", True),
        ("up", False),
    ]
    ev = _hotc(tmp_path, env, "events", stack)
    assert any("[up]: SIGNAL_COMPLETE" in ln and "due to cooldown" in ln for ln in ev.stdout.splitlines())
    gone = _hotc(tmp_path, env, "destroy", stack, "--auto-approve", "--signal-store", store)
    assert gone.returncode == 0, gone.stdout[-2000:] + gone.stderr[-2000:]
    assert hotc_counts == [1, 2, 1, 1]

    # the same template under the cloud's Heat: the same member counts
    name = cloud_tracker.name("heat")
    hs = cloud.orchestration.create_stack(
        name=name, template=TEMPLATE, files={"member.yaml": MEMBER}, parameters=_params(cloud_shared)
    )
    cloud_tracker.defer(
        f"Heat stack {name}", lambda: cloud.orchestration.delete_stack(hs.id, ignore_missing=True)
    )
    _wait_heat(cloud, hs.id, "CREATE_COMPLETE")
    heat_counts = [_heat_members(cloud, hs.id)]
    _heat_signal(cloud, name, hs.id, "up", 0)
    heat_counts.append(_heat_members(cloud, hs.id))
    _heat_signal(cloud, name, hs.id, "down", 0)  # its own cooldown: 3600 s from now
    heat_counts.append(_heat_members(cloud, hs.id))
    # Heat keeps no event for a refused signal (NoActionRequired): what can be checked is that its group is
    # in cooldown (so Heat refuses the signal) and that the signal changed nothing
    md = cloud.orchestration.get(f"/stacks/{name}/{hs.id}/resources/asg/metadata").json()["metadata"]
    (end,) = md["cooldown_end"]
    assert end > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    r = cloud.orchestration.post(f"/stacks/{name}/{hs.id}/resources/up/signal", json={})
    assert r.status_code == 200, r.text
    _wait_heat(cloud, hs.id, "CREATE_COMPLETE")
    heat_counts.append(_heat_members(cloud, hs.id))
    assert heat_counts == hotc_counts == [1, 2, 1, 1]
    cloud.orchestration.delete_stack(hs.id)
