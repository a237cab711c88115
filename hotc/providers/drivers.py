"""Which driver handles a resource type: the in-process Heat-native drivers, then the OpenStack drivers
(``hotc.providers.openstack.*`` modules, each exposing ``DRIVERS``), imported only when first needed so that
a stack of native types never loads openstacksdk."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache, lru_cache

from hotc.errors import HotcError
from hotc.providers.base import Driver
from hotc.providers.missing_services import service_reason
from hotc.providers.native import DRIVERS as NATIVE


@lru_cache(maxsize=1)
def openstack_drivers() -> Mapping[str, Driver]:
    """Every ``DRIVERS`` of the modules of ``hotc.providers.openstack`` (empty when it is not there)."""
    try:
        pkg = importlib.import_module("hotc.providers.openstack")
    except ModuleNotFoundError as exc:
        if exc.name in ("hotc.providers.openstack",):
            return {}
        raise HotcError(f"the OpenStack provider could not be loaded: {exc}") from exc
    found: dict[str, Driver] = dict(getattr(pkg, "DRIVERS", {}) or {})
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        try:
            mod = importlib.import_module(info.name)
        except ImportError as exc:
            raise HotcError(f"the OpenStack provider module {info.name} could not be loaded: {exc}") from exc
        found.update(getattr(mod, "DRIVERS", {}) or {})
    return found


@cache
def service_drivers(service: str) -> Mapping[str, Driver]:
    """The ``DRIVERS`` of one service's modules (``OS::Nova::*`` -> ``hotc.providers.openstack.nova``), empty when
    there is no such module: a run that touches servers and networks need not import the Keystone, Barbican or
    Aodh drivers (``hotc check`` imports only what its state holds)."""
    name = f"hotc.providers.openstack.{service.lower()}"
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name in (name, "hotc.providers.openstack"):
            return {}
        raise HotcError(f"the OpenStack provider module {name} could not be loaded: {exc}") from exc
    found: dict[str, Driver] = dict(getattr(mod, "DRIVERS", {}) or {})
    for info in pkgutil.walk_packages(getattr(mod, "__path__", []), name + "."):
        try:
            sub = importlib.import_module(info.name)
        except ImportError as exc:
            raise HotcError(f"the OpenStack provider module {info.name} could not be loaded: {exc}") from exc
        found.update(getattr(sub, "DRIVERS", {}) or {})
    return found


def driver_for(type_name: str) -> Driver | None:
    """The driver of ``type_name`` (built-in, or from an installed plugin), or None when hotc has none."""
    d = NATIVE.get(type_name)
    if d is not None:
        return d
    parts = type_name.split("::")
    if len(parts) == 3 and parts[0] == "OS" and parts[1].isalnum():
        d = service_drivers(parts[1]).get(
            type_name
        )  # its service's package first, the rest only if not there
        if d is not None:
            return d
    d = openstack_drivers().get(type_name)
    if d is not None:
        return d
    return plugin_driver(type_name)


def plugin_driver(type_name: str) -> Driver | None:
    # lazy: hotc check loads the drivers' table but not the schema registry (test_startup_imports)
    from hotc.providers.registry import PLUGINS, builtin_schemas

    if type_name in builtin_schemas() or "::" not in type_name:
        return None
    entry = PLUGINS.get(type_name)
    if entry is None or entry.source.entry_point.endswith("hotc.providers.builtin:resource_types"):
        return None
    return entry.type.driver


#: why hotc cannot apply a type Heat knows (shown by plan errors and validate warnings)
UNSUPPORTED_REASONS: Mapping[str, str] = {
    "OS::Heat::Stack": "a remote stack needs a Heat service to create it in",
}


def unsupported_reason(type_name: str) -> str:
    """Why hotc cannot create or update ``type_name`` (a type without a driver)."""
    if type_name in UNSUPPORTED_REASONS:
        return UNSUPPORTED_REASONS[type_name]

    by_service = service_reason(type_name)
    if by_service is not None:
        return by_service
    # lazy: hotc check loads the drivers' table but not the schema registry (test_startup_imports)
    from hotc.providers.registry import PLUGINS, builtin_schemas

    if type_name not in builtin_schemas() and "::" in type_name:
        entry = PLUGINS.get(type_name)
        if entry is not None and entry.type.unsupported_reason:
            return f"{entry.type.unsupported_reason} (plugin {entry.source})"
    return "hotc has no driver for it"


#: types the planner expands into their members (they need no driver of their own)
EXPANDED_TYPES = frozenset({"OS::Heat::ResourceGroup", "OS::Heat::AutoScalingGroup"})


def support_problem(type_name: str) -> str | None:
    """Why hotc cannot apply ``type_name``, or None when a driver implements it (or the planner expands it)."""
    if (
        type_name in EXPANDED_TYPES or type_name in NATIVE
    ):  # a native type has a driver (not imported to say so)
        return None
    return None if driver_for(type_name) is not None else unsupported_reason(type_name)
