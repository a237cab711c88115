"""Neutron drivers, one type per module: ``net``, ``subnet``, ``router``, ``router_interface``, ``port``,
``floating_ip``, ``floating_ip_association``, ``security_group``, ``security_group_rule``, ``router_gateway``,
``qos_policy``, ``qos_*_rule``, ``trunk``, ``subnet_pool``, ``address_scope``, ``provider_net``, ``quota``; ``base`` holds what
the tagged types share (:class:`base.NeutronDriver`), ``untagged`` what the untaggable named ones add, ``qos_rule``
what the QoS rules share, ``lookup`` the name-or-id look-ups.

Every Neutron resource that supports tags is created with the hotc stamp as tags (``hotc-lineage=…``,
``hotc-address=…``) beside the template's own ``tags``; ``find_adoptable`` searches by them. Security group
rules carry no tags, so a rule is found by its exact content (QoS rules too); a router interface is found by the
stamp hotc puts on the interface's port; an address scope (no tags either) only by a name hotc generated; a router
gateway by the router's gateway network.
"""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.neutron.address_scope import DRIVERS as _ADDRESS_SCOPE
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
from hotc.providers.openstack.neutron.provider_net import DRIVERS as _PROVIDER_NET
from hotc.providers.openstack.neutron.qos_bandwidth_limit_rule import DRIVERS as _QOS_BANDWIDTH_LIMIT_RULE
from hotc.providers.openstack.neutron.qos_dscp_marking_rule import DRIVERS as _QOS_DSCP_MARKING_RULE
from hotc.providers.openstack.neutron.qos_minimum_bandwidth_rule import DRIVERS as _QOS_MINIMUM_BANDWIDTH_RULE
from hotc.providers.openstack.neutron.qos_minimum_packet_rate_rule import (
    DRIVERS as _QOS_MINIMUM_PACKET_RATE_RULE,
)
from hotc.providers.openstack.neutron.qos_policy import DRIVERS as _QOS_POLICY
from hotc.providers.openstack.neutron.quota import DRIVERS as _QUOTA
from hotc.providers.openstack.neutron.router import DRIVERS as _ROUTER
from hotc.providers.openstack.neutron.router_gateway import DRIVERS as _ROUTER_GATEWAY
from hotc.providers.openstack.neutron.router_interface import DRIVERS as _ROUTER_INTERFACE
from hotc.providers.openstack.neutron.security_group import DRIVERS as _SECURITY_GROUP
from hotc.providers.openstack.neutron.security_group import rule_key
from hotc.providers.openstack.neutron.security_group_rule import DRIVERS as _SECURITY_GROUP_RULE
from hotc.providers.openstack.neutron.subnet import DRIVERS as _SUBNET
from hotc.providers.openstack.neutron.subnet_pool import DRIVERS as _SUBNET_POOL
from hotc.providers.openstack.neutron.trunk import DRIVERS as _TRUNK

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
    **_ADDRESS_SCOPE,
    **_PROVIDER_NET,
    **_QOS_BANDWIDTH_LIMIT_RULE,
    **_QOS_DSCP_MARKING_RULE,
    **_QOS_MINIMUM_BANDWIDTH_RULE,
    **_QOS_MINIMUM_PACKET_RATE_RULE,
    **_QOS_POLICY,
    **_ROUTER_GATEWAY,
    **_SUBNET_POOL,
    **_TRUNK,
    **_QUOTA,
}
