"""The pre-flight check of an apply: before anything runs, the cloud the plan needs is configured, a token is
issued, and each OpenStack service the plan acts on is in the catalog. Without it, an apply with no cloud
configured started the resources that need none, failed every one that does with the same error, and left a
failed stack to clean up; now it fails once, having changed nothing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hotc.errors import HotcError
from hotc.planner.api import Action, Plan

#: resource type namespace -> the catalog's service type its drivers call
SERVICE_TYPES: Mapping[str, str] = {
    "OS::Nova": "compute",
    "OS::Neutron": "network",
    "OS::Cinder": "block-storage",
    "OS::Octavia": "load-balancer",
    "OS::Glance": "image",
    "OS::Keystone": "identity",
    "OS::Barbican": "key-manager",
    "OS::Designate": "dns",
    "OS::Manila": "shared-file-system",
    "OS::Aodh": "alarming",
    "OS::Mistral": "workflow",
}

_NO_CLOUD = (Action.NOOP, Action.FORGET)


def _drives_the_cloud(driver: Any) -> bool:
    """A driver of hotc's own OpenStack drivers (a plugin's or a test's stand-in is left to itself)."""
    return type(driver).__module__.startswith("hotc.providers.openstack")


def needed_services(plan: Plan, drivers: Callable[[str], Any]) -> dict[str, list[str]]:
    """Service type -> the addresses whose planned action calls it."""
    out: dict[str, list[str]] = {}
    for c in plan.changes:
        if c.action in _NO_CLOUD:
            continue
        service = SERVICE_TYPES.get("::".join(c.type.split("::")[:2]))
        if service is None:
            continue
        try:
            driver = drivers(c.type)
        except HotcError:
            continue  # reported as unsupported by its own check
        if _drives_the_cloud(driver):
            out.setdefault(service, []).append(c.address)
    return out


def preflight(plan: Plan, drivers: Callable[[str], Any], cloud: Callable[[], Any]) -> None:
    """Raise one HotcError, before anything runs, when the plan needs a cloud that cannot be reached, or a
    service its catalog lacks."""
    needed = needed_services(plan, drivers)
    if not needed:
        return
    first = next(iter(needed.values()))[0]
    try:
        conn = cloud()
    except HotcError as exc:
        raise HotcError(
            f"{exc.message}. The plan acts on OpenStack resources ({first} and {sum(map(len, needed.values())) - 1} "
            "more) and needs the cloud; nothing was changed"
        ) from exc
    endpoint_for = getattr(conn, "endpoint_for", None)
    if endpoint_for is None:
        return
    missing: list[str] = []
    for service, addresses in sorted(needed.items()):
        try:
            found = endpoint_for(service)
        except Exception:  # noqa: BLE001 - any failure to find it is a missing endpoint
            found = None
        if not found:
            missing.append(
                f"{service} (for {', '.join(addresses[:3])}{' ...' if len(addresses) > 3 else ''})"
            )
    if missing:
        raise HotcError(
            "the cloud's service catalog has no endpoint for " + "; ".join(missing) + ": the plan needs it. "
            "Check the region and the cloud (--os-cloud, OS_CLOUD, clouds.yaml); nothing was changed"
        )
