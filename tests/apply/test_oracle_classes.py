"""Disagreement classes the differential oracle (tests/oracle) found against Heat 27, each closed to Heat's
semantics and checked here on a small template: the Heat answer quoted is the oracle's recorded one."""

from __future__ import annotations

import json
from pathlib import Path

from hotc.planner.api import PlanOptions, build_desired, make_plan
from tests.clirun import run_hotc
from tests.planner.helpers import lookup, stack

NESTED_WITH_ID = """\
heat_template_version: 2018-08-31
resources:
  inner: {type: OS::Heat::Value, properties: {value: 1}}
outputs:
  OS::stack_id: {value: {get_resource: inner}}
"""
NESTED_PLAIN = """\
heat_template_version: 2018-08-31
outputs:
  out: {value: 3}
"""
PARENT = """\
heat_template_version: 2018-08-31
resources:
  a: {type: a.yaml}
  b: {type: b.yaml}
  g: {type: OS::Heat::ResourceGroup, properties: {count: 1, resource_def: {type: OS::Heat::Value, properties: {value: x}}}}
  e: {type: OS::Heat::ResourceGroup, properties: {count: 0, resource_def: {type: OS::Heat::Value, properties: {value: x}}}}
  n: {type: OS::Heat::Value, properties: {value: null}}
outputs:
  ra: {value: {get_resource: a}}
  sa: {value: {get_attr: [a, OS::stack_id]}}
  sb: {value: {get_attr: [b, OS::stack_id]}}
  g5: {value: {get_attr: [g, resource.5, value]}}
  e0: {value: {get_attr: [e, resource.0, value]}}
  e1: {value: {get_attr: [e, resource.1]}}
  nv: {value: {get_attr: [n, value]}}
  split: {value: {str_split: [',', 'a,b', 1, 'ignored']}}
"""


def _outputs(tmp_path: Path, stack_name: str) -> dict[str, dict[str, object]]:
    r = run_hotc(tmp_path, "output", stack_name, "--format", "json")
    assert r.returncode == 0, r.stderr
    got: dict[str, dict[str, object]] = json.loads(r.stdout)
    return got


def test_template_resources_groups_values_and_str_split_as_heat(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(NESTED_WITH_ID)
    (tmp_path / "b.yaml").write_text(NESTED_PLAIN)
    (tmp_path / "p.yaml").write_text(PARENT)
    r = run_hotc(tmp_path, "apply", "-t", "p.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    got = _outputs(tmp_path, "p")
    # Heat: get_resource of a template resource is its template's OS::stack_id output when it has one
    assert got["ra"]["value"] == got["sa"]["value"] and str(got["ra"]["value"]).startswith("p-a-inner-")
    # Heat: 'The Referenced Attribute (b OS::stack_id) is incorrect.' (outputs are the only attributes)
    assert got["sb"]["value"] is None and "OS::stack_id" in str(got["sb"]["error"])
    # Heat: "Member '5' not found in group resource 'g'."; of a group with no members, an attribute is null
    assert got["g5"]["value"] is None and "Member '5' not found in group resource 'g'" in str(
        got["g5"]["error"]
    )
    assert got["e0"]["value"] is None and "error" not in got["e0"]
    assert "Member '1' not found" in str(got["e1"]["error"])
    assert got["nv"]["value"] is None and "error" not in got["nv"]  # Value with a null value is created
    assert got["split"]["value"] == "b"  # Heat pops three items and ignores the rest


def test_get_resource_of_a_template_resource_is_its_arn_when_the_project_is_known() -> None:
    doc = {"resources": {"b": {"type": "b.yaml"}}, "outputs": {"r": {"value": {"get_resource": "b"}}}}
    nested = {"b.yaml": {"outputs": {"out": {"value": 3}}}}
    d = build_desired(stack(doc, nested=nested), "s", "lin-9", project_id="proj-1")
    plan = make_plan(d, None, PlanOptions(), schemas=lookup)
    (out,) = [o for o in plan.output_changes if o.name == "r"]
    assert str(out.after).startswith("arn:openstack:heat::proj-1:stacks/s-b/")


def test_an_output_naming_a_disabled_resource_is_a_validate_error(tmp_path: Path) -> None:
    # Heat: outputs.bad.value.get_attr: The specified reference "v" (in unknown) is incorrect.
    (tmp_path / "t.yaml").write_text(
        """\
heat_template_version: 2018-08-31
parameters:
  env: {type: string, default: dev}
conditions:
  prod: {equals: [{get_param: env}, prod]}
resources:
  v: {type: OS::Heat::Value, condition: prod, properties: {value: 1}}
outputs:
  ok1: {value: {get_attr: [v, value]}, condition: prod}
  ok2: {value: {if: [prod, {get_attr: [v, value]}, none]}}
  bad: {value: {get_attr: [v, value]}}
"""
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 1 and 'outputs.bad.value: The specified reference "v"' in r.stdout
    assert "ok1" not in r.stdout and "ok2" not in r.stdout
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml", "--parameter", "env=prod")
    assert r.returncode == 0, r.stdout


def test_get_attr_2013_selects_from_the_attribute_and_groups_list_all_attributes(tmp_path: Path) -> None:
    # Heat 27: in 2013-05-23 get_attr [grp, resource.0, out] is member 0's reference with "out" selected from
    # it, null; get_attr [grp] (2015-10-15+) lists refs, refs_map and removed_rsrc_list
    (tmp_path / "m.yaml").write_text(NESTED_PLAIN)
    (tmp_path / "old.yaml").write_text(
        "heat_template_version: 2013-05-23\nresources:\n"
        "  g: {type: OS::Heat::ResourceGroup, properties: {count: 1, resource_def: {type: m.yaml}}}\n"
        "outputs:\n  sel: {value: {get_attr: [g, resource.0, out]}}\n"
    )
    (tmp_path / "new.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        "  g: {type: OS::Heat::ResourceGroup, properties: {count: 0, resource_def: {type: m.yaml}}}\n"
        "outputs:\n  all: {value: {get_attr: [g]}}\n"
    )
    for name in ("old", "new"):
        r = run_hotc(tmp_path, "apply", "-t", f"{name}.yaml", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
    assert _outputs(tmp_path, "old")["sel"]["value"] is None
    assert _outputs(tmp_path, "new")["all"]["value"] == {"refs": [], "refs_map": {}, "removed_rsrc_list": []}
