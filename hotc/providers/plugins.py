"""Resource-type plugins: installed packages that add resource types, as Heat's ``heat.engine.resources``
entry points with ``resource_mapping()`` do.

A plugin declares an entry point in the group ``hotc.resource_types`` whose object is a callable returning
an iterable of :class:`PluginType` (a schema in the same declarative DSL as the built-in types, and a driver
with create/read/update/delete and optional suspend/resume/check/import hooks)::

    [project.entry-points."hotc.resource_types"]
    example = "hotc_example_plugin:resource_types"

hotc's own types are registered through the same group (``builtin = "hotc.providers.builtin:resource_types"``
in hotc's pyproject), so a plugin is a first-class citizen: ``hotc types list`` shows every type and where it
came from. A plugin that cannot be imported, returns something else, or declares a type that another source
already declares is an error naming the package and entry point; it never switches validation off.

Plugins are loaded once per process, at the first look-up of a type that hotc itself does not have (or by
``hotc types``), so a template of built-in types does not pay for scanning installed packages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hotc import __version__
from hotc.errors import HotcError
from hotc.model import model
from hotc.providers.base import PluginType, ResourceType
from hotc.values import MISSING

if (
    TYPE_CHECKING
):  # importlib.metadata (with email, zipfile, csv) is imported when the plugins are first looked up
    from importlib import metadata

ENTRY_POINT_GROUP = "hotc.resource_types"
BUILTIN_ENTRY_POINT = "hotc.providers.builtin:resource_types"


@model
class TypeSource:
    """Where a type came from: ``hotc (built-in)`` or ``DIST VERSION (entry point NAME = VALUE)``."""

    distribution: str
    version: str
    entry_point: str  # NAME = VALUE

    def __str__(self) -> str:
        if self.entry_point.endswith(BUILTIN_ENTRY_POINT):
            return f"{self.distribution} {self.version} (built-in)"
        return f"{self.distribution} {self.version} (entry point {self.entry_point})"


@model
class LoadedType:
    type: PluginType
    source: TypeSource


def _dist_of(ep: metadata.EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return ("unknown package", "")
    return (str(dist.metadata["Name"]), str(dist.version))


def _load_entry_point(ep: metadata.EntryPoint) -> list[PluginType]:
    name, version = _dist_of(ep)
    where = f"the resource-type plugin {name} {version} (entry point {ep.name} = {ep.value})"
    try:
        factory = ep.load()
    except Exception as exc:  # an import error of any kind in third-party code
        raise HotcError(f"{where} could not be loaded: {type(exc).__name__}: {exc}") from exc
    if not callable(factory):
        raise HotcError(f"{where} is not callable: it must name a function returning PluginType objects")
    try:
        items = list(factory())
    except Exception as exc:
        raise HotcError(f"{where} failed while listing its types: {type(exc).__name__}: {exc}") from exc
    out: list[PluginType] = []
    for item in items:
        if not isinstance(item, PluginType) or not isinstance(item.schema, ResourceType):
            raise HotcError(
                f"{where} returned {item!r}; it must return hotc.providers.plugins.PluginType objects"
            )
        if "::" not in item.schema.name:
            raise HotcError(
                f"{where} declares the type {item.schema.name!r}; type names look like 'Vendor::Service::Thing'"
            )
        out.append(item)
    return out


def discover(
    entry_points: Callable[[], Iterable[metadata.EntryPoint]] | None = None,
    builtin: Callable[[], Iterable[PluginType]] | None = None,
) -> Mapping[str, LoadedType]:
    """Every type of every installed plugin, hotc's built-ins included, by name. ``entry_points`` and
    ``builtin`` are for tests; by default the installed packages' entry points and hotc's built-ins (used
    directly when hotc runs from a checkout without its own entry point installed)."""
    # heavy: importlib.metadata (email, zipfile, csv) only when the plugins are first looked up
    from importlib import metadata

    eps = list(entry_points() if entry_points else metadata.entry_points(group=ENTRY_POINT_GROUP))
    table: dict[str, LoadedType] = {}
    have_builtin = any(ep.value == BUILTIN_ENTRY_POINT for ep in eps)
    sources: list[tuple[TypeSource, list[PluginType]]] = []
    if not have_builtin:
        # cycle: hotc.providers.builtin imports hotc.providers.registry, which imports this module
        from hotc.providers.builtin import resource_types

        items = list((builtin or resource_types)())
        sources.append((TypeSource("hotc", __version__, f"builtin = {BUILTIN_ENTRY_POINT}"), items))
    for ep in sorted(eps, key=lambda e: (e.value != BUILTIN_ENTRY_POINT, e.name)):
        name, version = _dist_of(ep)
        sources.append((TypeSource(name, version, f"{ep.name} = {ep.value}"), _load_entry_point(ep)))
    for source, items in sources:
        for item in items:
            prior = table.get(item.schema.name)
            if prior is not None:
                raise HotcError(
                    f"resource type {item.schema.name} is declared by {source} and by {prior.source}; "
                    "uninstall one of the packages"
                )
            table[item.schema.name] = LoadedType(item, source)
    return table


class PluginRegistry:
    """The process's plugin table, loaded once on first use (thread-safe)."""

    def __init__(self, loader: Callable[[], Mapping[str, LoadedType]] = discover) -> None:
        self._loader = loader
        self._table: Mapping[str, LoadedType] | None = None
        self._lock = threading.Lock()

    def table(self) -> Mapping[str, LoadedType]:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    self._table = self._loader()
        return self._table

    def get(self, type_name: str) -> LoadedType | None:
        return self.table().get(type_name)


def describe_type(entry: LoadedType, apply_problem: str | None) -> dict[str, Any]:
    """What ``hotc types show`` prints: Heat's ``resource type show`` content, with where it came from."""
    rt = entry.type.schema

    def prop(p: Any) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": p.type,
            "required": p.required,
            "update_allowed": p.update_allowed,
            "immutable": p.immutable,
        }
        if p.default is not MISSING:
            out["default"] = p.default
        if p.description:
            out["description"] = p.description
        if p.constraints:
            out["constraints"] = [{c.kind: c.spec} for c in p.constraints]
        if getattr(p, "sensitive", False):
            out["sensitive"] = True  # a secret whatever it is derived from (a Barbican secret's payload)
        return out

    return {
        "resource_type": rt.name,
        "source": str(entry.source),
        "support": rt.support,
        "apply": "supported"
        if entry.type.driver is not None
        else f"refused: {entry.type.unsupported_reason}",
        "description": rt.description,
        "properties": {k: prop(p) for k, p in sorted(rt.properties.items())},
        "attributes": {
            k: {"description": a.description, "type": a.type, **({"sensitive": True} if a.sensitive else {})}
            for k, a in sorted(rt.attributes.items())
        },
    }
