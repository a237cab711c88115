"""Validate resource properties against a :class:`~hotc.providers.base.ResourceType`, the way Heat does.

Three entry points:

- :func:`validate_property_exprs` checks the IR of a resource's ``properties`` *before* evaluation: unknown
  property names, required properties missing, literal values of the wrong type or violating a constraint,
  nested list/map schemas, and the type's cross-property validators when everything is literal. Function calls
  are unknown until evaluation and are skipped (a required property given by a function is fine).
- :func:`validate_property_values` checks resolved values after evaluation; any :class:`hotc.values.Unknown`
  skips the part that holds it.
- :func:`apply_defaults` fills defaults and coerces values the way Heat's ``Properties`` do, so a property
  omitted and a property given its default compare equal, and ``"1"`` equals ``1`` for an integer property.

:func:`update_errors` lists changes Heat refuses to make at all (immutable properties, type-specific checks such
as a volume shrink): plan errors, not replacements.

Type coercion follows Heat's ``Property.get_value``: a *string* property takes strings, integers and booleans
(``True`` becomes ``"True"``), not floats, lists or maps; an *integer* takes anything ``int()`` takes (``"1"``,
``2.0``); a *number* takes numbers and numeric strings; a *boolean* takes booleans and the strings
``true``/``false`` in any case (not ``1``/``0``); a *list* takes lists (not strings or maps); a *map* takes maps.
``null`` is accepted for every type (Heat substitutes the default, else an empty value).
Constraints are checked on the coerced value; ``custom_constraint`` needs the cloud and is only named.
"""

from __future__ import annotations

import copy
import difflib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from hotc.errors import Diagnostic, Pos, Severity, error, has_errors, warning
from hotc.parser.api import MISSING, Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.providers.base import PropConstraint, PropSchema, ResourceType
from hotc.values import Unknown, contains_unknown

__all__ = [
    "apply_defaults",
    "coerce",
    "deletion_policy_error",
    "update_errors",
    "validate_update_policy_exprs",
    "validate_property_exprs",
    "validate_property_values",
    "validate_resolved_values",
]

# ----------------------------------------------------------------------------------------------- coercion


class _Invalid(Exception):
    """A value Heat's property coercion rejects; the message says why."""


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, Mapping):
        return "map"
    return type(value).__name__


def _str_to_num(value: Any) -> int | float:
    """Heat's ``Schema.str_to_num``: numbers pass, strings parse as int else float."""
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
        try:
            return float(value)
        except ValueError:
            raise _Invalid(f"'{value}' is not a number") from None
    raise _Invalid(f"a {_type_name(value)} is not a number")


def _coerce_scalar(kind: str, value: Any) -> Any:
    """Coerce one non-null scalar/container value to ``kind`` (no nested schemas), or raise _Invalid."""
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool | int):
            return str(value)
        raise _Invalid(f"expected a string, got a {_type_name(value)}")
    if kind == "integer":
        if isinstance(value, bool | int):
            return int(value)
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value):
                raise _Invalid(f"{value} is not an integer")
            return int(value)
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                raise _Invalid(f"'{value}' is not an integer") from None
        raise _Invalid(f"expected an integer, got a {_type_name(value)}")
    if kind == "number":
        return _str_to_num(value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if isinstance(value, str):
            raise _Invalid(f"'{value}' is not a valid boolean (use true or false)")
        raise _Invalid(f"expected a boolean, got a {_type_name(value)}")
    if kind == "list":
        if isinstance(value, list | tuple):
            return list(value)
        raise _Invalid(f"expected a list, got a {_type_name(value)}")
    if kind == "map":
        if isinstance(value, Mapping):
            return dict(value)
        raise _Invalid(f"expected a map, got a {_type_name(value)}")
    return value  # any


def _zero(prop: PropSchema) -> Any:
    """What Heat uses for an explicit null: the default, else an empty value of the type."""
    if prop.default is not MISSING and prop.default:
        return copy.deepcopy(prop.default)
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "list": [], "map": {}}.get(prop.type)


def _item_schema(prop: PropSchema) -> PropSchema | None:
    if prop.item is not None:
        return prop.item
    if prop.schema is not None:  # a list declared with the schema of its (map) items
        return PropSchema(type="map", schema=prop.schema)
    return None


_PASS: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
}


def coerce(prop: PropSchema, value: Any) -> Any:
    """The value Heat would hold for ``value`` under ``prop`` (defaults filled inside nested maps). Unknowns and
    values Heat would reject are returned unchanged (validation reports the latter)."""
    kind = prop.type
    exact = _PASS.get(kind)
    if exact is not None and isinstance(value, exact) and not (kind != "boolean" and isinstance(value, bool)):
        return value  # already of the type (the common case)
    if isinstance(value, Unknown):
        return value
    if value is None:
        value = _zero(prop)
        if value is None:
            return None
    try:
        out = _coerce_scalar(kind, value)
    except _Invalid:
        return value
    if kind == "list":
        item = _item_schema(prop)
        if item is not None:
            out = [coerce(item, v) for v in out]
    elif kind == "map" and prop.schema is not None:
        out = _fill(prop.schema, out)
    return out


def _default(prop: PropSchema) -> Any:
    value = prop.default
    if isinstance(value, list | dict):
        if not value and (prop.schema is None or all(p.default is MISSING for p in prop.schema.values())):
            return type(value)()
        return coerce(prop, copy.deepcopy(value))
    return value


def _fill(schema: Mapping[str, PropSchema], values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        prop = schema.get(key)
        if prop is None:
            out[key] = value  # unknown key: kept as written, validation reports it
            continue
        target = prop.alias_of
        if target is None:
            out[key] = coerce(prop, value)
        elif target not in values:
            tprop = schema[target]
            if tprop.type == "list" and not isinstance(value, list | Unknown) and value is not None:
                value = [value]
            out[target] = coerce(tprop, value)
        # else: both the legacy and the new name: validation reports the conflict
    if len(out) < len(schema):
        for key, prop in schema.items():
            if prop.default is not MISSING and key not in out and prop.alias_of is None:
                out[key] = _default(prop)
    return out


def apply_defaults(rtype: ResourceType, values: Mapping[str, Any]) -> dict[str, Any]:
    """Resolved properties as Heat sees them: defaults filled (also inside nested maps), values coerced to their
    property type, hidden legacy names (``network_id``) moved to their current name (``network``). Omitted
    properties without a default stay absent. Unknowns are kept as they are."""
    if rtype.accepts_any_properties:
        return dict(values)
    return _fill(rtype.properties, values)


# ------------------------------------------------------------------------------------------- constraints


def _check_constraint(c: PropConstraint, kind: str, value: Any) -> str | None:
    """A message when ``value`` (already coerced to ``kind``) violates ``c``, else None."""
    spec = c.spec
    try:
        if c.kind == "allowed_values":
            allowed = list(spec)
            if isinstance(value, list):
                ok = all(v in allowed for v in value)
            else:
                conv = [_as_kind(kind, a) for a in allowed]
                ok = _as_kind(kind, value) in conv
            if not ok:
                shown = ", ".join(str(a) for a in allowed) if len(allowed) <= 30 else _short(allowed)
                return c.description or f"{_show(value)} is not an allowed value [{shown}]"
        elif c.kind == "range":
            num = _str_to_num(value)
            lo, hi = spec.get("min"), spec.get("max")
            if (lo is not None and num < lo) or (hi is not None and num > hi):
                return c.description or f"{_show(value)} is out of range ({_bounds(lo, hi)})"
        elif c.kind == "length":
            n = len(value)
            lo, hi = spec.get("min"), spec.get("max")
            if (lo is not None and n < lo) or (hi is not None and n > hi):
                return c.description or f"length {n} of {_show(value)} is out of range ({_bounds(lo, hi)})"
        elif c.kind == "allowed_pattern":
            if not isinstance(value, str) or re.fullmatch(spec, value) is None:
                return c.description or f'"{value}" does not match pattern "{spec}"'
        elif c.kind == "modulo":
            step, offset = spec.get("step"), spec.get("offset")
            num = _str_to_num(value)
            if step and num % step != offset:
                return (
                    c.description or f"{_show(value)} is not a multiple of {step} with an offset of {offset}"
                )
    except (_Invalid, TypeError, ValueError, re.error):
        return None
    return None  # custom_constraint: needs the cloud


def _as_kind(kind: str, value: Any) -> Any:
    """Heat's ``Schema.to_schema_type`` used by AllowedValues (so ``6`` matches ``"6"`` for a string)."""
    try:
        if kind == "integer":
            return _str_to_num(value)
        if kind == "number":
            return _str_to_num(value)
        if kind == "string":
            return str(value)
        if kind == "boolean":
            return _coerce_scalar("boolean", value)
    except _Invalid:
        return value
    return value


def _short(values: list[Any]) -> str:
    names = [str(v) for v in values if not isinstance(v, int)]
    nums = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    parts = []
    if nums:
        parts.append(f"{min(nums)}..{max(nums)}")
    return ", ".join(parts + names)


def _bounds(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f"min: {lo}, max: {hi}"
    return f"min: {lo}" if lo is not None else f"max: {hi}"


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value).replace("'", '"')


# ------------------------------------------------------------------------------------ shared walk (values)


class _Node(NamedTuple):
    """A value being validated with where it came from: a plain value, or an IR expression (a tuple: one is
    made per property checked, and a frozen dataclass's __init__ costs twice as much)."""

    value: Any  # Python value, or an Expr when ``is_expr``
    pos: Pos | None
    is_expr: bool


# ``_make_node(_Node, (value, pos, is_expr))`` is ``_Node(value, pos, is_expr)`` built by one C call, without
# the Python frame of the named tuple's __new__ (the expression checks make one per property of every resource)
_make_node: Any = tuple.__new__


# the required properties of each schema checked (schemas are built once and never change; the schema is kept
# with its entry, so its id is not reused while the entry exists)
_REQUIRED: dict[int, tuple[Mapping[str, PropSchema], tuple[str, ...]]] = {}


def _required(schema: Mapping[str, PropSchema]) -> tuple[str, ...]:
    """The keys of ``schema``'s required properties, in schema order."""
    got = _REQUIRED.get(id(schema))
    if got is None or got[0] is not schema:
        got = _REQUIRED[id(schema)] = (schema, tuple(k for k, p in schema.items() if p.required))
    return got[1]


class _Checker:
    def __init__(
        self,
        rtype: ResourceType,
        default_pos: Pos | None,
        strict: bool,
        pos_at: Callable[[str], Pos | None] | None = None,
    ) -> None:
        self.rtype = rtype
        self.default_pos = default_pos
        self.strict = strict
        self.diags: list[Diagnostic] = []
        self.value_problems = 0
        # resolved values: where the template writes the part at a property path ("networks.0.port"), as far
        # as the template writes it (the function that gives it, else the enclosing literal)
        self.pos_at = pos_at

    def err(self, message: str, pos: Pos | None, code: str, where: str | None = None) -> None:
        if (
            where is not None and self.pos_at is not None
        ):  # resolved values: where the template gives the part
            pos = self.pos_at(where) or pos
        self.diags.append(error(f"{self.rtype.name}: {message}", pos or self.default_pos, code))

    def value_err(self, message: str, pos: Pos | None, code: str, where: str | None = None) -> None:
        """A problem Heat finds only when it validates values (stack create/update/preview), not in
        ``template validate``: an error when strict, else a warning saying so. ``where``: the property path
        the problem is at (for :attr:`pos_at`)."""
        self.value_problems += 1
        if self.strict:
            self.err(message, pos, code, where)
        else:
            self.warn(f"{message} (creating or updating the stack will fail)", pos, code)

    def warn(self, message: str, pos: Pos | None, code: str) -> None:
        self.diags.append(warning(f"{self.rtype.name}: {message}", pos or self.default_pos, code))

    # -- maps of properties (the top level and nested map schemas)

    def check_map(
        self,
        schema: Mapping[str, PropSchema],
        entries: list[tuple[str, _Node, Pos | None]],
        path: str,
        pos: Pos | None,
        *,
        allow_unknown: bool = False,
    ) -> None:
        given = {k for k, _, _ in entries}
        for key, node, key_pos in entries:
            prop = schema.get(key)
            if (
                prop is not None
                and node.is_expr
                and prop.alias_of is None
                and not prop.deprecated
                and isinstance(node.value, FunctionCall)
            ):
                continue  # known only when evaluated: check_value would do nothing (see _check_expr)
            where = f"{path}.{key}" if path else key
            if prop is None:
                if not allow_unknown:
                    report = self.value_err if path else self.err  # Heat checks nested keys with values only
                    report(
                        _unknown_message(key, where, schema, nested=bool(path)),
                        key_pos or node.pos,
                        "unknown-property",
                        where,
                    )
                continue
            if prop.alias_of is not None:
                if prop.alias_of in given:
                    self.value_err(
                        f"properties {where} and {prop.alias_of} cannot both be given ({key} is the legacy name of"
                        f" {prop.alias_of})",
                        key_pos or node.pos,
                        "property-conflict",
                        where,
                    )
                else:
                    self.warn(
                        f"property {where} is a legacy name; use {prop.alias_of}", key_pos, "legacy-property"
                    )
            elif prop.deprecated:
                self.warn(f"property {where} is deprecated", key_pos, "deprecated-property")
            self.check_value(prop, node, where)
        for key in _required(schema):
            if key in given:
                continue
            if any(p.alias_of == key and k in given for k, p in schema.items()):
                continue
            where = f"{path}.{key}" if path else key
            self.value_err(f"required property {where} is missing", pos, "missing-required-property", path)

    # -- one value

    def check_value(self, prop: PropSchema, node: _Node, where: str) -> None:
        if node.is_expr:
            self._check_expr(prop, node.value, node.pos, where)
        else:
            self._check_plain(prop, node.value, node.pos, where)

    def _check_expr(self, prop: PropSchema, expr: Expr, pos: Pos | None, where: str) -> None:
        pos = getattr(expr, "pos", None) or pos
        if isinstance(expr, FunctionCall):
            return  # unknown until evaluation
        if isinstance(expr, Literal):
            self._check_plain(prop, expr.value, pos, where)
            return
        if isinstance(expr, ListExpr):
            if prop.type not in ("list", "any"):
                self._type_error(prop, "a list", pos, where)
                return
            item = _item_schema(prop)
            if item is not None:
                for i, sub in enumerate(expr.items):
                    self._check_expr(item, sub, pos, f"{where}.{i}")
            if prop.constraints and not _has_call(expr):
                self._constraints(prop, _expr_value(expr), pos, where)
            return
        if isinstance(expr, MapExpr):
            if prop.type not in ("map", "any"):
                self._type_error(prop, "a map", pos, where)
                return
            if prop.schema is not None:
                entries = [
                    (k, _make_node(_Node, (v, getattr(v, "pos", None), True)), _key_pos(expr, i))
                    for i, (k, v) in enumerate(expr.items)
                ]
                self.check_map(prop.schema, entries, where, pos)
            if prop.constraints and not _has_call(expr):
                self._constraints(prop, _expr_value(expr), pos, where)

    def _check_plain(self, prop: PropSchema, value: Any, pos: Pos | None, where: str) -> None:
        if isinstance(value, Unknown) or value is None:
            return
        if prop.type == "list" and isinstance(value, list | tuple):
            item = _item_schema(prop)
            if item is not None:
                for i, sub in enumerate(value):
                    self._check_plain(item, sub, pos, f"{where}.{i}")
            if prop.constraints and not contains_unknown(value):
                self._constraints(prop, list(value), pos, where)
            return
        if prop.type == "map" and isinstance(value, Mapping):
            if prop.schema is not None:
                entries = [(str(k), _Node(v, pos, False), pos) for k, v in value.items()]
                self.check_map(prop.schema, entries, where, pos)
            if prop.constraints and not contains_unknown(value):
                self._constraints(prop, dict(value), pos, where)
            return
        try:
            coerced = _coerce_scalar(prop.type, value)
        except _Invalid as exc:
            self.value_err(f"property {where}: {exc}", pos, "property-type", where)
            return
        if prop.type == "integer" and isinstance(value, float) and value != int(value):
            self.warn(
                f"property {where}: {value} is truncated to the integer {int(value)}", pos, "property-type"
            )
        self._constraints(prop, coerced, pos, where)

    def _type_error(self, prop: PropSchema, got: str, pos: Pos | None, where: str) -> None:
        article = "an" if prop.type[0] in "aeiou" else "a"
        self.value_err(
            f"property {where}: expected {article} {prop.type}, got {got}", pos, "property-type", where
        )

    def _constraints(self, prop: PropSchema, value: Any, pos: Pos | None, where: str) -> None:
        for c in prop.constraints:
            msg = _check_constraint(c, prop.type, value)
            if msg is not None:
                self.value_err(f"property {where}: {msg}", pos, "property-constraint", where)


def _unknown_message(key: str, where: str, schema: Mapping[str, PropSchema], *, nested: bool) -> str:
    visible = [k for k, p in schema.items() if not p.hidden]
    close = difflib.get_close_matches(key, visible, n=3, cutoff=0.6) or difflib.get_close_matches(
        key, list(schema), n=3, cutoff=0.6
    )
    what, plural = ("key", "keys") if nested else ("property", "properties")
    if close:
        return f"unknown {what} {where}; did you mean {' or '.join(close)}?"
    return f"unknown {what} {where}; valid {plural} are: {', '.join(sorted(visible))}"


def _key_pos(expr: MapExpr, index: int) -> Pos | None:
    return expr.key_pos[index] if index < len(expr.key_pos) else None


def _has_call(expr: Expr) -> bool:
    """Whether ``expr`` holds a function call anywhere, i.e. whether ``_expr_value(expr)`` contains an Unknown
    (found without building the value)."""
    stack: list[Any] = [expr]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is Literal:
            continue
        if t is ListExpr or isinstance(e, ListExpr):
            stack.extend(e.items)
        elif t is MapExpr or isinstance(e, MapExpr):
            stack.extend(v for _, v in e.items)
        elif not isinstance(e, Literal):
            return True
    return False


def _expr_value(expr: Expr) -> Any:
    """A literal IR expression as a Python value; any function inside becomes an Unknown."""
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, ListExpr):
        return [_expr_value(e) for e in expr.items]
    if isinstance(expr, MapExpr):
        return {k: _expr_value(v) for k, v in expr.items}
    return Unknown()


def _run_validators(checker: _Checker, values: Mapping[str, Any], key_pos: Mapping[str, Pos | None]) -> None:
    filled = _filled(checker.rtype, values)
    for validator in checker.rtype.validators:
        for path, message in validator(filled):
            top = path.split(".", 1)[0]
            checker.value_err(message, key_pos.get(top), "property-conflict", path)


_ABSENT = object()
_SCALARS = frozenset({str, int, float, bool})


class _Filled(Mapping[str, Any]):
    """``apply_defaults(rtype, values)`` computed key by key as it is read (cross-property validators read a
    few of a type's many properties), for values that use no legacy name."""

    __slots__ = ("_schema", "_values", "_cache")

    def __init__(self, schema: Mapping[str, PropSchema], values: Mapping[str, Any]) -> None:
        self._schema = schema
        self._values = values
        self._cache: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        hit = self._cache.get(key, _ABSENT)
        if hit is not _ABSENT:
            return hit
        prop = self._schema.get(key)
        if key in self._values:
            value = self._values[key]
            out = value if prop is None else coerce(prop, value)
        elif prop is not None and prop.default is not MISSING and prop.alias_of is None:
            out = _default(prop)
        else:
            raise KeyError(key)
        self._cache[key] = out
        return out

    def get(self, key: str, default: Any = None) -> Any:
        """``Mapping.get`` without the KeyError an absent key raises in ``__getitem__`` (validators ask for
        many properties a resource does not give)."""
        hit = self._cache.get(key, _ABSENT)
        if hit is not _ABSENT:
            return hit
        if key in self._values:
            return self[key]
        prop = self._schema.get(key)
        if prop is not None and prop.default is not MISSING and prop.alias_of is None:
            return self[key]
        return default

    def __contains__(self, key: object) -> bool:
        if key in self._values:
            return True
        prop = self._schema.get(key) if isinstance(key, str) else None
        return prop is not None and prop.default is not MISSING and prop.alias_of is None

    def __iter__(self) -> Iterator[str]:
        yield from self._values
        for key, prop in self._schema.items():
            if key not in self._values and prop.default is not MISSING and prop.alias_of is None:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _filled(rtype: ResourceType, values: Mapping[str, Any]) -> Mapping[str, Any]:
    """What the validators see: the values with defaults applied (:func:`apply_defaults`)."""
    schema = rtype.properties
    if rtype.accepts_any_properties or any(
        (p := schema.get(k)) is not None and p.alias_of is not None for k in values
    ):
        return apply_defaults(rtype, values)  # a legacy name moves to its current one: the whole map at once
    return _Filled(schema, values)


# ------------------------------------------------------------------------------------------ entry points


def validate_property_exprs(
    rtype: ResourceType, props: Expr | None, resource_pos: Pos | None, *, strict: bool = True
) -> list[Diagnostic]:
    """Check a resource's ``properties`` IR against its type's schema, before evaluation.

    ``strict=True`` (plan/apply) reports every problem as an error, as Heat does when it creates, updates or
    previews a stack. ``strict=False`` mirrors ``openstack orchestration template validate`` (Heat validates
    with ``strict_validate=False``): only unknown top-level property names are errors; wrong types, missing
    required properties, constraint violations, unknown nested keys and cross-property conflicts become warnings
    (Heat accepts the template there and fails later). Resources with an ``external_id`` are not validated by
    Heat at all: callers skip them."""
    if isinstance(props, FunctionCall):
        return []  # the whole map comes from a function: known only after evaluation
    checker = _Checker(rtype, resource_pos, strict)
    if props is None or (isinstance(props, Literal) and props.value is None):
        entries: list[tuple[str, _Node, Pos | None]] = []
        map_pos = getattr(props, "pos", None) or resource_pos
    elif isinstance(props, MapExpr):
        kps = props.key_pos
        n_kps = len(kps)
        entries = [
            (k, _make_node(_Node, (v, getattr(v, "pos", None), True)), kps[i] if i < n_kps else None)
            for i, (k, v) in enumerate(props.items)
        ]
        map_pos = props.pos or resource_pos
    else:
        got = "a list" if isinstance(props, ListExpr) else f"a {_type_name(getattr(props, 'value', None))}"
        checker.err(f"properties must be a map, got {got}", getattr(props, "pos", None), "property-type")
        return checker.diags
    if rtype.accepts_any_properties and not rtype.properties:
        return []
    checker.check_map(rtype.properties, entries, "", map_pos, allow_unknown=rtype.accepts_any_properties)
    if rtype.validators and not checker.value_problems and not (checker.diags and has_errors(checker.diags)):
        if not any(_has_call(n.value) for _, n, _ in entries):
            values = {k: _expr_value(n.value) for k, n, _ in entries}
            _run_validators(checker, values, {k: kp or n.pos for k, n, kp in entries})
    return checker.diags


def validate_property_values(
    rtype: ResourceType, values: Mapping[str, Any], pos: Pos | None, *, strict: bool = True
) -> list[Diagnostic]:
    """Check resolved property values (after evaluation) against the schema. Parts holding an Unknown are
    skipped; cross-property validators run on the values with defaults applied. ``strict`` as in
    :func:`validate_property_exprs`."""
    checker = _Checker(rtype, pos, strict)
    if rtype.accepts_any_properties and not rtype.properties:
        return []
    entries = [(str(k), _Node(v, pos, False), pos) for k, v in values.items()]
    checker.check_map(rtype.properties, entries, "", pos, allow_unknown=rtype.accepts_any_properties)
    if rtype.validators and not checker.value_problems and not has_errors(checker.diags):
        _run_validators(checker, values, {})
    return checker.diags


def validate_resolved_values(
    rtype: ResourceType,
    values: Mapping[str, Any],
    keys: Iterable[str],
    pos_at: Callable[[str], Pos | None],
    *,
    cross: bool = True,
    memo: dict[Any, Any] | None = None,
    section: str = "",
) -> list[Diagnostic]:
    """The errors Heat's ``Properties.validate`` finds in resolved values when it creates or updates the
    resource (``with_value``: type coercion, constraints, nested schemas), for the top-level properties
    ``keys`` only: the others are literals, which :func:`validate_property_exprs` checked before evaluation.
    Parts holding an Unknown are skipped. With ``cross``, the type's cross-property validators (Heat's
    ``validate`` overrides) then run on every value, defaults applied, unless a value was already found
    invalid. ``pos_at(path)`` says where the template writes the part at a property path. Errors only: what
    the front end warns about (legacy names, truncated numbers) it has already said. ``memo``, shared by the
    calls of one plan, remembers the scalar values a property schema took (a plan of many resources gives the
    same image, flavor or size to many). ``section="update_policy"`` checks the resolved ``update_policy``
    section against the type's update-policy schema instead (paths ``update_policy.KEY...``)."""
    checker = _Checker(rtype, None, True, pos_at)
    schema = rtype.update_policy if section == "update_policy" else rtype.properties
    lead = f"{section}." if section else ""
    # the whole resource first: values that check the same as a resource's that passed every check below
    # (Unknowns aside, see _memo_key) pass again, with no walk per property (a large plan repeats a few shapes)
    whole: Any = None
    if memo is not None:
        keys = tuple(keys)
        frozen = _memo_key(None, values)
        if frozen is not None:
            whole = ("resource", id(rtype), section, cross, keys, frozen[1])
            if whole in memo:
                return []
    for key in keys:
        prop = schema.get(key)
        value = values.get(key)
        if prop is None or value is None:
            continue  # an unknown name is the front end's error; an absent one has nothing to check
        kind = type(value)
        if memo is not None:
            seen: Any = (id(prop), kind, value) if kind in _SCALARS else _memo_key(id(prop), value)
            if seen is not None:
                if seen in memo:
                    continue  # this property schema already took this very value
                before = len(checker.diags)
                checker._check_plain(prop, value, None, lead + key)
                if len(checker.diags) == before:
                    memo[seen] = prop  # (the schema is kept alive with its id)
                continue
        checker._check_plain(prop, value, None, lead + key)
    if cross and not section and rtype.validators and not checker.value_problems:
        # the same values (Unknowns aside, see _memo_key) pass the same cross-property rules
        seen = (("cross", id(rtype)), whole[-1]) if whole is not None else None
        if memo is None or seen is None:
            _run_validators(checker, values, {})
        elif seen not in memo:
            before = len(checker.diags)
            _run_validators(checker, values, {})
            if len(checker.diags) == before:
                memo[seen] = rtype
    if memo is not None and whole is not None and not checker.diags:
        memo[whole] = rtype
    return [d for d in checker.diags if d.severity is Severity.ERROR]


class _Unfrozen(Exception):
    """A value :func:`_frozen` cannot make a memo key of."""


def _memo_key(head: Any, value: Any) -> Any:
    """A key for the checks' memo under which VALUE (plain data, maybe holding Unknowns) and every value that
    checks the same share one entry, or None when VALUE is not plain data. The checks never look inside an
    Unknown (they skip it, or tell it is there): each Unknown stands as the order in which it first appears, so
    values whose Unknowns differ only in what they wait on share a key, and which of them are equal is kept."""
    unknowns: dict[Unknown, int] = {}
    try:
        return (head, _frozen(value, unknowns))
    except _Unfrozen:
        return None


def _frozen(value: Any, unknowns: dict[Unknown, int]) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return (kind, value)  # 1, 1.0 and True check differently
    if kind is dict:
        return (dict, tuple([(type(k), k, _frozen(v, unknowns)) for k, v in value.items()]))
    if kind is list or kind is tuple:
        return (kind, tuple([_frozen(v, unknowns) for v in value]))
    if kind is Unknown:
        return ("?", unknowns.setdefault(value, len(unknowns)))
    raise _Unfrozen


def validate_update_policy_exprs(
    rtype: ResourceType, policy: Expr | None, pos: Pos | None
) -> list[Diagnostic]:
    """Check a resource's ``update_policy`` section against the type's update-policy schema. Heat checks it with
    values even in ``template validate``, so problems are always errors; a type without an update-policy schema
    takes no keys at all (``OS::Heat::AutoScalingGroup`` uses its ``rolling_updates`` property instead)."""
    checker = _Checker(rtype, pos, True)
    if (
        policy is None
        or isinstance(policy, FunctionCall)
        or (isinstance(policy, Literal) and policy.value is None)
    ):
        return []
    if not isinstance(policy, MapExpr):
        checker.err("update_policy must be a map", getattr(policy, "pos", None), "property-type")
        return checker.diags
    entries = [
        (k, _Node(v, getattr(v, "pos", None), True), _key_pos(policy, i))
        for i, (k, v) in enumerate(policy.items)
    ]
    for key, node, key_pos in entries:
        prop = rtype.update_policy.get(key)
        if prop is None:
            valid = ", ".join(sorted(rtype.update_policy)) or "none"
            checker.err(
                f"unknown update_policy key {key} (valid keys: {valid})",
                key_pos or node.pos,
                "unknown-update-policy",
            )
        else:
            checker.check_value(prop, node, f"update_policy.{key}")
    return checker.diags


def deletion_policy_error(rtype: ResourceType, policy: Any) -> str | None:
    """A message when ``deletion_policy`` (resolved, and normalised by the front end: the lowercase aliases
    HOT 2016-10-14+ accepts are mapped to Delete/Retain/Snapshot) is not one Heat accepts for this type: Delete,
    Retain, or Snapshot on types that can snapshot (``Resource.validate_deletion_policy``)."""
    if isinstance(policy, Unknown):
        return None
    if policy not in ("Delete", "Retain", "Snapshot"):
        return f'invalid deletion policy "{policy}" (use Delete, Retain or Snapshot)'
    if policy == "Snapshot" and not rtype.snapshot_delete:
        return f'the "Snapshot" deletion policy is not supported by {rtype.name}'
    return None


def update_errors(
    rtype: ResourceType, old: Mapping[str, Any], new: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(property path, message) for changes Heat refuses to apply, making the update fail rather than replace:
    a change of an ``immutable`` property (``update_template_diff_properties`` raises NotSupported) and the
    type's ``update_checks`` (e.g. a volume shrink). ``old``/``new`` are resolved properties with defaults
    applied. A new value not known until apply counts as a change (it comes from a resource being created or
    replaced, so it almost always differs)."""
    out: list[tuple[str, str]] = []
    for key in sorted(rtype.immutable):
        before, after = old.get(key), new.get(key)
        if contains_unknown(after) or before != after:
            out.append((key, f"property {key} is immutable: it cannot be changed once the resource exists"))
    for check in rtype.update_checks:
        out.extend(check(old, new))
    return out
