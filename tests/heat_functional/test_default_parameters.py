"""Heat's functional test_default_parameters (DefaultParametersTest): ``parameters`` and ``parameter_defaults``
of the environment against the defaults of a template and of its nested template (the length of two
RandomStrings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.heat_functional.heat import HeatStack

template = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 40
resources:
  random1:
    type: nested_random.yaml
  random2:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
outputs:
  random1:
    value: {get_attr: [random1, random1_value]}
  random2:
    value: {get_resource: random2}
"""

nested_template = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 50
resources:
  random1:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
outputs:
  random1_value:
    value: {get_resource: random1}
"""


@pytest.mark.parametrize(
    ("param", "default", "temp_def", "expect1", "expect2"),
    [
        pytest.param(None, None, True, 50, 40, id="none"),
        pytest.param(None, 12, True, 12, 12, id="default"),
        pytest.param(15, 12, True, 12, 15, id="both"),
        pytest.param(None, 12, False, 12, 12, id="no_temp_default"),
    ],
)
def test_defaults(
    tmp_path: Path, param: int | None, default: int | None, temp_def: bool, expect1: int, expect2: int
) -> None:
    env: dict[str, Any] = {"parameters": {}, "parameter_defaults": {}}
    if param:
        env["parameters"] = {"length": param}
    if default:
        env["parameter_defaults"] = {"length": default}
    nested = nested_template
    if not temp_def:
        doc = yaml.safe_load(nested_template)
        del doc["parameters"]["length"]["default"]
        nested = yaml.safe_dump(doc)
    stack = HeatStack(tmp_path)
    stack.create(template, files={"nested_random.yaml": nested}, environment=env)
    outputs = stack.outputs()
    assert len(outputs["random1"]) == expect1
    assert len(outputs["random2"]) == expect2
