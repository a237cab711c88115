"""Address-keyed resolvers: how the planner and the applier tell evaluation about resources.

Templates name resources relative to their own (nested) stack; the planner maps those names to addresses
(``web``, ``group[3]``, ``app.db``) and asks an :class:`AddressResolver` about *leaf* resources only.
Groups and nested stacks are answered by :class:`hotc.planner.desired.DesiredStack` itself (refs, outputs…).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from hotc.values import Unknown


class AddressResolver(Protocol):
    """Answers for one leaf resource, by address."""

    def resource_id(self, address: str) -> Any:
        """The physical id of the resource at ``address``, or an Unknown."""
        ...

    def resource_attr(self, address: str, attribute: str, path: tuple[Any, ...]) -> Any:
        """Attribute ``attribute`` (then ``path`` into it), or an Unknown. ``attribute == ""`` means all
        attributes as a map."""
        ...


def index_path(value: Any, path: tuple[Any, ...], unknown: Callable[[], Unknown]) -> Any:
    """Follow ``path`` into ``value`` like Heat's get_attr path (``attributes.select_from_attribute``): each
    step indexes a map, a list or a string with a string or an integer as Python does; a step that does not
    fit (a missing key, an index out of range, a string index into a list, an integer key into a map whose
    keys are strings) gives None. An Unknown stays Unknown."""
    for step in path:
        if isinstance(value, Unknown):
            return value
        if isinstance(step, Unknown):
            return step
        if not isinstance(value, Mapping | list | tuple | str) or not isinstance(step, str | int):
            return None
        container: Any = value
        try:
            value = container[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


class StateResolver:
    """Answers from recorded/live resource data keyed by address: ``ResourceState`` objects or plain maps
    with ``physical_id`` and ``attributes``. The mapping is read at each call, so an applier may keep
    updating it while it works. Anything absent is an :class:`Unknown` naming what it waits on."""

    def __init__(self, resources_by_address: Mapping[str, Any]) -> None:
        self._resources = resources_by_address

    def resource_id(self, address: str) -> Any:
        rs = self._resources.get(address)
        # the reference id: the physical id, or (ResourceState.reference_id) a RandomString's value
        pid = _field(rs, "reference_id", _field(rs, "physical_id")) if rs is not None else None
        return pid if pid is not None else Unknown.of(address)

    def resource_attr(self, address: str, attribute: str, path: tuple[Any, ...]) -> Any:
        rs = self._resources.get(address)
        unknown = Unknown.of(address, (attribute, *path) if attribute else tuple(path))
        if rs is None:
            return unknown
        attrs = _field(rs, "attributes") or {}
        if attribute == "":
            return index_path(dict(attrs), path, lambda: unknown)
        if attribute not in attrs:
            return unknown
        return index_path(attrs[attribute], path, lambda: unknown)


class UnknownResolver:
    """Every resource value is Unknown (a stack with no state yet)."""

    def __init__(self) -> None:
        self._ids: dict[str, Unknown] = {}  # one (immutable) Unknown per address, asked for many times

    def resource_id(self, address: str) -> Any:
        hit = self._ids.get(address)
        if hit is None:
            hit = self._ids[address] = Unknown.of(address)
        return hit

    def resource_attr(self, address: str, attribute: str, path: tuple[Any, ...]) -> Any:
        return Unknown.of(address, (attribute, *path) if attribute else tuple(path))
