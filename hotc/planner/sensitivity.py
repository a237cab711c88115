"""Which values of a (nested) stack are secret, per value path: sensitivity flowing through every edge of the
graph.

A value is sensitive when it is derived from a hidden parameter or from a secret resource value, through any
chain of functions. Sensitivity is tracked per *value path* (``value.password``, ``rules[1].remote_ip``): the
leaves of a property written as a literal map or list are classified one by one, so a secret sits beside plain
values without hiding them (``value: {password: {get_param: pw}, replicas: 3}`` masks ``value.password``
only). A leaf computed by a function is sensitive as a whole when anything it reads is. The edges, per scope:

- a hidden parameter (``get_param``/``Ref``) makes the property path that reads it sensitive;
- the attributes of a resource follow its properties. A type may declare which attribute echoes which
  property, path for path (``ResourceType.attribute_sources``: a Value's ``value`` attribute is its ``value``
  property, a TestResource's ``output`` its ``value``): then ``get_attr: [r, value, replicas]`` is sensitive
  only when a sensitive path of the ``value`` property overlaps ``replicas`` (is it, above it or below it).
  Attributes a type does not declare, and every attribute of a type that declares nothing, keep the
  conservative rule: sensitive as soon as any property of the resource is. The physical id is not a secret;
- an ``OS::Heat::RandomString`` is secret as a whole: its ``value`` attribute and its reference id (what
  ``get_resource`` gives is the string itself);
- ``get_attr`` of a sensitive attribute path (and ``get_resource`` of a secret reference) makes the reading
  property path, or output, sensitive; and so on to a fixed point;
- a nested stack whose outputs are sensitive has sensitive attributes; a nested stack fed a sensitive property
  sees its parameters as hidden (:mod:`hotc.planner.expand`).

Paths are tuples of steps (``str`` map keys, ``int`` list indexes); :func:`path_text` writes them as the plan
does (``rules[1].port``; ``*`` for "every property"). This module is pure: it classifies references and
computes the fixed point; the expander feeds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import field

from hotc.model import model
from hotc.parser.api import Expr, FunctionCall, ListExpr, Literal, MapExpr
from hotc.parser.api import functions as F

SECRET_TYPES = frozenset({"OS::Heat::RandomString"})  # a secret as a whole: attributes and reference id
ANY = "*"  # a resource named by a computed expression: any resource of the scope

Path = tuple[str | int, ...]
#: the path that stands for every property of a resource (properties given as one expression)
ALL: Path = (ANY,)


def path_text(path: Path) -> str:
    """``("rules", 1, "port")`` -> ``rules[1].port`` (the plan's path form); ``("*",)`` -> ``*``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


def overlaps(a: Path, b: Path) -> bool:
    """Is one path the other or inside it (reading either reads part of the other)?"""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


@model(slots=True)
class Refs:
    """What one expression reads: parameters, resource attributes through ``get_attr`` (``attrs``: resource
    name and the attribute path read, cut where a step is computed; an empty path reads every attribute) and
    resources through ``get_resource``/``Ref`` (``ids``). A name computed by a function is :data:`ANY`."""

    params: frozenset[str] = frozenset()
    attrs: frozenset[tuple[str, Path]] = frozenset()
    ids: frozenset[str] = frozenset()

    def reads_secret(
        self,
        hidden: frozenset[str] | set[str],
        secret_attrs: set[str] | frozenset[str],
        secret_ids: set[str] | frozenset[str],
        attr_sensitive: AttrRule | None = None,
    ) -> bool:
        """Does a value with these references derive from a hidden parameter or a secret resource value?
        ``secret_attrs``: names every attribute of which is sensitive; ``attr_sensitive``: the rule for the
        other names (per attribute path), if any."""
        if self.params & hidden or (ANY in self.params and hidden):
            return True
        if self.ids & secret_ids or (ANY in self.ids and secret_ids):
            return True
        for name, path in self.attrs:
            if name == ANY:
                if secret_attrs or (attr_sensitive is not None and attr_sensitive.any()):
                    return True
            elif name in secret_attrs or (attr_sensitive is not None and attr_sensitive(name, path)):
                return True
        return False


class AttrRule:
    """Which attribute paths of the scope's resources are sensitive, from their sensitive property paths and
    their types' declared attribute sources (attribute name -> property name, path for path)."""

    def __init__(self, props: Mapping[str, set[Path]], sources: Mapping[str, Mapping[str, str]]) -> None:
        self.props = props
        self.sources = sources

    def any(self) -> bool:
        return any(self.props.get(n) for n in self.sources)

    def __call__(self, name: str, path: Path) -> bool:
        declared = self.sources.get(name)
        have = self.props.get(name)
        if declared is None or not have:
            return False  # undeclared names are the caller's (``secret_attrs``)
        return attribute_sensitive(declared, have, path)


def attribute_sensitive(sources: Mapping[str, str], prop_paths: Iterable[Path], path: Path) -> bool:
    """Is the attribute path ``path`` of a resource whose type declares ``sources`` sensitive, given its
    sensitive property paths? An attribute the type does not declare is sensitive when any property is."""
    paths = list(prop_paths)
    if not paths:
        return False
    if not path or ALL in paths:
        return True
    source = sources.get(str(path[0]))
    if source is None:
        return True
    return any(p[0] == source and overlaps(p[1:], path[1:]) for p in paths)


def _static(e: Expr | None) -> str:
    if isinstance(e, Literal) and isinstance(e.value, str):
        return e.value
    return ANY


def _attr_path(e: F.GetAttr) -> Path:
    """The attribute path a ``get_attr`` reads, cut at its first computed step."""
    out: list[str | int] = []
    for step in (e.attribute, *e.path):
        if step is None:
            break
        if (
            isinstance(step, Literal)
            and isinstance(step.value, str | int)
            and not isinstance(step.value, bool)
        ):
            out.append(step.value)
            continue
        break
    return tuple(out)


def expr_refs(exprs: Iterable[Expr | None]) -> Refs:
    """The references of ``exprs`` (every branch of an ``if``: over-approximating is the safe side)."""
    params: set[str] = set()
    attrs: set[tuple[str, Path]] = set()
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
            attrs.add((_static(e.resource), _attr_path(e)))
        elif isinstance(e, F.GetResource):
            ids.add(_static(e.resource))
        elif isinstance(e, F.Ref):
            name = _static(e.target)  # a resource when one has that name, else a parameter
            params.add(name)
            ids.add(name)
        if isinstance(e, FunctionCall):
            stack.extend(e.children())
    return Refs(frozenset(params), frozenset(attrs), frozenset(ids))


def leaf_refs(properties: Expr | None) -> list[tuple[Path, Refs]]:
    """(value path, its references) for each leaf of a resource's properties that reads anything: the
    properties' literal maps and lists are walked (their paths are the evaluated value's paths); a function
    call is a leaf, sensitive as a whole. Properties given as one expression are the single path :data:`ALL`."""
    if properties is None:
        return []
    if not isinstance(properties, MapExpr):
        refs = expr_refs([properties])
        return [(ALL, refs)] if _reads(refs) else []
    return list(_walk(properties, ()))


def _reads(r: Refs) -> bool:
    return bool(r.params or r.attrs or r.ids)


def _walk(e: Expr, path: Path) -> Iterator[tuple[Path, Refs]]:
    if isinstance(e, Literal):
        return
    if isinstance(e, MapExpr):
        for k, v in e.items:
            yield from _walk(v, (*path, k))
        return
    if isinstance(e, ListExpr):
        for i, v in enumerate(e.items):
            yield from _walk(v, (*path, i))
        return
    refs = expr_refs([e])
    if _reads(refs):
        yield (path, refs)


@model(slots=True)
class Sensitivity:
    """The fixed point for one scope: sensitive property paths per resource name, the names every attribute of
    which is sensitive, the names whose reference id is a secret, and the declared attribute sources of the
    other names (for the attribute paths :meth:`reads_secret` checks)."""

    paths: Mapping[str, frozenset[Path]]
    secret_attrs: frozenset[str]
    secret_ids: frozenset[str]
    sources: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def props(self) -> dict[str, frozenset[str]]:
        """Sensitive property paths per resource name, in the plan's text form (``value.password``, ``*``)."""
        return {n: frozenset(path_text(p) for p in ps) for n, ps in self.paths.items()}

    def reads_secret(self, refs: Refs, hidden: frozenset[str]) -> bool:
        rule = AttrRule({n: set(p) for n, p in self.paths.items()}, self.sources) if self.sources else None
        return refs.reads_secret(hidden, self.secret_attrs, self.secret_ids, rule)


def propagate(
    key_refs: Mapping[str, Iterable[tuple[Path, Refs]]],
    hidden: frozenset[str],
    secret_attrs: Iterable[str] = (),
    secret_ids: Iterable[str] = (),
    leaves: Iterable[str] = (),
    secret_props: Mapping[str, frozenset[str]] | None = None,
    sources: Mapping[str, Mapping[str, str]] | None = None,
) -> Sensitivity:
    """Sensitivity of a scope's property paths, to a fixed point.

    ``key_refs``: per resource name, (property value path, its references) pairs (:data:`ALL` for properties
    given as one expression; see :func:`leaf_refs`); ``secret_attrs``/``secret_ids``: names already known
    secret (RandomStrings, nested stacks with sensitive outputs); ``leaves``: names of plain resources, whose
    attributes follow their properties; ``secret_props``: per resource name, the top-level property keys that
    are secret by their type's schema whatever they are derived from (a Barbican secret's payload);
    ``sources``: per leaf name whose type declares them, attribute name -> the property it echoes, path for
    path. A leaf without declared sources has every attribute sensitive as soon as one property path is."""
    pairs = {name: list(refs) for name, refs in key_refs.items()}
    declared = {n: s for n, s in (sources or {}).items() if n in pairs}
    leaf_names = set(leaves) - set(declared)
    s_attrs, s_ids = set(secret_attrs), set(secret_ids)
    props: dict[str, set[Path]] = {name: set() for name in pairs}
    for name, keys in (secret_props or {}).items():
        if name in props:
            props[name] |= {(k,) for k in keys}
            if any(p == ALL for p, _r in pairs[name]):
                props[name].add(ALL)
    rule = AttrRule(props, declared)
    changed = True
    while changed:
        changed = False
        for name, refs in pairs.items():
            have = props[name]
            for path, r in refs:
                if path not in have and r.reads_secret(hidden, s_attrs, s_ids, rule):
                    have.add(path)
                    changed = True
            if have and name in leaf_names and name not in s_attrs:
                s_attrs.add(name)
                changed = True
    return Sensitivity(
        {n: frozenset(_minimal(k)) for n, k in props.items()}, frozenset(s_attrs), frozenset(s_ids), declared
    )


def _minimal(paths: set[Path]) -> set[Path]:
    """``paths`` without those inside another one (``value`` covers ``value.password``)."""
    if ALL in paths:
        return {ALL}
    return {p for p in paths if not any(q != p and len(q) < len(p) and p[: len(q)] == q for q in paths)}
