"""Property validation on resolved values (hotc/planner/validate_resolved.py): a value a function gives
(get_param, if, str_replace, a json parameter's nested keys, a group member's definition) is checked against
the type's schema and cross-property rules at plan time, where the template writes it, as Heat's create
pre-flight checks it; a value known only after apply (get_attr of a resource being created) is checked by
apply just before the driver call, as Heat checks it when the resource's create starts.

Every CASES row's Heat verdict was recorded on the test cloud's Heat 27 through ``stack create --dry-run``
(``POST /stacks/preview``, the create's pre-flight: nothing is created), with the fragment of Heat's message;
``test_heat_still_agrees`` asks Heat again. The get_attr case was recorded through a real ``stack create``:
``v`` CREATE_COMPLETE, then ``rs`` CREATE_FAILED "Property error: ... length: 0 is out of range (min: 1, max:
512)"; ``test_a_value_known_only_at_apply_...`` compares with Heat's create on the cloud.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hotc.errors import HotcError
from hotc.parser.api import load_stack
from hotc.planner.api import PlanOptions, build_desired, make_plan
from hotc.planner.plan import Action
from hotc.providers.checks import type_checks
from hotc.state.document import StackState
from tests.clirun import run_hotc

H = "heat_template_version: 2021-04-16\n"

RANDOM = (
    H
    + """parameters:
  len: {type: string, default: "0"}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: len}
"""
)

IF_LENGTH = (
    H
    + """parameters:
  big: {type: boolean, default: true}
conditions:
  is_big: {get_param: big}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      length: {if: [is_big, 600, 8]}
"""
)

POLICY = (
    H
    + """parameters:
  kind: {type: string, default: change_in_capacity}
resources:
  grp:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 2
      resource: {type: OS::Heat::None}
  pol:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: grp}
      adjustment_type: {get_param: kind}
      scaling_adjustment: 1
      min_adjustment_step: 1
"""
)

SERVER = (
    H
    + """parameters:
  nets: {type: json, default: [{fixed_ip: 10.0.0.5}]}
resources:
  srv:
    type: OS::Nova::Server
    properties:
      image: hotc-tiny
      flavor: m1.tiny
      networks: {get_param: nets}
"""
)

GET_ATTR = (
    H
    + """resources:
  v:
    type: OS::Heat::Value
    properties:
      type: number
      value: 0
  rs:
    type: OS::Heat::RandomString
    properties:
      length: {get_attr: [v, value]}
"""
)

POLICY_RG = (
    H
    + """parameters:
  b: {type: number, default: 0}
resources:
  grp:
    type: OS::Heat::ResourceGroup
    update_policy: {rolling_update: {max_batch_size: {get_param: b}}}
    properties:
      count: 1
      resource_def: {type: OS::Heat::None}
"""
)

#: name -> (template, Heat 27's create pre-flight verdict, a fragment of Heat's message, hotc's position of the
#: error (line:col, where the function that gives the value is written) and a fragment of hotc's message)
CASES: dict[str, tuple[str, str, str, str, str]] = {
    "get_param_out_of_range": (
        RANDOM,
        "INVALID",
        "resources.rs.properties.length: : 0 is out of range (min: 1, max: 512)",
        "8:15",
        "rs: OS::Heat::RandomString: property length: 0 is out of range (min: 1, max: 512)",
    ),
    "get_param_in_range": (RANDOM.replace('default: "0"', 'default: "8"'), "VALID", "", "", ""),
    "if_branch_taken_invalid": (
        IF_LENGTH,
        "INVALID",
        "resources.rs.properties.length: : 600 is out of range (min: 1, max: 512)",
        "10:15",
        "property length: 600 is out of range",
    ),
    "if_branch_not_taken_invalid": (
        IF_LENGTH.replace("default: true", "default: false"),
        "VALID",
        "",
        "",
        "",
    ),
    "str_replace_in_a_nested_key": (
        H
        + """parameters:
  case: {type: string, default: "lowercasex"}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      character_classes:
        - class: {str_replace: {template: "CASE", params: {CASE: {get_param: case}}}}
""",
        "INVALID",
        'resources.rs.properties.character_classes[0].class: : "lowercasex" is not an allowed value',
        "9:18",
        "property character_classes.0.class: 'lowercasex' is not an allowed value",
    ),
    "json_parameter_with_an_unknown_key": (
        H
        + """parameters:
  classes: {type: json, default: [{klass: digits}]}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      character_classes: {get_param: classes}
""",
        "INVALID",
        "resources.rs.properties.character_classes[0]: : Unknown Property klass",
        "8:26",
        "unknown key character_classes.0.klass",
    ),
    "value_type_not_allowed": (
        H
        + """parameters:
  t: {type: string, default: float}
resources:
  v:
    type: OS::Heat::Value
    properties:
      type: {get_param: t}
      value: "1"
""",
        "INVALID",
        'resources.v.properties.type: : "float" is not an allowed value',
        "8:13",
        "property type: 'float' is not an allowed value",
    ),
    "cross_property_rule_with_a_parameter": (
        POLICY,
        "INVALID",
        "min_adjustment_step property should only be specified for adjustment_type with value "
        "percent_change_in_capacity.",
        "17:28",
        "pol: OS::Heat::ScalingPolicy: min_adjustment_step property should only be specified",
    ),
    "cross_property_rule_satisfied": (
        POLICY.replace("default: change_in_capacity", "default: percent_change_in_capacity"),
        "VALID",
        "",
        "",
        "",
    ),
    "group_member_definition": (
        H
        + """parameters:
  len: {type: number, default: 0}
resources:
  grp:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::RandomString
        properties:
          length: {get_param: len}
""",
        "INVALID",
        # Heat checks the member definition through the nested stack and reports its RandomString rule first
        "resources.grp<nested_stack>: : Length property cannot be smaller than combined character class",
        "12:19",
        "grp[0]: OS::Heat::RandomString: property length: 0 is out of range",
    ),
    "port_fixed_ips_shape": (
        H
        + """parameters:
  ips: {type: json, default: [{subnett: hotc-private-subnet}]}
resources:
  port:
    type: OS::Neutron::Port
    properties:
      network: hotc-private
      fixed_ips: {get_param: ips}
""",
        "INVALID",
        "resources.port.properties.fixed_ips[0]: : Unknown Property subnett",
        "9:18",
        "port: OS::Neutron::Port: unknown key fixed_ips.0.subnett; did you mean subnet?",
    ),
    "server_networks_entry": (
        SERVER,
        "INVALID",
        'One of the properties "network", "port", "allocate_network" or "subnet" should be set for the '
        'specified network of server "srv".',
        "10:17",
        "srv: OS::Nova::Server: one of network, port, allocate_network or subnet must be given",
    ),
    "get_attr_of_a_resource_being_created": (GET_ATTR, "VALID", "", "", ""),
    "group_count_from_a_parameter": (
        H
        + """parameters:
  n: {type: number, default: -1}
resources:
  grp:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: n}
      resource_def: {type: OS::Heat::None}
""",
        "INVALID",
        "resources.grp.properties.count: : -1 is out of range (min: 0, max: None)",
        "8:14",
        "grp: OS::Heat::ResourceGroup: property count: -1 is out of range (min: 0)",
    ),
    "group_sizes_cross_rule": (
        H
        + """parameters:
  lo: {type: number, default: 3}
resources:
  grp:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: {get_param: lo}
      max_size: 2
      resource: {type: OS::Heat::None}
""",
        "INVALID",
        "MinSize can not be greater than MaxSize",
        "8:17",
        "grp: OS::Heat::AutoScalingGroup: min_size cannot be greater than max_size",
    ),
    "group_update_policy_from_a_parameter": (
        POLICY_RG,
        "INVALID",
        "resources.grp.update_policy.rolling_update.max_batch_size: : 0 is out of range (min: 1, max: None)",
        "7:54",
        "grp: OS::Heat::ResourceGroup: property update_policy.rolling_update.max_batch_size: 0 is out of range",
    ),
}


def _load(tmp_path: Path, text: str, params: dict[str, str] | None = None) -> Any:
    path = tmp_path / "stack.yaml"
    path.write_text(text)
    loaded, diags = load_stack(str(path), [], params or {}, {}, require_values=True, checks=type_checks())
    assert loaded is not None, diags
    return loaded


def _plan(
    tmp_path: Path, text: str, params: dict[str, str] | None = None, state: StackState | None = None
) -> Any:
    desired = build_desired(
        _load(tmp_path, text, params), "stack", state.lineage if state else None, state=state
    )
    return make_plan(desired, state, PlanOptions())


def _verdict(tmp_path: Path, text: str) -> tuple[str, list[str]]:
    try:
        _plan(tmp_path, text)
    except HotcError as exc:
        return "INVALID", [
            f"{d.pos.line}:{d.pos.col}: {d.message}" if d.pos else d.message for d in exc.diagnostics
        ]
    return "VALID", []


@pytest.mark.parametrize("case", sorted(CASES))
def test_plan_refuses_what_heats_create_refuses(tmp_path: Path, case: str) -> None:
    text, heat, _heat_msg, where, fragment = CASES[case]
    verdict, lines = _verdict(tmp_path, text)
    assert verdict == heat, lines
    if heat == "INVALID":
        hits = [line for line in lines if line.startswith(f"{where}: ") and fragment in line]
        assert hits, lines  # at the function that gives the value, naming the resource and property path
        assert "fix the value or the parameter that feeds it" in hits[0]


def test_the_same_values_as_literals_are_refused_by_the_front_end_once(tmp_path: Path) -> None:
    """A literal is the front end's to check (with the same schema): the resolved check adds nothing to it."""
    path = tmp_path / "lit.yaml"
    path.write_text(RANDOM.replace("{get_param: len}", "0"))
    loaded, diags = load_stack(str(path), [], {}, {}, require_values=True, checks=type_checks())
    errors = [d for d in diags if d.severity.value == "error"]
    assert len(errors) == 1 and "property length: 0 is out of range" in errors[0].message, diags


def test_a_literal_update_policy_value_is_refused_by_validate_as_heats_template_validate_does(
    tmp_path: Path,
) -> None:
    """Heat 27's ``template validate`` checks the update_policy section with values: "Property error:
    resources.grp.update_policy.rolling_update.max_batch_size: 0 is out of range (min: 1, max: None)"."""
    path = tmp_path / "pol.yaml"
    path.write_text(POLICY_RG.replace("{get_param: b}", "0"))
    _loaded, diags = load_stack(str(path), [], {}, {}, require_values=False, checks=type_checks())
    errors = [str(d) for d in diags if d.severity.value == "error"]
    assert len(errors) == 1 and "update_policy.rolling_update.max_batch_size: 0 is out of range" in errors[0]
    assert ":7:54: " in errors[0], errors


def test_a_value_a_parent_feeds_a_nested_template_is_checked_in_the_nested_template(tmp_path: Path) -> None:
    """Heat 27's preview of this parent: "resources.kid<file:///.../child.yaml>: : Length property cannot be
    smaller than combined character class and character sequence minimums" (its RandomString rule first);
    hotc refuses the same value with the range, at the nested template's get_param."""
    (tmp_path / "child.yaml").write_text(
        H
        + """parameters:
  len: {type: string}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: len}
"""
    )
    text = H + 'resources:\n  kid:\n    type: child.yaml\n    properties:\n      len: "0"\n'
    with pytest.raises(HotcError) as exc:
        _plan(tmp_path, text)
    (d,) = exc.value.diagnostics
    assert d.pos is not None and d.pos.file.endswith("child.yaml") and (d.pos.line, d.pos.col) == (8, 15)
    assert d.message.startswith("kid.rs: OS::Heat::RandomString: property length: 0 is out of range"), (
        d.message
    )


def test_a_parameter_value_given_on_the_command_line_is_checked(tmp_path: Path) -> None:
    verdict_ok, _ = _verdict(tmp_path, RANDOM.replace('default: "0"', 'default: "8"'))
    assert verdict_ok == "VALID"
    with pytest.raises(HotcError) as exc:
        _plan(tmp_path, RANDOM.replace('default: "0"', 'default: "8"'), params={"len": "513"})
    assert "property length: 513 is out of range (min: 1, max: 512)" in exc.value.diagnostics[0].message


def test_a_hidden_parameters_value_is_never_shown(tmp_path: Path) -> None:
    text = (
        H
        + """parameters:
  t: {type: string, default: sekrit-type, hidden: true}
resources:
  v:
    type: OS::Heat::Value
    properties:
      type: {get_param: t}
      value: "1"
"""
    )
    with pytest.raises(HotcError) as exc:
        _plan(tmp_path, text)
    (d,) = exc.value.diagnostics
    assert "sekrit" not in d.message and "v: property type: the value (hidden" in d.message, d.message
    assert d.pos is not None and (d.pos.line, d.pos.col) == (8, 13)


def test_an_update_to_an_invalid_value_is_refused_and_a_resource_left_alone_is_not_checked(
    tmp_path: Path,
) -> None:
    """Through the CLI on a local backend (RandomString is made in-process): create with a valid length, then
    plan the same stack with an invalid one (an update Heat's validation refuses); a plan that changes nothing
    does not re-check the value (apply does not touch the resource)."""
    (tmp_path / "t.yaml").write_text(RANDOM)
    backend = f"file://{tmp_path / 'state'}"
    made = run_hotc(
        tmp_path,
        "apply",
        "-t",
        "t.yaml",
        "--backend",
        backend,
        "--parameter",
        "len=8",
        "--auto-approve",
        "st",
    )
    assert made.returncode == 0, made.stderr
    same = run_hotc(tmp_path, "plan", "-t", "t.yaml", "--backend", backend, "--parameter", "len=8", "st")
    assert same.returncode == 0 and "0 to create, 0 to update" in same.stdout, same.stdout + same.stderr
    bad = run_hotc(tmp_path, "plan", "-t", "t.yaml", "--backend", backend, "--parameter", "len=600", "st")
    assert bad.returncode == 1
    assert (
        "t.yaml:8:15: error: rs: OS::Heat::RandomString: property length: 600 is out of range" in bad.stderr
    )
    assert "nothing was planned" in bad.stderr or "the plan cannot be made" in bad.stderr, bad.stderr


def test_a_value_known_only_at_apply_is_checked_before_the_driver_is_called(tmp_path: Path) -> None:
    """The plan cannot know ``get_attr [v, value]`` (v is being created): it plans the create. Apply makes v,
    then refuses rs with Heat's reason without calling its driver (nothing recorded for it), as Heat's create
    fails rs (CREATE_FAILED, "0 is out of range") after creating v."""
    plan = _plan(tmp_path, GET_ATTR)
    assert [c.action for c in plan.changes] == [Action.CREATE, Action.CREATE]
    (tmp_path / "t.yaml").write_text(GET_ATTR)
    backend = f"file://{tmp_path / 'state'}"
    run = run_hotc(tmp_path, "apply", "-t", "t.yaml", "--backend", backend, "--auto-approve", "st")
    assert run.returncode == 1
    assert (
        "create rs: Heat refuses these properties: property length: 0 is out of range (min: 1, max: 512) "
        "(nothing was sent to the cloud)" in run.stderr
    ), run.stderr
    listed = run_hotc(tmp_path, "state", "list", "--backend", backend, "st")
    assert listed.stdout.split() == ["v"], listed.stdout


def _doc(text: str) -> dict[str, Any]:
    doc = yaml.safe_load(text)
    doc["heat_template_version"] = str(doc["heat_template_version"])  # YAML reads the date as a date
    return dict(doc)


@pytest.mark.cloud
def test_heat_still_agrees(cloud: Any, cloud_tracker: Any, cloud_shared: Any) -> None:
    """Heat 27's create pre-flight (``POST /stacks/preview``: nothing is created) on every row."""
    from openstack import exceptions

    for i, (case, (text, verdict, fragment, _where, _hotc)) in enumerate(sorted(CASES.items())):
        try:
            cloud.orchestration.create_stack(
                preview=True, name=cloud_tracker.name(f"p{i}"), template=_doc(text)
            )
            got, message = "VALID", ""
        except exceptions.HttpException as exc:
            got, message = "INVALID", str(exc.details or exc)
        assert got == verdict, (case, message)
        assert fragment in message, (case, message)


@pytest.mark.cloud
def test_heats_create_fails_the_resource_a_get_attr_makes_invalid(
    cloud: Any, cloud_tracker: Any, cloud_shared: Any
) -> None:
    """The get_attr row through a real Heat create: the preview accepts it, the create makes v and fails rs on
    its property validation, as hotc's apply does."""
    stack = cloud.orchestration.create_stack(name=cloud_tracker.name("ga"), template=_doc(GET_ATTR))
    cloud_tracker.track(stack)
    stack = cloud.orchestration.wait_for_status(
        stack, "CREATE_FAILED", failures=["CREATE_COMPLETE"], wait=600
    )
    states = {r.name: (r.status, r.status_reason) for r in cloud.orchestration.resources(stack)}
    assert states["v"][0] == "CREATE_COMPLETE", states
    assert states["rs"][0] == "CREATE_FAILED", states
    assert "length: 0 is out of range (min: 1, max: 512)" in states["rs"][1], states


def test_apply_checks_every_property_and_never_quotes_a_hidden_value() -> None:
    from hotc.planner.validate_resolved import apply_problems

    assert apply_problems("OS::Heat::Value", {"type": "number", "value": 1}) is None
    shown = apply_problems("OS::Heat::Value", {"type": "float", "value": 1})
    assert shown is not None and "property type: 'float' is not an allowed value" in shown
    hidden = apply_problems("OS::Heat::Value", {"type": "sekrit-type", "value": 1}, ("type",))
    assert hidden is not None and "sekrit" not in hidden and "property type: the value (hidden)" in hidden
    assert apply_problems("No::Such::Type", {"x": 1}) is None  # no schema: nothing to check against
