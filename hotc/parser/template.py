"""Decoded template data -> the :class:`~hotc.parser.ir.Template` IR, with Heat's structural checks.

    parse_template(data, file) -> (Template | None, [Diagnostic])

Checks, each reported with the most specific position (all of them at once, not just the first):

- the version (``heat_template_version``; CFN formats are named and refused), the top-level sections allowed
  by that version;
- parameters and parameter_groups (:mod:`hotc.parser.parameters`);
- the ``conditions`` section: definitions (their references, resolved lazily as in Heat, are checked by the
  loader);
- resources: a mapping of mappings with a literal string ``type``; keys allowed by the version; the shapes
  of ``properties``/``metadata``/``update_policy`` (map or function), ``depends_on`` (string or list of
  strings naming resources), ``deletion_policy`` (one of the version's policies), ``description`` (string),
  ``condition`` and ``external_id``;
- outputs: mappings with a ``value`` and only the version's keys;
- references: get_resource/get_attr/depends_on targets must be resources of the template; conditions named
  by resources' and outputs' ``condition`` must be defined (those an ``if`` or a condition names: the
  loader, where the values say which branch Heat parses); get_param of an undeclared parameter is an error
  where Heat evaluates it at validate (resource and output conditions, deletion_policy) and a warning
  elsewhere (Heat's validate does not check it there, but the create would fail);
- names shared by a parameter and a resource (Heat refuses them);
- resource dependency cycles (depends_on + get_resource + get_attr), naming the cycle.

Resource *types* are resolved and checked by the loader (they depend on the environment).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from hotc.errors import Diagnostic, Pos, error, warning
from hotc.parser import functions as F
from hotc.parser.evaluate import references
from hotc.parser.expr import parse_expr, parse_expr_refs
from hotc.parser.ir import (
    NO_REFS,
    Condition,
    Expr,
    FunctionCall,
    ListExpr,
    Literal,
    MapExpr,
    Output,
    Reference,
    Refs,
    Resource,
    ResourceRefs,
    Template,
    TemplateVersion,
)
from hotc.parser.parameters import parse_parameter_groups, parse_parameters
from hotc.parser.references import collect, collect_output, output_refs, resource_refs
from hotc.parser.versions import (
    OTHER_FORMAT_KEYS,
    PSEUDO_PARAMETERS,
    VERSION_KEY,
    allowed_deletion_policies,
    allowed_output_keys,
    allowed_resource_keys,
    allowed_sections,
    at_least,
    has_conditions,
    parse_version,
    version_error_message,
)
from hotc.parser.yamlload import PosDict, PosList, kind_of

#: Heat's default ``max_resources_per_stack``
MAX_RESOURCES_PER_STACK = 1000

# the parser's resources and outputs get their references once built (through the slots: they are frozen)
_set_output_refs: Any = vars(Output)["refs"].__set__

# A Resource is built through its slot setters (_Parser.resource sets every field): its frozen dataclass
# __init__ with twelve keyword arguments costs about 4 us, a sixth of the IR build of a resource with a few
# properties. The assertion keeps the unpacking below in step with the dataclass's fields.
_RESOURCE_SETTERS: tuple[Any, ...] = tuple(vars(Resource)[f].__set__ for f in Resource.__dataclass_fields__)
assert tuple(Resource.__dataclass_fields__) == (
    "name",
    "type",
    "properties",
    "metadata",
    "depends_on",
    "update_policy",
    "deletion_policy",
    "condition",
    "external_id",
    "description",
    "pos",
    "type_pos",
    "refs",
)
(
    _r_name,
    _r_type,
    _r_properties,
    _r_metadata,
    _r_depends_on,
    _r_update_policy,
    _r_deletion_policy,
    _r_condition,
    _r_external_id,
    _r_description,
    _r_pos,
    _r_type_pos,
    _r_refs,
) = _RESOURCE_SETTERS
_new = object.__new__


_kind = kind_of


def _key_pos(d: Any, key: Any, fallback: Pos | None) -> Pos | None:
    if isinstance(d, PosDict):
        return d.key_pos.get(key) or fallback
    return fallback


def _val_pos(d: Any, key: Any, fallback: Pos | None) -> Pos | None:
    if isinstance(d, PosDict):
        return d.value_pos.get(key) or d.key_pos.get(key) or fallback
    return fallback


class _Parser:
    def __init__(self, data: dict[Any, Any], file: str) -> None:
        self.data = data
        self.file = file
        self.top = data.pos if isinstance(data, PosDict) and data.pos else Pos(file, 1, 1)
        self.diags: list[Diagnostic] = []
        self.property_diags: dict[str, tuple[Diagnostic, ...]] = {}
        # what a parent's template validate checks of this template (see Template.interface_diagnostics)
        self.interface: list[Diagnostic] = []

    def err(self, msg: str, pos: Pos | None, code: str = "structure") -> None:
        self.diags.append(error(msg, pos or self.top, code=code))

    def warn(self, msg: str, pos: Pos | None, code: str = "structure") -> None:
        self.diags.append(warning(msg, pos or self.top, code=code))

    def expr(self, data: Any, version: TemplateVersion, where: str, pos: Pos | None) -> Expr:
        e, d = parse_expr(data, version, where=where, pos=pos, file=self.file)
        self.diags.extend(d)
        return e

    # ------------------------------------------------------------------------------------ version

    def version(self) -> TemplateVersion | None:
        data = self.data
        if VERSION_KEY not in data:
            other = [k for k in OTHER_FORMAT_KEYS if k in data]
            if other:
                self.err(
                    f"this is a CloudFormation-format template ({other[0]}); hotc handles HOT templates only "
                    "(heat_template_version)",
                    _key_pos(data, other[0], self.top),
                    code="version",
                )
            else:
                self.err(
                    "The template version was not provided: add heat_template_version (for example "
                    "heat_template_version: 2021-04-16) at the top of the template",
                    self.top,
                    code="version",
                )
            return None
        written = data[VERSION_KEY]
        version = parse_version(written)
        if version is None:
            self.err(
                f"The template version is invalid: {version_error_message(written)}",
                _val_pos(data, VERSION_KEY, self.top),
                code="version",
            )
        return version

    # ----------------------------------------------------------------------------------- sections

    def sections(self, version: TemplateVersion) -> None:
        allowed = allowed_sections(version)
        for key in self.data:
            if key not in allowed:
                hint = ""
                if key == "conditions":
                    hint = " (the conditions section needs heat_template_version 2016-10-14 or later)"
                elif isinstance(key, str) and key.lower() in allowed:
                    hint = f" (did you mean {key.lower()!r}?)"
                elif key == "output":
                    hint = " (did you mean 'outputs'?)"
                self.err(
                    f"The template section is invalid: {key}{hint}; valid sections are: "
                    + ", ".join(sorted(allowed)),
                    _key_pos(self.data, key, self.top),
                )

    def section(self, name: str) -> tuple[Any, Pos | None]:
        return self.data.get(name), _val_pos(self.data, name, self.top)

    # ---------------------------------------------------------------------------------- conditions

    def conditions(self, version: TemplateVersion) -> dict[str, Condition]:
        if not has_conditions(version):
            return {}
        section, spos = self.section("conditions")
        if section is None:
            return {}
        if not isinstance(section, dict):
            self.err(
                f"Conditions validation error: Condition definitions must be a map. Found a {_kind(section)} instead",
                spos,
            )
            return {}
        out: dict[str, Condition] = {}
        for name, body in section.items():
            kpos = _key_pos(section, name, spos)
            vpos = _val_pos(section, name, spos)
            expr = self.expr(body, version, "conditions", vpos)
            out[str(name)] = Condition(str(name), expr, kpos)
        return out

    # ----------------------------------------------------------------------------------- resources

    def resources(self, version: TemplateVersion) -> dict[str, Resource]:
        section, spos = self.section("resources")
        if section is None:
            return {}
        if not isinstance(section, dict):
            self.err(
                f"resources must contain a map of resource maps. Found a {_kind(section)} instead",
                spos,
            )
            return {}
        if isinstance(section.get("type"), str) and not isinstance(section.get("properties", {}), str):
            self.err(
                "resources must contain a map of resource maps, but this resources section looks like one "
                "resource's definition (it has a type: key); put it under a resource name "
                "(resources: {my_resource: {type: ..., properties: ...}})",
                _key_pos(section, "type", spos),
            )
            return {}
        out: dict[str, Resource] = {}
        allowed = allowed_resource_keys(version)
        policies = allowed_deletion_policies(version)
        for name, body in section.items():
            kpos = _key_pos(section, name, spos)
            vpos = _val_pos(section, name, spos)
            res = self.resource(str(name), body, version, allowed, policies, kpos, vpos)
            if res is not None:
                out[str(name)] = res
        return out

    def resource(
        self,
        name: str,
        body: Any,
        version: TemplateVersion,
        allowed: frozenset[str],
        policies: frozenset[str],
        kpos: Pos | None,
        vpos: Pos | None,
    ) -> Resource | None:
        if body is None or (isinstance(body, dict) and not body):
            self.err(f'Each resource must contain a type key: resource "{name}" has none', kpos)
            return None
        if not isinstance(body, dict):
            self.err(
                f'resources must contain a map of resource maps. Found a {_kind(body)} instead (resource "{name}")',
                vpos,
            )
            return None
        for key in body:
            if key not in allowed:
                hint = ""
                if key in ("condition", "external_id"):
                    hint = f" ({key} needs heat_template_version 2016-10-14 or later)"
                elif isinstance(key, str) and key.lower().replace("dependson", "depends_on") in allowed:
                    hint = f" (HOT spells it {key.lower()!r})"
                else:
                    snake = "".join("_" + c.lower() if c.isupper() else c for c in str(key)).lstrip("_")
                    if snake in allowed:
                        hint = f" (HOT spells it {snake!r})"
                self.err(
                    f'"{key}" is not a valid keyword inside a resource definition{hint}; valid keys are: '
                    + ", ".join(sorted(allowed)),
                    _key_pos(body, key, kpos),
                )
        if "type" not in body:
            self.err(f'Each resource must contain a type key: resource "{name}" has none', kpos)
            return None
        rtype = body["type"]
        type_pos = _val_pos(body, "type", kpos)
        if not isinstance(rtype, str):
            self.err(
                f"Resource {name} type type must be string (a resource type is a literal name such as "
                f"OS::Nova::Server, not a {_kind(rtype)})",
                type_pos,
            )
            return None

        properties, p_refs = self._object(name, body, "properties", version, kpos)
        metadata, m_refs = self._object(name, body, "metadata", version, kpos)
        update_policy, u_refs = self._object(name, body, "update_policy", version, kpos)

        depends: list[Reference] = []
        if "depends_on" in body:
            dval = body["depends_on"]
            dpos = _val_pos(body, "depends_on", kpos)
            if isinstance(dval, str):
                depends.append(Reference(dval, dpos))
            elif isinstance(dval, list):
                for i, d in enumerate(dval):
                    ipos = dval.pos_of(i) if isinstance(dval, PosList) else dpos
                    if not isinstance(d, str):
                        self.err(
                            f"Resource {name} depends_on must be a list of strings", ipos, code="reference"
                        )
                        continue
                    depends.append(Reference(d, ipos))
            elif dval is not None:
                self.err(
                    f"Resource {name} depends_on type must be list or string, not a {_kind(dval)}",
                    dpos,
                    code="reference",
                )

        deletion_policy: Expr | None = None
        if "deletion_policy" in body:
            ppos = _val_pos(body, "deletion_policy", kpos)
            deletion_policy = self.expr(body["deletion_policy"], version, "deletion_policy", ppos)
            if isinstance(deletion_policy, Literal):
                pv = deletion_policy.value
                if pv is not None and (not isinstance(pv, str) or pv not in policies):
                    self.err(
                        f'Invalid deletion policy "{pv}": use one of ' + ", ".join(sorted(policies)),
                        ppos,
                    )
            elif not isinstance(deletion_policy, FunctionCall):
                shown = body["deletion_policy"]
                self.err(
                    f'Invalid deletion policy "{shown}": use one of ' + ", ".join(sorted(policies)),
                    ppos,
                )

        description = None
        if "description" in body:
            dv = body["description"]
            if dv is not None and not isinstance(dv, str):
                self.err(
                    f"Resource {name} description type must be string, not a {_kind(dv)}",
                    _val_pos(body, "description", kpos),
                )
            else:
                description = dv

        condition: Expr | None = None
        if "condition" in body and has_conditions(version):
            condition = self.expr(
                body["condition"], version, "condition_ref", _val_pos(body, "condition", kpos)
            )
        external_id: Expr | None = None
        if "external_id" in body and has_conditions(version):
            external_id = self.expr(
                body["external_id"], version, "external_id", _val_pos(body, "external_id", kpos)
            )
        res = _new(Resource)  # = Resource(name, rtype, properties, ...): see _RESOURCE_SETTERS
        _r_name(res, name)
        _r_type(res, rtype)
        _r_properties(res, properties)
        _r_metadata(res, metadata)
        _r_depends_on(res, tuple(depends))
        _r_update_policy(res, update_policy)
        _r_deletion_policy(res, deletion_policy)
        _r_condition(res, condition)
        _r_external_id(res, external_id)
        _r_description(res, description)
        _r_pos(res, kpos)
        _r_type_pos(res, type_pos)
        # collected once, here (those of the properties, metadata and update_policy while they were built): the
        # checks, the loader and the planner read them (the resource is not shared yet)
        _r_refs(
            res,
            ResourceRefs(
                (properties, metadata, update_policy, deletion_policy, external_id, condition),
                p_refs,
                m_refs,
                u_refs,
                NO_REFS if deletion_policy is None else collect(deletion_policy),
                NO_REFS if external_id is None else collect(external_id),
                NO_REFS if condition is None else collect(condition),
            ),
        )
        return res

    def _object(
        self, name: str, body: Any, key: str, version: TemplateVersion, kpos: Pos | None
    ) -> tuple[Expr | None, Refs]:
        """A resource's ``properties``, ``metadata`` or ``update_policy`` (``key``; None when not in ``body``),
        a mapping or a function, and what it refers to."""
        if key not in body:
            return None, NO_REFS
        p = _val_pos(body, key, kpos)
        before = len(self.diags)
        e, d, refs = parse_expr_refs(body[key], version, where=key, pos=p, file=self.file)
        self.diags.extend(d)
        if key == "properties" and len(self.diags) > before:
            # kept apart: Heat discards the properties of a resource that resolves to OS::Heat::None
            # unchecked (the loader knows the type once the registry has been applied)
            self.property_diags[name] = tuple(self.diags[before:])
            del self.diags[before:]
        if not isinstance(e, MapExpr | FunctionCall):
            self.err(
                f"Resource {name} {key} type must be object (a mapping or a function), not a {_kind(body[key])}",
                p,
            )
        return e, refs

    # ------------------------------------------------------------------------------------- outputs

    def outputs(self, version: TemplateVersion) -> dict[str, Output]:
        section, spos = self.section("outputs")
        if section is None:
            return {}
        if not isinstance(section, dict):
            self.err(f"outputs must contain a map of output maps. Found a {_kind(section)} instead", spos)
            self.interface.append(self.diags[-1])
            return {}
        allowed = allowed_output_keys(version)
        out: dict[str, Output] = {}
        for name, body in section.items():
            kpos = _key_pos(section, name, spos)
            vpos = _val_pos(section, name, spos)
            if not isinstance(body, dict):
                self.err(
                    f"Output validation error: outputs.{name}: Output definitions must be a map. "
                    f"Found a {_kind(body)} instead",
                    kpos if body is None else vpos,
                )
                self.interface.append(self.diags[-1])
                continue
            for key in body:
                if key not in allowed:
                    # Heat ignores unknown output keys (its validate does not look at them)
                    hint = (
                        " (condition needs heat_template_version 2016-10-14 or later)"
                        if key == "condition"
                        else ""
                    )
                    self.warn(
                        f'"{key}" is not a valid keyword inside an output definition and is ignored{hint}; '
                        "valid keys are: " + ", ".join(sorted(allowed)),
                        _key_pos(body, key, kpos),
                    )
                    # ... but a template resource's template has its outputs section checked by the parent's
                    # validate (the outputs become the resource's attributes), which rejects the key
                    self.interface.append(
                        error(
                            f'Output validation error: outputs.{name}: "{key}" is not a valid keyword inside an '
                            f"output definition{hint}; valid keys are: " + ", ".join(sorted(allowed)),
                            _key_pos(body, key, kpos) or self.top,
                            code="structure",
                        )
                    )
            if "value" not in body:
                self.err(
                    f"Output validation error: outputs.{name}: Each output definition must contain a value key.",
                    kpos,
                )
                self.interface.append(self.diags[-1])
                continue
            before = len(self.diags)
            value = self.expr(body["value"], version, "outputs", _val_pos(body, "value", kpos))
            value_error = _create_time_output_error(self.diags[before:], body["value"], version)
            if value_error is not None:
                # Heat's validate accepts it; at create only this output carries the error
                del self.diags[before:]
                self.warn(
                    f"output {name}: {value_error.message}; creating the stack gives this output an error",
                    value_error.pos,
                    code="function-args",
                )
            cond = None
            if "condition" in body and has_conditions(version):
                cond = self.expr(
                    body["condition"], version, "condition_ref", _val_pos(body, "condition", kpos)
                )
            desc = body.get("description")
            o = Output(
                value_error=_output_error_text(value_error),
                name=str(name),
                value=value,
                description=str(desc) if desc is not None else None,
                condition=cond,
                pos=kpos,
            )
            _set_output_refs(o, collect_output(o))
            out[str(name)] = o
        return out


# -------------------------------------------------------------------------------------- references


def _condition_name_refs(expr: Expr | None) -> Iterator[tuple[str, Pos | None]]:
    """Condition names a ``condition:`` key refers to: a bare string, or names inside an expression."""
    if expr is None:
        return
    if isinstance(expr, Literal):
        if isinstance(expr.value, str):
            yield expr.value, expr.pos
        return
    for kind, name, pos in references(expr):
        if kind == "condition":
            yield name, pos


def find_cycles(graph: Mapping[str, list[str]]) -> list[list[str]]:
    """Every elementary cycle's representative found by one DFS per strongly connected component
    (Tarjan): each non-trivial component yields one cycle path ``[a, b, …, a]``."""
    if _acyclic(graph):
        return []  # the common case, told by a cheaper pass
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            succs = graph.get(node, [])
            recursed = False
            while i < len(succs):
                nxt = succs[i]
                i += 1
                if nxt not in graph:
                    continue
                if nxt not in index:
                    work.append((node, i))
                    work.append((nxt, 0))
                    recursed = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if recursed:
                continue
            if low[node] == index[node]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, []):
                    comps.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    cycles: list[list[str]] = []
    for comp in comps:
        members = set(comp)
        start = min(comp)
        # walk inside the component back to start (BFS for a shortest cycle through start)
        prev: dict[str, str] = {}
        frontier = [start]
        found = None
        seen = {start}
        while frontier and found is None:
            nxt_frontier = []
            for n in frontier:
                for s in graph.get(n, []):
                    if s == start:
                        found = n
                        break
                    if s in members and s not in seen:
                        seen.add(s)
                        prev[s] = n
                        nxt_frontier.append(s)
                if found is not None:
                    break
            frontier = nxt_frontier
        path = [start]
        if found is not None:
            back = [found]
            while back[-1] != start:
                back.append(prev[back[-1]])
            path = list(reversed(back)) + [start]
        cycles.append(path)
    return cycles


def _acyclic(graph: Mapping[str, list[str]]) -> bool:
    """Whether ``graph`` (edges to names outside it left out) has no cycle: Kahn's topological sort removes
    every node."""
    indegree = dict.fromkeys(graph, 0)
    for succs in graph.values():
        for s in succs:
            if s in indegree:
                indegree[s] += 1
    ready = [n for n, d in indegree.items() if d == 0]
    removed = 0
    while ready:
        node = ready.pop()
        removed += 1
        for s in graph[node]:
            if s in indegree:
                d = indegree[s] - 1
                indegree[s] = d
                if d == 0:
                    ready.append(s)
    return removed == len(indegree)


def check_references(t: Template, diags: list[Diagnostic]) -> None:
    """Reference checks over a parsed template (see the module doc)."""
    resources = t.resources
    params = set(t.parameters) | set(PSEUDO_PARAMETERS)
    conds = t.conditions

    def param_ref(name: str, pos: Pos | None, where: str, hard: bool) -> None:
        if name in params:
            return
        msg = f"The Parameter ({name}) was not provided: get_param names a parameter that is not declared ({where})"
        if hard:
            diags.append(error(msg, pos, code="reference"))
        else:
            diags.append(
                warning(
                    f"get_param: the parameter {name!r} is not declared ({where}); creating the stack would fail",
                    pos,
                    code="reference",
                )
            )

    def cond_ref(name: str, pos: Pos | None, where: str) -> None:
        if name not in conds:
            known = ", ".join(sorted(conds)) or "none are defined"
            diags.append(
                error(
                    f'Invalid condition "{name}" ({where}); defined conditions: {known}',
                    pos,
                    code="reference",
                )
            )

    # The conditions section's references (parameters, other conditions, cycles) and the conditions an `if`
    # names are checked by the loader, with the parameter values: Heat resolves a condition only when something
    # it evaluates asks for it, and parses only the branch of an `if` that is taken.

    dup = sorted(set(t.parameters) & set(resources))
    for name in dup:
        diags.append(
            error(
                f"Duplicate names {{'{name}'}}: a parameter and a resource are both named {name!r}; rename one",
                resources[name].pos,
                code="reference",
            )
        )

    graph: dict[str, list[str]] = {}
    ref_pos: dict[tuple[str, str], Pos | None] = {}
    for rname, res in resources.items():
        deps: list[str] = []
        for ref in res.depends_on:
            if ref.name not in resources:
                diags.append(
                    error(
                        f'The specified reference "{ref.name}" (in {rname}) is incorrect: depends_on names no '
                        "resource of this template",
                        ref.pos,
                        code="reference",
                    )
                )
            else:
                deps.append(ref.name)
                ref_pos.setdefault((rname, ref.name), ref.pos)
        rr = resource_refs(res)  # collected when the resource was parsed
        p_items, m_items, u_items = rr.properties.items, rr.metadata.items, rr.update_policy.items
        d_items, x_items = rr.deletion_policy.items, rr.external_id.items
        if not (u_items or d_items or x_items or res.condition is not None) and _refs_found(
            p_items, m_items, resources, params
        ):
            # the common resource: its properties and metadata name only resources and parameters that exist,
            # so the passes below would report nothing; only its dependencies are taken, in their order
            for items in (p_items, m_items):
                for kind, name, pos in items:
                    if kind == "resource":
                        deps.append(name)
                        if (rname, name) not in ref_pos:
                            ref_pos[(rname, name)] = pos
            if res.external_id is None:  # nothing of the rest below applies
                graph[rname] = deps
                continue
            m_items = p_items = ()
        for part, items in (("properties", p_items), ("metadata", m_items)):
            for kind, name, pos in items:
                if kind != "resource":
                    continue
                if name not in resources:
                    diags.append(
                        error(
                            f'The specified reference "{name}" (in {rname}.{part}) is incorrect: no resource '
                            f"named {name!r} is defined in this template",
                            pos,
                            code="reference",
                        )
                    )
                else:
                    deps.append(name)
                    if (rname, name) not in ref_pos:
                        ref_pos[(rname, name)] = pos
        for part, items in (("update_policy", u_items), ("external_id", x_items)):
            for kind, name, pos in items:
                if kind == "resource" and name not in resources:
                    diags.append(
                        error(
                            f'The specified reference "{name}" (in {rname}.{part}) is incorrect: no resource '
                            f"named {name!r} is defined in this template",
                            pos,
                            code="reference",
                        )
                    )
        for part, items in (("properties", p_items), ("metadata", m_items), ("update_policy", u_items)):
            for kind, name, pos in items:
                if kind == "param" and name not in params:
                    param_ref(name, pos, f"in {rname}.{part}", hard=False)
        for kind, name, pos in d_items:
            if kind == "param":
                param_ref(name, pos, f"in {rname}.deletion_policy", hard=True)
        for kind, name, pos in x_items:
            if kind == "param":
                param_ref(name, pos, f"in {rname}.external_id", hard=False)
        if res.condition is not None:
            for name, pos in _condition_name_refs(res.condition):
                cond_ref(name, pos, f"in {rname}.condition")
            for name, pos in rr.condition.of("param"):
                param_ref(name, pos, f"in {rname}.condition", hard=True)
        if res.external_id is not None and res.depends_on:
            diags.append(
                error(
                    f"resource {rname} has an external_id and depends_on: a resource adopted with external_id "
                    "cannot depend on other resources",
                    res.depends_on[0].pos,
                    code="reference",
                )
            )
        graph[rname] = [] if res.external_id is not None else deps  # Heat drops an adopted resource's edges

    for oname, out in t.outputs.items():
        orefs = output_refs(out)
        for name, pos in orefs.value.of("resource"):
            if name not in resources:
                msg = (
                    f'outputs.{oname}.value: The specified reference "{name}" (in output {oname}) is '
                    f"incorrect: no resource named {name!r} is defined in this template"
                )
                if name in _get_attr_targets(out.value):
                    diags.append(error(msg, pos, code="reference"))
                else:
                    # Heat's validate checks get_attr's resource (GetAtt.validate) but leaves a get_resource in
                    # an output to its resolution: the stack creates, and only this output reports the error
                    diags.append(
                        warning(
                            f"{msg}; the stack creates, and this output reports an error",
                            pos,
                            code="reference",
                        )
                    )
        for name, pos in orefs.value.of("param"):
            param_ref(name, pos, f"in output {oname}", hard=False)
        if out.condition is not None:
            for name, pos in _condition_name_refs(out.condition):
                cond_ref(name, pos, f"in output {oname} condition")
            for name, pos in orefs.condition.of("param"):
                param_ref(name, pos, f"in output {oname} condition", hard=True)

    for cycle in find_cycles(graph):
        first_res = resources[cycle[0]]
        where = ref_pos.get((cycle[0], cycle[1])) if len(cycle) > 1 else None
        diags.append(
            error(
                "Circular Dependency Found: "
                + " -> ".join(cycle)
                + " (through depends_on, get_resource and get_attr)",
                where or first_res.pos,
                code="cycle",
            )
        )


def _refs_found(
    p_items: tuple[Any, ...], m_items: tuple[Any, ...], resources: Mapping[str, Any], params: set[str]
) -> bool:
    """Whether every resource and parameter these references name exists (check_references reports nothing
    about them)."""
    for items in (p_items, m_items):
        for kind, name, _ in items:
            if kind == "resource":
                if name not in resources:
                    return False
            elif kind == "param" and name not in params:
                return False
    return True


def _get_attr_targets(expr: Expr | None) -> set[str]:
    """The resource names ``get_attr`` calls in ``expr`` write literally."""
    out: set[str] = set()
    stack = [expr] if expr is not None else []
    while stack:
        e = stack.pop()
        if isinstance(e, ListExpr):
            stack.extend(e.items)
        elif isinstance(e, MapExpr):
            stack.extend(v for _, v in e.items)
        elif isinstance(e, FunctionCall):
            if (
                isinstance(e, F.GetAttr)
                and isinstance(e.resource, Literal)
                and isinstance(e.resource.value, str)
            ):
                out.add(e.resource.value)
            stack.extend(e.children())
    return out


_HEAT_STR_SPLIT = (
    'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]'
)

#: Functions whose arguments Heat looks at only when it resolves them (in ``result()``, not when it parses the
#: template or in ``validate()``, heat/engine/hot/functions.py): a bad argument shape inside an output is
#: then that output's error at create, and ``template validate`` accepts the template.
_RESULT_TIME_ARGS = frozenset(
    {
        "get_param",
        "get_file",
        "map_merge",
        "map_replace",
        "digest",
        "list_concat",
        "list_concat_unique",
        "str_split",
    }
)
_ARGS_OF = re.compile(r'invalid arguments to "([^"]+)"|"([^"]+)" is missing ')


#: Functions whose argument *shape* Heat checks when it parses (``__init__``), the types of the items inside
#: only on resolving: :func:`_heat_parses` states those parse-time checks, so an item of the wrong type
#: inside an output is that output's error at create.
_SHAPE_AT_PARSE = frozenset(
    {
        "list_join",
        "str_replace",
        "str_replace_strict",
        "str_replace_vstrict",
        "filter",
        "contains",
        "Fn::Replace",
    }
)


def _create_time_output_error(
    found: list[Diagnostic], raw: Any, version: TemplateVersion
) -> Diagnostic | None:
    """The argument an output's value has wrong, when Heat finds it only on resolving that output (the
    functions of :data:`_RESULT_TIME_ARGS`, and the items inside the functions of :data:`_SHAPE_AT_PARSE`);
    None otherwise (an error of ``template validate``)."""
    if not found:
        return None
    for d in found:
        m = _ARGS_OF.match(d.message) if d.code == "function-args" else None
        if m is None or (m.group(1) or m.group(2)) not in _RESULT_TIME_ARGS | _SHAPE_AT_PARSE:
            return None
    if not _heat_parses(raw, version):
        return None
    return found[0]


def _heat_parses(raw: Any, version: TemplateVersion) -> bool:
    """Whether Heat's parse of ``raw`` (an output's value) passes the argument checks its function classes make
    when they are built: ``str_split`` refuses a string or a map as its whole argument, ``list_join`` anything
    but a list of two (from 2015-10-15: at least two), ``str_replace*`` anything but a map with ``template``
    and ``params`` (a map or a call), ``filter``/``contains`` anything but a list of two, ``Fn::Replace``
    anything but a list of a map (or a call) and one more item."""
    if isinstance(raw, list):
        return all(_heat_parses(v, version) for v in raw)
    if not isinstance(raw, dict):
        return True
    if len(raw) == 1:
        ((fn, arg),) = raw.items()
        if fn == "str_split" and isinstance(arg, (str, dict)):
            return False
        if fn == "list_join":
            multi = at_least(version, "2015-10-15")
            if not isinstance(arg, list) or (len(arg) < 2 if multi else len(arg) != 2):
                return False
        if fn in ("str_replace", "str_replace_strict", "str_replace_vstrict"):
            if not isinstance(arg, dict) or "template" not in arg or "params" not in arg:
                return False
            params = arg["params"]
            if not isinstance(params, dict):
                return False
        if fn in ("filter", "contains") and (not isinstance(arg, list) or len(arg) != 2):
            return False
        # Fn::Replace: a list of two whose first is a map (or a call); the template's type is result-time
        if fn == "Fn::Replace" and (
            not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], dict)
        ):
            return False
    return all(_heat_parses(v, version) for v in raw.values())


def _output_error_text(d: Diagnostic | None) -> str | None:
    """The error a deferred output carries: Heat's own words where they are known (str_split's count)."""
    if d is None:
        return None
    if d.message.startswith('invalid arguments to "str_split": too few arguments'):
        return _HEAT_STR_SPLIT
    return d.message


# ------------------------------------------------------------------------------------------ public


def parse_template(data: Any, file: str) -> tuple[Template | None, list[Diagnostic]]:
    """Build and check the Template IR from :func:`~hotc.parser.yamlload.load_document` output.

    Returns None (with errors) only when the version is unusable; otherwise a Template that leaves out
    the parts that had errors, plus every diagnostic."""
    if not isinstance(data, dict):
        return None, [
            error("the template must be a mapping at the top level", Pos(file, 1, 1), code="structure")
        ]
    p = _Parser(data, file)
    version = p.version()
    if version is None:
        return None, p.diags
    p.sections(version)
    desc = data.get("description")
    if desc is not None and not isinstance(desc, str):
        p.warn(
            f"the template description should be a string, not a {_kind(desc)}",
            _val_pos(data, "description", None),
        )
    psec, ppos = p.section("parameters")
    default_diags: list[Diagnostic] = []
    params, pd = parse_parameters(psec, version, ppos, default_diags)
    p.diags.extend(pd)
    # a template resource's template: the parent's validate reads the parameter definitions, not the defaults
    p.interface.extend(d for d in pd if not any(d is x for x in default_diags))
    gsec, gpos = p.section("parameter_groups")
    # parameters with broken definitions are still names the groups may list
    all_names = frozenset(psec) if isinstance(psec, dict) else frozenset(params)
    groups, gd = parse_parameter_groups(
        gsec, params, gpos, all_names=all_names | frozenset(PSEUDO_PARAMETERS)
    )
    p.diags.extend(gd)
    conditions = p.conditions(version)
    resources = p.resources(version)
    outputs = p.outputs(version)
    if len(resources) > MAX_RESOURCES_PER_STACK:
        p.warn(
            f"the template has {len(resources)} resources; Heat's default max_resources_per_stack is "
            f"{MAX_RESOURCES_PER_STACK} and a stock Heat refuses more",
            _val_pos(data, "resources", None),
            code="limit",
        )
    t = Template(
        path=file,
        version=version,
        description=desc if isinstance(desc, str) else None,
        parameter_groups=groups,
        parameters=params,
        conditions=conditions,
        resources=resources,
        outputs=outputs,
        pos=p.top,
        property_diagnostics=p.property_diags,
        interface_diagnostics=tuple(p.interface),
    )
    check_references(t, p.diags)
    return t, p.diags


__all__ = ["parse_template", "check_references", "find_cycles"]
