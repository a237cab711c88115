"""Heat's functional test_immutable_parameters (ImmutableParametersTest): a parameter with ``immutable: true``
may not change on update; without the field, or with ``immutable: false``, it may."""

from __future__ import annotations

from pathlib import Path

from tests.heat_functional.heat import HeatStack

template_param_has_no_immutable_field = """
heat_template_version: 2014-10-16
parameters:
  param1:
    type: string
    default: default_value
outputs:
  param1_output:
    description: 'parameter 1 details'
    value: { get_param: param1 }
"""

template_param_has_immutable_field = """
heat_template_version: 2014-10-16
parameters:
  param1:
    type: string
    default: default_value
    immutable: false
outputs:
  param1_output:
    description: 'parameter 1 details'
    value: { get_param: param1 }
"""


def test_no_immutable_param_field(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(template_param_has_no_immutable_field, parameters={"param1": "value1"})
    assert stack.output("param1_output") == "value1"
    stack.update(template_param_has_no_immutable_field, parameters={"param1": "value2"})
    assert stack.output("param1_output") == "value2"


def test_immutable_param_field_allowed(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(template_param_has_immutable_field, parameters={"param1": "value1"})
    assert stack.output("param1_output") == "value1"
    stack.update(template_param_has_immutable_field, parameters={"param1": "value2"})
    assert stack.output("param1_output") == "value2"
    assert stack.status() == "UPDATE_COMPLETE"


def test_immutable_param_field_error(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    immutable_true = template_param_has_immutable_field.replace("immutable: false", "immutable: true")
    stack.create(immutable_true, parameters={"param1": "value1"})
    assert stack.output("param1_output") == "value1"
    # refused before anything runs (Heat: HTTP 400): the stack stays CREATE_COMPLETE
    r = stack.run(
        "apply", "-t", "template.yaml", stack.name, "--parameter", "param1=value2", "--auto-approve"
    )
    assert r.returncode != 0
    assert "The following parameters are immutable and may not be updated: param1" in r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert stack.status() == "CREATE_COMPLETE"
    assert stack.output("param1_output") == "value1"
