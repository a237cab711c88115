"""Parameter definitions, parameter groups and parameter values, with Heat's semantics.

- :func:`parse_parameters` turns the ``parameters`` section into :class:`~hotc.parser.ir.Parameter` IR and
  checks each definition as Heat does (keys per version, required ``type``, constraint shapes, which
  constraint applies to which type, defaults against non-custom constraints).
- :func:`parse_parameter_groups` checks ``parameter_groups`` (a list; every group lists existing parameters;
  each parameter in at most one group).
- :func:`convert_value` converts a raw value (from the CLI, an environment or a default) to the parameter's
  type exactly as Heat's ``Parameter.value()`` does; :func:`constraint_errors` checks a value against the
  constraints (``custom_constraint`` is named, never looked up: that needs the cloud).

Everything here is pure; problems come back as :class:`~hotc.errors.Diagnostic` values or messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from hotc.errors import Diagnostic, Pos, error, warning
from hotc.parser.ir import MISSING, Constraint, Parameter, ParameterGroup, TemplateVersion
from hotc.parser.limits import MAX_NESTING_DEPTH, nesting_depth
from hotc.parser.versions import (
    PARAMETER_TYPES,
    PSEUDO_PARAMETERS,
    allowed_constraint_kinds,
    allowed_parameter_keys,
)
from hotc.parser.yamlload import PosDict, PosList, pos_of

#: every key a constraint entry may carry (Heat checks keys against this list in every version)
_CONSTRAINT_KEYS = (
    "description",
    "length",
    "range",
    "modulo",
    "allowed_values",
    "allowed_pattern",
    "custom_constraint",
)
#: the order in which Heat looks for the constraint kind inside one entry
_KIND_ORDER = ("modulo", "range", "length", "allowed_values", "allowed_pattern", "custom_constraint")

#: parameter types each constraint kind may apply to (Heat's ``valid_types``)
_VALID_TYPES: dict[str, frozenset[str]] = {
    "range": frozenset({"number"}),
    "modulo": frozenset({"number"}),
    "length": frozenset({"string", "comma_delimited_list", "json"}),
    "allowed_values": frozenset({"string", "number", "boolean", "comma_delimited_list"}),
    "allowed_pattern": frozenset({"string"}),
    "custom_constraint": frozenset({"string", "number", "boolean", "comma_delimited_list"}),
}
_KIND_CLASS = {
    "range": "Range",
    "modulo": "Modulo",
    "length": "Length",
    "allowed_values": "AllowedValues",
    "allowed_pattern": "AllowedPattern",
    "custom_constraint": "CustomConstraint",
}

_TRUE = ("1", "t", "true", "on", "y", "yes")
_FALSE = ("0", "f", "false", "off", "n", "no")


class ParameterValueError(ValueError):
    """A value cannot be converted to its parameter's type (the message says why)."""


class _SchemaError(Exception):
    def __init__(self, message: str, pos: Pos | None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


# --------------------------------------------------------------------------------------- value semantics


def str_to_num(value: Any) -> int | float:
    """Heat's ``Schema.str_to_num``: numbers stay as they are, strings become int, else float."""
    if isinstance(value, int | float):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)
    except TypeError:
        return float(value)


def bool_from_string(value: Any) -> bool:
    """oslo's ``bool_from_string(strict=True)`` over ``str(value)``."""
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    acceptable = ", ".join(f"'{v}'" for v in sorted(_TRUE + _FALSE))
    raise ParameterValueError(f"Unrecognized value '{value}', acceptable values are: {acceptable}")


def convert_value(param_type: str, value: Any) -> Any:
    """Convert ``value`` to ``param_type`` exactly as Heat's parameter classes do.

    Raises :class:`ParameterValueError` with Heat's reason when it cannot."""
    if param_type == "string":
        return str(value)
    if param_type == "number":
        if isinstance(value, bool):
            return value
        try:
            return str_to_num(value)
        except (ValueError, TypeError) as exc:
            raise ParameterValueError(f"could not convert {value!r} to a number ({exc})") from None
    if param_type == "boolean":
        return bool_from_string(value)
    if param_type == "comma_delimited_list":
        if isinstance(value, list):
            return [str(x) for x in value]
        if value is None:
            return None
        if not isinstance(value, str):
            raise ParameterValueError(
                f"Value must be a comma-delimited list string: {type(value).__name__!r} object has no "
                "attribute 'split'"
            )
        if value == "":
            return []
        return value.split(",")
    if param_type == "json":
        try:
            text = value if isinstance(value, str) else json.dumps(value)
            if text:
                got = json.loads(text)
                if nesting_depth(got) > MAX_NESTING_DEPTH:
                    raise RecursionError
                return got
        except (ValueError, TypeError) as exc:
            raise ParameterValueError(f"Value must be valid JSON: {exc}") from None
        except RecursionError:
            raise ParameterValueError(
                f"Value must be valid JSON: it nests lists or mappings more than {MAX_NESTING_DEPTH} levels deep "
                "(the most hotc reads)"
            ) from None
        return value
    return value


def _constraint_value(param_type: str, value: Any) -> Any:
    """The value constraints are checked against (Heat parses lists and JSON before checking)."""
    if param_type == "comma_delimited_list":
        if isinstance(value, list):
            return [str(x) for x in value]
        return convert_value(param_type, value)
    if param_type == "json":
        return convert_value(param_type, value)
    return value


def _to_schema_type(param_type: str, value: Any) -> Any:
    if param_type == "number":
        return str_to_num(value)
    if param_type == "string":
        return str(value)
    if param_type == "boolean":
        return bool_from_string(value)
    return value


def check_constraint(c: Constraint, param_type: str, value: Any) -> str | None:
    """The message for ``value`` violating ``c`` (its description when given), or None when it holds.

    ``custom_constraint`` is never checked here (it needs the cloud); it always holds."""
    ok = True
    default_msg = ""
    try:
        if c.kind in ("range", "length"):
            lo, hi = c.spec.get("min"), c.spec.get("max")
            if c.kind == "length":
                measured: Any = len(value)
                default_msg = f"length ({measured}) is out of range (min: {lo}, max: {hi})"
            else:
                measured = str_to_num(value)
                default_msg = f"{value} is out of range (min: {lo}, max: {hi})"
            ok = not ((lo is not None and measured < lo) or (hi is not None and measured > hi))
        elif c.kind == "modulo":
            step, offset = c.spec["step"], c.spec["offset"]
            ok = str_to_num(value) % step == offset
            default_msg = f"{value} is not a multiple of {step} with an offset of {offset}"
        elif c.kind == "allowed_values":
            allowed = list(c.spec)
            if isinstance(value, list):
                ok = all(v in allowed for v in value)
            else:
                ok = _to_schema_type(param_type, value) in [_to_schema_type(param_type, a) for a in allowed]
            shown = "[" + ", ".join(json.dumps(a) for a in allowed) + "]"
            default_msg = f"{json.dumps(value)} is not an allowed value {shown}"
        elif c.kind == "allowed_pattern":
            if not isinstance(value, str):
                return f"expected string or bytes-like object, got {type(value).__name__!r}"
            # lazy: most templates have no pattern (start-up of a one-resource validate)
            from hotc.parser.patterns import PATTERN_CPU_SECONDS, PatternTooExpensive, matches_whole

            try:
                ok = matches_whole(c.spec, value)
            except PatternTooExpensive:
                where = f" (allowed_pattern at {c.pos.line}:{c.pos.col})" if c.pos is not None else ""
                return (
                    f'pattern too expensive: matching "{c.spec}" against this value did not finish within '
                    f"{PATTERN_CPU_SECONDS} s of CPU{where}; the pattern backtracks without end (nested "
                    "quantifiers such as (a+)+): write it without a repeat inside a repeat"
                )
            default_msg = f'"{value}" does not match pattern "{c.spec}"'
        else:
            return None
    except (ValueError, TypeError) as exc:
        return str(exc)
    if ok:
        return None
    return c.description or default_msg


def template_property_problem(param: Parameter, value: Any) -> str | None:
    """Why the stack create refuses ``value`` as the property that feeds ``param`` of a template resource's
    template, or None. Heat turns each parameter into a property (``Schema.from_parameter``: string -> String,
    number -> Number, boolean -> Boolean, comma_delimited_list -> List and json -> Map, both converting) and
    checks the property's value and constraints (custom ones aside) before the create; a value the parameter
    itself would still refuse (text that is no JSON) is found when the nested stack is created."""
    t = param.type
    v: Any = value
    if t == "string":
        if isinstance(v, bool | int) and not isinstance(v, str):
            v = str(v)
        elif not isinstance(v, str):
            return f"Value must be a string; got {_py_repr(v)}"
    elif t == "number":
        try:
            v = str_to_num(v)
        except (TypeError, ValueError) as exc:
            return str(exc)
    elif t == "boolean":
        if isinstance(v, str) and v.lower() in ("true", "false"):
            v = v.lower() == "true"
        elif not isinstance(v, bool):
            shown = v.lower() if isinstance(v, str) else _py_repr(v)
            return f'"{shown}" is not a valid boolean'
    elif t == "comma_delimited_list":
        if isinstance(v, str):
            v = [x.strip() for x in v.split(",")] if v else []
        elif not isinstance(v, list):
            return f'"{_py_repr(v)}" is not a list'
    elif t == "json":
        if isinstance(v, list):
            v = json.dumps(v)
        elif not isinstance(v, dict | str):
            return f'"{_py_repr(v)}" is not a map'
    for c in param.constraints:
        if c.kind == "custom_constraint":
            continue
        msg = check_constraint(c, "string" if isinstance(v, str) else t, v)
        if msg is not None:
            return msg
    return None


def _py_repr(v: Any) -> str:
    """A value as Heat's messages show it (Python's repr: ['a', 'b'], {'a': 1}, True)."""
    return repr(v)


def constraint_errors(param: Parameter, value: Any, *, skip_custom: bool = True) -> list[str]:
    """Messages for every constraint of ``param`` that ``value`` (raw or converted) violates."""
    try:
        checked = _constraint_value(param.type, value)
    except ParameterValueError as exc:
        return [str(exc)]
    out: list[str] = []
    for c in param.constraints:
        if c.kind == "custom_constraint" and skip_custom:
            continue
        msg = check_constraint(c, param.type, checked)
        if msg is not None:
            out.append(msg)
    return out


# -------------------------------------------------------------------------------------- definitions


def _check_dict(data: Any, allowed: tuple[str, ...] | frozenset[str], entity: str, pos: Pos | None) -> None:
    if not isinstance(data, dict):
        raise _SchemaError(f"Invalid {entity}, expected a mapping", pos)
    for key in data:
        if key not in allowed:
            kpos = data.pos_of_key(key) if isinstance(data, PosDict) else pos
            raise _SchemaError(f"Invalid key '{key}' for {entity}", kpos)


def _num(data: Mapping[str, Any], key: str, what: str, pos: Pos | None) -> int | float | None:
    val = data.get(key)
    if val is None:
        return None
    if isinstance(val, bool):
        raise _SchemaError(f"{what}: {key} must be a number, not {val!r}", pos_of(data, key) or pos)
    try:
        return str_to_num(val)
    except (ValueError, TypeError):
        raise _SchemaError(f"{what}: {key} must be a number, not {val!r}", pos_of(data, key) or pos) from None


def _parse_constraint(entry: Any, version: TemplateVersion, pos: Pos | None) -> Constraint:
    _check_dict(entry, _CONSTRAINT_KEYS, "parameter constraints", pos)
    desc = entry.get("description")
    description = str(desc) if desc is not None else None
    kinds = allowed_constraint_kinds(version)
    kind = next((k for k in _KIND_ORDER if k in entry and k in kinds), None)
    if kind is None:
        if "modulo" in entry:
            raise _SchemaError(
                "No constraint expressed (the modulo constraint needs heat_template_version 2017-02-24 or later)",
                pos,
            )
        raise _SchemaError("No constraint expressed", pos)
    cdef = entry[kind]
    cpos = pos_of(entry, kind) or pos
    if kind in ("range", "length"):
        _check_dict(cdef, ("min", "max"), f"{kind} constraint", cpos)
        lo = _num(cdef, "min", f"{kind} constraint", cpos)
        hi = _num(cdef, "max", f"{kind} constraint", cpos)
        if lo is None and hi is None:
            raise _SchemaError(
                f"A {kind} constraint must have a min value and/or a max value specified.", cpos
            )
        if kind == "length" and any(v is not None and not isinstance(v, int) for v in (lo, hi)):
            raise _SchemaError("min/max length must be integral", cpos)
        return Constraint(kind, {"min": lo, "max": hi}, description, pos)
    if kind == "modulo":
        _check_dict(cdef, ("step", "offset"), "modulo constraint", cpos)
        step = _num(cdef, "step", "modulo constraint", cpos)
        offset = _num(cdef, "offset", "modulo constraint", cpos)
        if step is None or offset is None:
            raise _SchemaError(
                "A modulo constraint must have a step value and an offset value specified.", cpos
            )
        if int(step) != step or int(offset) != offset:
            raise _SchemaError("step/offset must be integer", cpos)
        step, offset = int(step), int(offset)
        if step == 0:
            raise _SchemaError("step cannot be 0.", cpos)
        if abs(offset) >= abs(step):
            raise _SchemaError("offset must be smaller (by absolute value) than step.", cpos)
        if step * offset < 0:
            raise _SchemaError("step and offset must be both positive or both negative.", cpos)
        return Constraint(kind, {"step": step, "offset": offset}, description, pos)
    if kind == "allowed_values":
        if not isinstance(cdef, list):
            raise _SchemaError("AllowedValues must be a list", cpos)
        return Constraint(kind, tuple(cdef), description, pos)
    if kind == "allowed_pattern":
        if not isinstance(cdef, str):
            raise _SchemaError("AllowedPattern must be a string", cpos)
        try:
            re.compile(cdef)
        except re.error as exc:
            raise _SchemaError(
                f"allowed_pattern {cdef!r} is not a valid regular expression: {exc}", cpos
            ) from None
        return Constraint(kind, cdef, description, pos)
    # custom_constraint
    if not isinstance(cdef, str):
        raise _SchemaError("custom_constraint must be the name of a constraint (a string)", cpos)
    return Constraint(kind, cdef, description, pos)


def parse_parameter(
    name: str,
    data: Any,
    version: TemplateVersion,
    pos: Pos | None,
    defaults_out: list[Diagnostic] | None = None,
) -> tuple[Parameter | None, list[Diagnostic]]:
    """One parameter definition -> IR, checked as Heat's ``HOTParamSchema.from_dict`` and ``validate`` do."""
    diags: list[Diagnostic] = []
    try:
        _check_dict(data, tuple(allowed_parameter_keys(version)), f"parameter ({name})", pos)
        if "type" not in data:
            raise _SchemaError(f"Missing parameter type for parameter: {name}", pos)
        tags = data.get("tags", [])
        if not isinstance(tags, list):
            raise _SchemaError(f"Tags property should be a list for parameter: {name}", pos_of(data, "tags"))
        cons_data = data.get("constraints")
        constraints: list[Constraint] = []
        if cons_data is not None:
            if not isinstance(cons_data, list):
                raise _SchemaError(
                    f"Invalid parameter constraints for parameter {name}, expected a list",
                    pos_of(data, "constraints"),
                )
            for i, entry in enumerate(cons_data):
                epos = cons_data.pos_of(i) if isinstance(cons_data, PosList) else pos
                constraints.append(_parse_constraint(entry, version, epos))
        ptype = data["type"]
        if ptype not in PARAMETER_TYPES:
            raise _SchemaError(
                f"Invalid type ({ptype}); a parameter type is one of: {', '.join(PARAMETER_TYPES)}",
                pos_of(data, "type"),
            )
    except _SchemaError as exc:
        return None, [error(exc.message, exc.pos or pos, code="parameter-definition")]

    desc = data.get("description")
    label = data.get("label")
    default = data.get("default", MISSING)
    if default is None:
        default = MISSING  # Heat treats a null default as no default
    param = Parameter(
        name=name,
        type=ptype,
        default=default,
        description=str(desc) if desc is not None else None,
        label=str(label) if label is not None else None,
        hidden=_truthy(data.get("hidden", False)),
        immutable=_truthy(data.get("immutable", False)),
        tags=tuple(str(t) for t in tags),
        constraints=tuple(constraints),
        pos=pos,
    )
    # Heat's Schema.validate: every constraint must suit the type, then the default must satisfy them
    for c in constraints:
        if ptype not in _VALID_TYPES[c.kind]:
            diags.append(
                error(
                    f"Parameter '{name}' is invalid: {_KIND_CLASS[c.kind]} constraint invalid for {ptype}",
                    c.pos or pos,
                    code="parameter-definition",
                )
            )
    if not diags and default is not MISSING:
        found = check_default(param, pos_of(data, "default") or pos)
        diags.extend(found)
        if defaults_out is not None:
            defaults_out.extend(found)
    return param, diags


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    try:
        return bool_from_string(value)
    except ParameterValueError:
        return bool(value)


def check_default(
    param: Parameter, pos: Pos | None, value: Any = MISSING, source: str = "default"
) -> list[Diagnostic]:
    """Check a default (the template's, or one from ``parameter_defaults``) against the non-custom
    constraints, as Heat's template validate does. ``Invalid default`` is an error, as in Heat."""
    val = param.default if value is MISSING else value
    if param.type == "json" and isinstance(val, str):
        # Heat checks a json default as written (a string: its length is the string's); whether it parses as
        # JSON is found only when the stack is created (resolve_values: a warning, an error for plan)
        msgs = [m for c in param.constraints if (m := _json_text_constraint(c, val)) is not None]
        if not msgs:
            return []
        return [
            error(
                f"Parameter '{param.name}' is invalid: Invalid {source} {val} ({msgs[0]})",
                pos,
                code="parameter-definition",
            )
        ]
    if param.type == "comma_delimited_list" and not isinstance(val, list):
        if not isinstance(val, str):
            return [
                error(
                    f"Parameter '{param.name}' is invalid: Default must be a comma-delimited list string",
                    pos,
                    code="parameter-definition",
                )
            ]
    checked = val
    if param.type == "comma_delimited_list" and isinstance(val, str):
        # Heat's Schema._validate_default splits a string default on commas as it is: "" is [""] and
        # "a, b" is ["a", " b"] there (a value given for the parameter is parsed with the items stripped)
        checked = val.split(",")
    msgs = constraint_errors(param, checked)
    if not msgs:
        return []
    shown = val if not isinstance(val, list | dict) else json.dumps(val)
    return [
        error(
            f"Parameter '{param.name}' is invalid: Invalid {source} {shown} ({msgs[0]})",
            pos,
            code="parameter-definition",
        )
    ]


def _json_text_constraint(c: Constraint, text: str) -> str | None:
    if c.kind == "custom_constraint":
        return None
    return check_constraint(c, "json", text)


def parse_parameters(
    section: Any, version: TemplateVersion, pos: Pos | None, defaults_out: list[Diagnostic] | None = None
) -> tuple[dict[str, Parameter], list[Diagnostic]]:
    """The ``parameters`` section -> ``{name: Parameter}`` (definitions with errors are left out).

    ``defaults_out``, when given, also receives the diagnostics about defaults (a default failing its
    constraints, a comma_delimited_list default that is no list): Heat checks those with the whole template
    (``Schema.validate``), not when it only reads the definitions (``HOTParamSchema.from_dict``) as it does for
    a template resource's template."""
    if section is None:
        return {}, []
    if not isinstance(section, dict):
        return {}, [
            error(
                f"the parameters section must be a mapping of parameter definitions, not a {_kind(section)}",
                pos,
                code="structure",
            )
        ]
    params: dict[str, Parameter] = {}
    diags: list[Diagnostic] = []
    for name, data in section.items():
        ppos = section.pos_of_key(name) if isinstance(section, PosDict) else pos
        if not isinstance(name, str):
            diags.append(error(f"parameter name {name!r} must be a string", ppos, code="structure"))
            continue
        p, d = parse_parameter(name, data, version, ppos, defaults_out)
        diags.extend(d)
        if p is not None:
            params[name] = p
    return params, diags


def parse_parameter_groups(
    section: Any,
    parameters: Mapping[str, Parameter],
    pos: Pos | None,
    *,
    all_names: frozenset[str] | None = None,
) -> tuple[tuple[ParameterGroup, ...], list[Diagnostic]]:
    """``parameter_groups`` -> IR, with Heat's checks (messages prefixed as Heat does)."""
    if not section:
        return (), []
    prefix = "Parameter Groups error: parameter_groups"
    if not isinstance(section, list):
        return (), [error(f"{prefix}: The parameter_groups should be a list.", pos, code="parameter-groups")]
    names = all_names if all_names is not None else frozenset(parameters) | frozenset(PSEUDO_PARAMETERS)
    groups: list[ParameterGroup] = []
    diags: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for i, group in enumerate(section):
        gpos = section.pos_of(i) if isinstance(section, PosList) else pos
        if not isinstance(group, dict):
            diags.append(
                error(f"{prefix}: each parameter group must be a mapping", gpos, code="parameter-groups")
            )
            continue
        label = group.get("label")
        where = f"{prefix}.{label if label is not None else ''}"
        members = group.get("parameters")
        if members is None:
            diags.append(
                error(
                    f"{where}: The parameters must be provided for each parameter group.",
                    gpos,
                    code="parameter-groups",
                )
            )
            continue
        if not isinstance(members, list):
            diags.append(
                error(
                    f"{where}: The parameters of parameter group should be a list.",
                    pos_of(group, "parameters"),
                    code="parameter-groups",
                )
            )
            continue
        for j, member in enumerate(members):
            mpos = members.pos_of(j) if isinstance(members, PosList) else gpos
            if isinstance(member, dict | list):  # not a parameter name at all (Heat: not a valid parameter)
                diags.append(
                    error(
                        f"{where}: The grouped parameter {member} does not reference a valid parameter.",
                        mpos,
                        code="parameter-groups",
                    )
                )
                continue
            if member in seen:
                diags.append(
                    error(
                        f"{where}: The {member} parameter must be assigned to one parameter group only.",
                        mpos,
                        code="parameter-groups",
                    )
                )
            else:
                seen[member] = i
            if member not in names:
                diags.append(
                    error(
                        f"{where}: The grouped parameter {member} does not reference a valid parameter.",
                        mpos,
                        code="parameter-groups",
                    )
                )
        desc = group.get("description")
        groups.append(
            ParameterGroup(
                label=str(label) if label is not None else None,
                description=str(desc) if desc is not None else None,
                parameters=tuple(str(m) for m in members),
                pos=gpos,
            )
        )
    return tuple(groups), diags


# ------------------------------------------------------------------------------------------- values


def resolve_values(
    parameters: Mapping[str, Parameter],
    values: Mapping[str, tuple[Any, Pos | None, str]],
    defaults: Mapping[str, tuple[Any, Pos | None]],
    *,
    require_values: bool,
    template_pos: Pos | None = None,
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Typed parameter values, as Heat computes them for a stack.

    ``values``: user-given values (name -> (raw value, position or None, where it came from, e.g.
    ``--parameter`` or an environment file)); names the template does not declare are errors, as in Heat.
    ``defaults``: ``parameter_defaults`` (undeclared names ignored). A parameter with no value is absent
    from the result; it is an error only when ``require_values``."""
    out: dict[str, Any] = {}
    diags: list[Diagnostic] = []
    for name, (_raw, upos, source) in values.items():
        if name not in parameters:
            diags.append(
                error(
                    f"The Parameter ({name}) was not defined in template (given by {source}); "
                    "declare it under parameters: or remove the value",
                    upos or template_pos,
                    code="unknown-parameter",
                )
            )
    for name, param in parameters.items():
        raw: Any = MISSING
        vpos: Pos | None = param.pos
        what = "value"
        if name in values and values[name][0] is not None:
            raw, vpos, source = values[name]
            vpos = vpos or param.pos
        elif name in defaults and defaults[name][0] is not None:
            raw, dpos = defaults[name]
            vpos = dpos or param.pos
            what = "default"
        elif param.default is not MISSING:
            raw = param.default
            what = "template-default"  # checked once, with the definition ("Invalid default ...")
        if raw is MISSING:
            if require_values:
                diags.append(
                    error(
                        f"The Parameter ({name}) was not provided: give it with --parameter {name}=VALUE "
                        "or in an environment file",
                        param.pos,
                        code="missing-parameter",
                    )
                )
            continue
        try:
            value = convert_value(param.type, raw)
        except ParameterValueError as exc:
            if what == "template-default" and not require_values:
                # Heat's template validate does not convert a template default; its create pre-flight does
                why = f"the default is not a valid {param.type}" if param.hidden else str(exc)
                diags.append(
                    warning(
                        f"Parameter '{name}' is invalid: {why}; creating the stack would fail",
                        vpos,
                        code="parameter-value",
                    )
                )
                continue
            # Heat's template validate does not check values (strict_validate off), its create pre-flight does:
            # a warning for validate, an error for plan
            why = f"the value is not a valid {param.type} (hidden parameter)" if param.hidden else str(exc)
            diags.append(_value_problem(f"Parameter '{name}' is invalid: {why}", vpos, require_values))
            continue
        json_text_default = what == "template-default" and param.type == "json" and isinstance(raw, str)
        # Heat's create checks the value it will use (``Parameter._validate``): a given value, a
        # parameter_defaults entry, or the template's default, parsed as a value is. The template's default was
        # already checked with the definition (``Schema._validate_default``), but not always as a value: a json
        # default written as text was checked as text, and a comma_delimited_list default was split on commas
        # as it is ("" is [""] there, a one-item list, where as a value it is the empty list). A default the
        # definition check refused was reported there and is not reported twice.
        recheck = what in ("value", "default") or json_text_default
        if not recheck and what == "template-default":
            recheck = not check_default(param, vpos)
        if recheck:
            for msg in _hidden_safe(param, raw, constraint_errors(param, raw)):
                diags.append(_value_problem(f"Parameter '{name}' is invalid: {msg}", vpos, require_values))
        out[name] = value
    return out, diags


def _value_problem(message: str, pos: Pos | None, require_values: bool) -> Diagnostic:
    """A parameter value that its type or constraints refuse: an error where the stack is to be created
    (``require_values``: plan, apply), a warning for validate (Heat's template validate accepts it)."""
    if require_values:
        return error(message, pos, code="parameter-value")
    return warning(f"{message}; creating the stack would fail", pos, code="parameter-value")


def _hidden_safe(param: Parameter, raw: Any, msgs: list[str]) -> list[str]:
    """Constraint messages that never show a hidden parameter's value (descriptions are kept)."""
    if not param.hidden:
        return msgs
    out = []
    for m in msgs:
        if str(raw) and str(raw) in m or json.dumps(raw) in m:
            m = "the value (hidden) violates a constraint"
            descs = [c.description for c in param.constraints if c.description]
            if descs:
                m += ": " + "; ".join(descs)
        out.append(m)
    return out


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return type(value).__name__
