"""Golden renderings: the exact text and JSON of reference plans (regenerate with HOTC_UPDATE_GOLDEN=1 after
an intended format change, and review the diff)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hotc.planner.plan import Plan
from hotc.planner.render.json import render_json
from hotc.planner.render.markdown import render_markdown
from hotc.planner.render.text import render_text
from tests.planner import test_two_tier as two
from tests.planner.helpers import plan_of, stack, state

GOLDEN = Path(__file__).parent / "golden"


def _every_action() -> Plan:
    """One resource per action kind and reason."""
    doc = {
        "parameters": {"pw": {"type": "string", "hidden": True, "default": "p4ss"}},
        "resources": {
            "created": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "pw"}}},
            "same": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
            "updated": {"type": "OS::Heat::Value", "properties": {"value": "new"}},
            "cannot_update": {"type": "OS::Heat::RandomString", "properties": {"length": 16}},
            "by_request": {"type": "OS::Heat::None"},
            "failed": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
            "type_changed": {"type": "OS::Heat::None"},
            "server_rule": {
                "type": "OS::Nova::Server",
                "properties": {"flavor": "f", "image": "i", "user_data": "b"},
            },
            "server_rebuild": {"type": "OS::Nova::Server", "properties": {"flavor": "f", "image": "new"}},
            "fed": {
                "type": "OS::Heat::RandomString",
                "properties": {"salt": {"get_resource": "cannot_update"}},
            },
        },
    }
    st = state(
        {
            "same": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
            "updated": {"type": "OS::Heat::Value", "properties": {"value": "old"}},
            "cannot_update": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
            "by_request": {"type": "OS::Heat::None"},
            "failed": {"type": "OS::Heat::Value", "properties": {"value": "v"}, "status": "CREATE_FAILED"},
            "type_changed": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
            "server_rule": {
                "type": "OS::Nova::Server",
                "properties": {"flavor": "f", "image": "i", "user_data": "a"},
            },
            "server_rebuild": {"type": "OS::Nova::Server", "properties": {"flavor": "f", "image": "old"}},
            "fed": {
                "type": "OS::Heat::RandomString",
                "properties": {"salt": "id-cannot_update"},
                "dependencies": ["cannot_update"],
            },
            "removed": {"type": "OS::Heat::None"},
            "retained": {"type": "OS::Heat::None", "deletion_policy": "Retain"},
        }
    )
    return plan_of(stack(doc), st, replace=("by_request",))


CASES = {
    "two_tier": lambda: plan_of(stack(two._doc(), {"app_port": 8081}), two._applied_state()),
    "every_action": _every_action,
}


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HOTC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with HOTC_UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_text(case: str) -> None:
    _check(f"{case}.txt", render_text(CASES[case]()))


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_json(case: str) -> None:
    text = render_json(CASES[case]())
    json.loads(text)
    _check(f"{case}.json", text)


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_markdown(case: str) -> None:
    _check(f"{case}.md", render_markdown(CASES[case]()))


def test_every_action_reason_is_covered() -> None:
    plan = _every_action()
    reasons = {c.address: (c.action.value, c.action_reason) for c in plan.changes}
    assert reasons == {
        "created": ("create", ""),
        "same": ("no-op", ""),
        "updated": ("update", "update"),
        "cannot_update": ("replace", "replace_because_cannot_update"),
        "by_request": ("replace", "replace_by_request"),
        "failed": ("replace", "replace_because_failed"),
        "type_changed": ("replace", "replace_because_type_changed"),
        "server_rule": ("replace", "replace_because_update_policy"),
        "server_rebuild": ("update", "update_rebuild"),
        "fed": ("replace", "replace_because_cannot_update"),
        "removed": ("delete", "delete_because_no_resource_config"),
        "retained": ("forget", "forget_because_retain"),
    }
