"""The pull-request comment, checked in as a golden file: a plan with a create, an update, a rebuild, a
replace, a delete, a sensitive value, an output change and a policy warning (HOTC_UPDATE_GOLDEN=1 rewrites)."""

from __future__ import annotations

import os
from pathlib import Path

from hotc.planner.options import parse_deny_rule
from hotc.planner.plan import Action, OutputChange, Plan, ResourceChange
from hotc.planner.policy import evaluate_policy, findings
from hotc.planner.render.markdown import GITHUB_COMMENT_LIMIT, render_markdown
from hotc.planner.review import with_review
from hotc.values import Unknown

GOLDEN = Path(__file__).parent / "golden" / "review_comment.md"


def review_plan() -> Plan:
    changes = (
        ResourceChange("web_port", "OS::Neutron::Port", Action.CREATE, None, {"network": "private"}),
        ResourceChange(
            "web",
            "OS::Nova::Server",
            Action.UPDATE,
            {"flavor": "m1.small", "image": "cirros", "name": "web"},
            {"flavor": "m1.medium", "image": "cirros", "name": "web"},
            changed_paths=("flavor",),
            action_reason="update",
            reason_detail="flavor can be updated in place",
            depends_on=("web_port",),
        ),
        ResourceChange(
            "worker",
            "OS::Nova::Server",
            Action.UPDATE,
            {"flavor": "m1.small", "image": "cirros-0.5"},
            {"flavor": "m1.small", "image": "cirros-0.6"},
            changed_paths=("image",),
            rebuild=True,
            action_reason="update_rebuild",
            reason_detail="image changed: the server is rebuilt in place and its root disk is wiped",
        ),
        ResourceChange(
            "db_volume",
            "OS::Cinder::Volume",
            Action.REPLACE,
            {"size": 20, "volume_type": "fast"},
            {"size": 20, "volume_type": "slow"},
            changed_paths=("volume_type",),
            replace_paths=("volume_type",),
            action_reason="replace_because_cannot_update",
            reason_detail="volume_type cannot be updated in place",
            previous_physical_id="vol-1",
        ),
        ResourceChange(
            "db_attach",
            "OS::Cinder::VolumeAttachment",
            Action.REPLACE,
            {"volume_id": "vol-1", "instance_uuid": "srv-1"},
            {"volume_id": Unknown.of("db_volume"), "instance_uuid": "srv-1"},
            changed_paths=("volume_id",),
            replace_paths=("volume_id",),
            action_reason="replace_because_cannot_update",
            reason_detail="volume_id cannot be updated in place (its new value is known only after apply)",
            depends_on=("db_volume",),
        ),
        ResourceChange(
            "db_config",
            "OS::Heat::Value",
            Action.UPDATE,
            {"value": "password=old"},
            {"value": "password=new"},
            changed_paths=("value",),
            sensitive_paths=("value",),
            action_reason="update",
        ),
        ResourceChange(
            "old_fip",
            "OS::Neutron::FloatingIP",
            Action.DELETE,
            {"floating_network": "public"},
            None,
            action_reason="delete_because_no_resource_config",
            reason_detail="not in the template any more",
            previous_physical_id="fip-1",
        ),
        ResourceChange("keep", "OS::Heat::None", Action.NOOP, {}, {}),
    )
    outputs = (
        OutputChange("web_flavor", Action.UPDATE, before="m1.small", after="m1.medium"),
        OutputChange("db_dsn", Action.UPDATE, before="x", after="y", sensitive=True),
    )
    plan = Plan(
        stack_name="shop",
        mode="normal",
        changes=changes,
        output_changes=outputs,
        state_lineage="2f0c-lineage",
        state_serial=7,
        inputs={
            "template": "shop.yaml",
            "environments": ["prod.env.yaml"],
            "parameters": {"flavor": "m1.medium", "db_pass": {"hidden": True, "digest": "d", "salt": "s"}},
            "parameter_files": {},
        },
        warnings=("shop.yaml:40:7: warning: property 'metadata' of web is ignored by Heat here",),
    )
    rules = (parse_deny_rule("replace:OS::Cinder::*", "policy.yaml: rule 1", "warn"),)
    plan = Plan(
        **{
            **{f: getattr(plan, f) for f in plan.__dataclass_fields__},
            "policy_findings": findings(evaluate_policy(plan, rules)),
        }
    )
    return with_review(plan)


def test_review_comment_golden() -> None:
    md = render_markdown(review_plan(), saved_as="plan.json")
    assert len(md) <= GITHUB_COMMENT_LIMIT
    if os.environ.get("HOTC_UPDATE_GOLDEN"):
        GOLDEN.write_text(md, encoding="utf-8")
    assert md == GOLDEN.read_text(encoding="utf-8")


def test_review_comment_says_what_a_reviewer_needs() -> None:
    md = render_markdown(review_plan(), saved_as="plan.json")
    lines = md.splitlines()
    assert lines[0] == "<!-- hotc-plan-comment stack=shop -->"
    assert "**Plan: 1 to create, 3 to update, 2 to replace, 1 to delete**" in md
    assert "`web` (reboot): a resize" in md  # a resize is flagged, not a plain update
    assert "`worker` (rebuild)" in md and "`db_volume` (data-loss): the volume's data is lost" in md
    assert "`old_fip` (data-loss): the floating IP address is released" in md
    assert "⚠️ warn: **replace** `db_volume`" in md and "Policy warnings" in md
    assert "password=new" not in md and "password=old" not in md  # the sensitive value stays hidden
    assert "`db_dsn`: update (sensitive) → (sensitive)" in md
    assert '`web_flavor`: update "m1.small" → "m1.medium"' in md
    assert "hotc apply plan.json" in md
    assert (
        "| parameter `db_pass` | (sensitive) |" in md and "| state | serial 7, lineage `2f0c-lineage` |" in md
    )
    assert "Caused by: `db_volume`" in md  # the attachment is replaced because the volume is
    assert "```mermaid" in md
