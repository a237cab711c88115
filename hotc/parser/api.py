"""The front end's public API: files on disk -> typed IR (+ environment, parameters, nested templates).

Owned by ``hotc.parser``. The planner and the CLI call only what is here.

    load_stack(template_path, env_paths, cli_parameters, parameter_files, require_values=...)
        -> tuple[LoadedStack | None, list[Diagnostic]]

``require_values=False`` is ``hotc validate`` (like ``openstack orchestration template validate``: parameters
without defaults need no value); ``True`` is plan/apply (a missing value is an error naming the parameter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hotc.parser.ir import Template


@dataclass(frozen=True)
class TypeResolution:
    """What a resource's ``type`` means after the environment's resource_registry is applied.

    kind: ``builtin`` (a provider type: ``type_name`` is e.g. ``OS::Nova::Server``),
          ``template`` (a template resource / provider template: ``template_key`` indexes
          ``LoadedStack.nested``), or ``none`` (mapped to OS::Heat::None / null: nothing is created)."""

    kind: str
    type_name: str
    template_key: str | None = None


@dataclass(frozen=True)
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
    environment: Any = None  # hotc.parser.environment.Environment (merged)
    # group/stack resource name -> what its members are: the resource_def type of an OS::Heat::ResourceGroup,
    # the `resource` type of an OS::Heat::AutoScalingGroup, or (kind "template") the nested template of an
    # OS::Heat::Stack whose `template` is a get_file; template_key indexes `nested`
    member_types: Mapping[str, TypeResolution] = field(default_factory=dict)


@dataclass(frozen=True)
class NestedTemplate:
    """A template used as a resource type. Its parameters are fed by the parent resource's properties."""

    template: Template
    types: Mapping[str, TypeResolution] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    nested: Mapping[str, NestedTemplate] = field(default_factory=dict)
    member_types: Mapping[str, TypeResolution] = field(default_factory=dict)  # as in LoadedStack


def load_stack(
    template_path: Any,
    env_paths: Any = None,
    cli_parameters: Mapping[str, str] | None = None,
    parameter_files: Mapping[str, Any] | None = None,
    *,
    require_values: bool,
    max_size: int | None = 512 * 1024,
) -> tuple[LoadedStack | None, list[Any]]:
    """Files on disk -> (LoadedStack | None, diagnostics). Implemented in :mod:`hotc.parser.loader`."""
    from hotc.parser.loader import load_stack as _load_stack

    return _load_stack(
        template_path,
        env_paths,
        cli_parameters,
        parameter_files,
        require_values=require_values,
        max_size=max_size,
    )
