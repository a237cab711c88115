"""The typed IR of a HOT template (owned by ``hotc.parser``).

Every node is a frozen dataclass carrying the :class:`~hotc.errors.Pos` it came from.

Expressions (``Expr``) are one of:
- :class:`Literal` — a scalar (str/int/float/bool/None);
- :class:`ListExpr`, :class:`MapExpr` — containers whose items are expressions;
- a subclass of :class:`FunctionCall` — one node type per HOT intrinsic / condition function
  (``GetParam``, ``GetAttr``, ``StrReplace``, ``If``, ``Equals`` …, defined in ``hotc.parser.functions``).

Evaluation is a pure function ``hotc.parser.evaluate.evaluate(expr, ctx)`` over an :class:`EvalContext`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import field
from typing import Any, NamedTuple, Protocol

from hotc.errors import Diagnostic, Pos
from hotc.model import model
from hotc.values import MISSING as _MISSING

# ---------------------------------------------------------------------------------------------- expressions


@model(slots=True)
class Literal:
    value: Any  # str | int | float | bool | None
    pos: Pos | None = None


@model(slots=True)
class ListExpr:
    items: tuple[Expr, ...]
    pos: Pos | None = None


@model(slots=True)
class MapExpr:
    items: tuple[tuple[str, Expr], ...]  # keys are plain strings (Heat does not evaluate keys)
    pos: Pos | None = None
    key_pos: tuple[Pos | None, ...] = ()

    def get(self, key: str) -> Expr | None:
        for k, v in self.items:
            if k == key:
                return v
        return None


@model(slots=True)
class FunctionCall:
    """Base of every function node. Subclasses add typed argument fields."""

    name: str  # the function name as written, e.g. "get_attr", "str_replace"
    pos: Pos | None

    def children(self) -> Iterator[Expr]:
        """Sub-expressions (arguments), for walks such as reference collection."""
        return iter(())


Expr = Literal | ListExpr | MapExpr | FunctionCall


# -------------------------------------------------------------------------------------------- references
# what expressions refer to, collected once by the parser (the walk is hotc.parser.references.collect)


Ref = tuple[str, str, Pos | None]

# These records are NamedTuples (immutable, and built by C code: the parser makes one per expression part of
# every resource, and a frozen dataclass's __init__ costs several times more at 100,000 resources).


class Refs(NamedTuple):
    """What one expression refers to (see :mod:`hotc.parser.references`)."""

    items: tuple[Ref, ...] = ()
    get_attr: bool = False  # it holds a get_attr call
    contextual: bool = False  # it holds an `if` or a computed resource name

    def of(self, kind: str) -> list[tuple[str, Pos | None]]:
        """``(name, pos)`` of the references of one kind, in source order."""
        return [(n, p) for k, n, p in self.items if k == kind]

    def names(self, kind: str) -> set[str]:
        return {n for k, n, _ in self.items if k == kind}

    def has(self, kind: str) -> bool:
        return any(k == kind for k, _, _ in self.items)


NO_REFS = Refs()


class ResourceRefs(NamedTuple):
    """The references of each part of a resource (see :mod:`hotc.parser.references`)."""

    sources: tuple[Expr | None, ...]  # the parts they were collected from (checked by identity)
    properties: Refs
    metadata: Refs
    update_policy: Refs
    deletion_policy: Refs
    external_id: Refs
    condition: Refs


class OutputRefs(NamedTuple):
    sources: tuple[Expr | None, Expr | None]  # (value, condition) they were collected from
    value: Refs
    condition: Refs


# ----------------------------------------------------------------------------------------- template parts


@model(slots=True)
class TemplateVersion:
    """A heat_template_version: canonical date plus the alias it was written as (e.g. ``rocky``)."""

    date: str  # canonical, e.g. "2018-08-31"
    written: str  # as written in the template, e.g. "rocky"

    @property
    def key(self) -> str:
        return self.date


@model(slots=True)
class Constraint:
    kind: str  # length | range | modulo | allowed_values | allowed_pattern | custom_constraint
    spec: Any  # e.g. {"min": 1, "max": 5}, ["a", "b"], "^[a-z]+$", "nova.flavor"
    description: str | None = None
    pos: Pos | None = None


# MISSING (no default given) lives in hotc.values, so that the provider schemas and the applier can name it without
# importing the parser (hotc check's start-up time); this module re-exports it
MISSING: Any = _MISSING


@model(slots=True)
class Parameter:
    name: str
    type: str  # string | number | comma_delimited_list | json | boolean
    default: Any = MISSING  # MISSING when the template gives none
    description: str | None = None
    label: str | None = None
    hidden: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    pos: Pos | None = None


@model(slots=True)
class ParameterGroup:
    label: str | None
    description: str | None
    parameters: tuple[str, ...]
    pos: Pos | None = None


@model(slots=True)
class Reference:
    """A named reference with its position (depends_on targets, condition names)."""

    name: str
    pos: Pos | None = None


@model(slots=True)
class Resource:
    name: str
    type: str
    properties: Expr | None = None  # usually a MapExpr; may be a function yielding a map
    metadata: Expr | None = None
    depends_on: tuple[Reference, ...] = ()
    update_policy: Expr | None = None
    deletion_policy: Expr | None = None  # evaluates to "Delete" | "Retain" | "Snapshot"
    condition: Expr | None = None  # a condition name (Literal str), bool, or a condition expression
    external_id: Expr | None = None
    description: str | None = None
    pos: Pos | None = None
    type_pos: Pos | None = None
    # what each part refers to, collected once by the parser (read it with hotc.parser.references.resource_refs,
    # which collects them again for a resource made another way or whose parts were replaced)
    refs: ResourceRefs | None = field(default=None, compare=False, repr=False)


@model(slots=True)
class Output:
    name: str
    value: Expr | None
    description: str | None = None
    condition: Expr | None = None
    pos: Pos | None = None
    # an argument shape Heat reports only when it resolves this output (the stack is still created): the
    # output's error, and ``value`` is then a placeholder
    value_error: str | None = None
    # what the value and condition refer to, collected once by the parser (hotc.parser.references.output_refs)
    refs: OutputRefs | None = field(default=None, compare=False, repr=False)


@model(slots=True)
class Condition:
    name: str
    expr: Expr
    pos: Pos | None = None


@model
class Template:
    path: str  # the file it was loaded from (absolute or as given)
    version: TemplateVersion
    description: str | None = None
    parameter_groups: tuple[ParameterGroup, ...] = ()
    parameters: Mapping[str, Parameter] = field(default_factory=dict)
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    resources: Mapping[str, Resource] = field(default_factory=dict)
    outputs: Mapping[str, Output] = field(default_factory=dict)
    pos: Pos | None = None
    # what parsing found wrong in each resource's properties: reported by the loader unless the resource
    # resolves to OS::Heat::None, whose properties Heat discards unchecked
    property_diagnostics: Mapping[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    # what Heat checks of this template when a parent's template validate loads it as the interface of a template
    # resource (TemplateResource: the document, the version, the parameter definitions, the outputs section's
    # shape): the errors among these reject the parent's validate; the template's other problems are found only
    # when the nested stack is created (StackResource.validate_nested_stack)
    interface_diagnostics: tuple[Diagnostic, ...] = ()


# ------------------------------------------------------------------------------------------- evaluation


class ResourceResolver(Protocol):
    """How evaluation learns about resources. The front end's static resolver answers Unknown for
    everything; the planner answers from state (known ids/attributes of unchanged resources) or Unknown."""

    def resource_id(self, name: str) -> Any:
        """``get_resource NAME``: the physical id, or an Unknown."""
        ...

    def resource_attr(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        """``get_attr [NAME, ATTR, path…]``: the value, or an Unknown. ``attribute`` may be ``""``
        for the 2015-10-15+ form with no attribute (all attributes)."""
        ...


@model
class EvalContext:
    """Everything an expression may read. Pure data plus the resolver; no I/O happens in evaluation."""

    version: TemplateVersion
    parameters: Mapping[str, Any]  # resolved parameter values incl. pseudo parameters (OS::stack_name, …)
    resolver: ResourceResolver
    conditions: Mapping[str, bool] = field(default_factory=dict)  # evaluated conditions
    files: Mapping[str, str] = field(default_factory=dict)  # get_file contents keyed by the name as written
    resource_names: frozenset[str] = frozenset()  # names defined in the template (for filtering/validation)
    facade: Mapping[str, Any] = field(default_factory=dict)  # resource_facade data of the parent resource
    template_path: str = ""
