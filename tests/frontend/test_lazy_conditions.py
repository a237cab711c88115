"""Conditions are checked as Heat resolves them: lazily.

Heat 27's validate resolves every resource's and every output's ``condition``, and the condition of each ``if``
it parses: those in every resource's definition (parsed before the resource's own condition is looked at) and
in the values of outputs that are not disabled, the taken branch only. A condition resolved must evaluate; what
only a condition nothing asks for, or a branch not taken, gets wrong is never seen by Heat. Each verdict below
was recorded on the test cloud's Heat 27 (``openstack orchestration template validate``); the templates are
written for this test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hotc.errors import Severity
from hotc.parser.api import load_stack
from hotc.providers.checks import type_checks

V = "heat_template_version: 2018-08-31\n"

#: name -> (template after the version line, Heat 27's verdict, a fragment of hotc's diagnostic)
CASES: dict[str, tuple[str, str, str]] = {
    "unused-condition-undeclared-parameter": (
        "conditions:\n  c: {equals: [{get_param: nope}, 1]}\n",
        "VALID",
        "undeclared parameter 'nope'",
    ),
    "used-condition-undeclared-parameter": (
        "conditions:\n  c: {equals: [{get_param: nope}, 1]}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        "The Parameter (nope) was not provided",
    ),
    "unused-condition-undefined-name": (
        "conditions:\n  c: {not: nope}\n",
        "VALID",
        'Invalid condition "nope"',
    ),
    "used-condition-undefined-name": (
        "conditions:\n  c: {not: nope}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        'Invalid condition "nope"',
    ),
    "and-stops-at-false": (
        "conditions:\n  f: false\n  c: {and: [f, nope]}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "VALID",
        "",
    ),
    "or-resolves-its-functions": (
        "conditions:\n  t: true\n  c: {or: [t, {equals: [{get_param: nope}, 1]}]}\n"
        "resources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        "The Parameter (nope) was not provided",
    ),
    # Heat 27 answers this validate with a 500 (the yaql error escapes as a RemoteError): a rejection
    "and-resolves-its-functions-after-a-false": (
        "conditions:\n  c: {and: [false, {yaql: {expression: '$.data.s + 1', data: {s: a}}}]}\n"
        "resources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        "NoMatchingFunctionException",
    ),
    "or-resolves-nested-conditions-first": (
        "conditions:\n  t: true\n  c: {or: [t, {and: [t, nope]}]}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        'Invalid condition "nope"',
    ),
    "or-looks-names-up-lazily": (
        "conditions:\n  t: true\n  c: {or: [t, nope]}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "VALID",
        "",
    ),
    # a quoted 'true' is a string, never a boolean: as a definition Heat's validate refuses it (not a bool nor
    # a function) whether used or not; as an operand it is a condition name, looked up when reached
    "quoted-true-definition": ("conditions:\n  c: 'true'\n", "INVALID", 'not the string "true"'),
    "quoted-true-operand-reached": (
        "conditions:\n  c: {and: [true, 'true']}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "INVALID",
        'Invalid condition "true"',
    ),
    "quoted-true-operand-not-reached": (
        "conditions:\n  c: {or: [true, 'true']}\nresources:\n  r: {type: OS::Heat::None, condition: c}\n",
        "VALID",
        "",
    ),
    "unused-cycle": ("conditions:\n  a: {not: b}\n  b: {not: a}\n", "VALID", "Circular definition"),
    "used-cycle": (
        "conditions:\n  a: {not: b}\n  b: {not: a}\nresources:\n  r: {type: OS::Heat::None, condition: a}\n",
        "INVALID",
        "Circular definition",
    ),
    "unused-condition-bad-arguments": (
        "conditions:\n  a: {equals: [1]}\n",
        "INVALID",
        'invalid arguments to "equals"',
    ),
    "unused-condition-not-a-condition": ("conditions:\n  a: [1, 2]\n", "INVALID", "a condition must be"),
    "if-untaken-branch-in-an-output": (
        "conditions:\n  f: false\noutputs:\n  o:\n    value: {if: [f, {if: [nope, 1, 2]}, 3]}\n",
        "VALID",
        "",
    ),
    "if-taken-branch-in-an-output": (
        "conditions:\n  t: true\noutputs:\n  o:\n    value: {if: [t, {if: [nope, 1, 2]}, 3]}\n",
        "INVALID",
        'Invalid condition "nope" (in output o)',
    ),
    "if-untaken-branch-in-a-resource": (
        "conditions:\n  f: false\nresources:\n  r:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {if: [f, {if: [nope, 1, 2]}, 3]}\n",
        "VALID",
        "",
    ),
    "if-in-a-disabled-resource": (
        "conditions:\n  f: false\nresources:\n  r:\n    type: OS::Heat::Value\n    condition: f\n"
        "    properties:\n      value: {if: [nope, 1, 2]}\n",
        "INVALID",
        'Invalid condition "nope" (in r.properties)',
    ),
    "if-in-a-disabled-output": (
        "conditions:\n  f: false\noutputs:\n  o:\n    condition: f\n    value: {if: [nope, 1, 2]}\n",
        "VALID",
        "",
    ),
    "condition-asked-through-an-untaken-branch": (
        "conditions:\n  f: false\n  c: {equals: [{get_param: nope}, 1]}\n"
        "outputs:\n  o:\n    value: {if: [f, {if: [c, 1, 2]}, 3]}\n",
        "VALID",
        "undeclared parameter 'nope'",
    ),
    "condition-asked-through-a-taken-branch": (
        "conditions:\n  t: true\n  c: {equals: [{get_param: nope}, 1]}\n"
        "outputs:\n  o:\n    value: {if: [t, {if: [c, 1, 2]}, 3]}\n",
        "INVALID",
        "The Parameter (nope) was not provided",
    ),
    "output-condition-undeclared-parameter": (
        "outputs:\n  o:\n    condition: {equals: [{get_param: nope}, 1]}\n    value: 1\n",
        "INVALID",
        "The Parameter (nope) was not provided",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conditions_are_checked_where_heat_resolves_them(tmp_path: Path, case: str) -> None:
    body, heat, fragment = CASES[case]
    t = tmp_path / "t.yaml"
    t.write_text(V + body)
    _, diags = load_stack(str(t), [], {}, {}, require_values=False, checks=type_checks())
    errs = [d for d in diags if d.severity is Severity.ERROR]
    if heat == "INVALID":
        assert any(fragment in d.message for d in errs), [d.message for d in diags]
        assert all(d.pos is not None and d.pos.file == str(t) for d in errs)
    else:
        assert errs == [], [d.message for d in errs]
        if fragment:  # what Heat never resolves is still pointed out
            hits = [d for d in diags if fragment in d.message]
            assert hits and all("Heat accepts the template" in d.message for d in hits), [
                d.message for d in diags
            ]


def test_an_if_under_a_condition_without_a_value_is_checked_in_both_branches(tmp_path: Path) -> None:
    """A condition that depends on a parameter without a value is not known at validate: either branch may be
    the one parsed, so an undefined condition in either is an error."""
    t = tmp_path / "t.yaml"
    t.write_text(
        V + "parameters:\n  p: {type: string}\nconditions:\n  c: {equals: [{get_param: p}, x]}\n"
        "outputs:\n  o:\n    value: {if: [c, {if: [nope, 1, 2]}, 3]}\n"
    )
    _, diags = load_stack(str(t), [], {}, {}, require_values=False, checks=type_checks())
    errs = [d for d in diags if d.severity is Severity.ERROR]
    assert [d.message for d in errs] == ['Invalid condition "nope" (in output o); defined conditions: c']
    assert errs[0].pos is not None and (errs[0].pos.line, errs[0].pos.col) == (8, 27)
    # with a value that takes the other branch, Heat never parses it
    _, diags = load_stack(str(t), [], {"p": "y"}, {}, require_values=False, checks=type_checks())
    assert [d for d in diags if d.severity is Severity.ERROR] == []
