"""The front end's result model: a template with its environment applied (:class:`LoadedStack`), how each
resource's type resolves (:class:`TypeResolution`), nested templates, and what the parser checks about built-in
types when the layer that knows them says how (:class:`TypeChecks`). Made by :mod:`hotc.parser.loader`;
everyone else reaches it through :mod:`hotc.parser.api`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

from hotc.errors import Diagnostic
from hotc.model import model
from hotc.parser.ir import Resource, Template


@model
class TypeChecks:
    """What the loader checks about built-in resource types, injected by the layer that knows their schemas
    (``hotc.providers.checks.type_checks()``, wired by the CLI's composition root).

    - ``properties(type_name, resource, strict)``: the diagnostics of a resource's properties against its
      type's schema. ``strict=False`` mirrors Heat's ``template validate`` (only unknown property names are
      errors), ``strict=True`` a stack create (plan).
    - ``attributes(type_name)``: the attribute names of a type; empty when any name is accepted (a type whose
      attributes depend on what it holds), None when the layer does not know the type (the parser then uses
      Heat's attribute names, :mod:`hotc.parser.resource_attributes`).

    :data:`NO_TYPE_CHECKS` checks nothing: for callers that want the parser alone, on purpose."""

    properties: Callable[[str, Resource, bool], Sequence[Diagnostic]]
    attributes: Callable[[str], frozenset[str] | None]
    # names that are provider types besides Heat's own (installed resource-type plugins): the registry
    # resolves them as built-in types instead of "could not be found"
    known: Callable[[str], bool] = field(default=lambda _name: False)


def _no_properties(_type_name: str, _resource: Resource, _strict: bool) -> Sequence[Diagnostic]:
    return ()


def _no_attributes(_type_name: str) -> frozenset[str] | None:
    return None


NO_TYPE_CHECKS = TypeChecks(properties=_no_properties, attributes=_no_attributes)


@model
class TypeResolution:
    """What a resource's ``type`` means after the environment's resource_registry is applied.

    kind: ``builtin`` (a provider type: ``type_name`` is e.g. ``OS::Nova::Server``),
          ``template`` (a template resource / provider template: ``template_key`` indexes
          ``LoadedStack.nested``), or ``none`` (mapped to OS::Heat::None / null: nothing is created)."""

    kind: str
    type_name: str
    template_key: str | None = None


@model
class LoadedStack:
    """A template with its environment applied, ready for evaluation and planning."""

    template: Template
    # Resolved parameter values (environment `parameters`, `parameter_defaults`, CLI values, template defaults),
    # converted to their declared types; pseudo parameters are added by the evaluation context, not here.
    # A parameter with no value at all is absent (only possible with require_values=False).
    parameter_values: Mapping[str, Any] = field(default_factory=dict)
    hidden_parameters: frozenset[str] = frozenset()
    # resource name -> how its type resolves (aliases, per-resource registry entries, template resources)
    types: Mapping[str, TypeResolution] = field(default_factory=dict)
    # get_file contents for this template, keyed by the path as written in the template
    files: Mapping[str, str] = field(default_factory=dict)
    # nested templates (template resources, OS::Heat::Stack with get_file), keyed by TypeResolution.template_key
    nested: Mapping[str, NestedTemplate] = field(default_factory=dict)
    # every file read, absolute path -> text (template, environments, get_file targets, nested templates):
    # the input of the template digest and of self-contained saved plans
    sources: Mapping[str, str] = field(default_factory=dict)
    # the absolute paths of the --parameter-file files among ``sources`` (parameter values, not template)
    parameter_file_paths: frozenset[str] = frozenset()
    environment: Any = None  # hotc.parser.environment.Environment (merged)
    # group/stack resource name -> what its members are: the resource_def type of an OS::Heat::ResourceGroup,
    # the `resource` type of an OS::Heat::AutoScalingGroup, or (kind "template") the nested template of an
    # OS::Heat::Stack whose `template` is a get_file; template_key indexes `nested`
    member_types: Mapping[str, TypeResolution] = field(default_factory=dict)


@model
class NestedTemplate:
    """A template used as a resource type. Its parameters are fed by the parent resource's properties."""

    template: Template
    types: Mapping[str, TypeResolution] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    nested: Mapping[str, NestedTemplate] = field(default_factory=dict)
    member_types: Mapping[str, TypeResolution] = field(default_factory=dict)  # as in LoadedStack
