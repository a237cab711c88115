"""Nova drivers, one type per module as Heat splits them: ``server`` (with the ``server_network`` and
``server_snapshot`` mixins), ``keypair``, ``flavor``, ``server_group``, ``quota``; ``common`` holds the look-ups and statuses they share."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import user_metadata
from hotc.providers.openstack.nova.common import find_flavor, find_image, find_keypair
from hotc.providers.openstack.nova.flavor import DRIVERS as _FLAVOR
from hotc.providers.openstack.nova.keypair import DRIVERS as _KEYPAIR
from hotc.providers.openstack.nova.quota import DRIVERS as _QUOTA
from hotc.providers.openstack.nova.server import DRIVERS as _SERVER
from hotc.providers.openstack.nova.server_group import DRIVERS as _SERVER_GROUP

__all__ = ["DRIVERS", "find_flavor", "find_image", "find_keypair", "user_metadata"]

DRIVERS: dict[str, Driver] = {**_SERVER, **_KEYPAIR, **_FLAVOR, **_SERVER_GROUP, **_QUOTA}
