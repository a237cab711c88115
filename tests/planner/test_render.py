"""The three output formats: text, JSON (validated against plan.schema.json) and Markdown (GitHub's limit)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.planner.render.json import plan_json, render_json, unknown_mask
from hotc.planner.render.markdown import GITHUB_COMMENT_LIMIT, render_markdown
from hotc.planner.render.text import render_text
from hotc.values import Unknown
from tests.planner import test_two_tier as two
from tests.planner.helpers import plan_of, stack, state

SCHEMA = json.loads((Path(__file__).parents[2] / "hotc" / "planner" / "plan.schema.json").read_text())


def _two_tier_plan() -> Plan:
    return plan_of(stack(two._doc(), {"app_port": 8081}), two._applied_state())


def _mixed_plan() -> Plan:
    doc = {
        "parameters": {"pw": {"type": "string", "hidden": True, "default": "s3cret"}},
        "resources": {
            "new": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}}},
            "srv": {"type": "OS::Nova::Server", "properties": {"flavor": "m1", "image": "ubuntu"}},
            "kept": {"type": "OS::Heat::RandomString", "deletion_policy": "Retain"},
        },
    }
    st = state(
        {
            "srv": {"type": "OS::Nova::Server", "properties": {"flavor": "m1", "image": "cirros"}},
            "kept": {"type": "OS::Heat::RandomString", "deletion_policy": "Retain"},
            "gone": {"type": "OS::Heat::None"},
            "ret": {"type": "OS::Heat::None", "deletion_policy": "Retain"},
        }
    )
    return plan_of(stack(doc), st)


def test_text_summary_first_destructive_first_and_diffs():
    text = render_text(_two_tier_plan())
    lines = text.splitlines()
    assert lines[0] == "Plan for stack 's': 0 to create, 1 to update, 3 to replace, 0 to delete, 8 unchanged."
    destructive = text.index("Destructive actions:")
    assert text.index("-/+ replace  server_a") > destructive
    body = text[text.index("Resource changes:") :]
    # replaces are listed before the in-place update
    assert body.index("server_a") < body.index("~ sg")
    assert (
        "~ user_data:   # forces replacement\n          @@ -1,2 +1,2 @@\n           #!/bin/sh\n          -run-app --port 8080\n          +run-app --port 8081"
        in body
    )
    assert '~ address: "10.0.0.11" -> (known after apply)   # forces replacement' in body
    assert "~ rules[1].port_range_min: 8080 -> 8081" in body
    assert '~ app_url: "10.0.0.11" -> (known after apply)' in text


def test_text_rebuild_is_highlighted_and_sensitive_hidden():
    text = render_text(_mixed_plan())
    assert "~! srv (OS::Nova::Server) will be REBUILT in place (root disk wiped)" in text
    assert " ~! rebuild  srv (OS::Nova::Server): image changed" in text  # in the destructive list
    assert "x forget   ret" in text or "  x forget   ret" in text
    assert "s3cret" not in text and "+ value: (sensitive)" in text
    colored = render_text(_mixed_plan(), color=True)
    assert "\x1b[1;31m~! srv" in colored


def test_text_no_changes():
    st = two._applied_state()
    text = render_text(plan_of(stack(two._doc(), {"app_port": 8080}), st))
    assert "No changes." in text and "0 to create" in text


def test_json_is_valid_against_the_schema_and_stable():
    for plan in (_two_tier_plan(), _mixed_plan(), plan_of(stack(two._doc()))):
        doc = json.loads(render_json(plan))
        jsonschema.validate(doc, SCHEMA)
    doc = plan_json(_two_tier_plan())
    rc = {c["address"]: c for c in doc["resource_changes"]}
    assert rc["server_a"]["actions"] == ["create", "delete"]
    assert rc["server_a"]["action_reason"] == "replace_because_update_policy"
    assert rc["server_a"]["replace_paths"] == [["user_data"]]
    assert rc["sg"]["changed_paths"] == [["rules", 1, "port_range_max"], ["rules", 1, "port_range_min"]]
    assert rc["member_a"]["after"]["address"] is None and rc["member_a"]["after_unknown"] == {"address": True}
    assert rc["net"]["actions"] == ["no-op"]
    assert doc["summary"]["replace"] == 3 and doc["summary"]["has_changes"] is True
    assert doc["output_changes"]["app_url"]["after_unknown"] is True


def test_json_masks_sensitive_values_and_marks_them():
    doc = plan_json(_mixed_plan())
    assert "s3cret" not in json.dumps(doc)
    new = next(c for c in doc["resource_changes"] if c["address"] == "new")
    # a hidden value is null (JSON keeps types), flagged true in after_sensitive
    assert new["after"]["value"] is None and new["after_sensitive"] == {"value": True}
    srv = next(c for c in doc["resource_changes"] if c["address"] == "srv")
    assert srv["actions"] == ["update"] and srv["rebuild"] is True
    ret = next(c for c in doc["resource_changes"] if c["address"] == "ret")
    assert ret["actions"] == ["forget"]


def test_json_schema_rejects_a_broken_document():
    doc = plan_json(_two_tier_plan())
    doc["resource_changes"][0]["actions"] = ["explode"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_unknown_mask_shapes():
    u = Unknown.of("x")
    assert unknown_mask({"a": 1, "b": u, "c": [1, u], "d": [1, 2], "e": {"f": u}}) == {
        "b": True,
        "c": [False, True],
        "e": {"f": True},
    }


def test_markdown_summary_table_destructive_first_details_collapsed():
    md = render_markdown(_two_tier_plan())
    assert md.startswith("<!-- hotc-plan-comment stack=s -->\n### hotc plan for stack `s`")
    assert "| ♻️ replace | 3 |" in md and "| 🔧 update in place | 1 |" in md
    assert md.index("Destructive actions") < md.index("#### Details")
    assert md.count("<details><summary>") == 4 + 2  # four changes, the graph and the inputs
    assert "```diff" in md and "-     run-app --port 8080" in md


def _huge_plan(n: int) -> Plan:
    changes = tuple(
        ResourceChange(
            address=f"res_{i:05d}",
            type="OS::Neutron::Port",
            action=Action.REPLACE if i % 2 else Action.CREATE,
            before={"name": "a" * 100} if i % 2 else None,
            after={"name": "b" * 100, "network": "n" * 200},
            changed_paths=("name",) if i % 2 else (),
            replace_paths=("name",) if i % 2 else (),
            action_reason="replace_because_cannot_update" if i % 2 else "",
        )
        for i in range(n)
    )
    return Plan(stack_name="big", mode="normal", changes=changes)


def test_markdown_fits_githubs_limit_by_truncating_details_never_the_summary():
    plan = _huge_plan(2000)
    md = render_markdown(plan)
    assert len(md) <= GITHUB_COMMENT_LIMIT
    assert "| ➕ create | 1000 |" in md and "| ♻️ replace | 1000 |" in md  # the summary is whole
    assert "left out to fit GitHub's comment limit" in md
    small = render_markdown(_huge_plan(10))
    assert "left out" not in small and small.count("<details><summary>") == 10 + 2


def test_markdown_with_an_enormous_destructive_list_still_keeps_the_summary():
    md = render_markdown(_huge_plan(20000))
    assert len(md) <= GITHUB_COMMENT_LIMIT
    assert "### hotc plan" in md.split("\n", 2)[1] and "| ♻️ replace | 10000 |" in md
    assert "more destructive actions not shown" in md


def test_json_with_drift_and_output_errors_is_valid():
    from hotc.planner.plan import OutputChange

    drift = (
        ResourceChange(
            "a",
            "OS::Heat::Value",
            Action.UPDATE,
            {"value": 1},
            {"value": 2},
            changed_paths=("value",),
            action_reason="drift_changed",
        ),
        ResourceChange("b", "OS::Heat::Value", Action.DELETE, {"value": 1}, None, action_reason="drift_gone"),
    )
    plan = Plan(
        stack_name="s",
        mode="refresh-only",
        changes=(),
        resource_drift=drift,
        output_changes=(OutputChange("o", Action.CREATE, error="boom"),),
    )
    doc = json.loads(render_json(plan))
    jsonschema.validate(doc, SCHEMA)
    assert [c["actions"] for c in doc["resource_drift"]] == [["update"], ["delete"]]
    assert doc["output_changes"]["o"]["error"] == "boom"
    assert "changed outside hotc" in render_text(plan)
    md = render_markdown(plan)
    assert "Changed outside hotc" in md and "`b` (OS::Heat::Value): gone" in md


def test_long_script_changes_are_shown_as_line_diffs():
    script_old = "#!/bin/sh\n" + "echo setup\n" * 30 + "run --port 8080\n"
    script_new = script_old.replace("8080", "8081")
    plan = plan_of(
        stack(
            {
                "resources": {
                    "s": {
                        "type": "OS::Nova::Server",
                        "properties": {
                            "flavor": "f",
                            "image": "i",
                            "user_data": script_new,
                            "user_data_update_policy": "IGNORE",
                        },
                    }
                }
            }
        ),
        state(
            {
                "s": {
                    "type": "OS::Nova::Server",
                    "properties": {
                        "flavor": "f",
                        "image": "i",
                        "user_data": script_old,
                        "user_data_update_policy": "IGNORE",
                    },
                }
            }
        ),
    )
    text = render_text(plan)
    assert "~ user_data:\n" in text and "-run --port 8080" in text and "+run --port 8081" in text
    md = render_markdown(plan)
    assert "-     run --port 8080" in md and "+     run --port 8081" in md


def test_a_created_resource_shows_each_value_masked_where_it_is_secret() -> None:
    marker = {"__sensitive__": "sha256:abc"}
    after = {
        "b_secret_key": "s3cret",
        "a_marker": marker,
        "c_nested": [{"x": marker, "y": 1}],
        "d_unknown": Unknown.of("net"),
        "e_plain": {"k": "v"},
        "f_text": "(sensitive)",
    }
    plan = Plan(
        stack_name="s",
        mode="normal",
        changes=(
            ResourceChange(
                "r", "OS::Heat::Value", Action.CREATE, None, after, sensitive_paths=("b_secret_key",)
            ),
        ),
    )
    lines = [ln.strip() for ln in render_text(plan).splitlines() if ln.startswith("      + ")]
    assert lines == [
        "+ a_marker: (sensitive)",
        "+ b_secret_key: (sensitive)",
        '+ c_nested: [{"x": "(sensitive)", "y": 1}]',
        "+ d_unknown: (known after apply)",
        '+ e_plain: {"k": "v"}',
        "+ f_text: (sensitive)",
    ]
    everything = Plan(
        stack_name="s",
        mode="normal",
        changes=(ResourceChange("r", "OS::Heat::Value", Action.CREATE, None, after, sensitive_paths=("*",)),),
    )
    assert "s3cret" not in render_text(everything) and '"v"' not in render_text(everything)
