"""Parameter definitions, defaults and values, judged where Heat judges them.

Heat 27's ``template validate`` checks the definitions and the template's own defaults against their
constraints (not custom ones), but converts no default and checks no value (``strict_validate`` off): a value
from an environment's ``parameters``, a ``parameter_defaults`` entry, a default of the wrong type are refused
only by the stack create's pre-flight. hotc validate follows the first (an error) and warns about the second
("creating the stack would fail"); hotc plan refuses both, as the create does. Each row's two verdicts were
recorded on the test cloud's Heat 27: ``POST /validate`` and ``POST /stacks/preview`` (the create's
pre-flight, nothing created), with the row's environment; the templates are written for this test.

Custom constraints that need the cloud (``glance.image`` ...) are not here: hotc checks them at plan time only
with a cloud configured (tests/planner/test_constraints.py), and says so when there is none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.errors import Diagnostic, Severity
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  {param}
resources:
  r: {{type: OS::Heat::None}}
outputs:
  o: {{value: {{get_param: p}}}}
"""

#: name -> (the parameter's definition, the environment or None, Heat's validate verdict, its create pre-flight
#: verdict)
CASES: dict[str, tuple[str, str | None, str, str]] = {
    "allowed_bool": (
        "p: {type: boolean, default: true, constraints: [{allowed_values: [true]}]}",
        None,
        "VALID",
        "VALID",
    ),
    "allowed_cdl": (
        "p: {type: comma_delimited_list, default: 'a,c', constraints: [{allowed_values: [a, b]}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "allowed_num_on_str": (
        "p: {type: string, default: '1', constraints: [{allowed_values: [1, 2]}]}",
        None,
        "VALID",
        "VALID",
    ),
    "allowed_str_on_num": (
        "p: {type: number, default: 1, constraints: [{allowed_values: ['1', '2']}]}",
        None,
        "VALID",
        "VALID",
    ),
    "bool_1": ("p: {type: boolean, default: 1}", None, "VALID", "VALID"),
    "bool_2": ("p: {type: boolean, default: 2}", None, "VALID", "INVALID"),
    "bool_on": ("p: {type: boolean, default: 'on'}", None, "VALID", "VALID"),
    "bool_t": ("p: {type: boolean, default: 't'}", None, "VALID", "VALID"),
    "bool_yes": ("p: {type: boolean, default: 'yes'}", None, "VALID", "VALID"),
    "cdl_maps": ("p: {type: comma_delimited_list, default: [{a: 1}]}", None, "VALID", "VALID"),
    "cdl_num": ("p: {type: comma_delimited_list, default: 5}", None, "INVALID", "INVALID"),
    "cdl_nums": ("p: {type: comma_delimited_list, default: [1, 2]}", None, "VALID", "VALID"),
    "cdl_str": ("p: {type: comma_delimited_list, default: 'a,b'}", None, "VALID", "VALID"),
    "cons_desc_num": (
        "p: {type: string, default: a, constraints: [{length: {min: 2}, description: 5}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "custom_unknown_name": (
        "p: {type: string, default: x, constraints: [{custom_constraint: no.such.constraint}]}",
        None,
        "VALID",
        "INVALID",
    ),
    "desc_map": ("p: {type: string, default: x, description: {a: 1}}", None, "VALID", "VALID"),
    "empty_str_num": ("p: {type: number, default: ''}", None, "VALID", "INVALID"),
    "envval_bool_yes": ("p: {type: boolean}", "parameters:\n  p: 'yes'\n", "VALID", "VALID"),
    "envval_cdl_list": ("p: {type: comma_delimited_list}", "parameters:\n  p: [a, b]\n", "VALID", "VALID"),
    "envval_fixes_bad_default": (
        "p: {type: string, default: ab, constraints: [{length: {min: 5}}]}",
        "parameters:\n  p: abcdef\n",
        "INVALID",
        "INVALID",
    ),
    "envval_json_bad": ("p: {type: json}", "parameters:\n  p: 'nope{'\n", "VALID", "INVALID"),
    "envval_json_text": ("p: {type: json}", "parameters:\n  p: '{\"a\": 1}'\n", "VALID", "VALID"),
    "envval_undeclared": ("p: {type: string, default: x}", "parameters:\n  q: abc\n", "INVALID", "INVALID"),
    "envval_violates": (
        "p: {type: string, constraints: [{length: {min: 5}}]}",
        "parameters:\n  p: abc\n",
        "VALID",
        "INVALID",
    ),
    "envval_wrongtype": ("p: {type: number}", "parameters:\n  p: abc\n", "VALID", "INVALID"),
    "hidden_yes": ("p: {type: string, default: x, hidden: 'yes'}", None, "VALID", "VALID"),
    "immutable_str": ("p: {type: string, default: x, immutable: 'true'}", None, "VALID", "VALID"),
    "json_badstr": ("p: {type: json, default: 'not json'}", None, "VALID", "INVALID"),
    "json_list": ("p: {type: json, default: [1, 2]}", None, "VALID", "VALID"),
    "json_num": ("p: {type: json, default: 5}", None, "VALID", "VALID"),
    "json_str": ("p: {type: json, default: '{\"a\": 1}'}", None, "VALID", "VALID"),
    "jsontext_len_long": (
        "p: {type: json, default: '{\"a\": 1}', constraints: [{length: {max: 3}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "jsontext_len_short": (
        "p: {type: json, default: '[1]', constraints: [{length: {min: 2}}]}",
        None,
        "VALID",
        "INVALID",
    ),
    "label_num": ("p: {type: string, default: x, label: 5}", None, "VALID", "VALID"),
    "len_cdl": (
        "p: {type: comma_delimited_list, default: 'a', constraints: [{length: {min: 2}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "len_json": (
        "p: {type: json, default: {a: 1}, constraints: [{length: {min: 2}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "length_num_str": (
        "p: {type: string, default: abc, constraints: [{length: {max: '2'}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "modulo_bad": (
        "p: {type: number, default: 4, constraints: [{modulo: {step: 2, offset: 1}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "modulo_float": (
        "p: {type: number, default: 3.0, constraints: [{modulo: {step: 2, offset: 1}}]}",
        None,
        "VALID",
        "VALID",
    ),
    "modulo_str": (
        "p: {type: string, default: '3', constraints: [{modulo: {step: 2, offset: 1}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "null_default": ("p: {type: string, default: null}", None, "VALID", "INVALID"),
    "num_bool": ("p: {type: number, default: true}", None, "VALID", "VALID"),
    "num_float": ("p: {type: number, default: 1.5e3}", None, "VALID", "VALID"),
    "num_list": ("p: {type: number, default: [1]}", None, "VALID", "INVALID"),
    "num_str5": ("p: {type: number, default: '5'}", None, "VALID", "VALID"),
    "pattern_cdl": (
        "p: {type: comma_delimited_list, default: 'ab,c1', constraints: [{allowed_pattern: '[a-z]+'}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "pattern_num": (
        "p: {type: number, default: 5, constraints: [{allowed_pattern: '[0-9]+'}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "pattern_partial": (
        "p: {type: string, default: 'abc1', constraints: [{allowed_pattern: '[a-z]+'}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "pdef_fixes_bad_default": (
        "p: {type: string, default: ab, constraints: [{length: {min: 5}}]}",
        "parameter_defaults:\n  p: abcdef\n",
        "INVALID",
        "INVALID",
    ),
    "pdef_undeclared": ("p: {type: string, default: x}", "parameter_defaults:\n  q: abc\n", "VALID", "VALID"),
    "pdef_violates": (
        "p: {type: string, constraints: [{length: {min: 5}}]}",
        "parameter_defaults:\n  p: abc\n",
        "VALID",
        "INVALID",
    ),
    "pdef_violates_over_default": (
        "p: {type: string, default: abcdef, constraints: [{length: {min: 5}}]}",
        "parameter_defaults:\n  p: abc\n",
        "VALID",
        "INVALID",
    ),
    "pdef_wrongtype": ("p: {type: number}", "parameter_defaults:\n  p: abc\n", "VALID", "INVALID"),
    "range_float_bounds": (
        "p: {type: number, default: 2.5, constraints: [{range: {min: 1.5, max: 2.4}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "range_nomin": ("p: {type: number, default: 5, constraints: [{range: {}}]}", None, "INVALID", "INVALID"),
    "range_ok_strmin": (
        "p: {type: number, default: 7, constraints: [{range: {min: '5'}}]}",
        None,
        "VALID",
        "VALID",
    ),
    "range_strmin": (
        "p: {type: number, default: 3, constraints: [{range: {min: '5'}}]}",
        None,
        "INVALID",
        "INVALID",
    ),
    "str_bool": ("p: {type: string, default: true}", None, "VALID", "VALID"),
    "str_list": ("p: {type: string, default: [a, b]}", None, "VALID", "VALID"),
    "str_map": ("p: {type: string, default: {a: 1}}", None, "VALID", "VALID"),
    "str_num": ("p: {type: string, default: 5}", None, "VALID", "VALID"),
    "two_kinds": (
        "p: {type: string, default: a, constraints: [{length: {min: 2}, allowed_values: [a]}]}",
        None,
        "INVALID",
        "INVALID",
    ),
}


def _load(tmp_path: Path, case: str, *, strict: bool) -> list[Diagnostic]:
    param, env, _, _ = CASES[case]
    t = tmp_path / "t.yaml"
    t.write_text(TEMPLATE.format(param=param))
    envs = []
    if env is not None:
        (tmp_path / "e.yaml").write_text(env)
        envs.append(str(tmp_path / "e.yaml"))
    _, diags = load_stack(str(t), envs, {}, {}, require_values=strict, checks=type_checks())
    return diags


def _verdict(diags: list[Diagnostic]) -> str:
    return "INVALID" if any(d.severity is Severity.ERROR for d in diags) else "VALID"


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_gives_heats_validate_verdict(tmp_path: Path, case: str) -> None:
    diags = _load(tmp_path, case, strict=False)
    assert _verdict(diags) == CASES[case][2], [d.message for d in diags]
    if CASES[case][2] == "VALID" and CASES[case][3] == "INVALID" and case != "null_default":
        # accepted as Heat does, and said: the create would fail (a parameter without a value needs none for
        # validate)
        assert any("creating the stack would fail" in d.message for d in diags), [d.message for d in diags]


@pytest.mark.parametrize("case", sorted(CASES))
def test_plan_gives_heats_create_verdict(tmp_path: Path, case: str) -> None:
    diags = _load(tmp_path, case, strict=True)
    assert _verdict(diags) == CASES[case][3], [d.message for d in diags]


def test_an_unknown_custom_constraint_warns_in_validate_and_fails_plan(tmp_path: Path) -> None:
    """Heat 27: validate OK; create: "x" does not validate no.such.constraint (constraint not found)."""
    t = tmp_path / "t.yaml"
    t.write_text(
        TEMPLATE.format(
            param="p: {type: string, default: x, constraints: [{custom_constraint: no.such.constraint}]}"
        )
    )
    for strict, severity in ((False, Severity.WARNING), (True, Severity.ERROR)):
        _, diags = load_stack(str(t), [], {}, {}, require_values=strict, checks=type_checks())
        hits = [d for d in diags if "no.such.constraint" in d.message]
        assert [d.severity for d in hits] == [severity]
        assert hits[0].pos is not None and (hits[0].pos.line, hits[0].pos.col) == (3, 47)
    # a name Heat has is not flagged, whether or not hotc can check it offline
    t.write_text(
        TEMPLATE.format(
            param="p: {type: string, default: x, constraints: [{custom_constraint: nova.flavor}]}"
        )
    )
    _, diags = load_stack(str(t), [], {}, {}, require_values=True, checks=type_checks())
    assert not [d for d in diags if "custom constraint" in d.message]


def test_an_unknown_custom_constraint_in_a_nested_template(tmp_path: Path) -> None:
    (tmp_path / "child.yaml").write_text(
        "heat_template_version: 2021-04-16\nparameters:\n"
        "  p: {type: string, constraints: [{custom_constraint: nope.nope}]}\n"
    )
    t = tmp_path / "t.yaml"
    t.write_text(
        "heat_template_version: 2021-04-16\nresources:\n  c: {type: child.yaml, properties: {p: x}}\n"
    )
    _, diags = load_stack(str(t), [], {}, {}, require_values=False, checks=type_checks())
    assert _verdict(diags) == "VALID" and any("nope.nope" in d.message for d in diags)
    _, diags = load_stack(str(t), [], {}, {}, require_values=True, checks=type_checks())
    assert any("nope.nope" in d.message and d.severity is Severity.ERROR for d in diags)
