"""OS::Manila::* resource types (service ``sharev2``, Manila's shared file systems), as Heat 27 declares them.

- ``Share``: name, description, metadata, ``is_public`` and ``access_rules`` are updated in place; the protocol,
  size, snapshot, share network and share type replace the share.
- ``ShareType`` (admin-only under Manila's default policy): only ``extra_specs`` is updated in place.
- ``ShareNetwork``: every property is updated in place. ``nova_network`` is hidden in Heat 27 (nova-network is
  gone): Heat still takes the property and its validation refuses any value.
- ``SecurityService``: every property but ``type`` is updated in place. Its ``password`` is a secret (masked in
  plans, encrypted in the state), and so is the ``show`` attribute, in which Manila gives the password back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotc.providers.base import AttrSchema, ResourceType
from hotc.providers.schemas._dsl import allowed, attrs, boolean, custom, integer, list_, map_, string
from hotc.providers.schemas._rules import known

SERVICE = "sharev2"

SHARE_PROTOCOLS = ("NFS", "CIFS", "GlusterFS", "HDFS", "CEPHFS")
ACCESS_TYPES = ("ip", "user", "cert", "cephx")
ACCESS_LEVELS = ("ro", "rw")

SHARE = ResourceType(
    name="OS::Manila::Share",
    properties={
        "share_protocol": string(required=True, constraints=(allowed(*SHARE_PROTOCOLS),)),
        "size": integer(required=True),
        "snapshot": string(constraints=(custom("manila.share_snapshot"),)),
        "name": string(update=True),
        "metadata": map_(update=True),
        "share_network": string(constraints=(custom("manila.share_network"),)),
        "description": string(update=True),
        "share_type": string(constraints=(custom("manila.share_type"),)),
        "is_public": boolean(default=False, update=True),
        "access_rules": list_(
            map_(
                {
                    "access_to": string(required=True),
                    "access_type": string(required=True, constraints=(allowed(*ACCESS_TYPES),)),
                    "access_level": string(constraints=(allowed(*ACCESS_LEVELS),)),
                }
            ),
            default=[],
            update=True,
        ),
    },
    attributes=attrs(
        availability_zone="string",
        host="string",
        export_locations="list",
        share_server_id="string",
        created_at="string",
        status="string",
        project_id="string",
        stable=("created_at", "project_id"),
    ),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.manila.share.ManilaShare",
)

SHARE_TYPE = ResourceType(
    name="OS::Manila::ShareType",
    properties={
        "name": string(required=True),
        "is_public": boolean(default=True),
        "driver_handles_share_servers": boolean(required=True),
        "extra_specs": map_(update=True),
        "snapshot_support": boolean(default=True),
    },
    attributes=attrs(),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.manila.share_type.ManilaShareType",
)


def share_network_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``ManilaShareNetwork.validate`` (what it checks without the cloud): nova-network is refused, and a
    Neutron network needs its subnet. That the subnet is on the network is checked by the create, on the cloud."""
    nova, net, subnet = props.get("nova_network"), props.get("neutron_network"), props.get("neutron_subnet")
    if not known(nova, net, subnet):
        return []
    if nova:
        return [("nova_network", "Nova network is no longer supported")]
    if net and not subnet:
        return [("neutron_network", "neutron_network cannot be specified without neutron_subnet.")]
    return []


SHARE_NETWORK = ResourceType(
    name="OS::Manila::ShareNetwork",
    properties={
        "name": string(update=True),
        "neutron_network": string(update=True, constraints=(custom("neutron.network"),)),
        "neutron_subnet": string(update=True, constraints=(custom("neutron.subnet"),)),
        "nova_network": string(update=True, hidden=True),
        "description": string(update=True),
        "security_services": list_(string(), default=[], update=True),
    },
    attributes=attrs(segmentation_id="string", cidr="string", ip_version="string", network_type="string"),
    validators=(share_network_validate,),
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.manila.share_network.ManilaShareNetwork",
)

SECURITY_SERVICE_TYPES = ("ldap", "kerberos", "active_directory")

SECURITY_SERVICE = ResourceType(
    name="OS::Manila::SecurityService",
    properties={
        "name": string(update=True),
        "type": string(required=True, constraints=(allowed(*SECURITY_SERVICE_TYPES),)),
        "dns_ip": string(update=True),
        "server": string(update=True),
        "domain": string(update=True),
        "user": string(update=True),
        "password": string(update=True, sensitive=True),
        "description": string(update=True),
    },
    attributes={
        "show": AttrSchema(
            description="the full API representation of the resource (with its password)",
            type="map",
            sensitive=True,
        )
    },
    service=SERVICE,
    heat_class="heat.engine.resources.openstack.manila.security_service.SecurityService",
)

TYPES = (SHARE, SHARE_TYPE, SHARE_NETWORK, SECURITY_SERVICE)
