"""Where resource-type schemas are looked up by type name.

Schemas only: drivers are registered elsewhere (``hotc.providers`` driver modules). The built-in table is built
once, at import, from the namespace modules in :mod:`hotc.providers.schemas`, and is read-only afterwards.
A name it lacks is looked up in the installed resource-type plugins (:mod:`hotc.providers.plugins`), loaded
once per process on that first miss.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hotc.providers.base import ResourceType
from hotc.providers.plugins import PluginRegistry
from hotc.providers.schemas import (
    aodh,
    barbican,
    cinder,
    designate,
    glance,
    heat,
    keystone,
    manila,
    mistral,
    neutron,
    nova,
    octavia,
    swift,
)


def _build() -> Mapping[str, ResourceType]:
    table: dict[str, ResourceType] = {}
    for module in (
        nova,
        neutron,
        cinder,
        octavia,
        glance,
        swift,
        heat,
        keystone,
        aodh,
        barbican,
        mistral,
        manila,
        designate,
    ):
        for rtype in module.TYPES:
            if rtype.name in table:
                raise RuntimeError(f"resource type {rtype.name} declared twice")
            table[rtype.name] = rtype
    return MappingProxyType(table)


_SCHEMAS = _build()
#: the installed plugins, loaded on the first look-up of a name the built-in table lacks
PLUGINS = PluginRegistry()


def get_schema(type_name: str) -> ResourceType | None:
    """The schema of a resource type (e.g. ``OS::Nova::Server``), or None when hotc does not know the type
    (a template resource such as ``app.yaml`` or an environment alias is resolved by the caller first).
    Types of installed plugins are found too; a plugin that fails to load raises a HotcError naming it."""
    found = _SCHEMAS.get(type_name)
    if found is not None:
        return found
    if "::" not in type_name:
        return None  # a template file or a bad name: no plugin can declare it
    entry = PLUGINS.get(type_name)
    return entry.type.schema if entry is not None else None


def builtin_schemas() -> Mapping[str, ResourceType]:
    """The resource types hotc itself declares (read-only)."""
    return _SCHEMAS


def all_schemas() -> Mapping[str, ResourceType]:
    """Every known resource type by name, the plugins' included (read-only)."""
    return MappingProxyType({**_SCHEMAS, **{n: e.type.schema for n, e in PLUGINS.table().items()}})
