"""OS::Nova::* resource types (service ``compute``)."""

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
    length_,
    list_,
    map_,
    number,
    range_,
    string,
)
from hotc.providers.schemas._quota import quota_type
from hotc.providers.schemas._rules import changed, failed_replace_on_status, known, policy
from hotc.providers.schemas.neutron import PORT_EXTRA_PROPERTIES

# ------------------------------------------------------------------------------------------------- Server

_BDM = map_(
    {
        "device_name": string(required=True),
        "volume_id": string(constraints=(custom("cinder.volume"),)),
        "snapshot_id": string(constraints=(custom("cinder.snapshot"),)),
        "volume_size": integer(),
        "delete_on_termination": boolean(),
    }
)

_BDM_V2 = map_(
    {
        "device_name": string(),
        "volume_id": string(constraints=(custom("cinder.volume"),)),
        "image_id": string(constraints=(custom("glance.image"),), hidden=True, alias_of="image"),
        "image": string(constraints=(custom("glance.image"),)),
        "snapshot_id": string(constraints=(custom("cinder.snapshot"),)),
        "swap_size": integer(),
        "ephemeral_size": integer(constraints=(range_(min=1),)),
        "ephemeral_format": string(constraints=(allowed("ext2", "ext3", "ext4", "xfs", "ntfs"),)),
        "device_type": string(constraints=(allowed("cdrom", "disk"),)),
        "disk_bus": string(constraints=(allowed("ide", "lame_bus", "sata", "scsi", "usb", "virtio"),)),
        "boot_index": integer(),
        "volume_size": integer(),
        "delete_on_termination": boolean(),
        "volume_type": string(constraints=(custom("cinder.vtype"),)),
    }
)

_NETWORK = map_(
    {
        "uuid": string(constraints=(custom("neutron.network"),), hidden=True, alias_of="network"),
        "network": string(constraints=(custom("neutron.network"),)),
        "allocate_network": string(update=True, constraints=(allowed("none", "auto"),)),
        "fixed_ip": string(constraints=(custom("ip_addr"),)),
        "port": string(constraints=(custom("neutron.port"),)),
        "port_extra_properties": map_(PORT_EXTRA_PROPERTIES, update=True),
        "subnet": string(),
        "floating_ip": string(),
        "tag": string(),
    }
)

_SERVER_PROPERTIES = {
    "name": string(update=True),
    "image": string(update=True, constraints=(custom("glance.image"),)),
    "block_device_mapping": list_(_BDM),
    "block_device_mapping_v2": list_(_BDM_V2),
    "flavor": string(required=True, update=True, constraints=(custom("nova.flavor"),)),
    "flavor_update_policy": string(
        default="RESIZE", update=True, constraints=(allowed("RESIZE", "REPLACE"),)
    ),
    "image_update_policy": string(
        default="REBUILD",
        update=True,
        constraints=(allowed("REBUILD", "REPLACE", "REBUILD_PRESERVE_EPHEMERAL"),),
    ),
    "key_name": string(constraints=(custom("nova.keypair"),)),
    "admin_user": string(hidden=True),
    "availability_zone": string(),
    "security_groups": list_(default=[]),
    # Heat attaches/detaches only the NICs that differ (server_network_mixin), so order does not matter.
    "networks": list_(_NETWORK, update=True, set_like=True),
    "scheduler_hints": map_(),
    "metadata": map_(default={}, update=True),
    "user_data_format": string(
        default="HEAT_CFNTOOLS", constraints=(allowed("HEAT_CFNTOOLS", "RAW", "SOFTWARE_CONFIG"),)
    ),
    "software_config_transport": string(
        default="POLL_SERVER_CFN",
        update=True,
        constraints=(allowed("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE"),),
    ),
    "user_data_update_policy": string(
        default="REPLACE", update=True, constraints=(allowed("REPLACE", "IGNORE", "REBUILD"),)
    ),
    "user_data": string(default="", update=True),
    "reservation_id": string(),
    "config_drive": boolean(),
    "diskConfig": string(constraints=(allowed("AUTO", "MANUAL"),)),
    "personality": map_(default={}, deprecated=True),
    "admin_pass": string(update=True),
    "tags": list_(string(), update=True, set_like=True),
    "deployment_swift_data": map_(
        {
            "container": string(constraints=(length_(min=1),)),
            "object": string(constraints=(length_(min=1),)),
        },
        default={},
        update=True,
    ),
}


def _policy_replace(prop: str, policy_prop: str, default: str, replace_values: frozenset[str]) -> Any:
    def rule(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
        if not changed(old, new, prop):
            return []
        value = policy(old, new, policy_prop, default)
        if value is None:
            return [(prop, f"{prop} changed and {policy_prop} is known only after apply (REPLACE replaces)")]
        if value in replace_values:
            return [(prop, f"{prop} changed with {policy_prop}: {value}")]
        return []

    return rule


def server_flavor_replace(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server.needs_replace_with_prop_diff``: a ``flavor`` change with ``flavor_update_policy:
    REPLACE`` (new value, else old, else the default RESIZE) replaces; RESIZE resizes in place."""
    return _FLAVOR(old, new)  # type: ignore[no-any-return]


def server_image_replace(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server.needs_replace_with_prop_diff``: an ``image`` change with ``image_update_policy: REPLACE``
    replaces; REBUILD / REBUILD_PRESERVE_EPHEMERAL (default REBUILD) rebuild in place (see server_image_rebuild)."""
    return _IMAGE(old, new)  # type: ignore[no-any-return]


def server_user_data_replace(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server.needs_replace_with_prop_diff``: a ``user_data`` change with ``user_data_update_policy:
    REPLACE`` (the default) replaces the server; IGNORE updates nothing in the cloud; REBUILD rebuilds."""
    return _USER_DATA(old, new)  # type: ignore[no-any-return]


_FLAVOR = _policy_replace("flavor", "flavor_update_policy", "RESIZE", frozenset({"REPLACE"}))
_IMAGE = _policy_replace("image", "image_update_policy", "REBUILD", frozenset({"REPLACE"}))
_USER_DATA = _policy_replace("user_data", "user_data_update_policy", "REPLACE", frozenset({"REPLACE"}))


def server_image_rebuild(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server.handle_update`` → ``_update_image``: an ``image`` change with ``image_update_policy``
    REBUILD (default) or REBUILD_PRESERVE_EPHEMERAL rebuilds the server in place, which wipes the root disk
    (REBUILD_PRESERVE_EPHEMERAL keeps the ephemeral disk)."""
    if not changed(old, new, "image"):
        return []
    value = policy(old, new, "image_update_policy", "REBUILD")
    if value == "REBUILD":
        return [("image", "image changed: the server is rebuilt in place and its root disk is wiped")]
    if value == "REBUILD_PRESERVE_EPHEMERAL":
        return [
            ("image", "image changed: the server is rebuilt in place (root disk wiped, ephemeral disk kept)")
        ]
    return []


def server_user_data_rebuild(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server.handle_update`` → ``_update_user_data_rebuild``: a ``user_data`` change with
    ``user_data_update_policy: REBUILD`` rebuilds the server with its current image (root disk wiped)."""
    if not changed(old, new, "user_data"):
        return []
    if policy(old, new, "user_data_update_policy", "REPLACE") == "REBUILD":
        return [
            ("user_data", "user_data changed with user_data_update_policy: REBUILD: the server is rebuilt")
        ]
    return []


def _bdm_errors(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Server._validate_block_device_mapping``."""
    bdm = props.get("block_device_mapping") or []
    bdm2 = props.get("block_device_mapping_v2") or []
    image = props.get("image")
    if not known(bdm, bdm2, image) or not isinstance(bdm, list) or not isinstance(bdm2, list):
        return []
    if bdm and bdm2:
        return [
            ("block_device_mapping", "block_device_mapping and block_device_mapping_v2 cannot both be given")
        ]
    out: list[tuple[str, str]] = []
    bootable = image is not None
    for i, m in enumerate(bdm):
        if not isinstance(m, Mapping):
            continue
        if m.get("device_name") == "vda":
            bootable = True
        vol, snap = m.get("volume_id"), m.get("snapshot_id")
        if vol is not None and snap is not None:
            out.append((f"block_device_mapping.{i}", "volume_id and snapshot_id cannot both be given"))
        if vol is None and snap is None:
            out.append((f"block_device_mapping.{i}", "either volume_id or snapshot_id must be given"))
    sources = [image]
    for i, m in enumerate(bdm2):
        if not isinstance(m, Mapping):
            continue
        vol, snap, img = m.get("volume_id"), m.get("snapshot_id"), m.get("image") or m.get("image_id")
        eph = m.get("ephemeral_size") or m.get("ephemeral_format")
        given = [v for v in (vol, snap, img, m.get("swap_size"), eph) if v is not None]
        path = f"block_device_mapping_v2.{i}"
        if len(given) > 1:
            out.append(
                (
                    path,
                    "only one of volume_id, snapshot_id, image, swap_size, ephemeral_size/format may be given",
                )
            )
        elif not given:
            out.append(
                (path, "one of volume_id, snapshot_id, image, swap_size or ephemeral_size/format is needed")
            )
        if any(v is not None for v in (vol, snap, img)) and m.get("boot_index") in (None, 0):
            bootable = True
            sources.extend((vol, snap, img))
    if not bootable:
        out.append(("image", "neither image nor a bootable volume is given for the server"))
    elif bdm2 and len([s for s in sources if s is not None]) != 1:
        out.append(("block_device_mapping_v2", "multiple bootable sources for the server"))
    return out


def _network_errors(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``ServerNetworkMixin._validate_network`` and the networks checks of ``Server.validate``."""
    nets = props.get("networks")
    if not isinstance(nets, list):
        return []
    out: list[tuple[str, str]] = []
    for i, net in enumerate(nets):
        if not isinstance(net, Mapping) or not known(net):
            continue
        path = f"networks.{i}"
        network = net.get("network") if net.get("network") is not None else net.get("uuid")
        port, subnet, fixed_ip = net.get("port"), net.get("subnet"), net.get("fixed_ip")
        alloc = net.get("allocate_network")
        if network is None and port is None and subnet is None and not alloc:
            out.append((path, "one of network, port, allocate_network or subnet must be given"))
        if alloc and len([v for v in net.values() if v is not None]) != 1:
            out.append((path, "allocate_network cannot be given with other keys of the same networks entry"))
        if alloc and len(nets) != 1:
            out.append((path, "allocate_network cannot be given when the server has several networks"))
        if fixed_ip and port is not None:
            out.append((path, "fixed_ip and port cannot both be given"))
        if (
            net.get("floating_ip") is not None
            and network is not None
            and port is None
            and subnet is None
            and not net.get("port_extra_properties")
        ):
            out.append((path, "floating_ip needs port, subnet or port_extra_properties besides network"))
    groups = props.get("security_groups")
    if known(groups) and groups and any(isinstance(n, Mapping) and n.get("port") is not None for n in nets):
        out.append(("security_groups", "security_groups cannot be given when a networks entry names a port"))
    return out


def server_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors the offline parts of ``Server.validate``: block device mappings and boot source, networks
    entries, security_groups with explicit ports. (Image/flavor existence and API microversions need the cloud.)"""
    return _bdm_errors(props) + _network_errors(props)


SERVER = ResourceType(
    name="OS::Nova::Server",
    properties=_SERVER_PROPERTIES,
    attributes=attrs(
        "name",
        "addresses",
        "networks",
        "instance_name",
        "accessIPv4",
        "accessIPv6",
        "console_urls",
        "tags",
        "os_collect_config",
        "first_address",
        stable=("instance_name",),
    ),
    replace_rules=(server_flavor_replace, server_image_replace, server_user_data_replace),
    rebuild_rules=(server_image_rebuild, server_user_data_rebuild),
    validators=(server_validate,),
    snapshot_delete=True,
    # Server.needs_replace_failed: only an ERROR / DELETED / SOFT_DELETED (or vanished) server is replaced.
    failed_replace=failed_replace_on_status("ERROR", "DELETED", "SOFT_DELETED"),
    service="compute",
    heat_class="heat.engine.resources.openstack.nova.server.Server",
)

# ------------------------------------------------------------------------------------------------ KeyPair

KEYPAIR = ResourceType(
    name="OS::Nova::KeyPair",
    properties={
        "name": string(required=True, constraints=(length_(min=1, max=255),)),
        "save_private_key": boolean(default=False),
        "public_key": string(),
        "type": string(constraints=(allowed("ssh", "x509"),)),
        "user": string(constraints=(custom("keystone.user"),)),
    },
    attributes=attrs("public_key", "private_key"),
    service="compute",
    heat_class="heat.engine.resources.openstack.nova.keypair.KeyPair",
)

# ------------------------------------------------------------------------------------------------- Flavor

FLAVOR = ResourceType(
    name="OS::Nova::Flavor",
    properties={
        "tenants": list_(
            string(constraints=(custom("keystone.project"),)), default=[], update=True, set_like=True
        ),
        "flavorid": string(),
        "name": string(),
        "ram": integer(required=True),
        "vcpus": integer(required=True),
        "disk": integer(default=0),
        "swap": integer(default=0),
        "ephemeral": integer(default=0),
        "rxtx_factor": number(default=1.0),
        "extra_specs": map_(update=True),
        "is_public": boolean(default=True),
    },
    attributes=attrs("is_public", "extra_specs", stable=("is_public",)),
    service="compute",
    heat_class="heat.engine.resources.openstack.nova.flavor.NovaFlavor",
)

# -------------------------------------------------------------------------------------------- ServerGroup


SERVER_GROUP = ResourceType(
    name="OS::Nova::ServerGroup",
    properties={
        "name": string(),
        "policies": list_(
            string(),
            default=["anti-affinity"],
            constraints=(allowed("anti-affinity", "affinity", "soft-anti-affinity", "soft-affinity"),),
        ),
        "rules": map_({"max_server_per_host": number()}),
    },
    attributes=attrs(),
    # Heat documents "a list of exactly one policy" but checks nothing: from Nova 2.64 it creates the group with
    # the first one (hotc too), so a longer list is accepted as Heat accepts it.
    # ServerGroup.needs_replace_failed: a FAILED group is kept when it still exists
    failed_replace=lambda live: live is None,
    service="compute",
    heat_class="heat.engine.resources.openstack.nova.server_group.ServerGroup",
)

# the limits of a project's compute quota set (OS::Nova::Quota's properties beside project)
QUOTA_LIMITS = (
    "cores",
    "fixed_ips",
    "floating_ips",
    "instances",
    "injected_files",
    "injected_file_content_bytes",
    "injected_file_path_bytes",
    "key_pairs",
    "metadata_items",
    "ram",
    "security_groups",
    "security_group_rules",
    "server_groups",
    "server_group_members",
)

# NovaQuota: the limits of a project's compute quota set (the file injection ones deprecated, as in Heat)
QUOTA = quota_type(
    "OS::Nova::Quota",
    QUOTA_LIMITS,
    deprecated=("injected_files", "injected_file_content_bytes", "injected_file_path_bytes"),
    service="compute",
    heat_class="heat.engine.resources.openstack.nova.quota.NovaQuota",
)

TYPES = (SERVER, KEYPAIR, FLAVOR, SERVER_GROUP, QUOTA)
