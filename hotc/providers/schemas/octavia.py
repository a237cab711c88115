"""OS::Octavia::* resource types (service ``load-balancer``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    attrs,
    boolean,
    custom,
    integer,
    list_,
    map_,
    number,
    range_,
    string,
)
from hotc.providers.schemas._quota import quota_type
from hotc.providers.schemas._rules import known

SERVICE = "load-balancer"
_PROTOCOLS = allowed("TCP", "HTTP", "HTTPS", "TERMINATED_HTTPS", "PROXY", "UDP")

LOADBALANCER = ResourceType(
    name="OS::Octavia::LoadBalancer",
    properties={
        "description": string(default="", update=True),
        "name": string(update=True),
        "provider": string(),
        "vip_address": string(constraints=(custom("ip_addr"),)),
        "vip_subnet": string(required=True, constraints=(custom("neutron.subnet"),)),
        "admin_state_up": boolean(default=True, update=True),
        "tenant_id": string(constraints=(custom("keystone.project"),)),
        "flavor": string(constraints=(custom("octavia.flavor"),)),
        "availability_zone": string(constraints=(custom("octavia.availabilityzone"),)),
    },
    attributes=attrs(
        "vip_address",
        "vip_port_id",
        "vip_subnet_id",
        "pools",
        "flavor_id",
        stable=("vip_address", "vip_port_id", "vip_subnet_id", "flavor_id"),
    ),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.loadbalancer.LoadBalancer",
)


def listener_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Listener.validate``: protocol TERMINATED_HTTPS needs ``default_tls_container_ref``."""
    proto, ref = props.get("protocol"), props.get("default_tls_container_ref")
    if known(proto, ref) and proto == "TERMINATED_HTTPS" and ref is None:
        return [
            (
                "default_tls_container_ref",
                "default_tls_container_ref is required when protocol is TERMINATED_HTTPS",
            )
        ]
    return []


LISTENER = ResourceType(
    name="OS::Octavia::Listener",
    properties={
        "protocol_port": integer(required=True, constraints=(range_(min=1, max=65535),)),
        "protocol": string(required=True, constraints=(_PROTOCOLS,)),
        "loadbalancer": string(required=True, constraints=(custom("octavia.loadbalancer"),)),
        "default_pool": string(update=True, constraints=(custom("octavia.pool"),)),
        "name": string(update=True),
        "admin_state_up": boolean(default=True, update=True),
        "description": string(default="", update=True),
        "default_tls_container_ref": string(update=True),
        "sni_container_refs": list_(update=True),
        "connection_limit": integer(default=-1, update=True, constraints=(range_(min=-1),)),
        "tenant_id": string(),
        "allowed_cidrs": list_(string(constraints=(custom("net_cidr"),)), update=True, set_like=True),
    },
    attributes=attrs("loadbalancers", "default_pool_id"),
    validators=(listener_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.listener.Listener",
)


def pool_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Pool.validate``: one of ``listener``/``loadbalancer`` is needed; APP_COOKIE persistence needs a
    ``cookie_name`` and SOURCE_IP persistence forbids one."""
    out: list[tuple[str, str]] = []
    if props.get("listener") is None and props.get("loadbalancer") is None:
        out.append(("listener", "one of listener or loadbalancer must be given"))
    sp = props.get("session_persistence")
    if isinstance(sp, Mapping) and known(sp):
        kind, cookie = sp.get("type"), sp.get("cookie_name")
        if kind == "APP_COOKIE" and not cookie:
            out.append(
                ("session_persistence.cookie_name", "cookie_name is required when the type is APP_COOKIE")
            )
        elif kind == "SOURCE_IP" and cookie:
            out.append(
                (
                    "session_persistence.cookie_name",
                    "cookie_name must not be given when the type is SOURCE_IP",
                )
            )
    return out


POOL = ResourceType(
    name="OS::Octavia::Pool",
    properties={
        "admin_state_up": boolean(default=True, update=True),
        "description": string(default="", update=True),
        "session_persistence": map_(
            {
                "type": string(
                    required=True, constraints=(allowed("SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE"),)
                ),
                "cookie_name": string(),
            },
            update=True,
        ),
        "name": string(update=True),
        "lb_algorithm": string(
            required=True,
            update=True,
            constraints=(allowed("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"),),
        ),
        "listener": string(constraints=(custom("octavia.listener"),)),
        "loadbalancer": string(constraints=(custom("octavia.loadbalancer"),)),
        "protocol": string(required=True, constraints=(_PROTOCOLS,)),
        "tls_enabled": boolean(default=False, update=True),
    },
    attributes=attrs("healthmonitor_id", "listeners", "members"),
    validators=(pool_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.pool.Pool",
)

POOL_MEMBER = ResourceType(
    name="OS::Octavia::PoolMember",
    properties={
        "pool": string(required=True, constraints=(custom("octavia.pool"),)),
        "address": string(required=True, constraints=(custom("ip_addr"),)),
        "protocol_port": integer(required=True, constraints=(range_(min=1, max=65535),)),
        "monitor_address": string(constraints=(custom("ip_addr"),)),
        "monitor_port": integer(constraints=(range_(min=1, max=65535),)),
        "weight": integer(default=1, update=True, constraints=(range_(min=0, max=256),)),
        "admin_state_up": boolean(default=True, update=True),
        "subnet": string(constraints=(custom("neutron.subnet"),)),
        "tags": list_(update=True, set_like=True),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.pool_member.PoolMember",
)

HEALTH_MONITOR = ResourceType(
    name="OS::Octavia::HealthMonitor",
    properties={
        "admin_state_up": boolean(default=True, update=True),
        "delay": integer(required=True, update=True, constraints=(range_(min=0),)),
        "expected_codes": string(update=True),
        "http_method": string(
            update=True,
            constraints=(
                allowed("GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH"),
            ),
        ),
        "max_retries": integer(required=True, update=True, constraints=(range_(min=1, max=10),)),
        "pool": string(required=True, constraints=(custom("octavia.pool"),)),
        "timeout": integer(required=True, update=True, constraints=(range_(min=0),)),
        "type": string(required=True, constraints=(allowed("PING", "TCP", "HTTP", "HTTPS", "UDP-CONNECT"),)),
        "url_path": string(update=True),
        "tenant_id": string(),
    },
    attributes=attrs("pools"),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.health_monitor.HealthMonitor",
)


def l7policy_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``L7Policy.validate``: REJECT takes neither redirect; REDIRECT_TO_POOL needs ``redirect_pool`` and
    no ``redirect_url``; REDIRECT_TO_URL the other way round."""
    action, pool, url = props.get("action"), props.get("redirect_pool"), props.get("redirect_url")
    if not known(action, pool, url):
        return []
    if action == "REJECT" and (pool is not None or url is not None):
        return [
            (
                "action",
                "Properties redirect_pool and redirect_url are not required when action type is set to REJECT.",
            )
        ]
    if action == "REDIRECT_TO_POOL":
        if url is not None:
            return [
                (
                    "redirect_url",
                    "redirect_url property should only be specified for action with value REDIRECT_TO_URL.",
                )
            ]
        if pool is None:
            return [
                (
                    "redirect_pool",
                    "Property redirect_pool is required when action type is set to REDIRECT_TO_POOL.",
                )
            ]
    if action == "REDIRECT_TO_URL":
        if pool is not None:
            return [
                (
                    "redirect_pool",
                    "redirect_pool property should only be specified for action with value REDIRECT_TO_POOL.",
                )
            ]
        if url is None:
            return [
                (
                    "redirect_url",
                    "Property redirect_url is required when action type is set to REDIRECT_TO_URL.",
                )
            ]
    return []


L7POLICY = ResourceType(
    name="OS::Octavia::L7Policy",
    properties={
        "name": string(update=True),
        "description": string(update=True),
        "admin_state_up": boolean(default=True, update=True),
        "action": string(
            required=True,
            update=True,
            constraints=(allowed("REJECT", "REDIRECT_TO_POOL", "REDIRECT_TO_URL"),),
        ),
        "redirect_pool": string(update=True, constraints=(custom("octavia.pool"),)),
        "redirect_url": string(update=True),
        "position": number(update=True, constraints=(range_(min=1),)),
        "listener": string(required=True, constraints=(custom("octavia.listener"),)),
    },
    attributes=attrs(rules="list"),
    validators=(l7policy_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.l7policy.L7Policy",
)


def l7rule_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``L7Rule.validate``: HEADER and COOKIE rules need a ``key``."""
    kind, key = props.get("type"), props.get("key")
    if known(kind, key) and kind in ("HEADER", "COOKIE") and key is None:
        return [
            (
                "key",
                "Property key is missing. This property should be specified for rules of HEADER and COOKIE types.",
            )
        ]
    return []


L7RULE = ResourceType(
    name="OS::Octavia::L7Rule",
    properties={
        "admin_state_up": boolean(default=True, update=True),
        "l7policy": string(required=True, constraints=(custom("octavia.l7policy"),)),
        "type": string(
            required=True,
            update=True,
            constraints=(allowed("HOST_NAME", "PATH", "FILE_TYPE", "HEADER", "COOKIE"),),
        ),
        "compare_type": string(
            required=True,
            update=True,
            constraints=(allowed("REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"),),
        ),
        "invert": boolean(default=False, update=True),
        "key": string(update=True),
        "value": string(required=True, update=True),
    },
    attributes=attrs(),
    validators=(l7rule_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.l7rule.L7Rule",
)

FLAVOR = ResourceType(
    name="OS::Octavia::Flavor",
    properties={
        "description": string(default="", update=True),
        "enabled": boolean(default=True, update=True),
        "name": string(update=True),
        "flavor_profile": string(required=True, constraints=(custom("octavia.flavorprofile"),)),
    },
    attributes=attrs(flavor_profile_id="string"),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.flavor.Flavor",
)

FLAVOR_PROFILE = ResourceType(
    name="OS::Octavia::FlavorProfile",
    properties={
        "name": string(update=True),
        "flavor_data": string(required=True, update=True, constraints=(custom("json_string"),)),
        "provider_name": string(update=True),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.flavor_profile.FlavorProfile",
)

# OctaviaQuota: the limits of a project's load-balancer quota (Heat's names: loadbalancer, healthmonitor)
QUOTA = quota_type(
    "OS::Octavia::Quota",
    ("healthmonitor", "listener", "loadbalancer", "pool", "member"),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.octavia.quota.OctaviaQuota",
)

TYPES = (
    LOADBALANCER,
    LISTENER,
    POOL,
    POOL_MEMBER,
    HEALTH_MONITOR,
    L7POLICY,
    L7RULE,
    FLAVOR,
    FLAVOR_PROFILE,
    QUOTA,
)
