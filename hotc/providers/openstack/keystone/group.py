"""OS::Keystone::Group (admin-only under Keystone's default policy): name, domain, description and ``roles``, as
every identity of :class:`~hotc.providers.openstack.keystone.actor.ActorDriver` has (adopted only by the name
hotc generated for its stack and address: a group has nowhere to carry hotc's stamp)."""

from __future__ import annotations

from hotc.providers.base import Driver
from hotc.providers.openstack.common import with_defaults
from hotc.providers.openstack.keystone.actor import ActorDriver

NAME_LIMIT = 64


class GroupDriver(ActorDriver):
    actor = "group"
    list_what = "groups"
    name_limit = NAME_LIMIT


DRIVERS: dict[str, Driver] = with_defaults({"OS::Keystone::Group": GroupDriver()})
