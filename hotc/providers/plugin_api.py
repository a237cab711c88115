"""What a resource-type plugin imports: the schema DSL, the driver protocol's data types and
:class:`PluginType`. A plugin package declares an entry point in the group ``hotc.resource_types`` naming a
function that returns ``PluginType`` objects (see :mod:`hotc.providers.plugins` and
``examples/plugins/hotc-example-file``). This module is the stable surface for plugins; the rest of
``hotc.providers`` may change between releases."""

from __future__ import annotations

from hotc.providers.base import (
    DELETE,
    SNAPSHOT,
    ActionContext,
    AttrSchema,
    Driver,
    Outcome,
    PluginType,
    PropConstraint,
    PropSchema,
    ResourceType,
)
from hotc.providers.plugins import ENTRY_POINT_GROUP
from hotc.providers.schemas._dsl import (
    allowed,
    any_,
    attrs,
    boolean,
    integer,
    length_,
    list_,
    map_,
    number,
    pattern,
    range_,
    string,
)

__all__ = [
    "DELETE",
    "ENTRY_POINT_GROUP",
    "SNAPSHOT",
    "ActionContext",
    "AttrSchema",
    "Driver",
    "Outcome",
    "PluginType",
    "PropConstraint",
    "PropSchema",
    "ResourceType",
    "allowed",
    "any_",
    "attrs",
    "boolean",
    "integer",
    "length_",
    "list_",
    "map_",
    "number",
    "pattern",
    "range_",
    "string",
]
