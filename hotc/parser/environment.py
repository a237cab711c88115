"""Environment files, their merging, and resource-type resolution, with Heat's semantics.

- :func:`parse_environment` checks one decoded environment file (sections ``parameters``,
  ``parameter_defaults``, ``resource_registry``, ``encrypted_param_names``, ``event_sinks``,
  ``parameter_merge_strategies``; an unknown or null section is an error, as in Heat) and makes template
  paths in its ``resource_registry`` absolute, relative to the file (or to its ``base_url``), as heatclient
  does before sending them.
- :func:`merge_environments` merges several ``-e`` files in order as Heat's server does
  (``environment_util.merge_environments``): parameters and parameter_defaults per parameter with the merge
  strategies (``overwrite``/``merge``/``deep_merge``; conflicting strategies are an error); every other
  section shallowly (a later file's top-level registry key replaces the earlier one, null values in a later
  file are ignored).
- :class:`Registry` resolves a resource's ``type`` as Heat's ``ResourceRegistry.get_resource_info`` does:
  user entries before Heat's global environment, longer (more specific) paths first, so a
  ``resources: {name: {type: impl}}`` override beats a top-level alias, which beats a glob; aliases are
  followed; a type ending in ``.yaml``/``.template`` is a template resource; ``OS::Heat::None`` means nothing
  is created. Heat's stock global environment (``etc/heat/environment.d/default.yaml``) is built in as
  :data:`GLOBAL_REGISTRY`.
- Hooks (breakpoints) are accepted and checked, then ignored: hotc has no breakpoints.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

import yaml

from hotc.errors import Diagnostic, Pos, error, warning
from hotc.model import model
from hotc.parser import resource_types
from hotc.parser.yamlload import PosDict, kind_of, pos_of

SECTIONS = (
    "parameters",
    "parameter_defaults",
    "resource_registry",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)
MERGE_STRATEGIES = ("overwrite", "merge", "deep_merge")
HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete")
RESTRICTED_ACTIONS = ("update", "replace")
TEMPLATE_SUFFIXES = (".yaml", ".template")
NONE_TYPE = "OS::Heat::None"
EVENT_SINK_TYPES = ("zaqar-queue",)  # Heat's setup.cfg heat.event_sinks

#: Heat's stock global environment (``etc/heat/environment.d/default.yaml`` in openstack/heat), as data.
#: Old names kept working by the service: Quantum is Neutron's old name, the Ceilometer/Metering alarms
#: moved to Aodh. Two entries point at provider templates that ship with the Heat service itself
#: (see :data:`SERVICE_TEMPLATES`).
GLOBAL_REGISTRY: dict[str, str] = {
    "OS::Quantum*": "OS::Neutron*",
    "OS::Metering::Alarm": "OS::Aodh::Alarm",
    "OS::Ceilometer::Alarm": "OS::Aodh::Alarm",
    "OS::Ceilometer::GnocchiResourcesAlarm": "OS::Aodh::GnocchiResourcesAlarm",
    "OS::Ceilometer::GnocchiAggregationByMetricsAlarm": "OS::Aodh::GnocchiAggregationByMetricsAlarm",
    "OS::Ceilometer::GnocchiAggregationByResourcesAlarm": "OS::Aodh::GnocchiAggregationByResourcesAlarm",
    "OS::Ceilometer::CombinationAlarm": "OS::Aodh::CombinationAlarm",
}
#: types the global environment implements with templates installed next to the Heat service
#: (``/etc/heat/templates/*.yaml``): valid in Heat, but hotc cannot read them offline.
SERVICE_TEMPLATES: dict[str, str] = {
    "AWS::CloudWatch::Alarm": "/etc/heat/templates/AWS_CloudWatch_Alarm.yaml",
    "AWS::RDS::DBInstance": "/etc/heat/templates/AWS_RDS_DBInstance.yaml",
}


def is_template_name(name: str) -> bool:
    return name.endswith(TEMPLATE_SUFFIXES)


def is_url(name: str) -> bool:
    return "://" in name and not name.startswith("file://")


def local_path(name: str) -> str:
    """A ``file://`` URL or a path -> a path."""
    if name.startswith("file://"):
        return name[len("file://") :]
    return name


def resolve_path(name: str, base_dir: str) -> str:
    """``name`` (relative, absolute or a file:// URL) made absolute against ``base_dir``; other URLs as is."""
    if is_url(name):
        return name
    p = local_path(name)
    if not os.path.isabs(p):
        p = os.path.join(base_dir, p)
    return os.path.normpath(p)


# ------------------------------------------------------------------------------------------ data model


@model(slots=True)
class RegistryEntry:
    """One ``resource_registry`` mapping.

    ``path``: ``("OS::Foo",)`` at the top level or ``("resources", "my_server", "OS::Foo")`` for a per-resource
    override. ``kind``: ``map`` (alias), ``glob`` (key ends in ``*``), ``template`` (template file; ``value``
    is then an absolute path or URL). ``user``: from an environment file (False: Heat's global environment).
    """

    path: tuple[str, ...]
    value: str
    kind: str
    user: bool = True
    pos: Pos | None = None

    @property
    def name(self) -> str:
        return self.path[-1]

    def sort_key(self) -> tuple[int, int, tuple[str, ...]]:
        return (0 if self.user else 1, -len(self.path), self.path)

    def matches_glob(self, type_name: str) -> bool:
        return type_name != self.value and type_name.startswith(self.name[:-1])


def _entry_kind(name: str, value: str) -> str:
    if is_template_name(name) or is_template_name(value):
        return "template"
    if name.endswith("*"):
        return "glob"
    return "map"


@model
class EnvironmentFile:
    """One parsed environment file (registry template paths already absolute)."""

    path: str
    data: Mapping[str, Any]  # the sections, as decoded (PosDicts)
    pos: Pos | None = None


@model
class Environment:
    """The merged environment of a stack."""

    parameters: Mapping[str, Any] = field(default_factory=dict)
    parameter_defaults: Mapping[str, Any] = field(default_factory=dict)
    registry: Registry = field(default_factory=lambda: Registry(()))
    event_sinks: tuple[Any, ...] = ()
    encrypted_param_names: tuple[str, ...] = ()
    parameter_merge_strategies: Mapping[str, str] = field(default_factory=dict)
    # where each value of ``parameters`` / ``parameter_defaults`` came from (for error positions)
    parameter_pos: Mapping[str, Pos] = field(default_factory=dict)
    default_pos: Mapping[str, Pos] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # the environment files, in order

    def child(self, resource_name: str | None, remove: RegistryEntry | None = None) -> Environment:
        """The environment of a nested stack (Heat's ``get_child_environment``): parameter_defaults and the
        registry are inherited, ``parameters`` are not (the parent resource's properties feed them); the
        entry that mapped the parent resource to its template is removed (so a template that implements
        ``OS::Nova::Server`` may itself use the real ``OS::Nova::Server``), and per-resource overrides are
        scoped to the parent resource's name."""
        return Environment(
            parameters={},
            parameter_defaults=self.parameter_defaults,
            registry=self.registry.child(resource_name, remove),
            event_sinks=self.event_sinks,
            encrypted_param_names=self.encrypted_param_names,
            parameter_merge_strategies=self.parameter_merge_strategies,
            parameter_pos={},
            default_pos=self.default_pos,
            files=self.files,
        )


@model
class Resolution:
    """Where a resource type leads: ``builtin`` (``type_name`` is a Heat type), ``template`` (``template`` is
    an absolute path or URL), ``none`` (OS::Heat::None: nothing is created), or ``service_template`` (a
    template only the Heat service has). ``entry`` is the registry entry that chose a template (removed in
    the nested stack's environment)."""

    kind: str
    type_name: str
    template: str | None = None
    entry: RegistryEntry | None = None
    chain: tuple[str, ...] = ()


class TypeNotFound(Exception):
    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.message = message


class Registry:
    """User registry entries (in load order, Heat semantics) over Heat's global environment."""

    def __init__(
        self,
        entries: tuple[RegistryEntry, ...],
        resources: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.entries = entries
        # per-resource settings: name pattern -> {"hooks": ..., "restricted_actions": ..., nested dicts}
        self.resources: Mapping[str, Mapping[str, Any]] = resources or {}
        self._top: dict[str, RegistryEntry] = {}
        self._per_resource: dict[str, dict[str, RegistryEntry]] = {}
        self._globs: list[RegistryEntry] = []
        self._memo: dict[tuple[str, str | None, Any], Resolution | TypeNotFound] = {}
        for e in entries:
            if len(e.path) == 1:
                self._top[e.name] = e
                if e.kind == "glob":
                    self._globs.append(e)
            elif len(e.path) == 3 and e.path[0] == "resources":
                self._per_resource.setdefault(e.path[1], {})[e.name] = e

    def child(self, resource_name: str | None, remove: RegistryEntry | None) -> Registry:
        entries = [e for e in self.entries if e != remove and len(e.path) == 1]
        resources: dict[str, Any] = {}
        if resource_name is not None:
            # Heat's remove_resources_except: the nested stack sees the settings of every pattern matching
            # the parent resource's name, flattened one level
            merged: dict[str, Any] = {}
            for pattern, body in self.resources.items():
                if fnmatch.fnmatchcase(resource_name, pattern) and isinstance(body, Mapping):
                    merged.update(body)
            if resource_name in self.resources and isinstance(self.resources[resource_name], Mapping):
                merged.update(self.resources[resource_name])
            for name, body in merged.items():
                if isinstance(body, Mapping):
                    resources[name] = body
                    for k, v in body.items():
                        if isinstance(v, str) and k not in ("hooks", "restricted_actions", "base_url"):
                            entries.append(
                                RegistryEntry(("resources", name, k), v, _entry_kind(k, v), True, None)
                            )
        return Registry(tuple(entries), resources)

    def _candidates(self, type_name: str, resource_name: str | None) -> list[RegistryEntry]:
        out: list[RegistryEntry] = []
        if is_template_name(type_name):
            out.append(RegistryEntry((type_name,), type_name, "template", True))
        if resource_name is not None:
            per = self._per_resource.get(resource_name)
            if per and type_name in per:
                out.append(per[type_name])
        top = self._top.get(type_name)
        if top is not None and top.kind != "glob":
            out.append(top)
        elif top is not None and top.kind == "glob" and top.matches_glob(type_name):
            out.append(top)
        for g in self._globs:
            if g is not top and g.matches_glob(type_name):
                out.append(g)
        # Heat's global environment: its aliases, then the built-in plugins
        if type_name in GLOBAL_REGISTRY:
            out.append(RegistryEntry((type_name,), GLOBAL_REGISTRY[type_name], "map", False))
        for gk, gv in GLOBAL_REGISTRY.items():
            if gk.endswith("*"):
                ge = RegistryEntry((gk,), gv, "glob", False)
                if ge.matches_glob(type_name):
                    out.append(ge)
        return sorted(out, key=RegistryEntry.sort_key)

    def resolve(
        self,
        type_name: str,
        resource_name: str | None = None,
        known: Callable[[str], bool] | None = None,
    ) -> Resolution:
        """How ``type_name`` (of resource ``resource_name``) resolves; raises :class:`TypeNotFound`.
        ``known`` says which names besides Heat's own types are provider types (installed resource-type
        plugins; injected by the caller, the parser knows no provider).

        Answers are memoised per registry (resource names only matter when a per-resource entry exists)."""
        rn = resource_name if resource_name in self._per_resource else None
        key = (type_name, rn, known)
        hit = self._memo.get(key)
        if hit is None:
            try:
                hit = self._resolve(type_name, rn, (type_name,), known)
            except TypeNotFound as exc:
                hit = exc
            self._memo[key] = hit
        if isinstance(hit, TypeNotFound):
            raise hit
        return hit

    def _resolve(
        self,
        type_name: str,
        resource_name: str | None,
        chain: tuple[str, ...],
        known: Callable[[str], bool] | None = None,
    ) -> Resolution:
        if len(chain) > 20:
            raise TypeNotFound(
                chain[0], "resource_registry aliases loop: " + " -> ".join(chain[:8]) + " -> ..."
            )
        for entry in self._candidates(type_name, resource_name):
            if entry.kind == "template":
                target = entry.name if is_template_name(entry.name) else entry.value
                return Resolution("template", chain[0], target, entry, chain)
            if entry.kind == "glob":
                prefix = entry.name[:-1]
                new = (
                    entry.value[:-1] + type_name[len(prefix) :] if entry.value.endswith("*") else entry.value
                )
            else:
                new = entry.value
            if new in chain:
                raise TypeNotFound(chain[0], "resource_registry aliases loop: " + " -> ".join((*chain, new)))
            try:
                return self._resolve(new, resource_name, (*chain, new), known)
            except TypeNotFound as exc:
                if "loop" in exc.message:
                    raise
                continue
        if type_name == NONE_TYPE:
            return Resolution("none", type_name, chain=chain)
        if type_name in SERVICE_TEMPLATES:
            return Resolution("service_template", type_name, SERVICE_TEMPLATES[type_name], chain=chain)
        if resource_types.is_known(type_name) or (known is not None and known(type_name)):
            return Resolution("builtin", type_name, chain=chain)
        raise TypeNotFound(chain[0], resource_types.not_found_message(type_name))

    def hooks_for(self, resource_name: str) -> tuple[str, ...]:
        out: list[str] = []
        for pattern, body in self.resources.items():
            if isinstance(body, Mapping) and fnmatch.fnmatchcase(resource_name, pattern) and "hooks" in body:
                h = body["hooks"]
                out.extend([h] if isinstance(h, str) else list(h))
        return tuple(out)

    def restricted_actions(self, resource_name: str) -> frozenset[str]:
        """``restricted_actions`` set for ``resource_name`` (patterns matched with fnmatch, as Heat does)."""
        out: set[str] = set()
        for pattern, body in self.resources.items():
            if isinstance(body, Mapping) and fnmatch.fnmatchcase(resource_name, pattern):
                acts = body.get("restricted_actions")
                if isinstance(acts, str):
                    out.add(acts)
                elif isinstance(acts, list):
                    out.update(str(a) for a in acts)
        return frozenset(out)


# ------------------------------------------------------------------------------------------- parsing


_kind = kind_of


def _rewrite_registry(rr: Any, base: str, file: str, diags: list[Diagnostic], top: bool = True) -> Any:
    """Template paths in a registry mapping made absolute (heatclient's ``resolve_environment_urls``)."""
    if not isinstance(rr, dict):
        return rr
    out = PosDict()
    if isinstance(rr, PosDict):
        out.pos = rr.pos
        out.key_pos = dict(rr.key_pos)
        out.value_pos = dict(rr.value_pos)
    b = rr.get("base_url")
    here = base
    if isinstance(b, str):
        here = resolve_path(b, base) if not is_url(b) else b
    for k, v in rr.items():
        if k == "base_url":
            continue
        if isinstance(v, dict):
            if top and k == "resources":
                res = PosDict()
                if isinstance(v, PosDict):
                    res.pos, res.key_pos, res.value_pos = v.pos, dict(v.key_pos), dict(v.value_pos)
                for rn, rb in v.items():
                    res[rn] = _rewrite_registry(rb, here, file, diags, top=False)
                out[k] = res
            else:
                out[k] = _rewrite_registry(v, here, file, diags, top=False)
            continue
        if isinstance(v, str) and k not in ("hooks", "restricted_actions") and "::" not in v:
            if is_template_name(v) or is_template_name(str(k)):
                out[k] = resolve_path(v, here) if not is_url(v) else v
                continue
        out[k] = v
    return out


def parse_environment(data: Any, file: str) -> tuple[EnvironmentFile | None, list[Diagnostic]]:
    """Check one decoded environment file and make its registry paths absolute."""
    start = Pos(file, 1, 1)
    diags: list[Diagnostic] = []
    if not isinstance(data, dict):
        return None, [
            error("The environment is not a valid YAML mapping data type.", start, code="environment")
        ]
    ok = True
    for key in data:
        kpos = data.pos_of_key(key) if isinstance(data, PosDict) else start
        if key not in SECTIONS:
            hint = ""
            if key in ("resources", "parameter", "defaults"):
                hint = " (resources go under resource_registry:)" if key == "resources" else ""
            diags.append(
                error(
                    f'environment has wrong section "{key}"{hint}; valid sections are: '
                    + ", ".join(SECTIONS),
                    kpos,
                    code="environment",
                )
            )
            ok = False
        elif data[key] is None:
            diags.append(
                error(
                    f'environment has empty section "{key}": remove it or give it content',
                    kpos,
                    code="environment",
                )
            )
            ok = False
    for sec in ("parameters", "parameter_defaults", "resource_registry", "parameter_merge_strategies"):
        v = data.get(sec)
        if v is not None and not isinstance(v, dict):
            diags.append(
                error(
                    f"environment section {sec} must be a mapping, not a {_kind(v)}",
                    pos_of(data, sec) or start,
                    code="environment",
                )
            )
            ok = False
    for sec in ("encrypted_param_names", "event_sinks"):
        v = data.get(sec)
        if v is not None and not isinstance(v, list):
            diags.append(
                error(
                    f"environment section {sec} must be a list, not a {_kind(v)}",
                    pos_of(data, sec) or start,
                    code="environment",
                )
            )
            ok = False
    sinks = data.get("event_sinks")
    if isinstance(sinks, list):
        for i, s in enumerate(sinks):
            spos = pos_of(sinks, i) or start
            if not isinstance(s, dict) or "type" not in s:
                diags.append(
                    error(
                        "each event sink must be a mapping with a type (e.g. zaqar-queue)",
                        spos,
                        code="environment",
                    )
                )
                ok = False
            elif s.get("type") not in EVENT_SINK_TYPES:
                diags.append(
                    warning(
                        f"event sink type {s.get('type')!r} is not one Heat ships ({', '.join(EVENT_SINK_TYPES)}); "
                        "hotc records event sinks but does not send events to them",
                        spos,
                        code="environment",
                    )
                )
    strategies = data.get("parameter_merge_strategies")
    if isinstance(strategies, dict):
        for k, v in strategies.items():
            if v not in MERGE_STRATEGIES:
                diags.append(
                    warning(
                        f"parameter_merge_strategies: {k}: unknown strategy {v!r}; Heat falls back to the default "
                        f"({', '.join(MERGE_STRATEGIES)} are valid)",
                        pos_of(strategies, k) or start,
                        code="environment",
                    )
                )
    rr = data.get("resource_registry")
    if isinstance(rr, dict):
        diags.extend(_check_registry(rr, file))
    if not ok:
        return None, diags
    base = os.path.dirname(os.path.abspath(file))
    out = PosDict()
    if isinstance(data, PosDict):
        out.pos, out.key_pos, out.value_pos = data.pos, dict(data.key_pos), dict(data.value_pos)
    for k, v in data.items():
        out[k] = _rewrite_registry(v, base, file, diags) if k == "resource_registry" else v
    return EnvironmentFile(os.path.abspath(file), out, start), diags


def _check_registry(rr: Mapping[str, Any], file: str, depth: int = 0) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    start = Pos(file, 1, 1)
    for k, v in rr.items():
        kpos = pos_of(rr, k) or start
        if k == "hooks":
            vals = [v] if isinstance(v, str) else v if isinstance(v, list) else None
            if vals is None or not all(h in HOOK_TYPES for h in vals):
                diags.append(
                    error(
                        f'Invalid hook type "{v}" for resource breakpoint, acceptable hook types are: '
                        + ", ".join(HOOK_TYPES),
                        kpos,
                        code="environment",
                    )
                )
            continue  # valid: the apply pauses at them (hotc.planner.hooks)
        if k == "restricted_actions":
            vals = [v] if isinstance(v, str) else v if isinstance(v, list) else None
            if vals is None or not all(a in RESTRICTED_ACTIONS for a in vals):
                diags.append(
                    error(
                        f'Invalid restricted_action type "{v}" for resource, acceptable restricted_action types '
                        "are: " + ", ".join(RESTRICTED_ACTIONS),
                        kpos,
                        code="environment",
                    )
                )
            continue
        if isinstance(v, dict):
            if depth == 0 and k != "resources":
                diags.append(
                    error(
                        f"resource_registry: {k!r} maps to a mapping; only 'resources' holds per-resource "
                        "settings (a type maps to a type name or a template file)",
                        kpos,
                        code="environment",
                    )
                )
                continue
            diags.extend(_check_registry(v, file, depth + 1))
            continue
        if v is not None and not isinstance(v, str):
            diags.append(
                error(
                    f"resource_registry: {k}: the mapping must be a type name or a template file, not a {_kind(v)}",
                    kpos,
                    code="environment",
                )
            )
    return diags


# --------------------------------------------------------------------------------------------- merging


def _merge_list(old: Any, new: Any) -> Any:
    """Heat's ``merge_list``: lists extend, comma-delimited strings join; a list and a string do not mix."""
    if not old:
        return new
    if isinstance(new, list):
        if not isinstance(old, list):
            raise TypeError(f"cannot extend {_shown(old)} with a list")
        return list(old) + list(new)
    if not isinstance(old, str) or not isinstance(new, str):
        raise TypeError(f"cannot join {_shown(old)} and {_shown(new)}")
    return ",".join([old, new])


def _shown(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else repr(v)


def _merge_map(old: Any, new: Mapping[str, Any], deep: bool = False) -> Any:
    if not old:
        return dict(new)
    out = dict(old)
    for k, v in new.items():
        if v is None:
            continue
        if not deep:
            out[k] = v
        elif isinstance(v, Mapping):
            ov = out.get(k)
            out[k] = _merge_map(ov, v, True) if ov else v
        elif isinstance(v, list):
            ov = out.get(k)
            out[k] = _merge_list(ov, v) if ov else v
        elif isinstance(v, str):
            out[k] = str(out.get(k, "")) + v
        else:
            out[k] = v
    return out


def _merge_params(
    old: dict[str, Any],
    new: Mapping[str, Any],
    param_types: Mapping[str, str],
    strategies: Mapping[str, Any],
    chosen: dict[str, str],
    env_file: str,
    pos_map: dict[str, Pos],
    diags: list[Diagnostic],
    keep_undeclared: bool = False,
) -> dict[str, Any]:
    # Heat's get_param_merge_strategy: an unknown strategy falls back to the file's default, even an unknown
    # one (which then merges as overwrite, but conflicts with any other)
    default = str(strategies.get("default", "overwrite")) if strategies else "overwrite"
    for key, value in new.items():
        if key in param_types and value is not None:
            s = strategies.get(key, chosen.get(key, default)) if strategies else chosen.get(key, default)
            if s not in MERGE_STRATEGIES:
                s = default
            if key not in chosen:
                chosen[key] = s
            elif s != chosen[key]:
                diags.append(
                    error(
                        f"Conflicting merge strategy '{s}' for parameter '{key}' in file '{env_file}': an earlier "
                        f"environment file uses '{chosen[key]}'",
                        pos_of(new, key) or Pos(env_file, 1, 1),
                        code="environment",
                    )
                )
    for key in new:
        p = pos_of(new, key)
        if p is not None and (not old or key in param_types):
            pos_map[key] = p
    if not old:
        return dict(new)
    out = dict(old)
    for key, value in new.items():
        if value is None:
            continue
        if key not in param_types:
            if keep_undeclared:
                # parameter_defaults may be meant for nested templates (Heat merges over every template's
                # parameters); their types are not known here, so they overwrite
                out[key] = value
                pos_map[key] = pos_of(new, key) or pos_map.get(key) or Pos(env_file, 1, 1)
            continue
        s = chosen.get(key, "overwrite")
        if s not in ("merge", "deep_merge"):
            out[key] = value
            continue
        ptype = param_types[key]
        try:
            # Heat's parse_param and param_merge: a json value is read as JSON; any other must be a string or a
            # list (a number merges only as text, which Heat then fails to add)
            if ptype == "json":
                pv = json.loads(value if isinstance(value, str) else json.dumps(value)) if value else value
                out[key] = _merge_map(out.get(key, {}), pv, deep=(s == "deep_merge"))
            elif not isinstance(value, (str, list)):
                raise ValueError(f"{_shown(value)} is not a string or a list")
            elif ptype == "comma_delimited_list":
                out[key] = _merge_list(out.get(key), value)
            elif ptype == "string":
                old_s = out.get(key, "")
                if not isinstance(old_s, str) or not isinstance(value, str):
                    raise TypeError(f"cannot join {_shown(old_s)} and {_shown(value)}")
                out[key] = old_s + value
            elif ptype == "number":
                out[key] = out.get(key, 0) + value
            else:
                diags.append(
                    error(
                        f"Invalid merge strategy '{s}' for parameter '{key}' of type {ptype}",
                        pos_of(new, key) or Pos(env_file, 1, 1),
                        code="environment",
                    )
                )
        except (ValueError, TypeError, RecursionError) as exc:
            diags.append(
                error(
                    f"Invalid parameter in environment {exc}: cannot {s} '{key}'",
                    pos_of(new, key) or Pos(env_file, 1, 1),
                    code="environment",
                )
            )
    return out


def merge_environments(
    files: list[EnvironmentFile], param_types: Mapping[str, str]
) -> tuple[Environment, list[Diagnostic]]:
    """Merge environment files in order, as Heat's server does (see the module doc).

    ``param_types``: declared parameter name -> type, over the template and its nested templates (Heat
    merges only values of parameters some template declares, once a value exists)."""
    diags: list[Diagnostic] = []
    merged: dict[str, Any] = {"parameters": {}, "parameter_defaults": {}, "resource_registry": {}}
    chosen: dict[str, str] = {}
    ppos: dict[str, Pos] = {}
    dpos: dict[str, Pos] = {}
    strategies_all: dict[str, str] = {}
    for ef in files:
        data = dict(ef.data)
        strategies = data.pop("parameter_merge_strategies", None) or {}
        strategies_all.update({str(k): str(v) for k, v in strategies.items()})
        for sec, val in data.items():
            if not val:
                continue
            if sec in ("parameters", "parameter_defaults"):
                merged[sec] = _merge_params(
                    merged[sec],
                    val,
                    param_types,
                    strategies,
                    chosen,
                    ef.path,
                    ppos if sec == "parameters" else dpos,
                    diags,
                    keep_undeclared=(sec == "parameter_defaults"),
                )
            elif sec == "resource_registry":
                merged[sec] = _merge_map(merged[sec], val)
            else:
                merged[sec] = val  # event_sinks, encrypted_param_names: a later file's list replaces
    registry = load_registry(merged["resource_registry"])
    env = Environment(
        parameters=merged["parameters"],
        parameter_defaults=merged["parameter_defaults"],
        registry=registry,
        event_sinks=tuple(merged.get("event_sinks") or ()),
        encrypted_param_names=tuple(str(x) for x in merged.get("encrypted_param_names") or ()),
        parameter_merge_strategies=strategies_all,
        parameter_pos=ppos,
        default_pos=dpos,
        files=tuple(f.path for f in files),
    )
    return env, diags


def load_registry(rr: Mapping[str, Any]) -> Registry:
    """A merged ``resource_registry`` mapping -> :class:`Registry` (Heat's ``_load_registry``: a null value
    removes an earlier user entry, a null glob every user entry with its prefix)."""
    entries: dict[tuple[str, ...], RegistryEntry] = {}
    resources: dict[str, Any] = {}

    def load(path: tuple[str, ...], reg: Mapping[str, Any]) -> None:
        for k, v in reg.items():
            p = (*path, str(k))
            if v is None:
                if str(k).endswith("*"):
                    prefix = str(k)[:-1]
                    for ep in [ep for ep in entries if ep[:-1] == path and ep[-1].startswith(prefix)]:
                        del entries[ep]
                else:
                    entries.pop(p, None)
            elif k in ("hooks", "restricted_actions"):
                continue
            elif isinstance(v, Mapping):
                load(p, v)
            elif isinstance(v, str):
                entries[p] = RegistryEntry(p, v, _entry_kind(str(k), v), True, pos_of(reg, k))

    load((), rr)
    res = rr.get("resources")
    if isinstance(res, Mapping):
        resources = {str(k): v for k, v in res.items() if isinstance(v, Mapping)}
    return Registry(tuple(entries.values()), resources)


def stored_registry(files: Mapping[str, str], environments: list[str]) -> Registry | None:
    """The merged ``resource_registry`` of environment files kept as text (the copies stored with a stack:
    ``files`` maps each relative path to its text, ``environments`` names them in load order); None when
    they set none, or one no longer parses (its settings are then not known)."""
    parsed: list[EnvironmentFile] = []
    for rel in environments:
        text = files.get(rel)
        if not isinstance(text, str):
            continue
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            return None
        ef, diags = parse_environment(data, rel)
        if ef is None or any(d.severity == "error" for d in diags):
            return None
        parsed.append(ef)
    if not parsed:
        return None
    env, _diags = merge_environments(parsed, {})
    return env.registry if env.registry.resources else None
