"""Heat's functional test_update_restricted (UpdateRestrictedStackTest): ``restricted_actions`` of the
environment's per-resource registry refuse an update or a replacement; the suite's template and environments.
Heat starts the update and fails it (UPDATE_FAILED, the reason in the resource's events); hotc refuses the plan
before anything runs, with the reason, and the stack keeps its status. In both the resource stays
CREATE_COMPLETE."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.heat_functional.heat import HeatStack

test_template: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "description": "Test template to create one instance.",
    "resources": {
        "bar": {"type": "OS::Heat::TestResource", "properties": {"value": "1234", "update_replace": False}}
    },
}

env_both_restrict = {
    "resource_registry": {"resources": {"bar": {"restricted_actions": ["update", "replace"]}}}
}
env_replace_restrict = {"resource_registry": {"resources": {"*ar": {"restricted_actions": "replace"}}}}


def _status(stack: HeatStack) -> str:
    return str(stack.resource("bar")["status"])


def test_update(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template)
    update = copy.deepcopy(test_template)
    update["resources"]["bar"]["properties"]["value"] = "4567"
    # with both restricted, the update fails
    r = stack.refused(update, environment=env_both_restrict)
    assert _status(stack) == "CREATE_COMPLETE"
    assert "Update to resource bar is restricted" in r.stdout + r.stderr
    # with only replace restricted, it succeeds
    r = stack.update(update, environment=env_replace_restrict, expected_status="UPDATE_COMPLETE")
    assert _status(stack) == "UPDATE_COMPLETE"
    assert "restricted" not in r.stdout + r.stderr


def test_replace(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template)
    update = copy.deepcopy(test_template)
    update["resources"]["bar"]["properties"].update(value="4567", update_replace=True)
    for env in (env_both_restrict, env_replace_restrict):
        r = stack.refused(update, environment=env)
        assert _status(stack) == "CREATE_COMPLETE"
        assert "Replace to resource bar is restricted" in r.stdout + r.stderr
        assert "Update to resource bar is restricted" not in r.stdout + r.stderr


def test_update_type_changed(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template)
    update = copy.deepcopy(test_template)
    update["resources"]["bar"]["type"] = "OS::Heat::None"
    for env in (env_both_restrict, env_replace_restrict):
        r = stack.refused(update, environment=env)
        assert _status(stack) == "CREATE_COMPLETE"
        assert "Replace to resource bar is restricted" in r.stdout + r.stderr
        assert "Update to resource bar is restricted" not in r.stdout + r.stderr
