"""Heat behaviours that a generated oracle rarely reaches, each recorded on the test cloud's Heat 27 (template
validate, stack create and the stack's outputs) with the template written here, and checked through hotc's
command line as a user runs it (validate, plan, apply, output)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hotc.parser.yaqlsupport import YaqlFailure, evaluate_yaql
from tests.clirun import run_hotc


def _run(tmp_path: Path, template: str) -> dict[str, Any]:
    """validate, plan, apply and output of ``template``: {"validate": rc, "plan": rc, ...} and the outputs."""
    (tmp_path / "t.yaml").write_text(template)
    found: dict[str, Any] = {}
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    found["validate"] = r.returncode
    found["validate_text"] = r.stdout + r.stderr
    if r.returncode != 0:
        return found
    r = run_hotc(tmp_path, "plan", "-t", "t.yaml", "-o", "plan.json", "s")
    found["plan"] = r.returncode
    found["plan_text"] = r.stdout + r.stderr
    if r.returncode != 0:
        return found
    r = run_hotc(tmp_path, "apply", "plan.json")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "s", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    found["outputs"] = {
        k: ("error", o["error"]) if o.get("error") is not None else ("value", o.get("value"))
        for k, o in json.loads(r.stdout).items()
    }
    return found


# ---------------------------------------------------------------------------------------------- yaql


def test_yaql_expressions_parse_alike_in_concurrent_threads() -> None:
    # An apply evaluates resources in worker threads. yaql's parser keeps its lexer state on one shared object;
    # unguarded, concurrent parses garbled each other ("Parse error: unexpected end of statement" for an
    # expression Heat accepts, such as a keyword argument with "=>").
    expression = "$.data.m.set('added' => 1).keys().toList().where($ != 'q').select($ + 'x')"
    failures: list[str] = []
    results: list[Any] = []

    def work(i: int) -> None:
        for _ in range(200):
            try:
                results.append(evaluate_yaql(expression, {"m": {"b": i}}))
            except (YaqlFailure, Exception) as exc:  # noqa: BLE001 - any failure is the finding
                failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(results) == 1200
    assert all(r == ["bx", "addedx"] for r in results)


def test_yaql_keyword_argument_arrow(tmp_path: Path) -> None:
    # Heat 27: {"b": 1, "a": 2, "added": 1}
    found = _run(
        tmp_path,
        "heat_template_version: 2018-08-31\n"
        "outputs:\n"
        "  o:\n"
        "    value: {yaql: {expression: \"$.data.m.set('added' => 1)\", data: {m: {b: 1, a: 2}}}}\n",
    )
    assert found["outputs"] == {"o": ("value", {"b": 1, "a": 2, "added": 1})}


# ----------------------------------------------------------------------------------------- conditions


def test_unused_conditions_with_operands_that_are_no_conditions_are_accepted(tmp_path: Path) -> None:
    # Heat's Not refuses only null, And/Or only a non-list or fewer than two operands, when the template is
    # read; the operands are judged when a condition is evaluated, and nothing evaluates these. Heat 27: the
    # stack is created, output o is 1.
    found = _run(
        tmp_path,
        "heat_template_version: 2018-08-31\n"
        "conditions:\n"
        "  c1: {not: [true, false]}\n"
        "  c2: {and: [1, true]}\n"
        "  c3: {or: [{a: b}, false, [1]]}\n"
        "  c4: {not: 2.5}\n"
        "outputs:\n"
        "  o: {value: 1}\n",
    )
    assert found["validate"] == 0, found["validate_text"]
    assert found["outputs"] == {"o": ("value", 1)}


def test_a_used_condition_whose_operand_is_no_condition_is_refused(tmp_path: Path) -> None:
    # Heat 27: template validate fails, 'Invalid condition "[True, False]"' / 'Invalid condition "1"'
    for conditions, user, shown in (
        ("c1: {not: [true, false]}", "outputs:\n  o: {value: 1, condition: c1}\n", "[true, false]"),
        ("c1: {and: [true, 1]}", "resources:\n  r: {type: OS::Heat::None, condition: c1}\n", "1"),
        ("c1: {or: [false, 1]}", "outputs:\n  o: {value: {if: [c1, a, b]}}\n", "1"),
    ):
        found = _run(tmp_path, f"heat_template_version: 2018-08-31\nconditions:\n  {conditions}\n{user}")
        assert found["validate"] != 0
        assert f"Invalid condition {shown}" in found["validate_text"]


def test_condition_operand_shapes_heat_refuses_when_it_reads_the_template(tmp_path: Path) -> None:
    # Heat 27: 'Argument to "not" must be a condition'; 'The minimum number of condition arguments to "and" is 2.'
    for conditions in ("c1: {not: null}", "c1: {and: [true]}"):
        found = _run(
            tmp_path,
            f"heat_template_version: 2018-08-31\nconditions:\n  {conditions}\noutputs:\n  o: {{value: 1}}\n",
        )
        assert found["validate"] != 0


# ----------------------------------------------------------------------------------------- parameters


def test_comma_delimited_list_empty_default_is_checked_as_the_empty_list_at_create(tmp_path: Path) -> None:
    # Heat 27: template validate accepts it (the definition check splits '' to [''], one item); the create
    # checks the default as a value, the empty list: "Parameter 'p' is invalid: length (0) is out of range
    # (min: 1, max: None)".
    found = _run(
        tmp_path,
        "heat_template_version: 2018-08-31\n"
        "parameters:\n"
        "  p: {type: comma_delimited_list, default: '', constraints: [{length: {min: 1}}]}\n"
        "outputs:\n"
        "  o: {value: {get_param: p}}\n",
    )
    assert found["validate"] == 0, found["validate_text"]
    assert found["plan"] != 0
    assert "length (0) is out of range (min: 1, max: None)" in found["plan_text"]


def test_comma_delimited_list_empty_default_is_the_empty_list(tmp_path: Path) -> None:
    # Heat 27: output o is []
    found = _run(
        tmp_path,
        "heat_template_version: 2018-08-31\n"
        "parameters:\n"
        "  p: {type: comma_delimited_list, default: ''}\n"
        "outputs:\n"
        "  o: {value: {get_param: p}}\n",
    )
    assert found["outputs"] == {"o": ("value", [])}


# ------------------------------------------------------------------------------------ --existing updates

_MAIN = """heat_template_version: 2013-05-23
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
_NESTED = """heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
resources:
  test:
    type: OS::Heat::Value
    properties:
      value: {get_param: value1}
outputs:
  v: {value: {get_attr: [test, value]}}
"""
_MAIN_UPDATE = """heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
outputs:
  v: {value: {get_attr: [my_resource, v]}}
"""
_NESTED_UPDATE = """heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
  value2:
    type: string
    default: bar
resources:
  test:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: VAL1-VAL2
          params:
            VAL1: {get_param: value1}
            VAL2: {get_param: value2}
outputs:
  v: {value: {get_attr: [test, value]}}
"""


def test_existing_update_drops_a_stored_parameter_the_new_template_no_longer_declares(tmp_path: Path) -> None:
    # Heat's functional suite (TemplateResourceRemovedParamTest): created with environment parameters
    # {value1: spam}, then a PATCH update whose template no longer declares value1, with parameter_defaults
    # {value2: egg}. Heat 27 drops value1 (UPDATE_COMPLETE); the nested stack then uses its defaults:
    # output v is "foo-egg".
    (tmp_path / "main.yaml").write_text(_MAIN)
    (tmp_path / "resource.yaml").write_text(_NESTED)
    (tmp_path / "env.yaml").write_text("parameters: {value1: spam}\n")
    r = run_hotc(tmp_path, "apply", "-t", "main.yaml", "-e", "env.yaml", "s", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "main2.yaml").write_text(_MAIN_UPDATE)
    (tmp_path / "resource.yaml").write_text(_NESTED_UPDATE)
    (tmp_path / "env2.yaml").write_text("parameter_defaults: {value2: egg}\n")
    r = run_hotc(
        tmp_path, "apply", "s", "--existing", "-t", "main2.yaml", "-e", "env2.yaml", "--auto-approve"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "s", "v", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout) == "foo-egg"


def test_existing_update_forgets_a_given_parameter_the_template_does_not_declare(tmp_path: Path) -> None:
    # Heat's PATCH update loads the new parameters over the stored ones and then drops every undeclared name
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  a: {type: string, default: x}\n"
        "outputs:\n  o: {value: {get_param: a}}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--auto-approve", "--parameter", "a=y")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "apply", "s", "--existing", "--parameter", "gone=1", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "s", "o", "--format", "json")
    assert json.loads(r.stdout) == "y"


# -------------------------------------------------------------------------------------- immutable parameters

_IMMUTABLE = """heat_template_version: 2014-10-16
parameters:
  param1:
    type: string
    default: default_value
    immutable: {immutable}
outputs:
  param1_output:
    description: 'parameter 1 details'
    value: {{ get_param: param1 }}
"""


def test_an_update_may_not_change_an_immutable_parameter(tmp_path: Path) -> None:
    # Heat's functional ImmutableParametersTest.test_immutable_param_field_error: created with param1=value1,
    # an update with param1=value2 is refused ("The following parameters are immutable and may not be
    # updated: param1"), the stack stays as it was (output value1).
    (tmp_path / "t.yaml").write_text(_IMMUTABLE.format(immutable="true"))
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "param1=value1", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "param1=value2", "--auto-approve")
    assert r.returncode != 0
    assert "The following parameters are immutable and may not be updated: param1" in r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "s", "param1_output", "--format", "json")
    assert json.loads(r.stdout) == "value1"
    # the same value again is no change
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "param1=value1", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_update_may_change_a_parameter_that_is_not_immutable(tmp_path: Path) -> None:
    # test_immutable_param_field_allowed / test_no_immutable_param_field: the update goes through (value2)
    for definition in (
        _IMMUTABLE.format(immutable="false"),
        _IMMUTABLE.replace("    immutable: {immutable}\n", ""),
    ):
        (tmp_path / "t.yaml").write_text(definition.replace("{{", "{").replace("}}", "}"))
        r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "param1=value1", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "s", "--parameter", "param1=value2", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        r = run_hotc(tmp_path, "output", "s", "param1_output", "--format", "json")
        assert json.loads(r.stdout) == "value2"
        r = run_hotc(tmp_path, "destroy", "s", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr


# ------------------------------------------------------------------------- nested attribute paths


def test_nested_attribute_paths_on_a_template_resource(tmp_path: Path) -> None:
    # Heat's functional NestedAttributesTest.test_nested_attributes: get_attr [secret2, resource.secret1,
    # value] and [secret2, resource.secret1.value] read resource secret1 of the template resource's nested
    # stack, both equal to the nested output that reads the same attribute (TemplateResource.get_attribute ->
    # grouputils.get_nested_attrs)
    (tmp_path / "main.yaml").write_text(
        "heat_template_version: 2014-10-16\n"
        "resources:\n"
        "  secret2:\n"
        "    type: My::NestedSecret\n"
        "outputs:\n"
        "  old_way:\n"
        "    value: { get_attr: [secret2, nested_str]}\n"
        "  test_attr1:\n"
        "    value: { get_attr: [secret2, resource.secret1, value]}\n"
        "  test_attr2:\n"
        "    value: { get_attr: [secret2, resource.secret1.value]}\n"
        "  test_ref:\n"
        "    value: { get_resource: secret2 }\n"
    )
    (tmp_path / "env.yaml").write_text('resource_registry:\n  "My::NestedSecret": nested.yaml\n')
    (tmp_path / "nested.yaml").write_text(
        "heat_template_version: 2014-10-16\n"
        "resources:\n"
        "  secret1:\n"
        "    type: OS::Heat::RandomString\n"
        "outputs:\n"
        "  nested_str:\n"
        "    value: {get_attr: [secret1, value]}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "main.yaml", "-e", "env.yaml", "s", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_hotc(tmp_path, "output", "s", "--format", "json", "--show-sensitive")
    assert r.returncode == 0, r.stdout + r.stderr
    outs = json.loads(r.stdout)
    assert all(o.get("error") is None for o in outs.values()), outs
    old_way = outs["old_way"]["value"]
    assert isinstance(old_way, str) and len(old_way) == 32
    assert outs["test_attr1"]["value"] == old_way
    assert outs["test_attr2"]["value"] == old_way
