"""Heat's custom constraints (``custom_constraint: glance.image`` …), checked at plan time.

:func:`check_custom_constraint` returns an error message when the value does not satisfy the constraint and
None when it does (or when hotc does not know the constraint: :func:`is_known` says which it knows). Constraints
that name cloud objects (``nova.flavor``, ``neutron.network``, …) look the value up as a name or an id, exactly as
the drivers do at apply time; the others (``ip_addr``, ``net_cidr``, ``mac_addr``, ``dns_name``, …) need no
cloud and accept ``conn=None``.

A cloud that cannot be reached is not a constraint violation: that raises :class:`~hotc.errors.HotcError`.
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import re
import zoneinfo
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

from hotc.errors import Diagnostic, HotcError, Pos, error
from hotc.providers.openstack.barbican.common import get_json
from hotc.providers.openstack.common import (
    Ambiguous,
    NotFound,
    ProviderError,
    catalog_of,
    get_or_none,
    lookup,
)
from hotc.providers.openstack.designate.common import find_zone
from hotc.providers.openstack.manila import common as manila
from hotc.providers.openstack.mistral.api import request
from hotc.values import Unknown

Check = Callable[[Any, Any], None]  # (value, conn) -> None, raising ProviderError when unmet


# --------------------------------------------------------------------------------------------- pure checks


class ConstraintError(ProviderError):
    pass


def _ip_addr(value: Any, _conn: Any) -> None:
    try:
        ipaddress.ip_address(str(value))
    except ValueError as exc:
        raise ConstraintError(f"{value!r} is not a valid IP address") from exc


def _net_cidr(value: Any, _conn: Any) -> None:
    text = str(value)
    if "/" not in text:
        raise ConstraintError(f"{value!r} is not a valid CIDR (expected ADDRESS/PREFIX, e.g. 10.0.0.0/24)")
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError as exc:
        raise ConstraintError(f"{value!r} is not a valid CIDR: {exc}") from exc


_MAC = re.compile(r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$")


def _mac_addr(value: Any, _conn: Any) -> None:
    if not _MAC.match(str(value)):
        raise ConstraintError(f"{value!r} is not a valid MAC address")


_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def _dns(value: Any, *, relative: bool) -> None:
    text = str(value)
    if len(text) > 255:
        raise ConstraintError(f"{value!r} is not a valid DNS name: longer than 255 characters")
    if relative and text.endswith("."):
        raise ConstraintError(f"{value!r} is not a valid relative DNS name: it must not end with '.'")
    labels = text[:-1].split(".") if text.endswith(".") else text.split(".")
    for label in labels:
        if not _LABEL.match(label):
            raise ConstraintError(
                f"{value!r} is not a valid DNS name: bad label {label!r} (letters, digits and "
                "'-', 1-63 characters, not starting or ending with '-')"
            )
    if text and labels[-1].isdigit():
        raise ConstraintError(f"{value!r} is not a valid DNS name: the top-level label is all digits")


def _dns_name(value: Any, _conn: Any) -> None:
    _dns(value, relative=False)


def _rel_dns_name(value: Any, _conn: Any) -> None:
    _dns(value, relative=True)


def _iso_8601(value: Any, _conn: Any) -> None:
    text = str(value)
    try:
        _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConstraintError(f"{value!r} is not an ISO 8601 time") from exc


def _expiration(value: Any, conn: Any) -> None:
    _iso_8601(value, conn)
    when = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    if when <= _dt.datetime.now(_dt.UTC):
        raise ConstraintError(f"expiration {value!r} is in the past")


def _timezone(value: Any, _conn: Any) -> None:
    try:
        zoneinfo.ZoneInfo(str(value))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ConstraintError(f"{value!r} is not a known time zone") from exc


def _cron_expression(value: Any, _conn: Any) -> None:
    fields = str(value).split()
    if not 5 <= len(fields) <= 7:
        raise ConstraintError(
            f"{value!r} is not a cron expression (5 to 7 fields expected, got {len(fields)})"
        )


# --------------------------------------------------------------------------------------------- cloud checks


def _finder(
    kind: str, get: Callable[[Any], Callable[[str], Any]], by_name: Callable[[Any], Callable[[str], Any]]
) -> Check:
    def check(value: Any, conn: Any) -> None:
        if conn is None:
            raise HotcError(f"checking a {kind} needs a cloud connection")
        # the connection's catalog: the apply that follows the plan finds the same flavor and image there
        lookup(
            None,
            kind,
            value,
            # the service proxy only when asked: making it is a version discovery, a round trip a kept
            # look-up does not need
            lambda v: get(conn)(v),
            lambda v: by_name(conn)(v),
            shared=catalog_of(conn),
            conn=conn,
        )

    return check


def _in(items: Callable[[Any], Any]) -> Callable[[Any], Callable[[str], Any]]:
    return lambda conn: lambda v: [i for i in items(conn) if getattr(i, "name", None) == v]


def _none(conn: Any) -> Callable[[str], Any]:
    return lambda v: []


def _nova_host(value: Any, conn: Any) -> None:
    hosts = {s.host for s in conn.compute.services()}
    if str(value) not in hosts:
        raise NotFound(f"compute host {value!r} not found")


def _security_group(value: Any, conn: Any) -> None:
    # lazy: the package loads every Neutron driver; plan imports this module for any template
    from hotc.providers.openstack.neutron import find_security_group

    find_security_group(None, conn, value)


def _barbican(kind: str, what: str) -> Check:
    """A Barbican secret or container, named by its reference (or UUID), as Heat's constraint looks it up."""

    def check(value: Any, conn: Any) -> None:
        if conn is None:
            raise HotcError(f"checking a {what} needs a cloud connection")
        if get_json(None, conn, kind, value, what) is None:
            raise NotFound(f"{what} {value!r} not found")

    return check


def _mistral_workflow(value: Any, conn: Any) -> None:
    """A Mistral workflow by name or id, as Heat's ``mistral.workflow`` constraint gets it."""
    if conn is None:
        raise HotcError("checking a Mistral workflow needs a cloud connection")
    if (
        get_or_none(None, f"read workflow {value}", request, conn, "GET", f"/workflows/{quote(str(value))}")
        is None
    ):
        raise NotFound(f"The Workflow ({value}) could not be found.")


def _designate_zone(value: Any, conn: Any) -> None:
    """A Designate zone by id or by its exact name, as Heat's ``designate.zone`` constraint looks it up."""
    if conn is None:
        raise HotcError("checking a Designate zone needs a cloud connection")
    find_zone(None, conn, value)


def _manila(kind: str) -> Check:
    """A Manila share type, share network or share snapshot, by id or unique name, as Heat's client plugin finds
    it (:mod:`hotc.providers.openstack.manila.common`)."""

    def check(value: Any, conn: Any) -> None:
        if conn is None:
            raise HotcError(f"checking a Manila {kind.replace('_', ' ')} needs a cloud connection")
        getattr(manila, f"find_{kind}")(None, conn, value)

    return check


CHECKS: dict[str, Check] = {
    # pure
    "ip_addr": _ip_addr,
    "net_cidr": _net_cidr,
    "mac_addr": _mac_addr,
    "dns_name": _dns_name,
    "dns_domain": _dns_name,
    "rel_dns_name": _rel_dns_name,
    "iso_8601": _iso_8601,
    "expiration": _expiration,
    "timezone": _timezone,
    "cron_expression": _cron_expression,
    # nova
    "nova.flavor": _finder(
        "flavor", lambda c: c.compute.get_flavor, _in(lambda c: c.compute.flavors(is_public=None))
    ),
    "nova.keypair": _finder("key pair", lambda c: c.compute.get_keypair, _none),
    "nova.server": _finder(
        "server",
        lambda c: c.compute.get_server,
        lambda c: lambda v: c.compute.servers(name=f"^{re.escape(v)}$"),
    ),
    "nova.host": _nova_host,
    # glance
    "glance.image": _finder("image", lambda c: c.image.get_image, lambda c: lambda v: c.image.images(name=v)),
    # neutron
    "neutron.network": _finder(
        "network", lambda c: c.network.get_network, lambda c: lambda v: c.network.networks(name=v)
    ),
    "neutron.subnet": _finder(
        "subnet", lambda c: c.network.get_subnet, lambda c: lambda v: c.network.subnets(name=v)
    ),
    "neutron.port": _finder(
        "port", lambda c: c.network.get_port, lambda c: lambda v: c.network.ports(name=v)
    ),
    "neutron.router": _finder(
        "router", lambda c: c.network.get_router, lambda c: lambda v: c.network.routers(name=v)
    ),
    "neutron.security_group": _security_group,
    "neutron.subnetpool": _finder(
        "subnet pool", lambda c: c.network.get_subnet_pool, lambda c: lambda v: c.network.subnet_pools(name=v)
    ),
    "neutron.qos_policy": _finder(
        "QoS policy", lambda c: c.network.get_qos_policy, lambda c: lambda v: c.network.qos_policies(name=v)
    ),
    "neutron.segment": _finder(
        "segment", lambda c: c.network.get_segment, lambda c: lambda v: c.network.segments(name=v)
    ),
    "neutron.address_scope": _finder(
        "address scope",
        lambda c: c.network.get_address_scope,
        lambda c: lambda v: c.network.address_scopes(name=v),
    ),
    # cinder
    "cinder.volume": _finder(
        "volume", lambda c: c.block_storage.get_volume, lambda c: lambda v: c.block_storage.volumes(name=v)
    ),
    "cinder.snapshot": _finder(
        "volume snapshot",
        lambda c: c.block_storage.get_snapshot,
        lambda c: lambda v: c.block_storage.snapshots(name=v),
    ),
    "cinder.backup": _finder(
        "volume backup",
        lambda c: c.block_storage.get_backup,
        lambda c: lambda v: c.block_storage.backups(name=v),
    ),
    "cinder.vtype": _finder(
        "volume type", lambda c: c.block_storage.get_type, _in(lambda c: c.block_storage.types())
    ),
    "cinder.qos_specs": _finder(
        "QoS specs",
        lambda c: c.block_storage.get_qos_spec,
        lambda c: lambda v: c.block_storage.qos_specs(name=v),
    ),
    # octavia
    "octavia.loadbalancer": _finder(
        "load balancer",
        lambda c: c.load_balancer.get_load_balancer,
        lambda c: lambda v: c.load_balancer.load_balancers(name=v),
    ),
    "octavia.listener": _finder(
        "listener",
        lambda c: c.load_balancer.get_listener,
        lambda c: lambda v: c.load_balancer.listeners(name=v),
    ),
    "octavia.pool": _finder(
        "pool", lambda c: c.load_balancer.get_pool, lambda c: lambda v: c.load_balancer.pools(name=v)
    ),
    "octavia.flavor": _finder(
        "load balancer flavor",
        lambda c: c.load_balancer.get_flavor,
        lambda c: lambda v: c.load_balancer.flavors(name=v),
    ),
    "octavia.l7policy": _finder(
        "L7 policy",
        lambda c: c.load_balancer.get_l7_policy,
        lambda c: lambda v: c.load_balancer.l7_policies(name=v),
    ),
    "octavia.flavorprofile": _finder(
        "load balancer flavor profile",
        lambda c: c.load_balancer.get_flavor_profile,
        lambda c: lambda v: c.load_balancer.flavor_profiles(name=v),
    ),
    "octavia.availabilityzone": _finder(
        "load balancer availability zone",
        lambda c: c.load_balancer.get_availability_zone,
        lambda c: lambda v: c.load_balancer.availability_zones(name=v),
    ),
    # keystone
    "keystone.project": _finder(
        "project", lambda c: c.identity.get_project, lambda c: lambda v: c.identity.projects(name=v)
    ),
    "keystone.user": _finder(
        "user", lambda c: c.identity.get_user, lambda c: lambda v: c.identity.users(name=v)
    ),
    "keystone.domain": _finder(
        "domain", lambda c: c.identity.get_domain, lambda c: lambda v: c.identity.domains(name=v)
    ),
    "keystone.group": _finder(
        "group", lambda c: c.identity.get_group, lambda c: lambda v: c.identity.groups(name=v)
    ),
    "keystone.role": _finder(
        "role", lambda c: c.identity.get_role, lambda c: lambda v: c.identity.roles(name=v)
    ),
    "keystone.region": _finder("region", lambda c: c.identity.get_region, _none),
    # barbican
    "barbican.secret": _barbican("secrets", "Barbican secret"),
    "barbican.container": _barbican("containers", "Barbican container"),
    # manila
    "manila.share_type": _manila("share_type"),
    "manila.share_network": _manila("share_network"),
    "manila.share_snapshot": _manila("snapshot"),
    # designate
    "designate.zone": _designate_zone,
    "mistral.workflow": _mistral_workflow,
    "keystone.service": _finder(
        "service", lambda c: c.identity.get_service, lambda c: lambda v: c.identity.services(name=v)
    ),
}

PURE = frozenset(
    {
        "ip_addr",
        "net_cidr",
        "mac_addr",
        "dns_name",
        "dns_domain",
        "rel_dns_name",
        "iso_8601",
        "expiration",
        "timezone",
        "cron_expression",
    }
)


def is_known(name: str) -> bool:
    return name in CHECKS


def needs_cloud(name: str) -> bool:
    return name in CHECKS and name not in PURE


def check_custom_constraint(name: str, value: Any, conn: Any) -> str | None:
    """An error message when VALUE does not meet the custom constraint NAME; None when it does or when NAME is
    not one hotc checks. Raises HotcError when the cloud cannot answer (not a verdict on the value)."""
    check = CHECKS.get(name)
    if check is None:
        return None
    if isinstance(value, list):  # comma_delimited_list parameters: every item must pass
        for item in value:
            msg = check_custom_constraint(name, item, conn)
            if msg:
                return msg
        return None
    try:
        check(value, conn)
    except ConstraintError as exc:
        return exc.message
    except (NotFound, Ambiguous) as exc:
        return exc.message
    except ProviderError as exc:
        if exc.status_code == 400:
            return exc.message
        raise HotcError(f"could not check constraint {name} for {value!r}: {exc.message}") from exc
    return None


# --------------------------------------------------------------------------------------------- plan-time use


MISSING_: Any = object()


def _checkable(value: Any) -> bool:
    return value is not MISSING_ and value is not None and value != "" and not isinstance(value, Unknown)


def parameter_diagnostics(params: Iterable[Any], values: Mapping[str, Any], conn: Any) -> list[Diagnostic]:
    """Errors for parameter values that fail their ``custom_constraint`` (Heat's wording: the parameter is
    invalid, and why). ``params`` are :class:`hotc.parser.ir.Parameter`; ``values`` the resolved values.
    With ``conn=None`` only the constraints that need no cloud are checked."""
    out: list[Diagnostic] = []
    for p in params:
        value = values.get(p.name, MISSING_)
        if not _checkable(value):
            continue
        for c in p.constraints:
            if c.kind != "custom_constraint" or (conn is None and needs_cloud(str(c.spec))):
                continue
            msg = check_custom_constraint(str(c.spec), value, conn)
            if msg:
                why = f" ({c.description})" if c.description else ""
                out.append(
                    error(
                        f"parameter {p.name!r} is invalid: {msg}{why}",
                        c.pos or p.pos,
                        code="custom-constraint",
                    )
                )
    return out


def property_diagnostics(
    rtype: Any, props: Mapping[str, Any], address: str, conn: Any, pos: Pos | None = None
) -> list[Diagnostic]:
    """Errors for resource property values (also inside lists and maps) that fail a ``custom_constraint`` of
    the type's schema (``flavor`` of a server: ``nova.flavor``…). Unknown values are skipped."""
    out: list[Diagnostic] = []
    for key, value in props.items():
        _walk(rtype.properties.get(key), value, key, address, conn, pos, out)
    return out


def _walk(
    schema: Any, value: Any, path: str, address: str, conn: Any, pos: Pos | None, out: list[Diagnostic]
) -> None:
    """:func:`property_diagnostics` of one value at PATH, into OUT. (A function of its own: a closure that
    calls itself is a reference cycle, one per call left for the cyclic collector; a plan checks thousands.)"""
    if not _checkable(value) or schema is None:
        return
    for c in schema.constraints:
        if c.kind == "custom_constraint" and not (conn is None and needs_cloud(str(c.spec))):
            msg = check_custom_constraint(str(c.spec), value, conn)
            if msg:
                out.append(error(f"{address}: property {path}: {msg}", pos, code="custom-constraint"))
    if isinstance(value, list) and schema.item is not None:
        for i, item in enumerate(value):
            _walk(schema.item, item, f"{path}[{i}]", address, conn, pos, out)
    elif isinstance(value, Mapping) and schema.schema:
        for k, v in value.items():
            _walk(schema.schema.get(k), v, f"{path}.{k}", address, conn, pos, out)
    elif isinstance(value, list) and schema.schema:  # list of maps described by ``schema``
        for i, item in enumerate(value):
            if isinstance(item, Mapping):
                for k, v in item.items():
                    _walk(schema.schema.get(k), v, f"{path}[{i}].{k}", address, conn, pos, out)
