"""The planner's public API (what ``hotc plan`` and the applier use).

    build_desired(loaded, stack_name, lineage) -> DesiredStack
    make_plan(desired, state, options, refreshed=None) -> Plan
    save_plan(plan, path) / load_plan(path) -> Plan
    loaded_stack_from_plan(plan, parameters=..., checks=...) -> LoadedStack
    check_plan_fresh(plan, state, current_template_digest) -> None   (raises HotcError naming what moved)
    template_digest(loaded) -> str
    check_constraints(desired, plan, conn=None, rules=...) -> ConstraintReport   (custom constraints; see below)

Desired state
-------------
``DesiredStack.resources`` maps every leaf address (``web``, ``group[3]``, ``app.db``, ``web[2].port``) to a
:class:`DesiredResource` (``address, type, depends_on, deletion_policy, condition_enabled`` …). Groups and nested
stacks are not resources: their members are.

``DesiredStack.resolve_properties(address, resolver)`` and ``DesiredStack.resolve_outputs(resolver)``
re-evaluate properties/outputs with live values at apply time (``resolve_outputs_with_errors`` gives
``name -> (value, error)`` so one bad output does not fail the stack, as in Heat). ``resolver`` is an **address-keyed**
:class:`AddressResolver` (``resource_id(address)``, ``resource_attr(address, attribute, path)``): the desired
stack maps template names to addresses in the right nested scope itself, and answers group/nested-stack
attributes (refs, attributes, outputs…) from their members. :class:`StateResolver` builds one from a mapping
``address -> ResourceState`` (or a map with ``physical_id``/``attributes``); it reads the mapping at each call,
so the applier can keep one dict up to date while it works. Anything it lacks is an ``Unknown``.

Plan semantics for the applier
------------------------------
``Plan.changes`` lists every resource the plan touches (plus ``no-op`` ones). Order of execution:

- ``create`` / ``update`` / ``replace`` run after every address in their ``depends_on`` (desired graph) has
  finished its own create/update/replace;
- ``replace`` follows Heat's order: **create the new instance first**, then dependents are updated/replaced
  against it, and the **old instance is deleted last**: after every resource that depended on the old one
  (``depends_on`` of changes in this plan, and the state's ``dependencies``) has finished. Between the two the
  old instance is "deposed" (``ResourceState.deposed``); ``ResourceChange.previous_physical_id`` names it.
- ``delete`` / ``forget`` run in reverse dependency order: a resource is deleted only after everything that
  depended on it (state ``dependencies``) is deleted or updated away. ``ResourceChange.depends_on`` of a delete
  holds the *state's* dependencies of the resource.
- ``update`` with ``rebuild=True`` is a server rebuild (root disk wiped), still in place.
- ``create`` with ``import_id`` set adopts that existing object (Heat's ``external_id``): nothing is created,
  and the resource's ``deletion_policy`` is ``Retain`` (never deleted).
- ``Plan.resource_drift`` lists what a refresh found changed outside hotc (``update``) or gone (``delete``);
  a ``refresh-only`` plan has no ``changes``: applying it only records the live values.
- Values ``Unknown`` in ``after`` are re-evaluated at apply time with :meth:`DesiredStack.resolve_properties`.

Custom constraints
------------------
``check_constraints(desired, plan, conn, rules=...)`` checks the root parameters' ``custom_constraint`` and the
properties of what the plan creates, replaces or changes in place against the type schemas' custom constraints
(:mod:`hotc.planner.constraints`); what each constraint means comes from ``rules`` (:class:`ConstraintRules`,
the OpenStack provider's, injected by the CLI's composition root). Constraints that need no cloud are always
checked; the cloud-backed ones (``glance.image``, ``nova.flavor``, ``neutron.network`` …) only with a ``conn``
(else ``ConstraintReport.unchecked`` names them). ``hotc plan`` connects when a cloud is configured
(``--os-cloud``, ``OS_CLOUD``, ``OS_*``) through ``enforce_constraints(desired, plan, os_cloud, rules=...,
cloud=...)``: errors are positioned diagnostics and fail the plan (HotcError); it returns the notes to show
(what was not checked and why). An apply that plans on the spot makes the same call right after ``make_plan``.

Saved plans and hidden parameters
---------------------------------
A saved plan (JSON) holds the template and every file read (``LoadedStack.sources``), the environment file
list, the command-line parameters, the state's lineage/serial, the template digest and the actions. Values of
hidden parameters given on the command line / parameter files are **not** stored: only a salted sha256
digest; ``hotc apply PLANFILE`` asks for them again (``--parameter K=V``) and refuses a value whose digest
differs. (Hidden values written in an environment file stay in that file's stored text, as in the file.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotc.planner.best_existing import best_existing
    from hotc.planner.constraints import (
        ConstraintReport,
        ConstraintRules,
        check_constraints,
        cloud_configured,
        cloud_constraints_needed,
        enforce_constraints,
    )
    from hotc.planner.cost import estimate, measured_durations
    from hotc.planner.desired import DesiredResource, DesiredStack
    from hotc.planner.diff import apply_defaults, changed_keys, detail_paths, unmask
    from hotc.planner.digraph import CycleError, DiGraph, topological_sort
    from hotc.planner.disruption import disruptions
    from hotc.planner.expand import build_desired
    from hotc.planner.immutable_parameters import changed_immutable_parameters
    from hotc.planner.make import make_plan, registry_lookup
    from hotc.planner.moves import (
        Move,
        load_moves_file,
        move_state,
        moves_file_for,
        parse_move,
        resolve_moves,
        suggest_moves,
    )
    from hotc.planner.moves import annotate as annotate_moves
    from hotc.planner.moves import check_types as check_move_types
    from hotc.planner.options import (
        DEFAULT_PARALLELISM,
        DENY_EXIT_CODE,
        DenyRule,
        PlanOptions,
        load_policy_file,
        parse_deny_rule,
        parse_import,
    )
    from hotc.planner.plan import Action, GroupBatch, GroupRollout, OutputChange, Plan, ResourceChange
    from hotc.planner.planfile import (
        check_plan_fresh,
        environment_paths,
        hidden_names,
        load_plan,
        loaded_stack_from_plan,
        plan_inputs,
        plan_to_data,
        relative_sources,
        save_plan,
        template_digest,
    )
    from hotc.planner.policy import DenyViolation, check_deny, evaluate_policy, findings
    from hotc.planner.present import SENSITIVE
    from hotc.planner.present import fmt as format_value
    from hotc.planner.prices import PriceTable, load_prices
    from hotc.planner.protection import check_protection, covering_mark, protection_violations
    from hotc.planner.quota import enforce_quotas
    from hotc.planner.refresh import DriverReader, driver_reader, read_again, refresh_resources
    from hotc.planner.render.graph import from_dependencies, from_plan, render_dot, render_mermaid
    from hotc.planner.render.json import render_json
    from hotc.planner.render.markdown import render_error_markdown, render_markdown
    from hotc.planner.render.sarif import diagnostic_results, plan_results, render_sarif
    from hotc.planner.render.text import render_text
    from hotc.planner.resolve import AddressResolver, StateResolver, UnknownResolver, index_path
    from hotc.planner.review import with_review
    from hotc.planner.scaling import (
        GROUP_TYPE,
        POLICY_TYPES,
        Bounds,
        Decision,
        cooldown_after,
        decide,
        format_time,
    )
    from hotc.planner.scaling import (
        Policy as ScalingPolicy,
    )
    from hotc.planner.sensitivity import expr_refs
    from hotc.planner.signals import enforce_plan_support
    from hotc.planner.validate_resolved import apply_problems

# Where each name of the API lives: (module, attribute). Names are imported when first used (PEP 562), so a
# command pays only for the parts of the planner it touches: ``check`` reads the dependency graph without the
# plan making, ``plan --format json`` loads the JSON renderer alone.
_HOME: dict[str, tuple[str, str]] = {
    "Action": ("hotc.planner.plan", "Action"),
    "AddressResolver": ("hotc.planner.resolve", "AddressResolver"),
    "Bounds": ("hotc.planner.scaling", "Bounds"),
    "ConstraintReport": ("hotc.planner.constraints", "ConstraintReport"),
    "ConstraintRules": ("hotc.planner.constraints", "ConstraintRules"),
    "CycleError": ("hotc.planner.digraph", "CycleError"),
    "DEFAULT_PARALLELISM": ("hotc.planner.options", "DEFAULT_PARALLELISM"),
    "DENY_EXIT_CODE": ("hotc.planner.options", "DENY_EXIT_CODE"),
    "Decision": ("hotc.planner.scaling", "Decision"),
    "DenyRule": ("hotc.planner.options", "DenyRule"),
    "DenyViolation": ("hotc.planner.policy", "DenyViolation"),
    "DesiredResource": ("hotc.planner.desired", "DesiredResource"),
    "DesiredStack": ("hotc.planner.desired", "DesiredStack"),
    "DiGraph": ("hotc.planner.digraph", "DiGraph"),
    "DriverReader": ("hotc.planner.refresh", "DriverReader"),
    "GROUP_TYPE": ("hotc.planner.scaling", "GROUP_TYPE"),
    "GroupBatch": ("hotc.planner.plan", "GroupBatch"),
    "GroupRollout": ("hotc.planner.plan", "GroupRollout"),
    "Move": ("hotc.planner.moves", "Move"),
    "OutputChange": ("hotc.planner.plan", "OutputChange"),
    "POLICY_TYPES": ("hotc.planner.scaling", "POLICY_TYPES"),
    "Plan": ("hotc.planner.plan", "Plan"),
    "PlanOptions": ("hotc.planner.options", "PlanOptions"),
    "PriceTable": ("hotc.planner.prices", "PriceTable"),
    "ResourceChange": ("hotc.planner.plan", "ResourceChange"),
    "SENSITIVE": ("hotc.planner.present", "SENSITIVE"),
    "ScalingPolicy": ("hotc.planner.scaling", "Policy"),
    "apply_defaults": ("hotc.planner.diff", "apply_defaults"),
    "changed_keys": ("hotc.planner.diff", "changed_keys"),
    "detail_paths": ("hotc.planner.diff", "detail_paths"),
    "registry_lookup": ("hotc.planner.make", "registry_lookup"),
    "apply_problems": ("hotc.planner.validate_resolved", "apply_problems"),
    "unmask": ("hotc.planner.diff", "unmask"),
    "StateResolver": ("hotc.planner.resolve", "StateResolver"),
    "UnknownResolver": ("hotc.planner.resolve", "UnknownResolver"),
    "annotate_moves": ("hotc.planner.moves", "annotate"),
    "check_move_types": ("hotc.planner.moves", "check_types"),
    "load_moves_file": ("hotc.planner.moves", "load_moves_file"),
    "move_state": ("hotc.planner.moves", "move_state"),
    "moves_file_for": ("hotc.planner.moves", "moves_file_for"),
    "parse_move": ("hotc.planner.moves", "parse_move"),
    "resolve_moves": ("hotc.planner.moves", "resolve_moves"),
    "suggest_moves": ("hotc.planner.moves", "suggest_moves"),
    "build_desired": ("hotc.planner.expand", "build_desired"),
    "check_constraints": ("hotc.planner.constraints", "check_constraints"),
    "check_deny": ("hotc.planner.policy", "check_deny"),
    "check_plan_fresh": ("hotc.planner.planfile", "check_plan_fresh"),
    "changed_immutable_parameters": ("hotc.planner.immutable_parameters", "changed_immutable_parameters"),
    "best_existing": ("hotc.planner.best_existing", "best_existing"),
    "check_protection": ("hotc.planner.protection", "check_protection"),
    "covering_mark": ("hotc.planner.protection", "covering_mark"),
    "protection_violations": ("hotc.planner.protection", "protection_violations"),
    "environment_paths": ("hotc.planner.planfile", "environment_paths"),
    "hidden_names": ("hotc.planner.planfile", "hidden_names"),
    "cloud_configured": ("hotc.planner.constraints", "cloud_configured"),
    "cloud_constraints_needed": ("hotc.planner.constraints", "cloud_constraints_needed"),
    "cooldown_after": ("hotc.planner.scaling", "cooldown_after"),
    "decide": ("hotc.planner.scaling", "decide"),
    "diagnostic_results": ("hotc.planner.render.sarif", "diagnostic_results"),
    "disruptions": ("hotc.planner.disruption", "disruptions"),
    "driver_reader": ("hotc.planner.refresh", "driver_reader"),
    "enforce_constraints": ("hotc.planner.constraints", "enforce_constraints"),
    "enforce_plan_support": ("hotc.planner.signals", "enforce_plan_support"),
    "enforce_quotas": ("hotc.planner.quota", "enforce_quotas"),
    "estimate": ("hotc.planner.cost", "estimate"),
    "evaluate_policy": ("hotc.planner.policy", "evaluate_policy"),
    "expr_refs": ("hotc.planner.sensitivity", "expr_refs"),
    "findings": ("hotc.planner.policy", "findings"),
    "format_time": ("hotc.planner.scaling", "format_time"),
    "format_value": ("hotc.planner.present", "fmt"),
    "from_dependencies": ("hotc.planner.render.graph", "from_dependencies"),
    "from_plan": ("hotc.planner.render.graph", "from_plan"),
    "index_path": ("hotc.planner.resolve", "index_path"),
    "load_plan": ("hotc.planner.planfile", "load_plan"),
    "load_policy_file": ("hotc.planner.options", "load_policy_file"),
    "load_prices": ("hotc.planner.prices", "load_prices"),
    "loaded_stack_from_plan": ("hotc.planner.planfile", "loaded_stack_from_plan"),
    "make_plan": ("hotc.planner.make", "make_plan"),
    "measured_durations": ("hotc.planner.cost", "measured_durations"),
    "parse_deny_rule": ("hotc.planner.options", "parse_deny_rule"),
    "parse_import": ("hotc.planner.options", "parse_import"),
    "plan_inputs": ("hotc.planner.planfile", "plan_inputs"),
    "plan_results": ("hotc.planner.render.sarif", "plan_results"),
    "plan_to_data": ("hotc.planner.planfile", "plan_to_data"),
    "read_again": ("hotc.planner.refresh", "read_again"),
    "refresh_resources": ("hotc.planner.refresh", "refresh_resources"),
    "relative_sources": ("hotc.planner.planfile", "relative_sources"),
    "render_dot": ("hotc.planner.render.graph", "render_dot"),
    "render_json": ("hotc.planner.render.json", "render_json"),
    "render_error_markdown": ("hotc.planner.render.markdown", "render_error_markdown"),
    "render_markdown": ("hotc.planner.render.markdown", "render_markdown"),
    "render_mermaid": ("hotc.planner.render.graph", "render_mermaid"),
    "render_sarif": ("hotc.planner.render.sarif", "render_sarif"),
    "render_text": ("hotc.planner.render.text", "render_text"),
    "save_plan": ("hotc.planner.planfile", "save_plan"),
    "template_digest": ("hotc.planner.planfile", "template_digest"),
    "topological_sort": ("hotc.planner.digraph", "topological_sort"),
    "with_review": ("hotc.planner.review", "with_review"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _HOME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # the next use is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "DEFAULT_PARALLELISM",
    "DENY_EXIT_CODE",
    "GROUP_TYPE",
    "POLICY_TYPES",
    "SENSITIVE",
    "Action",
    "AddressResolver",
    "Bounds",
    "ConstraintReport",
    "ConstraintRules",
    "CycleError",
    "Decision",
    "DenyRule",
    "DenyViolation",
    "DesiredResource",
    "DesiredStack",
    "DiGraph",
    "DriverReader",
    "GroupBatch",
    "GroupRollout",
    "Move",
    "OutputChange",
    "Plan",
    "PlanOptions",
    "PriceTable",
    "ResourceChange",
    "ScalingPolicy",
    "StateResolver",
    "UnknownResolver",
    "annotate_moves",
    "check_move_types",
    "load_moves_file",
    "move_state",
    "moves_file_for",
    "parse_move",
    "resolve_moves",
    "suggest_moves",
    "build_desired",
    "changed_immutable_parameters",
    "best_existing",
    "check_constraints",
    "check_deny",
    "check_plan_fresh",
    "check_protection",
    "covering_mark",
    "protection_violations",
    "cloud_configured",
    "cloud_constraints_needed",
    "cooldown_after",
    "decide",
    "diagnostic_results",
    "disruptions",
    "driver_reader",
    "enforce_constraints",
    "enforce_plan_support",
    "enforce_quotas",
    "environment_paths",
    "hidden_names",
    "estimate",
    "evaluate_policy",
    "expr_refs",
    "findings",
    "format_time",
    "format_value",
    "from_dependencies",
    "from_plan",
    "index_path",
    "load_plan",
    "load_policy_file",
    "load_prices",
    "loaded_stack_from_plan",
    "make_plan",
    "measured_durations",
    "parse_deny_rule",
    "parse_import",
    "plan_inputs",
    "plan_results",
    "plan_to_data",
    "read_again",
    "refresh_resources",
    "relative_sources",
    "render_dot",
    "render_json",
    "render_error_markdown",
    "render_markdown",
    "render_mermaid",
    "render_sarif",
    "render_text",
    "save_plan",
    "template_digest",
    "topological_sort",
    "with_review",
    "apply_defaults",
    "changed_keys",
    "detail_paths",
    "registry_lookup",
    "apply_problems",
    "unmask",
]
