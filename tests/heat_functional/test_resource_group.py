"""Heat's functional test_resource_group (ResourceGroupTest): a group of RandomStrings (an alias, or a provider
template) created, resized, with removal policies, its resource_def changed, updated with no change, and its
member template changed; the suite's templates and expectations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.heat_functional.heat import HeatStack

TEMPLATE = """
heat_template_version: 2013-05-23
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 0
      resource_def:
        type: My::RandomString
        properties:
          length: 30
          salt: initial
outputs:
  random1:
    value: {get_attr: [random_group, resource.0.value]}
  random2:
    value: {get_attr: [random_group, resource.1.value]}
  all_values:
    value: {get_attr: [random_group, value]}
"""

NESTED_TEMPLATE_FAIL = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 50
  salt:
    type: string
    default: initial
resources:
  random:
    type: OS::Heat::RandomString
    properties:
      length: BAD
"""

RP_TEMPLATE = """
heat_template_version: 2014-10-16
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 5
      removal_policies: []
      resource_def:
        type: OS::Heat::RandomString
"""

RANDOM_TEMPL1 = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: not-used
  salt:
    type: string
    default: not-used
resources:
  random1:
    type: OS::Heat::RandomString
    properties:
      salt: initial
outputs:
  value:
    value: {get_attr: [random1, value]}
"""

ALIAS = {"resource_registry": {"My::RandomString": "OS::Heat::RandomString"}}


def _validate_resources(stack: HeatStack, expected_count: int) -> None:
    assert stack.list_resources("random_group") == {str(i): "My::RandomString" for i in range(expected_count)}


def test_resource_group_zero_novalidate(tmp_path: Path) -> None:
    # members are validated only when there are some: count 0 creates an empty group
    files = {"provider.yaml": NESTED_TEMPLATE_FAIL}
    env = {"resource_registry": {"My::RandomString": "provider.yaml"}}
    stack = HeatStack(tmp_path)
    stack.create(TEMPLATE, files=files, environment=env)
    assert stack.list_resources("random_group") == {}
    # with members, the bad length is an error, for an update as for a create
    two = TEMPLATE.replace("count: 0", "count: 2")
    for name in (stack.name, "other"):
        r = HeatStack(tmp_path, name).run(
            "apply", "-t", _write(tmp_path, "two.yaml", two), "-e", "env.yaml", name, "--auto-approve"
        )
        assert r.returncode != 0
        assert "BAD" in r.stdout + r.stderr and "integer" in r.stdout + r.stderr
        assert "Traceback" not in r.stderr


def _write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return name


def test_create(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(TEMPLATE.replace("count: 0", "count: 2"), environment=ALIAS)
    assert stack.list_resources() == {"random_group": "OS::Heat::ResourceGroup"}
    _validate_resources(stack, 2)
    outs = stack.outputs()
    assert len(outs["random1"]) == 30 and len(outs["random2"]) == 30
    assert outs["all_values"] == [outs["random1"], outs["random2"]]


@pytest.mark.skip(reason="a timeout of a nested group's batches (pause_time): a timing scenario")
def test_create_nested_groups_with_timeout() -> None:
    pass


def test_update_increase_decrease_count(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(TEMPLATE.replace("count: 0", "count: 2"), environment=ALIAS)
    _validate_resources(stack, 2)
    stack.update(TEMPLATE.replace("count: 0", "count: 5"), environment=ALIAS)
    _validate_resources(stack, 5)
    stack.update(TEMPLATE.replace("count: 0", "count: 3"), environment=ALIAS)
    _validate_resources(stack, 3)


def test_update_removal_policies(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(RP_TEMPLATE)
    assert stack.list_resources() == {"random_group": "OS::Heat::ResourceGroup"}
    assert stack.list_resources("random_group") == {str(i): "OS::Heat::RandomString" for i in range(5)}
    # remove three, naming the middle ones
    stack.update(
        RP_TEMPLATE.replace("removal_policies: []", "removal_policies: [{resource_list: ['1', '2', '3']}]")
    )
    assert stack.list_resources("random_group") == {str(i): "OS::Heat::RandomString" for i in (0, 4, 5, 6, 7)}


def test_props_update(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    one = TEMPLATE.replace("count: 0", "count: 1")
    stack.create(one, environment=ALIAS)
    assert stack.list_resources("random_group") == {"0": "My::RandomString"}
    initial = stack.output("random1")
    # a new salt replaces the RandomString, not the group
    stack.update(one.replace("salt: initial", "salt: more"), environment=ALIAS)
    assert stack.list_resources("random_group") == {"0": "My::RandomString"}
    assert stack.output("random1") != initial


def test_update_nochange(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    two = TEMPLATE.replace("count: 0", "count: 2")
    stack.create(two, environment=ALIAS)
    assert stack.list_resources("random_group") == {"0": "My::RandomString", "1": "My::RandomString"}
    initial = stack.output("random1")
    stack.update(two, environment=ALIAS)
    assert stack.output("random1") == initial


def test_update_nochange_resource_needs_update(tmp_path: Path) -> None:
    files1 = {"my_random.yaml": RANDOM_TEMPL1}
    files2 = {"my_random.yaml": RANDOM_TEMPL1.replace("salt: initial", "salt: more")}
    env = {"resource_registry": {"My::RandomString": "my_random.yaml"}}
    two = TEMPLATE.replace("count: 0", "count: 2")
    stack = HeatStack(tmp_path)
    stack.create(two, environment=env, files=files1)
    assert stack.list_resources("random_group") == {"0": "My::RandomString", "1": "My::RandomString"}
    initial = stack.output("random1")
    stack.update(two, environment=env, files=files2)
    assert stack.output("random1") != initial


NULL_TEMPLATE = """
heat_template_version: 2013-05-23
parameters:
  param:
    type: empty
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def:
        type: My::RandomString
        properties:
          param: {get_param: param}
outputs:
  val:
    value: {get_attr: [random_group, val]}
"""

NULL_NESTED = """
heat_template_version: 2013-05-23
parameters:
  param:
    type: empty
outputs:
  val:
    value: {get_param: param}
"""

ERROR_TEMPLATE = """
heat_template_version: "2013-05-23"
resources:
  group1:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: fail.yaml
"""

ERROR_NESTED = """
heat_template_version: "2013-05-23"
resources:
  oops:
    type: OS::Heat::TestResource
    properties:
      fail: true
      wait_secs: 2
"""

POLICY_TEMPLATE = """
heat_template_version: '2015-04-30'
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update:
        min_in_service: 1
        max_batch_size: 2
        pause_time: 1
    properties:
      count: 10
      resource_def:
        type: OS::Heat::TestResource
        properties:
          value: initial
          update_replace: False
"""


@pytest.mark.parametrize(
    ("param", "p_type"),
    [
        pytest.param("", "string", id="string_empty"),
        pytest.param(False, "boolean", id="boolean_false"),
        pytest.param(0, "number", id="number_zero"),
        pytest.param([], "comma_delimited_list", id="comma_delimited_list"),
        pytest.param({}, "json", id="json_empty"),
    ],
)
def test_create_pass_zero_parameter(tmp_path: Path, param: Any, p_type: str) -> None:
    templ = NULL_TEMPLATE.replace("type: empty", f"type: {p_type}")
    nested = NULL_NESTED.replace("type: empty", f"type: {p_type}")
    env = {"resource_registry": {"My::RandomString": "provider.yaml"}}
    stack = HeatStack(tmp_path)
    value = ",".join(param) if isinstance(param, list) else param
    stack.create(templ, files={"provider.yaml": nested}, environment=env, parameters={"param": value})
    assert stack.output("val")[0] == param


@pytest.mark.skip(
    reason="abandon and adopt of a stack's JSON export: hotc has no abandon/adopt (import instead)"
)
def test_adopt() -> None:
    pass


def test_fail(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(ERROR_TEMPLATE, files={"fail.yaml": ERROR_NESTED}, expected_status="CREATE_FAILED")
    stack.delete()
    assert stack.status() == "DELETE_COMPLETE"


def _member_ids(stack: HeatStack) -> list[str]:
    return [r["physical_id"] for r in stack.resource_rows() if r["address"].startswith("random_group[")]


@pytest.mark.parametrize(
    ("min_in_service", "max_batch_size", "count", "replace", "updated", "created", "deleted"),
    [
        pytest.param("1", "3", None, False, 10, 0, 0, id="update"),
        pytest.param("1", "3", None, True, 0, 10, 10, id="update_replace"),
        pytest.param("1", "3", 6, False, 6, 0, 4, id="scaledown"),
        pytest.param("1", "3", 12, False, 10, 2, 0, id="scaleup"),
        pytest.param("8", "4", 6, False, 6, 0, 4, id="adjusted"),
        pytest.param("8", "4", None, False, 10, 0, 0, id="with_adjusted_capacity"),
        pytest.param("0", "20", None, False, 10, 0, 0, id="huge_batch_size"),
        pytest.param("20", "1", None, False, 10, 0, 0, id="huge_min_in_service"),
    ],
)
def test_resource_group_update(
    tmp_path: Path,
    min_in_service: str,
    max_batch_size: str,
    count: int | None,
    replace: bool,
    updated: int,
    created: int,
    deleted: int,
) -> None:
    # the suite pauses 1 s between batches (pause_time); 0 here keeps the folder fast and orders nothing
    template = yaml.safe_load(POLICY_TEMPLATE)
    template["resources"]["random_group"]["update_policy"]["rolling_update"]["pause_time"] = 0
    stack = HeatStack(tmp_path)
    stack.create(template)
    init_names = _member_ids(stack)
    grp = template["resources"]["random_group"]
    policy = grp["update_policy"]["rolling_update"]
    policy["min_in_service"] = min_in_service
    policy["max_batch_size"] = max_batch_size
    if count is not None:
        grp["properties"]["count"] = count
    res_def = grp["properties"]["resource_def"]
    res_def["properties"]["value"] = "updated"
    if replace:
        res_def["properties"]["update_replace"] = True
    stack.update(template)
    updt_names = _member_ids(stack)
    assert len(set(updt_names) & set(init_names)) == updated
    assert len(set(updt_names) - set(init_names)) == created
    assert len(set(init_names) - set(updt_names)) == deleted


@pytest.mark.skip(
    reason="the suite's files map names absolute paths (/opt/provider.yaml): hotc reads files from disk"
)
def test_resource_group_update_replace_template_changed() -> None:
    pass
