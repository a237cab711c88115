"""Heat's functional test_preview_update (UpdatePreviewStackTest, UpdatePreviewStackTestNested): Heat's update
preview is ``hotc plan``; its resource changes, sorted as Heat sorts them (added, updated, replaced, deleted,
unchanged), with the suite's templates. hotc plans leaf resources: the nested stacks themselves (nested1,
nested2, which Heat always lists as updated) are no entries of a plan; a leaf's parent is the last part of its
address before its name."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.heat_functional.heat import HeatStack

test_template_one_resource: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "description": "Test template to create one instance.",
    "resources": {
        "test1": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "Test1", "fail": False, "update_replace": False, "wait_secs": 0},
        }
    },
}

test_template_two_resource: dict[str, Any] = copy.deepcopy(test_template_one_resource)
test_template_two_resource["description"] = "Test template to create two instance."
test_template_two_resource["resources"]["test2"] = copy.deepcopy(
    test_template_one_resource["resources"]["test1"]
)

template_nested_parent = """
heat_template_version: 2016-04-08
resources:
  nested1:
    type: nested1.yaml
"""

template_nested1 = """
heat_template_version: 2016-04-08
resources:
  nested2:
    type: nested2.yaml
"""

template_nested2 = """
heat_template_version: 2016-04-08
resources:
  random:
    type: OS::Heat::RandomString
"""

template_nested2_2 = """
heat_template_version: 2016-04-08
resources:
  random:
    type: OS::Heat::RandomString
  random2:
    type: OS::Heat::RandomString
"""


SECTIONS = ("added", "updated", "replaced", "deleted", "unchanged")


def preview(
    stack: HeatStack, template: Any, files: dict[str, str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Heat's resource_changes of an update preview, from ``hotc plan --format json``."""
    args = stack._args(template, None, files, None)
    r = stack.run("plan", *args, stack.name, "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    changes: dict[str, list[dict[str, Any]]] = {s: [] for s in SECTIONS}
    for c in json.loads(r.stdout)["resource_changes"]:
        actions = c["actions"]
        section = (
            "replaced"
            if "create" in actions and "delete" in actions
            else {"create": "added", "update": "updated", "delete": "deleted", "no-op": "unchanged"}[
                actions[0]
            ]
        )
        parts = c["address"].split(".")
        entry = {"resource_name": parts[-1]}
        if len(parts) > 1:
            entry["parent_resource"] = parts[-2]
        changes[section].append(entry)
    return changes


def assert_empty_sections(changes: dict[str, list[Any]], empty: list[str]) -> None:
    for section in empty:
        assert changes[section] == [], section


def test_add_resource(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template_one_resource)
    changes = preview(stack, test_template_two_resource)
    assert changes["unchanged"][0]["resource_name"] == "test1"
    assert changes["added"][0]["resource_name"] == "test2"
    assert_empty_sections(changes, ["updated", "replaced", "deleted"])


def test_no_change(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template_one_resource)
    changes = preview(stack, test_template_one_resource)
    assert changes["unchanged"][0]["resource_name"] == "test1"
    assert_empty_sections(changes, ["updated", "replaced", "deleted", "added"])


def test_update_resource(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template_one_resource)
    updated = copy.deepcopy(test_template_one_resource)
    updated["resources"]["test1"]["properties"]["value"] = "Test1 foo"
    changes = preview(stack, updated)
    assert changes["updated"][0]["resource_name"] == "test1"
    assert_empty_sections(changes, ["added", "unchanged", "replaced", "deleted"])


def test_replaced_resource(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template_one_resource)
    new_template = copy.deepcopy(test_template_one_resource)
    new_template["resources"]["test1"]["properties"] = {"update_replace": True}
    changes = preview(stack, new_template)
    assert changes["replaced"][0]["resource_name"] == "test1"
    assert_empty_sections(changes, ["added", "unchanged", "updated", "deleted"])


def test_delete_resource(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(test_template_two_resource)
    changes = preview(stack, test_template_one_resource)
    assert changes["unchanged"][0]["resource_name"] == "test1"
    assert changes["deleted"][0]["resource_name"] == "test2"
    assert_empty_sections(changes, ["updated", "replaced", "added"])


def _nested(tmp_path: Path, nested2: str) -> HeatStack:
    stack = HeatStack(tmp_path)
    stack.create(template_nested_parent, files={"nested1.yaml": template_nested1, "nested2.yaml": nested2})
    return stack


def test_nested_resources_nochange(tmp_path: Path) -> None:
    stack = _nested(tmp_path, template_nested2)
    files = {"nested1.yaml": template_nested1, "nested2.yaml": template_nested2}
    changes = preview(stack, template_nested_parent, files)
    assert changes["unchanged"] == [{"resource_name": "random", "parent_resource": "nested2"}]
    assert_empty_sections(changes, ["replaced", "deleted", "added"])


def test_nested_resources_add(tmp_path: Path) -> None:
    stack = _nested(tmp_path, template_nested2)
    files = {"nested1.yaml": template_nested1, "nested2.yaml": template_nested2_2}
    changes = preview(stack, template_nested_parent, files)
    assert changes["unchanged"] == [{"resource_name": "random", "parent_resource": "nested2"}]
    assert changes["added"] == [{"resource_name": "random2", "parent_resource": "nested2"}]
    assert_empty_sections(changes, ["replaced", "deleted"])


def test_nested_resources_delete(tmp_path: Path) -> None:
    stack = _nested(tmp_path, template_nested2_2)
    files = {"nested1.yaml": template_nested1, "nested2.yaml": template_nested2}
    changes = preview(stack, template_nested_parent, files)
    assert changes["unchanged"] == [{"resource_name": "random", "parent_resource": "nested2"}]
    assert changes["deleted"] == [{"resource_name": "random2", "parent_resource": "nested2"}]
    assert_empty_sections(changes, ["replaced", "added"])


def test_nested_resources_replace(tmp_path: Path) -> None:
    stack = _nested(tmp_path, template_nested2)
    # nested1 becomes an OS::Heat::None: Heat replaces nested1 and deletes what its stack held
    changes = preview(stack, template_nested_parent.replace("nested1.yaml", "OS::Heat::None"))
    assert [c["resource_name"] for c in changes["deleted"]] == ["random"]
    assert changes["deleted"][0]["parent_resource"] == "nested2"
    assert [c["resource_name"] for c in changes["added"] + changes["replaced"]] == ["nested1"]
    assert_empty_sections(changes, ["updated", "unchanged"])
