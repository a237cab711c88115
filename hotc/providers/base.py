"""Resource-type schemas and the driver protocol (owned by ``hotc.providers``).

A resource type is declared once, as data: a :class:`ResourceType` with its properties (type, required,
default, constraints, ``update_allowed``, ``immutable``), attributes and type-specific replace rules.
``hotc.providers.registry`` maps type names to (schema, driver).

Drivers do I/O (openstacksdk, or in-process for Heat-native types); schemas are pure data used by the
front end (validation) and the planner (update vs replace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hotc.parser.ir import MISSING


@dataclass(frozen=True)
class PropConstraint:
    kind: str  # length | range | allowed_values | allowed_pattern | custom_constraint | modulo
    spec: Any
    description: str | None = None


@dataclass(frozen=True)
class PropSchema:
    type: str  # string | integer | number | boolean | list | map | any
    required: bool = False
    default: Any = MISSING
    update_allowed: bool = False
    immutable: bool = False
    constraints: tuple[PropConstraint, ...] = ()
    schema: Mapping[str, PropSchema] | None = None  # keys of a map (or of each list item when item is a map)
    item: PropSchema | None = None  # schema of list items
    set_like: bool = False  # a list Heat compares as a set (server networks, security group rules)
    description: str = ""


@dataclass(frozen=True)
class AttrSchema:
    description: str = ""
    type: str = "any"


# A replace rule looks at old and new resolved properties and returns property paths that force a
# replacement, with the reason (e.g. server user_data with user_data_update_policy REPLACE).
ReplaceRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]]


@dataclass(frozen=True)
class ResourceType:
    name: str
    properties: Mapping[str, PropSchema] = field(default_factory=dict)
    attributes: Mapping[str, AttrSchema] = field(default_factory=dict)
    replace_rules: tuple[ReplaceRule, ...] = ()
    service: str | None = None  # catalog service type the type needs (compute, network, …); None: in-process
    support: str = "supported"  # supported | deprecated | hidden (placeholder types that validate but do nothing)
    description: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a driver reports after an action."""

    physical_id: str | None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    properties: Mapping[str, Any] | None = None  # properties as applied, when the driver normalises them


@dataclass(frozen=True)
class ActionContext:
    """Passed to every driver call."""

    address: str
    type: str
    stack_name: str
    lineage: str
    timeout: float
    cloud: Callable[[], Any]  # returns an openstack.connection.Connection (lazily; in-process types never call it)
    record_physical_id: Callable[[str], None]  # call as soon as the cloud returns an id, before waiting
    tags: Mapping[str, str] = field(default_factory=dict)  # hotc-lineage / hotc-address to stamp on the resource
    log: Callable[[str], None] = lambda _msg: None


class Driver(Protocol):
    """Create/read/update/delete (and lifecycle) for one resource type. Every call is idempotent where the
    cloud allows: delete of a gone resource succeeds, read of a gone resource returns None."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome: ...

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None: ...

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome: ...

    def delete(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None: ...

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        """A physical id of a resource this stack created (by lineage+address tags) but never recorded."""
        ...
