"""Heat's functional test_nested_get_attr (NestedGetAttrTest): a get_attr whose path is itself a get_attr, on
create and after an update that changes the keys; the suite's templates and outputs."""

from __future__ import annotations

from pathlib import Path

from tests.heat_functional.heat import HeatStack

initial_template = """
heat_template_version: ocata
resources:
  dict_resource:
    type: OS::Heat::Value
    properties:
      value:
        blarg: wibble
        foo: bar
        baz: quux
        fred: barney
    # These dependencies are required because we only want to read the
    # attribute values for a given resource once, and therefore we do so in
    # dependency order. This is necessarily true for a convergence traversal,
    # but also happens when we're fetching the resource attributes e.g. to show
    # the output values. The key1/key2 attribute values must be stored before
    # we attempt to calculate the dep_attrs for dict_resource in order to
    # correctly determine which attributes of dict_resource are used.
    depends_on:
      - key1
      - key2
      - indirect_key3_dep
  key1:
    type: OS::Heat::Value
    properties:
      value: blarg
  key2:
    type: OS::Heat::Value
    properties:
      value: foo
  key3:
    type: OS::Heat::Value
    properties:
      value: fred
  value1:
    type: OS::Heat::Value
    properties:
      value:
        get_attr:
          - dict_resource
          - value
          - {get_attr: [key1, value]}
  indirect_key3_dep:
    type: OS::Heat::Value
    properties:
      value: ignored
    depends_on: key3
outputs:
  value1:
    value: {get_attr: [value1, value]}
  value2:
    value: {get_attr: [dict_resource, value, {get_attr: [key2, value]}]}
  value3:
    value: {get_attr: [dict_resource, value, {get_attr: [key3, value]}]}
"""

update_template = """
heat_template_version: ocata
resources:
  dict_resource:
    type: OS::Heat::Value
    properties:
      value:
        blarg: wibble
        foo: bar
        baz: quux
        fred: barney
    depends_on:
      - key1
      - key2
      - indirect_key3_dep
      - key4
  key1:
    type: OS::Heat::Value
    properties:
      value: foo
  key2:
    type: OS::Heat::Value
    properties:
      value: fred
  key3:
    type: OS::Heat::Value
    properties:
      value: blarg
  key4:
    type: OS::Heat::Value
    properties:
      value: baz
  value1:
    type: OS::Heat::Value
    properties:
      value:
        get_attr:
          - dict_resource
          - value
          - {get_attr: [key1, value]}
  value4:
    type: OS::Heat::Value
    properties:
      value:
        get_attr:
          - dict_resource
          - value
          - {get_attr: [key4, value]}
  indirect_key3_dep:
    type: OS::Heat::Value
    properties:
      value: ignored
    depends_on: key3
outputs:
  value1:
    value: {get_attr: [value1, value]}
  value2:
    value: {get_attr: [dict_resource, value, {get_attr: [key2, value]}]}
  value3:
    value: {get_attr: [dict_resource, value, {get_attr: [key3, value]}]}
  value4:
    value: {get_attr: [value4, value]}
"""


def test_nested_get_attr_create(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(initial_template)
    outs = stack.outputs()
    assert (outs["value1"], outs["value2"], outs["value3"]) == ("wibble", "bar", "barney")


def test_nested_get_attr_update(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(initial_template)
    stack.update(update_template)
    outs = stack.outputs()
    assert (outs["value1"], outs["value2"], outs["value3"], outs["value4"]) == (
        "bar",
        "barney",
        "wibble",
        "quux",
    )
