"""Heat's functional test_heat_autoscaling (HeatAutoscalingTest, AutoScalingGroupUpdateWithNoChanges): an
AutoScalingGroup of RandomStrings scaled by its policies' signals (``hotc signal``; moto's S3 is the signal store) within min_size/max_size and
its cooldown, its path attributes, and an update that changes only a policy; the suite's templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.s3 import S3Bucket
from tests.heat_functional.heat import HeatStack

TEMPLATE = """
heat_template_version: 2014-10-16

resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      desired_capacity: 3
      max_size: 5
      min_size: 2
      resource:
        type: OS::Heat::RandomString

  scale_up_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: random_group }
      scaling_adjustment: 1

  scale_down_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: random_group }
      scaling_adjustment: -1

outputs:
  all_values:
    value: {get_attr: [random_group, outputs_list, value]}
  value_0:
    value: {get_attr: [random_group, resource.0.value]}
  value_1:
    value: {get_attr: [random_group, resource.1.value]}
  value_2:
    value: {get_attr: [random_group, resource.2.value]}
  asg_size:
    value: {get_attr: [random_group, current_size]}
"""

TEMPLATE_NESTED = """
heat_template_version: 2014-10-16

resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 3
      max_size: 5
      min_size: 2
      resource:
        type: randomstr.yaml

outputs:
  all_values:
    value: {get_attr: [random_group, outputs_list, random_str]}
  value_0:
    value: {get_attr: [random_group, resource.0.random_str]}
  value_1:
    value: {get_attr: [random_group, resource.1.random_str]}
  value_2:
    value: {get_attr: [random_group, resource.2.random_str]}
"""

TEMPLATE_RANDOMSTR = """
heat_template_version: 2013-05-23

resources:
  random_str:
    type: OS::Heat::RandomString

outputs:
  random_str:
    value: {get_attr: [random_str, value]}
"""

NOCHANGE_TEMPLATE = """
heat_template_version: 2013-05-23

resources:
  test_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 0
      max_size: 0
      min_size: 0
      resource:
        type: OS::Heat::RandomString
  test_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: test_group }
      scaling_adjustment: 1
"""


@pytest.fixture()
def stack(tmp_path: Path, s3_bucket: S3Bucket) -> HeatStack:
    return HeatStack(tmp_path, signal_store=f"s3://{s3_bucket.name}/sig")


def _signal(stack: HeatStack, policy: str) -> None:
    r = stack.run("signal", stack.name, policy)
    assert r.returncode == 0, r.stdout + r.stderr


def _size(stack: HeatStack) -> int:
    return len(stack.list_resources("random_group"))


def test_asg_scale_up_max_size(stack: HeatStack) -> None:
    stack.create(TEMPLATE)
    asg_size = stack.output("asg_size")
    assert asg_size == 3
    max_size = 5
    for num in range(asg_size + 1, max_size + 2):
        _signal(stack, "scale_up_policy")
        assert _size(stack) == min(num, max_size)


def test_asg_scale_down_min_size(stack: HeatStack) -> None:
    stack.create(TEMPLATE)
    asg_size = stack.output("asg_size")
    assert asg_size == 3
    min_size = 2
    for num in range(asg_size - 1, 0, -1):
        _signal(stack, "scale_down_policy")
        assert _size(stack) == max(num, min_size)


def test_asg_cooldown(stack: HeatStack) -> None:
    stack.create(TEMPLATE.replace("cooldown: 0", "cooldown: 60"))
    assert stack.output("asg_size") == 3
    # in the cooldown, a scale-up changes nothing
    _signal(stack, "scale_up_policy")
    assert _size(stack) == 3


def _assert_output_values(stack: HeatStack) -> None:
    outs = stack.outputs()
    assert len(outs["all_values"]) == 3
    assert outs["all_values"] == [outs["value_0"], outs["value_1"], outs["value_2"]]


def test_path_attrs(stack: HeatStack) -> None:
    stack.create(TEMPLATE)
    assert stack.list_resources() == {
        "random_group": "OS::Heat::AutoScalingGroup",
        "scale_up_policy": "OS::Heat::ScalingPolicy",
        "scale_down_policy": "OS::Heat::ScalingPolicy",
    }
    _assert_output_values(stack)


def test_path_attrs_nested(stack: HeatStack) -> None:
    stack.create(TEMPLATE_NESTED, files={"randomstr.yaml": TEMPLATE_RANDOMSTR})
    assert stack.list_resources() == {"random_group": "OS::Heat::AutoScalingGroup"}
    _assert_output_values(stack)


def test_as_group_update_without_resource_changes(stack: HeatStack) -> None:
    stack.create(NOCHANGE_TEMPLATE)
    stack.update(NOCHANGE_TEMPLATE.replace("scaling_adjustment: 1", "scaling_adjustment: 2"))
