"""Octavia drivers, one type per module: ``load_balancer``, ``listener``, ``pool``, ``pool_member``,
``health_monitor``, ``quota``; ``base`` holds the look-ups and the load-balancer-ACTIVE mechanics they share.

A load balancer is immutable while its provisioning_status is PENDING_*: every child operation first waits for the
load balancer to be ACTIVE, then acts, then waits for the load balancer (and the child) to be ACTIVE again. Every
object carries the hotc stamp as Octavia tags.
"""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.octavia.base import find_listener, find_load_balancer, find_pool
from hotc.providers.openstack.octavia.health_monitor import DRIVERS as _HEALTH_MONITOR
from hotc.providers.openstack.octavia.listener import DRIVERS as _LISTENER
from hotc.providers.openstack.octavia.load_balancer import DRIVERS as _LOAD_BALANCER
from hotc.providers.openstack.octavia.pool import DRIVERS as _POOL
from hotc.providers.openstack.octavia.pool_member import DRIVERS as _POOL_MEMBER
from hotc.providers.openstack.octavia.quota import DRIVERS as _QUOTA

__all__ = ["DRIVERS", "find_listener", "find_load_balancer", "find_pool"]

DRIVERS: dict[str, Driver] = {
    **_LOAD_BALANCER,
    **_LISTENER,
    **_POOL,
    **_POOL_MEMBER,
    **_HEALTH_MONITOR,
    **_QUOTA,
}
