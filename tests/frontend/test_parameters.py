"""Parameter definitions, types, constraints and value conversion (Heat's semantics)."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.errors import Severity
from hotc.parser.ir import MISSING, Constraint, Parameter
from hotc.parser.parameters import (
    ParameterValueError,
    check_constraint,
    constraint_errors,
    convert_value,
    parse_parameter,
    parse_parameter_groups,
    resolve_values,
)
from hotc.parser.versions import version_named
from hotc.parser.yamlload import load_document

V_NEW = version_named("2021-04-16")
V_OLD = version_named("2013-05-23")


def _param(text: str, version: Any = V_NEW) -> tuple[Parameter | None, list[Any]]:
    data, diags = load_document("p:\n" + text, "t.yaml")
    assert data is not None and not diags
    return parse_parameter("p", data["p"], version, data.key_pos["p"])


def _errors(text: str, version: Any = V_NEW) -> list[str]:
    _, diags = _param(text, version)
    return [d.message for d in diags if d.severity is Severity.ERROR]


# ------------------------------------------------------------------------------------------ conversion

CONVERSIONS = [
    ("string", "abc", "abc"),
    ("string", 42, "42"),
    ("string", True, "True"),  # Heat: str(value)
    ("number", "42", 42),
    ("number", "4.5", 4.5),
    ("number", 7, 7),
    ("number", " 3 ", 3),
    ("boolean", "yes", True),
    ("boolean", "On", True),
    ("boolean", "t", True),
    ("boolean", "1", True),
    ("boolean", True, True),
    ("boolean", "no", False),
    ("boolean", "OFF", False),
    ("boolean", "f", False),
    ("boolean", 0, False),
    ("comma_delimited_list", "a,b,c", ["a", "b", "c"]),
    ("comma_delimited_list", "one, two", ["one", " two"]),  # no stripping, as documented by Heat
    ("comma_delimited_list", "", []),
    ("comma_delimited_list", ["a", 1], ["a", "1"]),
    ("json", '{"a": 1}', {"a": 1}),
    ("json", "[1, 2]", [1, 2]),
    ("json", {"k": [1]}, {"k": [1]}),
    ("json", "", ""),
]


@pytest.mark.parametrize(("ptype", "raw", "expected"), CONVERSIONS)
def test_convert_value(ptype: str, raw: Any, expected: Any) -> None:
    assert convert_value(ptype, raw) == expected
    assert type(convert_value(ptype, raw)) is type(expected)


BAD_VALUES = [
    ("number", "abc", "could not convert"),
    ("boolean", "maybe", "Unrecognized value 'maybe'"),
    ("comma_delimited_list", 5, "comma-delimited list"),
    ("json", "{not json", "Value must be valid JSON"),
]


@pytest.mark.parametrize(("ptype", "raw", "fragment"), BAD_VALUES)
def test_convert_value_errors(ptype: str, raw: Any, fragment: str) -> None:
    with pytest.raises(ParameterValueError, match=fragment):
        convert_value(ptype, raw)


# ------------------------------------------------------------------------------------------ constraints

CONSTRAINTS = [
    # kind, spec, type, value, violation fragment or None
    ("length", {"min": 2, "max": 4}, "string", "abc", None),
    ("length", {"min": 2, "max": 4}, "string", "a", "length (1) is out of range (min: 2, max: 4)"),
    ("length", {"min": None, "max": 1}, "comma_delimited_list", ["a", "b"], "length (2) is out of range"),
    ("length", {"min": 1, "max": None}, "json", {}, "length (0) is out of range"),
    ("range", {"min": 1, "max": 10}, "number", 10, None),
    ("range", {"min": 1, "max": 10}, "number", "11", "11 is out of range (min: 1, max: 10)"),
    ("range", {"min": 0.5, "max": None}, "number", 0.4, "0.4 is out of range"),
    ("modulo", {"step": 2, "offset": 1}, "number", 7, None),
    ("modulo", {"step": 2, "offset": 1}, "number", 8, "8 is not a multiple of 2 with an offset of 1"),
    ("allowed_values", ("a", "b"), "string", "a", None),
    ("allowed_values", ("a", "b"), "string", "c", '"c" is not an allowed value ["a", "b"]'),
    ("allowed_values", (1, 2), "number", "2", None),  # both sides converted to numbers
    ("allowed_values", ("true",), "boolean", "yes", None),  # both sides converted to booleans
    ("allowed_values", ("a", "b"), "comma_delimited_list", ["a", "b"], None),
    ("allowed_values", ("a", "b"), "comma_delimited_list", ["a", "x"], "is not an allowed value"),
    ("allowed_pattern", "[a-z]+", "string", "abc", None),
    ("allowed_pattern", "[a-z]+", "string", "abc1", '"abc1" does not match pattern "[a-z]+"'),  # whole string
    ("allowed_pattern", "[a-z]+", "string", "1abc", "does not match pattern"),
    (
        "custom_constraint",
        "nova.flavor",
        "string",
        "anything",
        None,
    ),  # needs the cloud: never checked offline
]


@pytest.mark.parametrize(("kind", "spec", "ptype", "value", "violation"), CONSTRAINTS)
def test_constraint(kind: str, spec: Any, ptype: str, value: Any, violation: str | None) -> None:
    msg = check_constraint(Constraint(kind, spec), ptype, value)
    if violation is None:
        assert msg is None
    else:
        assert msg is not None and violation in msg


def test_constraint_description_replaces_message() -> None:
    c = Constraint("range", {"min": 1, "max": 2}, "between one and two please")
    assert check_constraint(c, "number", 3) == "between one and two please"


def test_constraint_errors_parses_list_strings() -> None:
    p = Parameter("p", "comma_delimited_list", constraints=(Constraint("length", {"min": 3, "max": None}),))
    assert constraint_errors(p, "a,b,c") == []
    assert constraint_errors(p, "a,b") and "length (2)" in constraint_errors(p, "a,b")[0]


# ------------------------------------------------------------------------------------------ definitions


def test_full_definition_to_ir() -> None:
    p, diags = _param(
        """
  type: string
  label: Key
  description: the key
  default: abc
  hidden: true
  immutable: yes
  tags: [a, b]
  constraints:
    - length: {min: 1, max: 5}
      description: short please
    - allowed_pattern: "[a-z]+"
    - custom_constraint: nova.keypair
"""
    )
    assert diags == []
    assert p is not None
    assert (p.type, p.label, p.description, p.default, p.hidden, p.immutable, p.tags) == (
        "string",
        "Key",
        "the key",
        "abc",
        True,
        True,
        ("a", "b"),
    )
    assert [c.kind for c in p.constraints] == ["length", "allowed_pattern", "custom_constraint"]
    assert p.constraints[0].description == "short please"
    assert p.constraints[2].spec == "nova.keypair"
    assert p.pos is not None and p.pos.line == 1


def test_no_default_is_missing() -> None:
    p, _ = _param("\n  type: number\n")
    assert p is not None and p.default is MISSING


DEFINITION_ERRORS = [
    ("\n  type: string\n  foo: 1\n", V_NEW, "Invalid key 'foo' for parameter (p)"),
    ("\n  description: x\n", V_NEW, "Missing parameter type for parameter: p"),
    ("\n  type: Unicode\n", V_NEW, "Invalid type (Unicode)"),
    (
        "\n  type: string\n  constraints:\n    - allowed_valus: [a]\n",
        V_NEW,
        "Invalid key 'allowed_valus' for parameter constraints",
    ),
    (
        "\n  type: string\n  constraints: {length: {min: 1}}\n",
        V_NEW,
        "Invalid parameter constraints for parameter p, expected a list",
    ),
    ("\n  type: string\n  constraints: [abc]\n", V_NEW, "Invalid parameter constraints, expected a mapping"),
    ("\n  type: string\n  constraints:\n    - description: x\n", V_NEW, "No constraint expressed"),
    (
        "\n  type: number\n  constraints:\n    - range: 5\n",
        V_NEW,
        "Invalid range constraint, expected a mapping",
    ),
    (
        "\n  type: number\n  constraints:\n    - range: {foo: 1}\n",
        V_NEW,
        "Invalid key 'foo' for range constraint",
    ),
    (
        "\n  type: string\n  constraints:\n    - length: [1]\n",
        V_NEW,
        "Invalid length constraint, expected a mapping",
    ),
    (
        "\n  type: string\n  constraints:\n    - length: {foo: 1}\n",
        V_NEW,
        "Invalid key 'foo' for length constraint",
    ),
    (
        "\n  type: string\n  constraints:\n    - length: {min: 1.5}\n",
        V_NEW,
        "min/max length must be integral",
    ),
    (
        "\n  type: string\n  constraints:\n    - allowed_pattern: [a]\n",
        V_NEW,
        "AllowedPattern must be a string",
    ),
    ("\n  type: string\n  constraints:\n    - allowed_values: abc\n", V_NEW, "AllowedValues must be a list"),
    (
        "\n  type: number\n  constraints:\n    - modulo: {step: 2}\n",
        V_NEW,
        "must have a step value and an offset value",
    ),
    ("\n  type: number\n  constraints:\n    - modulo: {step: 0, offset: 0}\n", V_NEW, "step cannot be 0"),
    (
        "\n  type: number\n  constraints:\n    - modulo: {step: 2, offset: 3}\n",
        V_NEW,
        "offset must be smaller",
    ),
    (
        "\n  type: number\n  constraints:\n    - modulo: {step: 2, offset: 1}\n",
        V_OLD,
        "No constraint expressed",
    ),
    ("\n  type: string\n  tags: a\n", V_NEW, "Tags property should be a list for parameter: p"),
    ("\n  type: string\n  tags: [a]\n", V_OLD, "Invalid key 'tags' for parameter (p)"),
    (
        "\n  type: string\n  constraints:\n    - range: {min: 1}\n",
        V_NEW,
        "Range constraint invalid for string",
    ),
    (
        "\n  type: json\n  constraints:\n    - allowed_values: [a]\n",
        V_NEW,
        "AllowedValues constraint invalid for json",
    ),
    (
        "\n  type: number\n  constraints:\n    - allowed_pattern: x\n",
        V_NEW,
        "AllowedPattern constraint invalid for number",
    ),
    (
        "\n  type: string\n  constraints:\n    - allowed_pattern: '[a-'\n",
        V_NEW,
        "not a valid regular expression",
    ),
    # defaults are checked against the (non-custom) constraints
    (
        "\n  type: number\n  default: 12\n  constraints:\n    - range: {max: 10}\n",
        V_NEW,
        "Invalid default 12 (12 is out of range",
    ),
    (
        "\n  type: string\n  default: Zed\n  constraints:\n    - allowed_values: [a]\n      description: pick a\n",
        V_NEW,
        "Invalid default Zed (pick a)",
    ),
    (
        "\n  type: comma_delimited_list\n  default: a,b,c\n  constraints:\n    - length: {max: 2}\n",
        V_NEW,
        "Invalid default a,b,c (length (3)",
    ),
]


@pytest.mark.parametrize(("text", "version", "fragment"), DEFINITION_ERRORS)
def test_definition_errors(text: str, version: Any, fragment: str) -> None:
    errs = _errors(text, version)
    assert errs, f"expected an error containing {fragment!r}"
    assert any(fragment in e for e in errs), errs


def test_custom_constraint_default_not_checked() -> None:
    assert (
        _errors("\n  type: string\n  default: nope\n  constraints:\n    - custom_constraint: glance.image\n")
        == []
    )


def test_error_position_points_at_the_bad_key() -> None:
    _, diags = _param("\n  type: string\n  constraints:\n    - length: {min: 1}\n      allowed_valus: [a]\n")
    assert diags and diags[0].pos is not None
    assert (diags[0].pos.line, diags[0].pos.col) == (6, 7)


# ------------------------------------------------------------------------------------------ groups


def _groups(text: str, names: tuple[str, ...] = ("a", "b")) -> list[str]:
    data, _ = load_document("g:\n" + text, "t.yaml")
    assert data is not None
    params = {n: Parameter(n, "string") for n in names}
    _, diags = parse_parameter_groups(data["g"], params, None)
    return [d.message for d in diags]


def test_parameter_groups_ok() -> None:
    assert _groups("  - label: one\n    parameters: [a]\n  - parameters: [b, OS::stack_id]\n") == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("  label: x\n", "The parameter_groups should be a list."),
        ("  - label: one\n", "The parameters must be provided for each parameter group."),
        ("  - label: one\n    parameters: a\n", "The parameters of parameter group should be a list."),
        (
            "  - label: one\n    parameters: [a]\n  - label: two\n    parameters: [a]\n",
            "The a parameter must be assigned to one parameter group only.",
        ),
        (
            "  - label: one\n    parameters: [zz]\n",
            "The grouped parameter zz does not reference a valid parameter.",
        ),
    ],
)
def test_parameter_groups_errors(text: str, fragment: str) -> None:
    msgs = _groups(text)
    assert any(fragment in m for m in msgs), msgs


# ------------------------------------------------------------------------------------------ values


def test_resolve_values_order_and_errors() -> None:
    params = {
        "n": Parameter("n", "number", default=3),
        "s": Parameter("s", "string"),
        "l": Parameter("l", "comma_delimited_list", default="x,y"),
        "b": Parameter("b", "boolean", constraints=()),
        "r": Parameter("r", "number", constraints=(Constraint("range", {"min": 1, "max": 5}),)),
    }
    vals, diags = resolve_values(
        params,
        {
            "s": ("hello", None, "--parameter"),
            "r": ("9", None, "--parameter"),
            "zz": ("1", None, "--parameter"),
        },
        {"b": ("yes", None), "n": ("4", None), "unknown_default": ("ignored", None)},
        require_values=False,
    )
    assert vals["n"] == 4  # parameter_defaults beat the template default
    assert vals["s"] == "hello"
    assert vals["l"] == ["x", "y"]
    assert vals["b"] is True
    msgs = [d.message for d in diags]
    assert any("The Parameter (zz) was not defined in template" in m for m in msgs)
    assert any("Parameter 'r' is invalid: 9 is out of range" in m for m in msgs)
    assert not any("unknown_default" in m for m in msgs)  # undeclared parameter_defaults are ignored


def test_resolve_values_require_values() -> None:
    params = {"s": Parameter("s", "string")}
    vals, diags = resolve_values(params, {}, {}, require_values=False)
    assert vals == {} and diags == []
    vals, diags = resolve_values(params, {}, {}, require_values=True)
    assert vals == {} and any("The Parameter (s) was not provided" in d.message for d in diags)


def test_bad_given_value_is_an_error_where_the_stack_is_created() -> None:
    """Heat's template validate checks no given value; its create pre-flight refuses it."""
    params = {"n": Parameter("n", "number")}
    _, diags = resolve_values(params, {"n": ("abc", None, "--parameter")}, {}, require_values=True)
    assert [d.severity for d in diags] == [Severity.ERROR]
    _, diags = resolve_values(params, {"n": ("abc", None, "--parameter")}, {}, require_values=False)
    assert [d.severity for d in diags] == [Severity.WARNING]
    assert "creating the stack would fail" in diags[0].message


def test_hidden_values_never_shown() -> None:
    params = {
        "pw": Parameter(
            "pw",
            "string",
            hidden=True,
            constraints=(
                Constraint("allowed_pattern", "[a-z]+"),
                Constraint("length", {"min": 12, "max": None}),
            ),
        ),
        "n": Parameter("n", "number", hidden=True),
    }
    _, diags = resolve_values(
        params,
        {"pw": ("S3cret!", None, "--parameter"), "n": ("t0psecret", None, "--parameter")},
        {},
        require_values=True,
    )
    text = " | ".join(d.message for d in diags)
    assert len(diags) == 3
    assert "S3cret!" not in text and "t0psecret" not in text
    assert "hidden" in text
