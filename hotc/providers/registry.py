"""Where resource-type schemas are looked up by type name.

Schemas only: drivers are registered elsewhere (``hotc.providers`` driver modules). The table is built once,
at import, from the namespace modules in :mod:`hotc.providers.schemas`, and is read-only afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hotc.providers.base import ResourceType
from hotc.providers.schemas import cinder, glance, heat, neutron, nova, octavia, swift


def _build() -> Mapping[str, ResourceType]:
    table: dict[str, ResourceType] = {}
    for module in (nova, neutron, cinder, octavia, glance, swift, heat):
        for rtype in module.TYPES:
            if rtype.name in table:
                raise RuntimeError(f"resource type {rtype.name} declared twice")
            table[rtype.name] = rtype
    return MappingProxyType(table)


_SCHEMAS = _build()


def get_schema(type_name: str) -> ResourceType | None:
    """The schema of a resource type (e.g. ``OS::Nova::Server``), or None when hotc does not know the type
    (a template resource such as ``app.yaml`` or an environment alias is resolved by the caller first)."""
    return _SCHEMAS.get(type_name)


def all_schemas() -> Mapping[str, ResourceType]:
    """Every known resource type by name (read-only)."""
    return _SCHEMAS
