"""Small constructors that keep the schema modules readable: one line per property.

``string(required=True, update=True, constraints=(allowed("a", "b"),))`` builds a
:class:`~hotc.providers.base.PropSchema`. ``update=True`` means Heat's ``update_allowed``.

Constraint specs follow :class:`hotc.parser.ir.Constraint`: ``range``/``length`` take
``{"min": …, "max": …}`` (either may be absent), ``allowed_values`` a list, ``allowed_pattern`` a regex
string, ``custom_constraint`` the constraint name (only named: it needs the cloud, it is never checked offline),
``modulo`` ``{"step": …, "offset": …}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import AttrSchema, PropConstraint, PropSchema
from hotc.values import MISSING

# ------------------------------------------------------------------------------------------- constraints


def allowed(*values: Any) -> PropConstraint:
    return PropConstraint("allowed_values", list(values))


def range_(min: float | None = None, max: float | None = None) -> PropConstraint:  # noqa: A002
    return PropConstraint("range", _bounds(min, max))


def length_(min: int | None = None, max: int | None = None) -> PropConstraint:  # noqa: A002
    return PropConstraint("length", _bounds(min, max))


def pattern(regex: str) -> PropConstraint:
    return PropConstraint("allowed_pattern", regex)


def custom(name: str) -> PropConstraint:
    return PropConstraint("custom_constraint", name)


def modulo(step: int, offset: int) -> PropConstraint:
    return PropConstraint("modulo", {"step": step, "offset": offset})


def _bounds(lo: float | None, hi: float | None) -> dict[str, float]:
    spec: dict[str, float] = {}
    if lo is not None:
        spec["min"] = lo
    if hi is not None:
        spec["max"] = hi
    return spec


# -------------------------------------------------------------------------------------------- properties


def _prop(
    type_: str,
    *,
    required: bool = False,
    default: Any = MISSING,
    update: bool = False,
    immutable: bool = False,
    constraints: tuple[PropConstraint, ...] = (),
    schema: Mapping[str, PropSchema] | None = None,
    item: PropSchema | None = None,
    set_like: bool = False,
    hidden: bool = False,
    deprecated: bool = False,
    alias_of: str | None = None,
    description: str = "",
    sensitive: bool = False,
) -> PropSchema:
    return PropSchema(
        type=type_,
        required=required,
        default=default,
        update_allowed=update,
        immutable=immutable,
        constraints=constraints,
        schema=schema,
        item=item,
        set_like=set_like,
        hidden=hidden,
        deprecated=deprecated,
        alias_of=alias_of,
        description=description,
        sensitive=sensitive,
    )


def string(**kw: Any) -> PropSchema:
    return _prop("string", **kw)


def integer(**kw: Any) -> PropSchema:
    return _prop("integer", **kw)


def number(**kw: Any) -> PropSchema:
    return _prop("number", **kw)


def boolean(**kw: Any) -> PropSchema:
    return _prop("boolean", **kw)


def any_(**kw: Any) -> PropSchema:
    return _prop("any", **kw)


def map_(keys: Mapping[str, PropSchema] | None = None, **kw: Any) -> PropSchema:
    """A map; ``keys`` is the schema of its keys (None: free-form map)."""
    return _prop("map", schema=keys, **kw)


def list_(item: PropSchema | None = None, **kw: Any) -> PropSchema:
    """A list; ``item`` is the schema of each item (None: any items)."""
    return _prop("list", item=item, **kw)


def attrs(*names: str, stable: tuple[str, ...] = (), **typed: str) -> dict[str, AttrSchema]:
    """Attribute schemas by name, plus the base attribute ``show`` every Heat resource has (the full API
    representation; excluded from ``get_attr: [res]`` with no attribute name). ``stable`` names the
    attributes no in-place update can change (``AttrSchema.stable``; be conservative: an attribute wrongly
    declared stable makes a plan promise an old value)."""
    out = {"show": AttrSchema(description="the full API representation of the resource", type="map")}
    out.update({n: AttrSchema() for n in names})
    out.update({n: AttrSchema(type=t) for n, t in typed.items()})
    unknown = [n for n in stable if n not in out or n == "show"]
    if unknown:
        raise ValueError(f"stable attributes not declared: {unknown}")
    for n in stable:
        out[n] = AttrSchema(description=out[n].description, type=out[n].type, stable=True)
    return out
