"""Heat's functional test_template_resource: template resources (provider templates) and the registry, nested
attribute paths, the resource facade, updates that add or drop a nested template's parameters, and the facade
checks of a registry's per-resource mapping; the suite's templates and expectations. The CFN-format cases are
skipped (hotc reads HOT templates only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.heat_functional.heat import HeatStack

TR_TEMPLATE = """
heat_template_version: 2013-05-23
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  secret-out:
    value: { get_attr: [secret1, value] }
"""

TR_NESTED = """
heat_template_version: 2013-05-23
resources:
  secret2:
    type: OS::Heat::RandomString
outputs:
  value:
    value: { get_attr: [secret2, value] }
"""

TR_ENV = """
resource_registry:
  "OS::Heat::RandomString": nested.yaml
"""

NE_MAIN = """
heat_template_version: 2013-05-23
resources:
  secret1:
    type: My::NestedSecret
outputs:
  secret-out:
    value: { get_attr: [secret1, value] }
"""

NE_NESTED = """
heat_template_version: 2013-05-23
resources:
  secret2:
    type: My::Secret
outputs:
  value:
    value: { get_attr: [secret2, value] }
"""

NE_ENV = """
resource_registry:
  "My::Secret": "OS::Heat::RandomString"
  "My::NestedSecret": nested.yaml
"""

CF_NESTED2 = """
heat_template_version: 2013-05-23
resources:
  secret2:
    type: OS::Heat::RandomString
outputs:
  value:
    value: freddy
"""

CF_ENV2 = """
resource_registry:
  "OS::Heat::RandomString": new/nested.yaml
"""

NA_MAIN = """
heat_template_version: 2014-10-16
resources:
  secret2:
    type: My::NestedSecret
outputs:
  old_way:
    value: { get_attr: [secret2, nested_str]}
  test_attr1:
    value: { get_attr: [secret2, resource.secret1, value]}
  test_attr2:
    value: { get_attr: [secret2, resource.secret1.value]}
  test_ref:
    value: { get_resource: secret2 }
"""

NA_ENV = """
resource_registry:
  "My::NestedSecret": nested.yaml
"""

NA_REF_NESTED = """
heat_template_version: 2014-10-16
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  nested_str:
    value: {get_attr: [secret1, value]}
"""

NA_TRANSPARENT_NESTED = """
heat_template_version: 2014-10-16
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  OS::stack_id:
    value: {get_resource: secret1}
  nested_str:
    value: {get_attr: [secret1, value]}
"""

NA_ATTR_NESTED = """
heat_template_version: 2014-10-16
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  nested_str:
    value: {get_attr: [secret1, value]}
"""

FACADE_MAIN = """
heat_template_version: 2013-05-23
resources:
  the_nested:
    type: the.yaml
    metadata:
      foo: bar
outputs:
  value:
    value: {get_attr: [the_nested, output]}
"""

FACADE_NESTED = """
heat_template_version: 2013-05-23
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {"Fn::Select": [foo, {resource_facade: metadata}]}
outputs:
  output:
    value: {get_attr: [test, output]}
    """

SR_MAIN = """
heat_template_version: 2014-10-16
parameters:
resources:
  the_nested:
    type: the.yaml
"""

SR_NESTED = """
heat_template_version: 2014-10-16
resources:
  test_random_string:
    type: OS::Heat::RandomString
"""

VF_TEMPLATE = """
heat_template_version: 2015-10-15
resources:
  thisone:
    type: OS::Thingy
    properties:
      one: pre
      two: post
outputs:
  one:
    value: {get_attr: [thisone, here-it-is]}
"""

VF_FACADE = """
heat_template_version: 2015-04-30
parameters:
  one:
    type: string
  two:
    type: string
outputs:
  here-it-is:
    value: noop
"""

VF_ENV = """
resource_registry:
  OS::Thingy: facade.yaml
  resources:
    thisone:
      OS::Thingy: concrete.yaml
"""

VF_MISSING_PARAM = """
heat_template_version: 2015-04-30
parameters:
  one:
    type: string
resources:
  str:
    type: OS::Heat::RandomString
outputs:
  here-it-is:
    value:
      not-important
"""

VF_MISSING_OUTPUT = """
heat_template_version: 2015-04-30
parameters:
  one:
    type: string
  two:
    type: string
resources:
  str:
    type: OS::Heat::RandomString
"""

NP_MAIN = """
heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
    properties:
      value1: foo
"""

NP_NESTED = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value1}
"""

NP_MAIN_UPDATE = """
heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
    properties:
      value1: foo
      value2: foo
"""

NP_NESTED_FAIL = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
  value2:
    type: string
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      fail: True
      value:
        str_replace:
          template: VAL1-VAL2
          params:
            VAL1: {get_param: value1}
            VAL2: {get_param: value2}
"""

NP_NESTED_UPDATE = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
  value2:
    type: string
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: VAL1-VAL2
          params:
            VAL1: {get_param: value1}
            VAL2: {get_param: value2}
"""

RP_MAIN = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
resources:
  my_resource:
    type: resource.yaml
    properties:
       value1: {get_param: value1}
"""

RP_NESTED = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value1}
"""

RP_MAIN_UPDATE = """
heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
"""

RP_NESTED_UPDATE = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
  value2:
    type: string
    default: bar
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: VAL1-VAL2
          params:
            VAL1: {get_param: value1}
            VAL2: {get_param: value2}
"""


CFN_ONLY = "a CloudFormation-format template: hotc reads HOT templates only, by design"


# ------------------------------------------------------------------------------------ TemplateResourceTest


def test_nested_env(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(NE_MAIN, files={"nested.yaml": NE_NESTED}, environment=NE_ENV)
    # secret1 is a stack; its resource secret2 (an alias of RandomString) is in it
    assert stack.list_resources() == {"secret1": "My::NestedSecret"}
    assert stack.list_resources("secret1") == {"secret2": "My::Secret"}


def test_no_infinite_recursion(tmp_path: Path) -> None:
    # the registry maps OS::Heat::RandomString to a template that uses OS::Heat::RandomString itself
    stack = HeatStack(tmp_path)
    stack.create(TR_TEMPLATE, files={"nested.yaml": TR_NESTED}, environment=TR_ENV)
    assert stack.list_resources("secret1") == {"secret2": "OS::Heat::RandomString"}


@pytest.mark.skip(reason="hotc keeps no nested stack object that could be deleted on its own")
def test_nested_stack_delete_then_delete_parent_stack() -> None:
    pass


def test_change_in_file_path(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(TR_TEMPLATE, files={"nested.yaml": TR_NESTED}, environment=TR_ENV)
    secret_out1 = stack.output("secret-out")
    stack.update(TR_TEMPLATE, files={"new/nested.yaml": CF_NESTED2}, environment=CF_ENV2)
    secret_out2 = stack.output("secret-out")
    assert secret_out1 != secret_out2
    assert secret_out2 == "freddy"


# ------------------------------------------------------------------------------------ NestedAttributesTest


@pytest.mark.xfail(
    strict=True,
    reason="get_resource of a template resource gives the nested stack's id; Heat gives its ARN "
    "(arn:openstack:heat::TENANT:stacks/NAME/ID)",
)
def test_stack_ref(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(NA_MAIN, files={"nested.yaml": NA_REF_NESTED}, environment=NA_ENV)
    assert "arn:openstack:heat:" in stack.output("test_ref")


def test_transparent_ref(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(NA_MAIN, files={"nested.yaml": NA_TRANSPARENT_NESTED}, environment=NA_ENV)
    outs = stack.outputs()
    assert "arn:openstack:heat" not in outs["test_ref"]
    assert outs["old_way"] == outs["test_ref"]


def test_nested_attributes(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(NA_MAIN, files={"nested.yaml": NA_ATTR_NESTED}, environment=NA_ENV)
    outs = stack.outputs()
    assert isinstance(outs["old_way"], str) and outs["old_way"]
    assert outs["test_attr1"] == outs["old_way"]
    assert outs["test_attr2"] == outs["old_way"]


# ------------------------------------------------------------------------------ TemplateResourceFacadeTest


def test_metadata(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(FACADE_MAIN, files={"the.yaml": FACADE_NESTED})
    assert stack.output("value") == "bar"


@pytest.mark.skip(reason=CFN_ONLY)
def test_template_resource_update_template_schema() -> None:
    pass


@pytest.mark.skip(reason=CFN_ONLY)
def test_update_on_failed_create() -> None:
    pass


@pytest.mark.skip(
    reason="abandon and adopt of a stack's JSON export: hotc has no abandon/adopt (import instead)"
)
def test_abandon() -> None:
    pass


@pytest.mark.skip(
    reason="abandon and adopt of a stack's JSON export: hotc has no abandon/adopt (import instead)"
)
def test_adopt() -> None:
    pass


@pytest.mark.skip(reason=CFN_ONLY)
def test_check() -> None:
    pass


@pytest.mark.skip(reason=CFN_ONLY)
def test_check_fail() -> None:
    pass


@pytest.mark.skip(reason=CFN_ONLY)
def test_fail() -> None:
    pass


def test_suspend_resume(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(SR_MAIN, files={"the.yaml": SR_NESTED})
    r = stack.run("suspend", stack.name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert stack.status() == "SUSPEND_COMPLETE"
    r = stack.run("resume", stack.name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert stack.status() == "RESUME_COMPLETE"


# -------------------------------------------------------------------------------------- ValidateFacadeTest


@pytest.mark.xfail(
    strict=True,
    reason="hotc does not check a per-resource provider against the facade the registry maps the type to "
    "(Heat's TemplateResource validation of the facade's properties and attributes)",
)
def test_missing_param(tmp_path: Path) -> None:
    template = yaml.safe_load(VF_TEMPLATE)
    del template["resources"]["thisone"]["properties"]["two"]
    stack = HeatStack(tmp_path)
    r = stack.run(
        "apply",
        *_files(tmp_path, {"facade.yaml": VF_FACADE, "concrete.yaml": VF_MISSING_PARAM}),
        "-t",
        _write(tmp_path, "template.yaml", yaml.safe_dump(template)),
        "-e",
        _write(tmp_path, "env.yaml", VF_ENV),
        stack.name,
        "--auto-approve",
    )
    assert r.returncode != 0
    assert "Required property two for facade OS::Thingy missing in provider" in r.stdout + r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.xfail(
    strict=True,
    reason="hotc does not check a per-resource provider against the facade the registry maps the type to "
    "(Heat's TemplateResource validation of the facade's properties and attributes)",
)
def test_missing_output(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    r = stack.run(
        "apply",
        *_files(tmp_path, {"facade.yaml": VF_FACADE, "concrete.yaml": VF_MISSING_OUTPUT}),
        "-t",
        _write(tmp_path, "template.yaml", VF_TEMPLATE),
        "-e",
        _write(tmp_path, "env.yaml", VF_ENV),
        stack.name,
        "--auto-approve",
    )
    assert r.returncode != 0
    assert "Attribute here-it-is for facade OS::Thingy missing in provider" in r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def _write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return name


def _files(folder: Path, files: dict[str, str]) -> tuple[str, ...]:
    for name, text in files.items():
        _write(folder, name, text)
    return ()


# ---------------------------------------------------------------------- new and removed nested parameters


def test_new_param_update(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(NP_MAIN, files={"resource.yaml": NP_NESTED})
    # the update fails with the new parameter inserted
    stack.update(NP_MAIN_UPDATE, files={"resource.yaml": NP_NESTED_FAIL}, expected_status="UPDATE_FAILED")
    # fixed, it succeeds
    stack.update(NP_MAIN_UPDATE, files={"resource.yaml": NP_NESTED_UPDATE})


def test_removed_param_update(tmp_path: Path) -> None:
    stack = HeatStack(tmp_path)
    stack.create(RP_MAIN, environment={"parameters": {"value1": "spam"}}, files={"resource.yaml": RP_NESTED})
    stack.update(
        RP_MAIN_UPDATE,
        environment={"parameter_defaults": {"value2": "egg"}},
        files={"resource.yaml": RP_NESTED_UPDATE},
        existing=True,
    )
    # the nested stack takes its defaults: value1 foo (spam is dropped with the parameter), value2 egg
    assert stack.resource("my_resource.test")["properties"]["value"] == "foo-egg"


_ = json
