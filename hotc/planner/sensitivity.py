"""Which values of a (nested) stack are secret: sensitivity flowing through every edge of the graph.

A value is sensitive when it is derived from a hidden parameter or from a secret resource value, through any
chain of functions. The edges, per scope:

- a hidden parameter (``get_param``/``Ref``) makes the property (top-level key) that reads it sensitive;
- a resource with a sensitive property has sensitive attributes (what a driver reports may echo what it was
  given: a TestResource's ``output``, a Value's ``value``, a config's ``config``); its physical id is not a
  secret;
- an ``OS::Heat::RandomString`` is secret as a whole: its ``value`` attribute and its reference id (what
  ``get_resource`` gives is the string itself);
- ``get_attr`` of a resource whose attributes are sensitive (and ``get_resource`` of a secret reference)
  makes the reading property, or output, sensitive; and so on to a fixed point;
- a nested stack whose outputs are sensitive has sensitive attributes; a nested stack fed a sensitive property
  sees its parameters as hidden (:mod:`hotc.planner.expand`).

This module is pure: it classifies references and computes the fixed point; the expander feeds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hotc.model import model
from hotc.parser.api import Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.parser.api import functions as F

SECRET_TYPES = frozenset({"OS::Heat::RandomString"})  # a secret as a whole: attributes and reference id
ANY = "*"  # a resource named by a computed expression: any resource of the scope


@model(slots=True)
class Refs:
    """What one expression reads: parameters, resources through ``get_attr`` (``attrs``) and through
    ``get_resource``/``Ref`` (``ids``). A name computed by a function is :data:`ANY`."""

    params: frozenset[str] = frozenset()
    attrs: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()

    def reads_secret(
        self, hidden: frozenset[str] | set[str], secret_attrs: set[str], secret_ids: set[str]
    ) -> bool:
        """Does a value with these references derive from a hidden parameter or a secret resource value?"""
        if self.params & hidden or (ANY in self.params and hidden):
            return True
        if self.attrs & secret_attrs or (ANY in self.attrs and secret_attrs):
            return True
        return bool(self.ids & secret_ids or (ANY in self.ids and secret_ids))


def _static(e: Expr | None) -> str:
    if isinstance(e, Literal) and isinstance(e.value, str):
        return e.value
    return ANY


def expr_refs(exprs: Iterable[Expr | None]) -> Refs:
    """The references of ``exprs`` (every branch of an ``if``: over-approximating is the safe side)."""
    params: set[str] = set()
    attrs: set[str] = set()
    ids: set[str] = set()
    stack: list[Expr] = [e for e in exprs if e is not None]
    while stack:
        e = stack.pop()
        if isinstance(e, Literal):
            continue
        if isinstance(e, ListExpr):
            stack.extend(e.items)
            continue
        if isinstance(e, MapExpr):
            stack.extend(v for _k, v in e.items)
            continue
        if isinstance(e, F.GetParam):
            name = e.static_name()
            params.add(name if name is not None else ANY)
        elif isinstance(e, F.GetAttr):
            attrs.add(_static(e.resource))
        elif isinstance(e, F.GetResource):
            ids.add(_static(e.resource))
        elif isinstance(e, F.Ref):
            name = _static(e.target)  # a resource when one has that name, else a parameter
            params.add(name)
            ids.add(name)
        if isinstance(e, FunctionCall):
            stack.extend(e.children())
    return Refs(frozenset(params), frozenset(attrs), frozenset(ids))


@model(slots=True)
class Sensitivity:
    """The fixed point for one scope: sensitive top-level property keys per resource name, the names whose
    attributes are sensitive, and the names whose reference id is a secret."""

    props: Mapping[str, frozenset[str]]
    secret_attrs: frozenset[str]
    secret_ids: frozenset[str]

    def reads_secret(self, refs: Refs, hidden: frozenset[str]) -> bool:
        return refs.reads_secret(hidden, set(self.secret_attrs), set(self.secret_ids))


def propagate(
    key_refs: Mapping[str, Iterable[tuple[str, Refs]]],
    hidden: frozenset[str],
    secret_attrs: Iterable[str] = (),
    secret_ids: Iterable[str] = (),
    leaves: Iterable[str] = (),
    secret_props: Mapping[str, frozenset[str]] | None = None,
) -> Sensitivity:
    """Sensitivity of a scope's properties, to a fixed point.

    ``key_refs``: per resource name, (top-level property key, its references) pairs (``*`` for properties
    given as one expression); ``secret_attrs``/``secret_ids``: names already known secret (RandomStrings,
    nested stacks with sensitive outputs); ``leaves``: names of plain resources, whose attributes become
    sensitive as soon as one of their properties is; ``secret_props``: per resource name, the property keys
    that are secret by their type's schema whatever they are derived from (a Barbican secret's payload)."""
    pairs = {name: list(refs) for name, refs in key_refs.items()}
    leaf_names = set(leaves)
    s_attrs, s_ids = set(secret_attrs), set(secret_ids)
    props: dict[str, set[str]] = {name: set() for name in pairs}
    for name, keys in (secret_props or {}).items():
        if name in props:
            props[name] |= {k for k, _r in pairs[name] if k in keys or k == "*"}
    changed = True
    while changed:
        changed = False
        for name, refs in pairs.items():
            have = props[name]
            for key, r in refs:
                if key not in have and r.reads_secret(hidden, s_attrs, s_ids):
                    have.add(key)
                    changed = True
            if have and name in leaf_names and name not in s_attrs:
                s_attrs.add(name)
                changed = True
    return Sensitivity({n: frozenset(k) for n, k in props.items()}, frozenset(s_attrs), frozenset(s_ids))
