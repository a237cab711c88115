"""The quota check at plan time: the peak an apply reaches (creates, replacements whose new and old instances
exist at once, a rolling update's batches, scaling groups at max_size), the refusal and the warning, the
figures in every plan format, and "not checked" without a cloud."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hotc.cli.common import load_for_command
from hotc.cli.plan import plan_wiring
from hotc.errors import HotcError
from hotc.ops.plan import PlanRequest, plan
from hotc.planner.api import PlanOptions, build_desired, load_plan, make_plan, save_plan
from hotc.planner.plan import Plan
from hotc.planner.quota import enforce_quotas, objects_of, quota_needs
from hotc.planner.render.json import plan_json
from hotc.planner.render.markdown import render_markdown
from hotc.planner.render.text import render_text
from hotc.state.document import ResourceState, StackState

SCHEMA = json.loads((Path(__file__).parents[2] / "hotc/planner/plan.schema.json").read_text())
FLAVORS = {"small": (2, 512)}

GROUP = """
heat_template_version: 2018-08-31
parameters:
  key: {type: string, default: a}
  n: {type: number, default: 4}
resources:
  g:
    type: OS::Heat::ResourceGroup
    %s
    properties:
      count: {get_param: n}
      resource_def:
        type: OS::Nova::Server
        properties: {image: img, flavor: small, key_name: {get_param: key}, networks: [{port: p}]}
"""
ROLLING = "update_policy: {rolling_update: {max_batch_size: 2, min_in_service: %d}}"


def _servers(n: int, key: str = "a") -> StackState:
    st = StackState.new("s")
    for i in range(n):
        st = st.with_resource(
            ResourceState(
                address=f"g[{i}]",
                type="OS::Nova::Server",
                physical_id=f"p{i}",
                status="CREATE_COMPLETE",
                properties={"image": "img", "flavor": "small", "key_name": key, "networks": [{"port": "p"}]},
                created_at="2026-01-01T00:00:00Z",
            )
        )
    return st


def _plan(tmp_path: Path, text: str, state: StackState | None = None, **params: str) -> tuple[Plan, Any]:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    loaded = load_for_command(path, [], params, {}, verb="planned", err=io.StringIO())
    desired = build_desired(loaded, "s", state.lineage if state else None, state=state)
    return make_plan(desired, state, PlanOptions()), desired


def _reader(limits: dict[str, tuple[int, int]]) -> Any:
    def read(keys: frozenset[str], flavors: frozenset[str]) -> Any:
        return {k: v for k, v in limits.items() if k in keys}, {f: FLAVORS[f] for f in flavors}, {}

    return read


# ------------------------------------------------------------------------------------------ the peak


def test_creates_count_instances_cores_ram_and_ports(tmp_path: Path) -> None:
    text = GROUP.replace("networks: [{port: p}]", "networks: [{network: private}]") % ""
    plan, _ = _plan(tmp_path, text, n="3")
    needs = quota_needs(plan, FLAVORS)
    assert needs.peak == {
        "compute.instances": 3,
        "compute.cores": 6,
        "compute.ram": 1536,
        "network.ports": 3,
    }
    assert needs.final == needs.peak


def test_replacements_all_at_once_hold_old_and_new_at_the_peak(tmp_path: Path) -> None:
    # key_name cannot be updated: each server is replaced, the new one created before the old is deleted
    plan, _ = _plan(tmp_path, GROUP % "", _servers(4), key="b")
    assert {c.action.value for c in plan.changes} == {"replace"}
    needs = quota_needs(plan, FLAVORS)
    assert needs.peak["compute.instances"] == 4  # 4 in use + 4 new at once
    assert needs.peak["compute.cores"] == 8
    assert needs.final == {}  # once the old ones are gone, the project holds what it held


@pytest.mark.parametrize(("min_in_service", "peak"), [(0, 2), (3, 3)])
def test_rolling_batches_peak_at_the_highest_batch(tmp_path: Path, min_in_service: int, peak: int) -> None:
    # batches of 2: the old instances of a batch are gone before the next batch creates; with min_in_service 3
    # a temporary member is created in the first batch and removed in the last, so batch 2 holds 3 extra
    plan, _ = _plan(tmp_path, GROUP % (ROLLING % min_in_service), _servers(4), key="b")
    assert plan.groups[0].batches
    needs = quota_needs(plan, FLAVORS)
    assert needs.peak["compute.instances"] == peak
    assert needs.peak["compute.ram"] == 512 * peak
    assert needs.final == {}


def test_objects_of_the_other_services() -> None:
    assert objects_of("OS::Cinder::Volume", {"size": 10}, {}) == (
        {"volume.volumes": 1, "volume.gigabytes": 10},
        frozenset(),
    )
    sg, _ = objects_of("OS::Neutron::SecurityGroup", {"rules": [{}, {}, {}]}, {})
    assert sg == {"network.security_groups": 1, "network.security_group_rules": 5}  # + neutron's 2 egress
    assert objects_of("OS::Octavia::LoadBalancer", {}, {})[0] == {
        "load-balancer.load_balancers": 1,
        "network.ports": 1,
    }
    server, unknown = objects_of(
        "OS::Nova::Server",
        {
            "flavor": "big",
            "networks": [{"port": "x"}],
            "block_device_mapping_v2": [{"image": "i", "volume_size": 20}],
        },
        {},
    )
    assert server == {"compute.instances": 1, "volume.volumes": 1, "volume.gigabytes": 20}
    assert unknown == {"compute.cores", "compute.ram"}  # a flavor the cloud did not size


def test_scaling_group_counted_at_max_size_when_asked(tmp_path: Path) -> None:
    text = """
heat_template_version: 2018-08-31
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 5
      desired_capacity: 2
      resource:
        type: OS::Nova::Server
        properties: {image: img, flavor: small, networks: [{port: p}]}
"""
    plan, desired = _plan(tmp_path, text)
    assert quota_needs(plan, FLAVORS).peak["compute.instances"] == 2
    grown = quota_needs(plan, FLAVORS, desired, at_max_size=True)
    assert grown.peak["compute.instances"] == 5
    assert grown.peak["compute.cores"] == 10
    assert grown.at_max_size == ("asg (max_size 5)",)


# ------------------------------------------------------------------------------------------ the verdict


def test_a_peak_beyond_the_room_left_refuses_the_plan(tmp_path: Path) -> None:
    # the final count (4) fits a quota of 5, the peak of replacing all four at once (8) does not
    plan, desired = _plan(tmp_path, GROUP % "", _servers(4), key="b")
    limits = {"compute.instances": (5, 4), "compute.cores": (-1, 8), "compute.ram": (-1, 2048)}
    with pytest.raises(HotcError) as err:
        enforce_quotas(plan, desired, _reader(limits))
    msg = err.value.message
    assert "would exceed 1 quota(s)" in msg and "nothing was changed" in msg
    assert "quota compute.instances: the plan needs 4 servers at its peak, and 1 are left" in msg
    assert "4 in use of 5" in msg
    # rolling batches of 2 fit in the same room? no: 2 > 1; with room for 2 they pass
    rolling, d2 = _plan(tmp_path, GROUP % (ROLLING % 0), _servers(4), key="b")
    limits["compute.instances"] = (6, 4)
    checked, notes = enforce_quotas(rolling, d2, _reader(limits))
    assert checked.quota["passed"] is True
    (row,) = [r for r in checked.quota["quotas"] if r["quota"] == "compute.instances"]
    assert (row["in_use"], row["need"], row["peak"], row["after"], row["room"]) == (4, 2, 6, 4, 2)
    assert row["status"] == "warn"  # 6 of 6 at the peak
    assert any("warning: quota compute.instances" in n for n in notes)


def test_over_90_percent_warns_and_shows_in_every_format(tmp_path: Path) -> None:
    plan, desired = _plan(tmp_path, GROUP % "", n="2")
    limits = {"compute.instances": (20, 17), "compute.cores": (100, 0), "compute.ram": (-1, 0)}
    checked, notes = enforce_quotas(plan, desired, _reader(limits))
    assert notes == (
        "warning: quota compute.instances: the plan needs 2 servers at its peak, and 3 are left "
        "(17 in use of 20; 19 at the peak, 95 %)",
    )
    text = render_text(checked)
    assert "compute.instances: 17 + 2 = 19 / 20  (over 90 %)" in text
    assert "compute.ram: 0 + 1024 = 1024 / unlimited" in text
    md = render_markdown(checked)
    assert "| `compute.instances` | 17 | +2 | 19 | 20 | ⚠️ over 90 % |" in md
    doc = plan_json(checked)
    jsonschema.validate(doc, SCHEMA)
    assert doc["quota"]["quotas"][0] == {
        "quota": "compute.instances",
        "limit": 20,
        "in_use": 17,
        "need": 2,
        "peak": 19,
        "after": 19,
        "room": 3,
        "status": "warn",
    }
    save_plan(checked, tmp_path / "p.json")
    assert load_plan(tmp_path / "p.json").quota == checked.quota


def test_without_a_cloud_the_plan_says_it_did_not_check(tmp_path: Path) -> None:
    plan, desired = _plan(tmp_path, GROUP % "", n="1")
    checked, notes = enforce_quotas(plan, desired, None, why_not="no cloud is configured")
    assert notes == ()  # every view of the plan says it
    assert checked.quota == {"checked": False, "reason": "no cloud is configured"}
    assert "Quotas not checked: no cloud is configured" in render_text(checked)
    assert "_Quotas not checked: no cloud is configured._" in render_markdown(checked)
    jsonschema.validate(plan_json(checked), SCHEMA)


def test_a_plan_that_uses_no_quota_carries_no_figures(tmp_path: Path) -> None:
    text = "heat_template_version: 2018-08-31\nresources:\n  r: {type: OS::Heat::TestResource}\n"
    plan, desired = _plan(tmp_path, text)
    checked, notes = enforce_quotas(plan, desired, None)
    assert (checked.quota, notes) == ({}, ())
    assert plan_json(checked)["quota"] is None
    # servers only deleted: nothing to ask the cloud
    shrink, d2 = _plan(tmp_path, GROUP % "", _servers(4), n="2")

    def read(keys: frozenset[str], flavors: frozenset[str]) -> Any:
        raise AssertionError("the cloud was asked")

    assert enforce_quotas(shrink, d2, read) == (shrink, ())


# ------------------------------------------------------------------------------------------ the operation


def test_the_plan_operation_runs_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(GROUP % "")
    seen: list[tuple[frozenset[str], frozenset[str]]] = []

    def read(conn: Any, keys: frozenset[str], flavors: frozenset[str]) -> Any:
        assert conn == "the connection"
        seen.append((keys, flavors))
        return {"compute.instances": (3, 0), "compute.cores": (-1, 0), "compute.ram": (-1, 0)}, FLAVORS, {}

    wiring = replace(plan_wiring(None, "planned"), cloud=lambda: "the connection", quotas=read)
    request = PlanRequest(
        stack="s",
        template=tmp_path / "t.yaml",
        parameters={"n": "4"},
        os_cloud="c",
        cwd=tmp_path,
        checks=("quota",),
    )
    with pytest.raises(
        HotcError, match="quota compute.instances: the plan needs 4 servers at its peak, and 3 are left"
    ):
        plan(request, wiring)
    assert seen == [(frozenset({"compute.instances", "compute.cores", "compute.ram"}), frozenset({"small"}))]
    ok = plan(replace(request, parameters={"n": "3"}), wiring)
    assert ok.plan.quota["passed"] is True
    # no cloud configured: nothing is read, the plan says so
    monkeypatch.delenv("OS_CLOUD", raising=False)
    monkeypatch.delenv("OS_AUTH_URL", raising=False)
    monkeypatch.delenv("OS_AUTH_TYPE", raising=False)
    seen.clear()
    offline = plan(replace(request, os_cloud=None), wiring)
    assert seen == [] and offline.plan.quota["checked"] is False
    assert offline.plan.quota["reason"].startswith("no cloud is configured")
    assert "Quotas not checked: no cloud is configured" in render_text(offline.plan)
