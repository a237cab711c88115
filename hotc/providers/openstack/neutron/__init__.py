"""Neutron drivers, one type per module: ``net``, ``subnet``, ``router``, ``router_interface``, ``port``,
``floating_ip``, ``floating_ip_association``, ``security_group``, ``security_group_rule``; ``base`` holds what the
tagged types share (:class:`base.NeutronDriver`), ``lookup`` the name-or-id look-ups.

Every Neutron resource that supports tags is created with the hotc stamp as tags (``hotc-lineage=…``,
``hotc-address=…``) beside the template's own ``tags``; ``find_adoptable`` searches by them. Security group
rules carry no tags, so a rule is found by its exact content; a router interface is found by the stamp hotc puts
on the interface's port.
"""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.neutron.floating_ip import DRIVERS as _FLOATING_IP
from hotc.providers.openstack.neutron.floating_ip_association import DRIVERS as _FLOATING_IP_ASSOCIATION
from hotc.providers.openstack.neutron.lookup import (
    find_network,
    find_port,
    find_qos_policy,
    find_router,
    find_security_group,
    find_segment,
    find_subnet,
    find_subnetpool,
    security_group_ids,
)
from hotc.providers.openstack.neutron.net import DRIVERS as _NET
from hotc.providers.openstack.neutron.port import DRIVERS as _PORT
from hotc.providers.openstack.neutron.router import DRIVERS as _ROUTER
from hotc.providers.openstack.neutron.router_interface import DRIVERS as _ROUTER_INTERFACE
from hotc.providers.openstack.neutron.security_group import DRIVERS as _SECURITY_GROUP
from hotc.providers.openstack.neutron.security_group import rule_key
from hotc.providers.openstack.neutron.security_group_rule import DRIVERS as _SECURITY_GROUP_RULE
from hotc.providers.openstack.neutron.subnet import DRIVERS as _SUBNET

__all__ = [
    "DRIVERS",
    "find_network",
    "find_port",
    "find_qos_policy",
    "find_router",
    "find_security_group",
    "find_segment",
    "find_subnet",
    "find_subnetpool",
    "rule_key",
    "security_group_ids",
]

DRIVERS: dict[str, Driver] = {
    **_NET,
    **_SUBNET,
    **_ROUTER,
    **_ROUTER_INTERFACE,
    **_PORT,
    **_FLOATING_IP,
    **_FLOATING_IP_ASSOCIATION,
    **_SECURITY_GROUP,
    **_SECURITY_GROUP_RULE,
}
