"""The project's quotas and usage, read from the cloud for the plan-time quota check (``hotc.planner.quota``).

:func:`read_quotas` asks only the services whose quotas the plan uses: compute (``os-quota-sets`` with usage:
instances, cores, ram), network (quota details: limit, used, reserved), block storage (quota set with usage:
volumes, gigabytes, snapshots) and load-balancer (its quota has no usage: the project's load balancers,
listeners, pools, members and health monitors are counted). Reserved amounts count as used. A service that
does not answer (not in the catalog, no permission) leaves its quotas unread, with the reason; the sizes of the
plan's flavors come from the flavor list. The services, the flavors and the load-balancer listings are read side
by side: the check costs the time of its slowest read, not of all of them in a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from hotc.errors import HotcError
from hotc.providers.openstack.common import all_at_once, translate
from hotc.providers.openstack.nova.common import find_flavor

Limits = dict[str, tuple[int, int]]  # quota key -> (limit, in use); a limit below 0 is unlimited

_COMPUTE = ("instances", "cores", "ram")
_NETWORK = (
    "networks",
    "subnets",
    "ports",
    "routers",
    "floating_ips",
    "security_groups",
    "security_group_rules",
)
_VOLUME = ("volumes", "gigabytes", "snapshots")
_LB = ("load_balancers", "listeners", "pools", "members", "health_monitors")


def _int(v: Any, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _usage(qs: Any, name: str) -> int:
    used = getattr(qs, "usage", None) or {}
    reserved = getattr(qs, "reservation", None) or {}
    return _int(used.get(name)) + _int(reserved.get(name))


def _compute(conn: Any, project: str, names: Iterable[str]) -> Limits:
    qs = conn.compute.get_quota_set(project, usage=True)
    return {f"compute.{n}": (_int(getattr(qs, n, None), -1), _usage(qs, n)) for n in names}


def _network(conn: Any, project: str, names: Iterable[str]) -> Limits:
    q = conn.network.get_quota(project, details=True)
    out: Limits = {}
    for n in names:
        d = getattr(q, n, None)
        if isinstance(d, Mapping):
            out[f"network.{n}"] = (_int(d.get("limit"), -1), _int(d.get("used")) + _int(d.get("reserved")))
    return out


def _volume(conn: Any, project: str, names: Iterable[str]) -> Limits:
    qs = conn.block_storage.get_quota_set(project, usage=True)
    return {f"volume.{n}": (_int(getattr(qs, n, None), -1), _usage(qs, n)) for n in names}


def _load_balancer(conn: Any, project: str, names: Iterable[str]) -> Limits:
    lb = conn.load_balancer
    wanted = list(names)
    listings: dict[str, Callable[[], Any]] = {"quota": lambda: lb.get_quota(project)}
    if "load_balancers" in wanted:
        listings["load_balancers"] = lambda: sum(1 for _ in lb.load_balancers(project_id=project))
    if "listeners" in wanted:
        listings["listeners"] = lambda: sum(1 for _ in lb.listeners(project_id=project))
    if "pools" in wanted or "members" in wanted:  # one listing counts both
        listings["pools"] = lambda: list(lb.pools(project_id=project))
    if "health_monitors" in wanted:
        listings["health_monitors"] = lambda: sum(1 for _ in lb.health_monitors(project_id=project))
    got = all_at_once(listings)
    q = got["quota"]
    pools = got.get("pools") or []
    used: dict[str, Callable[[], int]] = {
        "load_balancers": lambda: got["load_balancers"],
        "listeners": lambda: got["listeners"],
        "pools": lambda: len(pools),
        "members": lambda: sum(len(p.members or ()) for p in pools),
        "health_monitors": lambda: got["health_monitors"],
    }
    return {f"load-balancer.{n}": (_int(getattr(q, n, None), -1), used[n]()) for n in wanted}


_SERVICES: tuple[tuple[str, str, tuple[str, ...], Callable[[Any, str, Iterable[str]], Limits]], ...] = (
    ("compute", "compute", _COMPUTE, _compute),
    ("network", "network", _NETWORK, _network),
    ("volume", "block-storage", _VOLUME, _volume),
    ("load-balancer", "load-balancer", _LB, _load_balancer),
)


def read_quotas(
    conn: Any, keys: frozenset[str], flavors: frozenset[str]
) -> tuple[Limits, dict[str, tuple[int, int]], dict[str, str]]:
    """The limits and usage of the quotas ``keys`` (``compute.instances`` …) of the connection's project, the
    sizes (vCPUs, RAM MB) of ``flavors`` (names or ids), and, per quota key that could not be read, why. Raises
    HotcError when the connection names no project."""
    try:
        project = conn.current_project_id
    except Exception as exc:  # noqa: BLE001 -- an authentication failure: nothing is checked
        raise translate(exc, "the project's quotas") from exc
    if not project:
        raise HotcError("the connection is not scoped to a project: it has no quotas to read")
    reads: dict[str, Callable[[], Any]] = {}
    asked: dict[str, tuple[str, str, list[str]]] = {}  # read's name -> (prefix, service, quota names)
    for prefix, service, known, read in _SERVICES:
        names = [n for n in known if f"{prefix}.{n}" in keys]
        if names:
            reads[prefix] = partial(_outcome, read, conn, project, names)
            asked[prefix] = (prefix, service, names)
    for name in sorted(flavors):
        reads[f"flavor:{name}"] = partial(_outcome, find_flavor, None, conn, name)
    got = all_at_once(reads)  # every outcome is a value or the exception it raised: none raises here
    limits: Limits = {}
    unread: dict[str, str] = {}
    for key, (prefix, service, names) in asked.items():
        result = got[key]
        if isinstance(result, Exception):  # any failure of the service: its quotas are not checked
            why = translate(result, f"the {service} quotas").message
            unread.update({f"{prefix}.{n}": why for n in names})
        else:
            limits.update(result)
    sizes: dict[str, tuple[int, int]] = {}
    for name in sorted(flavors):
        f = got[f"flavor:{name}"]
        if not isinstance(f, Exception):  # an unknown flavor is the constraints check's to report
            sizes[name] = (_int(f.vcpus), _int(f.ram))
    return limits, sizes, unread


def _outcome(fn: Callable[..., Any], *args: Any) -> Any:
    """What ``fn(*args)`` returns, or the exception it raised."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 -- handed back to the caller, which says why per quota
        return exc


__all__ = ["read_quotas"]
