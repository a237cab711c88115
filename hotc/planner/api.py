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

from hotc.planner.constraints import (
    ConstraintReport,
    ConstraintRules,
    check_constraints,
    cloud_configured,
    cloud_constraints_needed,
    enforce_constraints,
)
from hotc.planner.desired import DesiredResource, DesiredStack
from hotc.planner.expand import build_desired
from hotc.planner.make import make_plan
from hotc.planner.options import (
    DENY_EXIT_CODE,
    DenyRule,
    PlanOptions,
    load_policy_file,
    parse_deny_rule,
    parse_import,
)
from hotc.planner.plan import Action, OutputChange, Plan, ResourceChange
from hotc.planner.planfile import (
    check_plan_fresh,
    environment_paths,
    hidden_names,
    load_plan,
    loaded_stack_from_plan,
    plan_inputs,
    relative_sources,
    save_plan,
    template_digest,
)
from hotc.planner.policy import DenyViolation, check_deny, evaluate_policy, findings
from hotc.planner.refresh import DriverReader, driver_reader, read_again, refresh_resources
from hotc.planner.render.text import render_text
from hotc.planner.resolve import AddressResolver, StateResolver, UnknownResolver

__all__ = [
    "environment_paths",
    "hidden_names",
    "DENY_EXIT_CODE",
    "Action",
    "AddressResolver",
    "ConstraintReport",
    "ConstraintRules",
    "DenyRule",
    "DriverReader",
    "DenyViolation",
    "DesiredResource",
    "DesiredStack",
    "OutputChange",
    "Plan",
    "PlanOptions",
    "ResourceChange",
    "StateResolver",
    "UnknownResolver",
    "build_desired",
    "check_constraints",
    "check_deny",
    "evaluate_policy",
    "findings",
    "check_plan_fresh",
    "cloud_configured",
    "cloud_constraints_needed",
    "enforce_constraints",
    "driver_reader",
    "load_plan",
    "load_policy_file",
    "loaded_stack_from_plan",
    "make_plan",
    "parse_deny_rule",
    "parse_import",
    "plan_inputs",
    "read_again",
    "refresh_resources",
    "relative_sources",
    "render_text",
    "save_plan",
    "template_digest",
]
