"""A template resource's template, validated from its parent as Heat's template validate does.

Heat 27's ``template validate`` (``validate_res_tmpl_only``) only builds a template resource's interface from
its template (TemplateResource: the document, the version, the parameter definitions, the outputs section,
whose outputs become the resource's attributes). What else is wrong in it is found when the stack is created
(``StackResource.validate_nested_stack``). Every case's Heat verdict was recorded on the test cloud's Heat 27
(``openstack orchestration template validate -t parent.yaml``) while closing the class; each child below is
written for this test.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hotc.errors import Diagnostic, Severity
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

V = "heat_template_version: 2018-08-31\n"

#: child template body (after the version line) -> (Heat 27's verdict on the parent, a fragment of hotc's
#: diagnostic). Heat rejects only what is wrong in the interface.
INTERFACE_CASES: dict[str, tuple[str, str, str]] = {
    # the parameter definitions: read as HOTParamSchema.from_dict reads them
    "param-unknown-key": ("parameters:\n  p: {type: string, bogus: 1}\n", "INVALID", "Invalid key 'bogus'"),
    "param-bad-type": ("parameters:\n  p: {type: strang}\n", "INVALID", "Invalid type (strang)"),
    "param-constraint-for-other-type": (
        "parameters:\n  p: {type: string, constraints: [{range: {min: 5}}]}\n",
        "INVALID",
        "Range constraint invalid for string",
    ),
    "param-allowed-values-not-a-list": (
        "parameters:\n  p: {type: string, constraints: [{allowed_values: abc}]}\n",
        "INVALID",
        "AllowedValues must be a list",
    ),
    "param-tags-not-a-list": ("parameters:\n  p: {type: string, tags: abc}\n", "INVALID", "Tags property"),
    "parameters-a-list": ("parameters: [a, b]\n", "INVALID", "the parameters section must be a mapping"),
    # ... but not the defaults: checked with the whole nested stack
    "default-fails-constraint": (
        "parameters:\n  p: {type: string, default: abc, constraints: [{length: {min: 5}}]}\n",
        "VALID",
        "Invalid default abc",
    ),
    "default-wrong-type": ("parameters:\n  p: {type: number, default: abc}\n", "VALID", "could not convert"),
    "default-not-a-list": (
        "parameters:\n  p: {type: comma_delimited_list, default: {a: 1}}\n",
        "VALID",
        "comma-delimited list",
    ),
    # the outputs section: the resource's attributes
    "output-unknown-key": (
        "outputs:\n  o: {value: 1, bogus: 2}\n",
        "INVALID",
        '"bogus" is not a valid keyword',
    ),
    "output-without-value": ("outputs:\n  o: {description: x}\n", "INVALID", "must contain a value key"),
    "output-not-a-map": ("outputs:\n  o: hello\n", "INVALID", "Output definitions must be a map"),
    "outputs-a-list": ("outputs: [a, b]\n", "INVALID", "outputs must contain a map"),
    # everything else is found at create
    "unknown-section": ("bogus_section: {}\n", "VALID", "The template section is invalid: bogus_section"),
    "unknown-type": ("resources:\n  x: {type: OS::No::Such}\n", "VALID", "OS::No::Such"),
    "bad-reference": (
        "resources:\n  x: {type: OS::Heat::Value, properties: {value: {get_resource: nope}}}\n",
        "VALID",
        'The specified reference "nope"',
    ),
    "bad-function-args": (
        "outputs:\n  o: {value: {str_replace: 1}}\n",
        "VALID",
        'arguments to "str_replace"',
    ),
    "dependency-cycle": (
        "resources:\n  a: {type: OS::Heat::None, depends_on: b}\n  b: {type: OS::Heat::None, depends_on: a}\n",
        "VALID",
        "Circular Dependency Found",
    ),
    "bad-parameter-group": (
        "parameter_groups:\n  - parameters: [nope]\n",
        "VALID",
        "does not reference a valid",
    ),
    "resource-condition-undefined": (
        "resources:\n  a: {type: OS::Heat::None, condition: nope}\n",
        "VALID",
        'Invalid condition "nope"',
    ),
    "resources-a-list": ("resources: [a]\n", "VALID", "resources must contain a map"),
}


def _w(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def _load(tmpl: Path, *, strict: bool = False) -> list[Diagnostic]:
    _, diags = load_stack(str(tmpl), [], {}, {}, require_values=strict, checks=type_checks())
    return diags


def _errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.ERROR]


def _parent(tmp_path: Path, child_body: str, *, how: str = "type") -> Path:
    _w(tmp_path / "child.yaml", V + child_body)
    if how == "registry":
        _w(tmp_path / "env.yaml", "resource_registry:\n  My::Child: child.yaml\n")
        return _w(tmp_path / "parent.yaml", V + "resources:\n  c: {type: My::Child}\n")
    return _w(tmp_path / "parent.yaml", V + "resources:\n  c: {type: child.yaml}\n")


@pytest.mark.parametrize("case", sorted(INTERFACE_CASES))
def test_validate_of_the_parent_checks_only_the_nested_templates_interface(tmp_path: Path, case: str) -> None:
    body, heat, fragment = INTERFACE_CASES[case]
    parent = _parent(tmp_path, body)
    diags = _load(parent)
    errs = _errors(diags)
    hits = [d for d in diags if fragment in d.message]
    assert hits, [d.message for d in diags]  # reported either way, in the nested template's file
    assert all(d.pos is not None and d.pos.file.endswith("child.yaml") for d in hits)
    if heat == "INVALID":
        assert any(fragment in d.message for d in errs), [d.message for d in diags]
    else:
        assert errs == [], [d.message for d in errs]
        assert all("creating the stack would fail" in d.message for d in hits)


@pytest.mark.parametrize("case", sorted(c for c, (_, heat, _) in INTERFACE_CASES.items() if heat == "VALID"))
def test_plan_rejects_what_the_nested_stacks_create_would(tmp_path: Path, case: str) -> None:
    """hotc plan checks as the stack create does (``validate_nested_stack``): all of it is an error there."""
    body, _, fragment = INTERFACE_CASES[case]
    parent = _parent(tmp_path, body)
    errs = _errors(_load(parent, strict=True))
    assert any(fragment in d.message for d in errs), [d.message for d in errs]


def test_the_interface_is_checked_through_a_registry_mapping_too(tmp_path: Path) -> None:
    parent = _parent(tmp_path, "outputs:\n  o: {value: 1, bogus: 2}\n", how="registry")
    _, diags = load_stack(
        str(parent), [str(tmp_path / "env.yaml")], {}, {}, require_values=False, checks=type_checks()
    )
    assert [d.message for d in _errors(diags) if '"bogus"' in d.message]
    # the same output key in a top-level template is ignored by Heat: a warning only
    top = _w(tmp_path / "top.yaml", V + "outputs:\n  o: {value: 1, bogus: 2}\n")
    diags = _load(top)
    assert _errors(diags) == [] and any('"bogus"' in d.message for d in diags)


def test_one_report_of_an_unknown_output_key_in_a_nested_template(tmp_path: Path) -> None:
    parent = _parent(tmp_path, "outputs:\n  o: {value: 1, bogus: 2}\n")
    hits = [d for d in _load(parent) if '"bogus"' in d.message]
    assert len(hits) == 1 and hits[0].severity is Severity.ERROR
    assert hits[0].pos is not None and (hits[0].pos.line, hits[0].pos.col) == (3, 17)


def test_an_unreadable_group_member_template_is_an_error(tmp_path: Path) -> None:
    """heatclient sends every template a ``type`` names, group members' included, and refuses to validate
    when one cannot be read ("Could not fetch contents"); hotc could never create a member either."""
    parent = _w(
        tmp_path / "parent.yaml",
        V + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        "    properties:\n      count: 0\n      resource_def: {type: missing.yaml}\n",
    )
    errs = _errors(_load(parent))
    assert errs and "missing.yaml" in errs[0].message and errs[0].pos is not None
    assert (errs[0].pos.line, errs[0].pos.col) == (7, 28)


def test_what_is_wrong_inside_a_member_template_stays_a_warning(tmp_path: Path) -> None:
    _w(tmp_path / "member.yaml", V + "resources:\n  x: {type: OS::No::Such}\n")
    parent = _w(
        tmp_path / "parent.yaml",
        V + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        "    properties:\n      count: 0\n      resource_def: {type: member.yaml}\n",
    )
    diags = _load(parent)
    assert _errors(diags) == [] and any("OS::No::Such" in d.message for d in diags)


#: the parent passes a property to the nested template's parameter ``p``: name -> (p's definition, the
#: properties, Heat 27's validate verdict, its create pre-flight verdict: ``POST /stacks/preview``). Heat's
#: validate checks only the property names; the create checks each value against the property made from the
#: parameter (string, number, boolean, comma_delimited_list -> list, json -> map, constraints).
PROPERTY_CASES: dict[str, tuple[str, str, str, str]] = {
    "allowedcdl": (
        "{type: comma_delimited_list, constraints: [{allowed_values: [a, b]}]}",
        "{p: 'a, c'}",
        "VALID",
        "INVALID",
    ),
    "booltonum": ("{type: number}", "{p: true}", "VALID", "VALID"),
    "customunknown": (
        "{type: string, constraints: [{custom_constraint: no.such}]}",
        "{p: x}",
        "VALID",
        "INVALID",
    ),
    "defaultbad_passed": (
        "{type: string, default: ab, constraints: [{length: {min: 5}}]}",
        "{p: abcdef}",
        "VALID",
        "INVALID",
    ),
    "floattostr": ("{type: string}", "{p: 1.5}", "VALID", "INVALID"),
    "inttobool": ("{type: boolean}", "{p: 1}", "VALID", "INVALID"),
    "listtojson": ("{type: json}", "{p: [1, 2]}", "VALID", "VALID"),
    "listtostr": ("{type: string}", "{p: [a, b]}", "VALID", "INVALID"),
    "maptocdl": ("{type: comma_delimited_list}", "{p: {a: 1}}", "VALID", "INVALID"),
    "missing": ("{type: string}", "", "VALID", "INVALID"),
    "numrange": ("{type: number, constraints: [{range: {max: 3}}]}", "{p: '5'}", "VALID", "INVALID"),
    "numtojson": ("{type: json}", "{p: 5}", "VALID", "INVALID"),
    "numtostr": ("{type: string}", "{p: 5}", "VALID", "VALID"),
    "strlen_json": (
        "{type: json, constraints: [{length: {max: 3}}]}",
        "{p: '{\"a\": 1}'}",
        "VALID",
        "INVALID",
    ),
    "strtocdl": (
        "{type: comma_delimited_list, constraints: [{length: {min: 2}}]}",
        "{p: 'a'}",
        "VALID",
        "INVALID",
    ),
    "strtojson": ("{type: json}", "{p: 'nope{'}", "VALID", "VALID"),
    "truetobool": ("{type: boolean}", "{p: 'TRUE'}", "VALID", "VALID"),
    "unknownprop": ("{type: string, default: x}", "{q: abc}", "INVALID", "INVALID"),
    "violates": ("{type: string, constraints: [{length: {min: 5}}]}", "{p: ab}", "VALID", "INVALID"),
    "wrongtype": ("{type: number}", "{p: abc}", "VALID", "INVALID"),
    "wrongtypedef_passed": ("{type: number, default: abc}", "{p: 5}", "VALID", "VALID"),
    "yestobool": ("{type: boolean}", "{p: 'yes'}", "VALID", "INVALID"),
}


@pytest.mark.parametrize("case", sorted(PROPERTY_CASES))
def test_properties_fed_to_a_nested_template_checked_where_heat_checks_them(
    tmp_path: Path, case: str
) -> None:
    from tests.clirun import run_hotc

    param, props, heat_validate, heat_create = PROPERTY_CASES[case]
    _w(tmp_path / "child.yaml", V + f"parameters:\n  p: {param}\n")
    parent = tmp_path / "parent.yaml"
    parent.write_text(
        V + "resources:\n  r:\n    type: child.yaml\n" + (f"    properties: {props}\n" if props else "")
    )
    diags = _load(parent)
    assert ("INVALID" if _errors(diags) else "VALID") == heat_validate, [d.message for d in diags]
    if heat_validate == "VALID" and heat_create == "INVALID":
        assert any("creating the stack" in d.message for d in diags), [d.message for d in diags]
    r = run_hotc(tmp_path, "plan", "-t", str(parent))
    assert ("VALID" if r.returncode in (0, 2) else "INVALID") == heat_create, r.stdout + r.stderr


#: a group's member definition: name -> (count, resource_def, Heat 27's validate verdict, its create pre-flight
#: verdict). Heat's validate does not look at members; its create checks the definition of a group that will
#: have members (none for count 0). m_bad.yaml names an unknown type; m_ok.yaml has one parameter p.
GROUP_CASES: dict[str, tuple[int, str, str, str]] = {
    "unknown-type-0": (0, "{type: OS::No::Such}", "VALID", "VALID"),
    "unknown-type-2": (2, "{type: OS::No::Such}", "VALID", "INVALID"),
    "bad-template-0": (0, "{type: m_bad.yaml, properties: {p: x}}", "VALID", "VALID"),
    "bad-template-2": (2, "{type: m_bad.yaml, properties: {p: x}}", "VALID", "INVALID"),
    "unknown-template-property-0": (0, "{type: m_ok.yaml, properties: {q: x}}", "VALID", "VALID"),
    "unknown-template-property-2": (2, "{type: m_ok.yaml, properties: {q: x}}", "VALID", "INVALID"),
    "unknown-builtin-property-0": (0, "{type: OS::Heat::Value, properties: {nope: 1}}", "VALID", "VALID"),
    "unknown-builtin-property-2": (2, "{type: OS::Heat::Value, properties: {nope: 1}}", "VALID", "INVALID"),
    "bad-builtin-value-2": (
        2,
        "{type: OS::Heat::RandomString, properties: {length: abc}}",
        "VALID",
        "INVALID",
    ),
}


@pytest.mark.parametrize("case", sorted(GROUP_CASES))
def test_group_members_checked_where_heat_checks_them(tmp_path: Path, case: str) -> None:
    count, member, heat_validate, heat_create = GROUP_CASES[case]
    _w(
        tmp_path / "m_bad.yaml",
        V + "parameters:\n  p: {type: string}\nresources:\n  x: {type: OS::No::Such}\n",
    )
    _w(tmp_path / "m_ok.yaml", V + "parameters:\n  p: {type: string, default: x}\n")
    parent = tmp_path / "parent.yaml"
    parent.write_text(
        V + "resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
        f"    properties:\n      count: {count}\n      resource_def: {member}\n"
    )
    assert ("INVALID" if _errors(_load(parent)) else "VALID") == heat_validate
    errs = _errors(_load(parent, strict=True))
    assert ("INVALID" if errs else "VALID") == heat_create, [d.message for d in errs]


@pytest.mark.parametrize(
    ("count", "attribute", "heat_create"),
    [
        (2, "nosuch", "INVALID"),
        (0, "nosuch", "VALID"),
        (2, "value", "VALID"),
        (2, "resource.0.value", "VALID"),
    ],
)
def test_a_member_attribute_a_group_reads_checked_as_heats_create_does(
    tmp_path: Path, count: int, attribute: str, heat_create: str
) -> None:
    """Heat 27: validate accepts every case; preview of count 2 with nosuch: 'resources.grp<nested_stack>.
    outputs.nosuch...: The Referenced Attribute (0 nosuch) is incorrect' (the group's nested stack gets an
    output per member attribute the parent reads)."""
    parent = tmp_path / "parent.yaml"
    parent.write_text(
        V + "resources:\n  grp:\n    type: OS::Heat::ResourceGroup\n"
        f"    properties:\n      count: {count}\n      resource_def: {{type: OS::Heat::Value, properties: {{value: 1}}}}\n"
        f"outputs:\n  o: {{value: {{get_attr: [grp, {attribute}]}}}}\n"
    )
    assert _errors(_load(parent)) == []
    errs = _errors(_load(parent, strict=True))
    assert ("INVALID" if errs else "VALID") == heat_create, [d.message for d in errs]
    if errs:
        assert errs[0].pos is not None and (errs[0].pos.line, errs[0].pos.col) == (9, 14)
