"""Group rollouts in the plan: Heat's batch arithmetic, member order, the "3 → 5 members" summary in every
format, the JSON schema, and saved plans keeping their batches."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from hotc.cli.common import load_for_command
from hotc.errors import HotcError
from hotc.planner.api import PlanOptions, build_desired, load_plan, make_plan, save_plan
from hotc.planner.batching import batches
from hotc.planner.plan import Plan
from hotc.planner.render.json import plan_json
from hotc.planner.render.markdown import render_markdown
from hotc.planner.render.text import render_text
from hotc.state.document import ResourceState, StackState

SCHEMA = json.loads((Path(__file__).parents[2] / "hotc/planner/plan.schema.json").read_text())

# (target, current, max_batch_size, min_in_service) -> batches, computed with Heat's own
# heat/scaling/rolling_update.py and the two groups' loops (resource_group.py, instance_group.py)
HEAT_RG = {
    (4, 4, 2, 0): [(4, 2), (4, 2)],
    (4, 4, 2, 3): [(5, 2), (5, 2), (4, 1)],
    (6, 3, 2, 0): [(5, 2), (6, 2), (6, 2)],
    (5, 0, 2, 0): [(2, 2), (4, 2), (5, 1)],
    (2, 2, 1, 2): [(3, 1), (3, 1), (3, 1), (2, 0)],
    (2, 4, 1, 0): [(2, 1), (2, 1)],
    (3, 3, 2, 2): [(4, 2), (4, 2), (3, 0)],
}
HEAT_ASG = {
    (4, 4, 2, 3): [(5, 2), (5, 2), (4, 0)],
    (2, 2, 1, 2): [(3, 1), (3, 1), (2, 0)],
    (3, 3, 2, 2): [(4, 2), (3, 1)],
    (3, 3, 1, 1): [(3, 1), (3, 1), (3, 1)],
    (4, 4, 1, 4): [(5, 1), (5, 1), (5, 1), (5, 1), (4, 0)],
}


@pytest.mark.parametrize(("args", "expected"), sorted(HEAT_RG.items()))
def test_resource_group_batches_as_heat(
    args: tuple[int, int, int, int], expected: list[tuple[int, int]]
) -> None:
    assert batches("OS::Heat::ResourceGroup", *args) == expected


@pytest.mark.parametrize(("args", "expected"), sorted(HEAT_ASG.items()))
def test_autoscaling_group_batches_as_heat(
    args: tuple[int, int, int, int], expected: list[tuple[int, int]]
) -> None:
    assert batches("OS::Heat::AutoScalingGroup", *args) == expected


GROUP = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
  n: {type: number, default: 3}
resources:
  g:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update: {max_batch_size: 2, pause_time: 30}
    properties:
      count: {get_param: n}
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}}
"""


def _plan(tmp_path: Path, text: str, state: StackState | None, **params: str) -> Plan:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    loaded = load_for_command(path, [], params, {}, verb="planned", err=io.StringIO())
    desired = build_desired(loaded, "s", state.lineage if state else None, state=state)
    return make_plan(desired, state, PlanOptions())


def _state(n: int, value: str = "a", ages: dict[int, str] | None = None, group: str = "g") -> StackState:
    st = StackState.new("s")
    for i in range(n):
        st = st.with_resource(
            ResourceState(
                address=f"{group}[{i}]",
                type="OS::Heat::TestResource",
                physical_id=f"p{i}",
                status="CREATE_COMPLETE",
                properties={"value": value},
                created_at=(ages or {}).get(i, "2026-01-01T00:00:00Z"),
            )
        )
    return st


def test_group_summary_line_and_batches_in_text_markdown_and_json(tmp_path: Path) -> None:
    plan = _plan(tmp_path, GROUP, _state(3), v="b", n="5")
    (r,) = plan.groups
    # Heat: 5 from 3 with batches of 2: (5,2) creates the two new members, then (5,2), (5,1) update the
    # existing ones, highest index first
    assert [b.members for b in r.batches] == [("g[3]", "g[4]"), ("g[2]", "g[1]"), ("g[0]",)]
    text = render_text(plan)
    assert "g (OS::Heat::ResourceGroup): 3 → 5 members" in text
    assert "batch 1 (5 members after): + g[3], + g[4]" in text
    assert text.count("pause 30 s") == 2
    # the members' changes are under the group's summary line, not loose resources
    changes = text.split("Resource changes:")[1]
    assert changes.index("3 → 5 members") < changes.index("~ g[0]")
    md = render_markdown(plan)
    assert "3 → 5 members" in md and "then pause 30 s" in md and "`~ g[2]`, `~ g[1]`" in md
    doc = plan_json(plan)
    jsonschema.validate(doc, SCHEMA)
    (gc,) = doc["group_changes"]
    assert (gc["members_before"], gc["members_after"]) == (3, 5)
    assert gc["policy"] == {
        "name": "rolling_update",
        "max_batch_size": 2,
        "min_in_service": 0,
        "pause_time": 30,
    }
    assert [(b["batch"], b["members"], b["pause_after"]) for b in gc["batches"]] == [
        (1, ["g[3]", "g[4]"], 30),
        (2, ["g[2]", "g[1]"], 30),
        (3, ["g[0]"], 0),
    ]


def test_count_change_alone_is_one_step_but_shows_the_summary(tmp_path: Path) -> None:
    plan = _plan(tmp_path, GROUP, _state(3), n="5")
    (r,) = plan.groups
    assert (r.before, r.after, r.policy, r.batches) == (3, 5, "", ())
    assert "3 → 5 members" in render_text(plan)


def test_saved_plan_keeps_the_batches(tmp_path: Path) -> None:
    plan = _plan(tmp_path, GROUP, _state(3), v="b")
    save_plan(plan, tmp_path / "p.json")
    again = load_plan(tmp_path / "p.json")
    assert again.groups == plan.groups and again.groups[0].batches


ASG = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: a}
  cap: {type: number, default: 3}
resources:
  g:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 0
      max_size: 9
      desired_capacity: {get_param: cap}
      resource:
        type: OS::Heat::TestResource
        properties: {value: {get_param: v}}
"""


def test_asg_default_policy_updates_one_member_at_a_time_oldest_first(tmp_path: Path) -> None:
    ages = {0: "2026-01-03T00:00:00Z", 1: "2026-01-01T00:00:00Z", 2: "2026-01-02T00:00:00Z"}
    plan = _plan(tmp_path, ASG, _state(3, ages=ages), v="b")
    (r,) = plan.groups
    assert r.policy == "rolling_updates" and r.max_batch_size == 1
    assert [b.members for b in r.batches] == [("g[1]",), ("g[2]",), ("g[0]",)]


def test_asg_scale_down_removes_the_oldest_and_failed_first(tmp_path: Path) -> None:
    ages = {0: "2026-01-03T00:00:00Z", 1: "2026-01-01T00:00:00Z", 2: "2026-01-02T00:00:00Z"}
    st = _state(3, ages=ages)
    plan = _plan(tmp_path, ASG, st, cap="2")
    assert [c.address for c in plan.changes if c.action.value == "delete"] == ["g[1]"]
    failed = st.with_resource(
        ResourceState(
            "g[0]", "OS::Heat::TestResource", "p0", "CREATE_FAILED", {"value": "a"}, created_at=ages[0]
        )
    )
    plan = _plan(tmp_path, ASG, failed, cap="2")
    assert [c.address for c in plan.changes if c.action.value == "delete"] == ["g[0]"]


def test_resize_and_rolling_update_of_an_asg_then_grows(tmp_path: Path) -> None:
    plan = _plan(tmp_path, ASG, _state(2), v="b", cap="3")
    (r,) = plan.groups
    # Heat: the rolling update at min(3, 2) = 2 members, then the resize to 3 (no pause before it)
    assert [b.members for b in r.batches] == [("g[0]",), ("g[1]",), ("g[2]",)]
    assert r.batches[-1].apply == ("g[2]",) and r.after == 3


def test_unsupported_temporary_members_of_nested_groups_are_refused_at_plan_time(tmp_path: Path) -> None:
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: 2018-08-31\nparameters: {v: {type: string}}\n"
        "resources:\n  r: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}\n"
    )
    text = GROUP.replace(
        "type: OS::Heat::TestResource\n        properties: {value: {get_param: v}}",
        "type: member.yaml\n        properties: {v: {get_param: v}}",
    ).replace("{max_batch_size: 2, pause_time: 30}", "{max_batch_size: 1, min_in_service: 3, pause_time: 0}")
    st = StackState.new("s")
    for i in range(3):
        st = st.with_resource(
            ResourceState(f"g[{i}].r", "OS::Heat::TestResource", f"p{i}", "CREATE_COMPLETE", {"value": "a"})
        )
    with pytest.raises(HotcError, match="temporary member g\\[3\\]"):
        _plan(tmp_path, text, st, v="b")


REMOVAL = """
heat_template_version: 2018-08-31
parameters:
  mode: {type: string, default: append}
  remove: {type: json, default: []}
resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      removal_policies_mode: {get_param: mode}
      removal_policies: [{resource_list: {get_param: remove}}]
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: a}
outputs:
  removed: {value: {get_attr: [g, removed_rsrc_list]}}
"""


def test_removal_policies_names_stay_removed_in_append_mode_only(tmp_path: Path) -> None:
    removed = _plan(tmp_path, REMOVAL, _state(3), remove='["1"]')
    assert [c.address for c in removed.changes if c.action.value == "delete"] == ["g[1]"]
    assert [c.address for c in removed.changes if c.action.value == "create"] == ["g[3]"]
    (out,) = [o for o in removed.output_changes if o.name == "removed"]
    assert out.after == ["1"]
    # after that apply the state holds 0, 2, 3; the policy is dropped from the template
    st = _state(4).without_resource("g[1]")
    kept = _plan(tmp_path, REMOVAL, st)
    assert {c.action.value for c in kept.changes} == {"no-op"}  # append: "1" is never reused
    reset = _plan(tmp_path, REMOVAL, st, mode="update")
    assert [c.address for c in reset.changes if c.action.value == "create"] == ["g[1]"]
    assert [c.address for c in reset.changes if c.action.value == "delete"] == ["g[3]"]


def test_group_outputs_are_keyed_by_member_name_and_index_var_reaches_nested_members(tmp_path: Path) -> None:
    (tmp_path / "member.yaml").write_text(
        "heat_template_version: 2018-08-31\nparameters: {v: {type: string}}\n"
        "resources:\n  r: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}\n"
        "outputs:\n  val: {value: {get_attr: [r, output]}}\n"
    )
    text = """
heat_template_version: 2018-08-31
resources:
  asg:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 2
      max_size: 2
      resource: {type: OS::Heat::TestResource, properties: {value: x}}
  rg:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      index_var: __i__
      resource_def: {type: member.yaml, properties: {v: member-__i__}}
outputs:
  asg_out: {value: {get_attr: [asg, outputs, output]}}
  rg_attrs: {value: {get_attr: [rg, attributes, val]}}
"""
    plan = _plan(tmp_path, text, None)
    by = {c.address: c for c in plan.changes}
    assert by["rg[0].r"].after == {"value": "member-0"} and by["rg[1].r"].after == {"value": "member-1"}
    outs = {o.name: o for o in plan.output_changes}
    assert sorted(outs["asg_out"].after) == ["0", "1"]  # Heat: member names, not ids
    assert sorted(outs["rg_attrs"].after) == ["0", "1"]


def test_many_groups_each_read_their_own_members_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 60 groups (one nested inside a member stack's name space: g1 and g10 share a leading "g1"), each
    # updated by a rolling update from a full state: each group reads its own members' changes and records,
    # not every change and record of the stack once per group
    import hotc.planner.rollout as rollout

    n = 60
    lines = [
        "heat_template_version: 2018-08-31",
        "parameters:",
        "  v: {type: string, default: a}",
        "resources:",
    ]
    for g in range(n):
        lines += [
            f"  g{g}:",
            "    type: OS::Heat::ResourceGroup",
            "    update_policy: {rolling_update: {max_batch_size: 1}}",
            "    properties:",
            "      count: 3",
            "      resource_def: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}",
        ]
    state = StackState.new("s")
    for g in range(n):
        for i in range(3):
            state = state.with_resource(
                ResourceState(
                    address=f"g{g}[{i}]",
                    type="OS::Heat::TestResource",
                    physical_id=f"p{g}-{i}",
                    status="CREATE_COMPLETE",
                    properties={"value": "a"},
                    created_at=f"2026-01-01T00:00:0{i}Z",
                )
            )
    calls = 0
    real = rollout._index_of

    def counted(address: str, prefix: str) -> int | None:
        nonlocal calls
        calls += 1
        return real(address, prefix)

    monkeypatch.setattr(rollout, "_index_of", counted)
    plan = _plan(tmp_path, "\n".join(lines) + "\n", state, v="b")
    assert len(plan.groups) == n
    for g, r in zip(range(n), sorted(plan.groups, key=lambda r: int(r.address[1:])), strict=True):
        assert r.address == f"g{g}"
        assert [b.members for b in r.batches] == [(f"g{g}[2]",), (f"g{g}[1]",), (f"g{g}[0]",)]
    assert all(c.action.value == "update" for c in plan.changes)
    # each group looks at its own 3 changes and 3 records (a scan would be 60 x 360)
    assert calls <= 4 * 6 * n
