"""Heat's functional test_admin_actions (AdminActionsTest): update, suspend, resume, list and delete of a
simple stack and of a stack with a group, as the suite does with an admin's client. hotc has no user roles: the
same actions run as the stack's user."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.heat_functional.heat import HeatStack

test_template: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": {"type": "OS::Heat::TestResource", "properties": {"value": "Test1"}}},
}

rsg_template: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "random_group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {
                    "type": "OS::Heat::RandomString",
                    "properties": {"length": 30, "salt": "initial"},
                },
            },
        }
    },
}


def _suspend_resume(stack: HeatStack) -> None:
    r = stack.run("suspend", stack.name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert stack.status() == "SUSPEND_COMPLETE"
    r = stack.run("resume", stack.name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert stack.status() == "RESUME_COMPLETE"


def test_admin_simple_stack_actions(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template)
    updated = copy.deepcopy(test_template)
    updated["resources"]["test1"]["properties"]["value"] = "new_value"
    stack.update(updated)
    _suspend_resume(stack)
    assert stack.list_resources() == {"test1": "OS::Heat::TestResource"}
    stack.delete()
    assert stack.status() == "DELETE_COMPLETE"


def test_admin_complex_stack_actions(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(rsg_template)
    updated = copy.deepcopy(rsg_template)
    updated["resources"]["random_group"]["properties"]["count"] = 3
    stack.update(updated)
    _suspend_resume(stack)
    assert stack.list_resources() == {"random_group": "OS::Heat::ResourceGroup"}
    stack.delete()
    assert stack.status() == "DELETE_COMPLETE"
