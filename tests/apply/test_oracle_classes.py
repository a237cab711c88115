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


def test_get_attr_of_a_whole_group_also_lists_the_attributes_the_stack_reads_from_it(tmp_path: Path) -> None:
    # Heat 27 (oracle case 2076): {refs, refs_map, removed_rsrc_list, resource.1: <member 1's id>}, next to
    # outputs reading [grp, resource.1] and [grp, resource.0, value]; case 1268: 'value': [] for a group of 0
    # read as [grp, value]. Heat keeps, per resource, the attributes its stack references (no path), and
    # get_attr [RES] answers from those: a read with a path, or in an output whose condition is false, adds none
    (tmp_path / "t.yaml").write_text(
        """\
heat_template_version: 2018-08-31
parameters:
  flag: {type: boolean, default: false}
conditions:
  flagged: {get_param: flag}
resources:
  g: {type: OS::Heat::ResourceGroup, properties: {count: 2, resource_def: {type: OS::Heat::Value, properties: {value: v%index%}}}}
  user: {type: OS::Heat::Value, properties: {value: {get_attr: [g, value]}}}
outputs:
  all: {value: {get_attr: [g]}}
  r1: {value: {get_attr: [g, resource.1]}}
  r0v: {value: {get_attr: [g, resource.0, value]}}
  off: {value: {get_attr: [g, resource.0]}, condition: flagged}
  branch: {value: {if: [flagged, {get_attr: [g, resource.1.value]}, 1]}}
"""
    )
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    got = _outputs(tmp_path, "t")["all"]["value"]
    assert isinstance(got, dict)
    assert sorted(got) == ["refs", "refs_map", "removed_rsrc_list", "resource.1", "value"]
    assert got["value"] == ["v0", "v1"]
    assert got["resource.1"] == got["refs"][1] == got["refs_map"]["1"]


def test_get_resource_of_an_undefined_resource_in_an_output_errors_only_that_output(tmp_path: Path) -> None:
    # Heat 27 (oracle cases 522, 1906, ...): template validate accepts it (GetResource has no validate; an
    # output's dependencies that fail are ignored), the stack creates, and output show gives that output
    # 'The specified reference "nores" (in unknown) is incorrect.' while the others resolve. get_attr of an
    # undefined resource stays a validate error (GetAtt.validate looks the resource up).
    (tmp_path / "t.yaml").write_text(
        """\
heat_template_version: 2018-08-31
resources:
  v: {type: OS::Heat::Value, properties: {value: 1}}
outputs:
  good: {value: {get_attr: [v, value]}}
  bad: {value: {get_resource: nores}}
"""
    )
    r = run_hotc(tmp_path, "validate", "-t", "t.yaml")
    assert r.returncode == 0, r.stdout
    assert "warning" in r.stdout and '"nores"' in r.stdout
    r = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    got = _outputs(tmp_path, "t")
    assert got["good"]["value"] == 1
    assert got["bad"]["value"] is None and "nores" in str(got["bad"]["error"])
    (tmp_path / "a.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources: {}\noutputs:\n  bad: {value: {get_attr: [nores, x]}}\n"
    )
    r = run_hotc(tmp_path, "validate", "-t", "a.yaml")
    assert r.returncode == 1 and "error" in r.stdout and '"nores"' in r.stdout


def test_map_keys_are_json_strings_and_a_value_keeps_its_written_form(tmp_path: Path) -> None:
    # Heat 27 keeps the template as JSON: a YAML integer key is the string "1" (oracle case 26:
    # map_replace [{a: 1}, {values: {1: one}}] leaves the integer 1 alone); OS::Heat::Value's type only
    # validates (case 1789: value '5', type number gives '5'); a string attribute is indexed by position
    # (case 1333, 2015-04-30: get_attr [t, output, 0] of 'a b' is 'a')
    (tmp_path / "t.yaml").write_text(
        """\
heat_template_version: 2016-10-14
resources:
  n: {type: OS::Heat::Value, properties: {value: '5', type: number}}
outputs:
  ints: {value: {map_replace: [{a: 1, b: '1', 2: c}, {keys: {2: two}, values: {1: one}}]}}
  keys: {value: {1: x, false: y, ~: z}}
  num: {value: {get_attr: [n, value]}}
"""
    )
    (tmp_path / "s.yaml").write_text(
        """heat_template_version: 2015-04-30
resources:
  t: {type: OS::Heat::TestResource, properties: {value: a b}}
  l: {type: OS::Heat::Value, properties: {value: [x, y]}}
outputs:
  second: {value: {get_attr: [l, value, 1]}}
  digits: {value: {get_attr: [l, value, '1']}}
  first: {value: {get_attr: [t, output, 0]}}
  past: {value: {get_attr: [t, output, 9]}}
  named: {value: {get_attr: [t, output, x]}}
"""
    )
    got = {}
    for name in ("t", "s"):
        r = run_hotc(tmp_path, "apply", "-t", f"{name}.yaml", "--auto-approve")
        assert r.returncode == 0, r.stdout + r.stderr
        got.update({k: v["value"] for k, v in _outputs(tmp_path, name).items()})
    assert got == {
        "ints": {"a": 1, "b": "one", "two": "c"},
        "keys": {"1": "x", "false": "y", "null": "z"},
        "num": "5",
        "second": "y",
        "digits": None,  # Heat's select_from_attribute: ['x', 'y']['1'] is a TypeError, so null
        "first": "a",
        "past": None,
        "named": None,
    }
    # the type still validates: Heat's create fails with "could not convert string to float: 'x'"
    (tmp_path / "bad.yaml").write_text(
        "heat_template_version: 2015-04-30\nresources:\n  n: {type: OS::Heat::Value, properties: {value: x, type: number}}\n"
    )
    r = run_hotc(tmp_path, "apply", "-t", "bad.yaml", "--auto-approve")
    assert r.returncode != 0 and "not a number" in r.stdout + r.stderr


def test_a_comma_delimited_default_is_checked_split_as_written(tmp_path: Path) -> None:
    # Heat 27 (oracle cases 1979, 2731): template validate refuses default '' with allowed_values [a, b]:
    # 'Invalid default  ([""] is not an allowed value ...)' (Schema._validate_default splits on commas without
    # stripping), even when a value is given; "a,b" passes
    for default, ok in (("''", False), ("'a, b'", False), ("'a,b'", True)):
        (tmp_path / "t.yaml").write_text(
            "heat_template_version: 2016-04-08\nparameters:\n  p:\n    type: comma_delimited_list\n"
            f"    default: {default}\n    constraints:\n    - allowed_values: [a, b]\n"
            "resources: {}\n"
        )
        r = run_hotc(tmp_path, "validate", "-t", "t.yaml", "--parameter", "p=a")
        assert (r.returncode == 0) is ok, (default, r.stdout)
        if not ok:
            assert "Invalid default" in r.stdout
