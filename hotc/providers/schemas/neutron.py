"""OS::Neutron::* resource types (service ``network``)."""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from typing import Any

from hotc.providers.base import PropsValidator, ResourceType
from hotc.providers.schemas._dsl import (
    allowed,
    attrs,
    boolean,
    custom,
    integer,
    length_,
    list_,
    map_,
    range_,
    string,
)
from hotc.providers.schemas._quota import quota_type
from hotc.providers.schemas._rules import changed, failed_replace_on_status, known

_SG_PROTOCOLS = [
    *range(256),
    *(
        "ah dccp egp esp gre icmp icmpv6 igmp ipv6-encap ipv6-frag ipv6-icmp ipv6-nonxt ipv6-opts "
        "ipv6-route ospf pgm rsvp sctp tcp udp udplite vrrp"
    ).split(),
]


def _with_value_specs(names: frozenset[str]) -> PropsValidator:
    def check(props: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Mirrors ``NeutronResource.validate_properties`` (value_specs may not override properties)."""
        specs = props.get("value_specs")
        if not isinstance(specs, Mapping):
            return []
        found = sorted(k for k in specs if k in names | {"shared", "tenant_id"})
        if found:
            return [("value_specs", f"{', '.join(found)} not allowed in value_specs")]
        return []

    return check


# -------------------------------------------------------------------------------------------------- Net

_NET_PROPERTIES = {
    "name": string(update=True),
    "value_specs": map_(default={}, update=True),
    "admin_state_up": boolean(default=True, update=True),
    "tenant_id": string(),
    "shared": boolean(default=False, update=True),
    "dhcp_agent_ids": list_(update=True, set_like=True),
    "port_security_enabled": boolean(update=True),
    "qos_policy": string(update=True, constraints=(custom("neutron.qos_policy"),)),
    "dns_domain": string(update=True, constraints=(custom("dns_domain"),)),
    "availability_zone_hints": list_(),
    "tags": list_(string(), update=True, set_like=True),
}

NET = ResourceType(
    name="OS::Neutron::Net",
    properties=_NET_PROPERTIES,
    attributes=attrs(
        "status",
        "name",
        "subnets",
        "admin_state_up",
        "tenant_id",
        "port_security_enabled",
        "mtu",
        "qos_policy_id",
        "l2_adjacency",
        "segments",
        stable=("tenant_id",),
    ),
    validators=(_with_value_specs(frozenset(_NET_PROPERTIES)),),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.net.Net",
)

# ----------------------------------------------------------------------------------------------- Subnet

_SUBNET_PROPERTIES = {
    "network_id": string(constraints=(custom("neutron.network"),), hidden=True, alias_of="network"),
    "network": string(required=True, constraints=(custom("neutron.network"),)),
    "subnetpool": string(constraints=(custom("neutron.subnetpool"),)),
    "prefixlen": integer(constraints=(range_(min=0),)),
    "cidr": string(constraints=(custom("net_cidr"),)),
    "value_specs": map_(default={}, update=True),
    "name": string(update=True),
    "ip_version": integer(default=4, constraints=(allowed(4, 6),)),
    "dns_nameservers": list_(default=[], update=True),  # order matters to resolvers: not set-like
    "gateway_ip": string(update=True),
    "enable_dhcp": boolean(default=True, update=True),
    "allocation_pools": list_(
        map_(
            {
                "start": string(required=True, constraints=(custom("ip_addr"),)),
                "end": string(required=True, constraints=(custom("ip_addr"),)),
            }
        ),
        update=True,
        set_like=True,
    ),
    "tenant_id": string(),
    "host_routes": list_(
        map_(
            {
                "destination": string(required=True, constraints=(custom("net_cidr"),)),
                "nexthop": string(required=True, constraints=(custom("ip_addr"),)),
            }
        ),
        update=True,
        set_like=True,
    ),
    "ipv6_ra_mode": string(constraints=(allowed("dhcpv6-stateful", "dhcpv6-stateless", "slaac"),)),
    "ipv6_address_mode": string(constraints=(allowed("dhcpv6-stateful", "dhcpv6-stateless", "slaac"),)),
    "segment": string(update=True, constraints=(custom("neutron.segment"),)),
    "tags": list_(string(), update=True, set_like=True),
}


def subnet_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Subnet.validate``: exactly one of ``subnetpool``/``cidr``; ``prefixlen`` not with ``cidr``;
    no IPv6 modes on an IPv4 subnet; both IPv6 modes, when given, equal."""
    out: list[tuple[str, str]] = []
    pool, cidr, plen = props.get("subnetpool"), props.get("cidr"), props.get("prefixlen")
    if known(pool, cidr):
        if pool is not None and cidr:
            out.append(("cidr", "subnetpool and cidr cannot both be given"))
        if pool is None and not cidr:
            out.append(("cidr", "one of subnetpool or cidr must be given"))
    if known(plen, cidr) and plen and cidr:
        out.append(("prefixlen", "prefixlen and cidr cannot both be given"))
    ra, am, ipv = props.get("ipv6_ra_mode"), props.get("ipv6_address_mode"), props.get("ip_version", 4)
    if known(ra, am, ipv):
        if ipv == 4 and (ra or am):
            out.append(("ip_version", "ipv6_ra_mode and ipv6_address_mode are not supported for ipv4"))
        if ra and am and ra != am:
            out.append(
                ("ipv6_ra_mode", "when both ipv6_ra_mode and ipv6_address_mode are set, they must be equal")
            )
    return out


def subnet_update_check(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Subnet.handle_update``, which refuses (ResourceActionNotSupported) to change ``gateway_ip`` to
    ``auto`` on an existing subnet and to change ``segment`` when the subnet is already in a segment."""
    out: list[tuple[str, str]] = []
    if changed(old, new, "gateway_ip") and new.get("gateway_ip") == "auto":
        out.append(
            ("gateway_ip", 'the value "auto" for gateway_ip can be used only when the subnet is created')
        )
    if (
        changed(old, new, "segment")
        and known(new.get("segment"))
        and new.get("segment")
        and old.get("segment") is not None
    ):
        out.append(("segment", "segment can be changed only while the subnet is in no segment"))
    return out


SUBNET = ResourceType(
    name="OS::Neutron::Subnet",
    properties=_SUBNET_PROPERTIES,
    attributes=attrs(
        "name",
        "network_id",
        "tenant_id",
        "allocation_pools",
        "gateway_ip",
        "host_routes",
        "ip_version",
        "cidr",
        "dns_nameservers",
        "enable_dhcp",
        stable=("cidr", "ip_version", "network_id", "tenant_id"),
    ),
    validators=(subnet_validate, _with_value_specs(frozenset(_SUBNET_PROPERTIES))),
    update_checks=(subnet_update_check,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.subnet.Subnet",
)

# ----------------------------------------------------------------------------------------------- Router

_ROUTER_PROPERTIES = {
    "name": string(update=True),
    "external_gateway_info": map_(
        {
            "network": string(required=True, update=True),
            "enable_snat": boolean(update=True),
            "external_fixed_ips": list_(
                map_(
                    {
                        "ip_address": string(constraints=(custom("ip_addr"),)),
                        "subnet": string(constraints=(custom("neutron.subnet"),)),
                    }
                ),
                update=True,
            ),
        },
        update=True,
    ),
    "value_specs": map_(default={}, update=True),
    "admin_state_up": boolean(default=True, update=True),
    "l3_agent_id": string(update=True, hidden=True, alias_of="l3_agent_ids"),
    "l3_agent_ids": list_(string(), update=True, set_like=True),
    "distributed": boolean(),
    "ha": boolean(),
    "availability_zone_hints": list_(update=True),
    "tags": list_(string(), update=True, set_like=True),
    "tenant_id": string(),
}


def router_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Router.validate``: l3_agent_id vs l3_agent_ids, distributed vs agents/ha, one agent unless HA."""
    out: list[tuple[str, str]] = []
    dist, one, many, ha = (props.get(k) for k in ("distributed", "l3_agent_id", "l3_agent_ids", "ha"))
    if not known(dist, one, many, ha):
        return out
    if one and many:
        out.append(("l3_agent_ids", "l3_agent_id and l3_agent_ids cannot both be given"))
    if dist and (one or many):
        out.append(("distributed", "a distributed router cannot name l3 agents"))
    if ha and dist:
        out.append(("ha", "ha and distributed cannot both be set"))
    if not ha and isinstance(many, list) and len(many) > 1:
        out.append(("l3_agent_ids", "non-HA routers can only have one L3 agent"))
    return out


ROUTER = ResourceType(
    name="OS::Neutron::Router",
    properties=_ROUTER_PROPERTIES,
    attributes=attrs(
        "status", "external_gateway_info", "name", "admin_state_up", "tenant_id", stable=("tenant_id",)
    ),
    validators=(router_validate, _with_value_specs(frozenset(_ROUTER_PROPERTIES))),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.router.Router",
)


def router_interface_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``RouterInterface.validate``: exactly one of ``subnet`` and ``port``."""
    subnet = props.get("subnet", props.get("subnet_id"))
    port = props.get("port", props.get("port_id"))
    if subnet is not None and port is not None:
        return [("subnet", "subnet and port cannot both be given")]
    if subnet is None and port is None:
        return [("subnet", "one of subnet or port must be given")]
    return []


ROUTER_INTERFACE = ResourceType(
    name="OS::Neutron::RouterInterface",
    properties={
        "router": string(required=True, constraints=(custom("neutron.router"),)),
        "router_id": string(constraints=(custom("neutron.router"),), hidden=True, alias_of="router"),
        "subnet_id": string(constraints=(custom("neutron.subnet"),), hidden=True, alias_of="subnet"),
        "subnet": string(constraints=(custom("neutron.subnet"),)),
        "port_id": string(constraints=(custom("neutron.port"),), hidden=True, alias_of="port"),
        "port": string(constraints=(custom("neutron.port"),)),
    },
    attributes=attrs(),
    validators=(router_interface_validate,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.router.RouterInterface",
)

# ------------------------------------------------------------------------------------------------- Port

# Port properties that OS::Nova::Server networks[].port_extra_properties also takes.
PORT_EXTRA_PROPERTIES = {
    "value_specs": map_(default={}, update=True),
    "admin_state_up": boolean(default=True, update=True),
    "mac_address": string(constraints=(custom("mac_addr"),)),
    "allowed_address_pairs": list_(
        map_(
            {
                "mac_address": string(constraints=(custom("mac_addr"),)),
                "ip_address": string(required=True, constraints=(custom("ip_or_cidr"),)),
            }
        ),
        update=True,
        set_like=True,
    ),
    "binding:vnic_type": string(
        default="normal",
        update=True,
        constraints=(
            allowed(
                "normal", "direct", "macvtap", "direct-physical", "baremetal", "virtio-forwarder", "smart-nic"
            ),
        ),
    ),
    "port_security_enabled": boolean(update=True),
    "qos_policy": string(update=True, constraints=(custom("neutron.qos_policy"),)),
    "propagate_uplink_status": boolean(update=True),
    "no_fixed_ips": boolean(default=False, update=True),
}

_PORT_PROPERTIES = {
    "name": string(update=True),
    "network_id": string(constraints=(custom("neutron.network"),), hidden=True, alias_of="network"),
    "network": string(required=True, constraints=(custom("neutron.network"),)),
    "device_id": string(default="", update=True),
    "device_owner": string(default="", update=True),
    "fixed_ips": list_(
        map_(
            {
                "subnet_id": string(constraints=(custom("neutron.subnet"),), hidden=True, alias_of="subnet"),
                "subnet": string(constraints=(custom("neutron.subnet"),)),
                "ip_address": string(constraints=(custom("ip_addr"),)),
            }
        ),
        update=True,
    ),
    "security_groups": list_(update=True, set_like=True),
    "replacement_policy": string(
        default="AUTO", update=True, constraints=(allowed("REPLACE_ALWAYS", "AUTO"),), hidden=True
    ),
    "dns_name": string(update=True, constraints=(custom("dns_name"),)),
    "tags": list_(string(), update=True, set_like=True),
    **PORT_EXTRA_PROPERTIES,
}


def port_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``Port.validate``: ``fixed_ips`` and ``no_fixed_ips: true`` conflict."""
    if (
        known(props.get("fixed_ips"), props.get("no_fixed_ips"))
        and props.get("fixed_ips")
        and props.get("no_fixed_ips")
    ):
        return [("no_fixed_ips", "fixed_ips and no_fixed_ips cannot both be given")]
    return []


def port_always_replace(props: Mapping[str, Any]) -> str | None:
    """Mirrors ``Port.needs_replace``: the hidden legacy ``replacement_policy: REPLACE_ALWAYS`` replaces the port
    on every stack update, changed or not (the default AUTO does not)."""
    if props.get("replacement_policy") == "REPLACE_ALWAYS":
        return "replacement_policy: REPLACE_ALWAYS replaces the port on every update"
    return None


PORT = ResourceType(
    name="OS::Neutron::Port",
    properties=_PORT_PROPERTIES,
    attributes=attrs(
        "admin_state_up",
        "device_id",
        "device_owner",
        "fixed_ips",
        "mac_address",
        "name",
        "network_id",
        "security_groups",
        "status",
        "tenant_id",
        "allowed_address_pairs",
        "subnets",
        "port_security_enabled",
        "qos_policy_id",
        "dns_assignment",
        "network",
        "propagate_uplink_status",
        stable=("network_id", "tenant_id"),
    ),
    validators=(port_validate, _with_value_specs(frozenset(_PORT_PROPERTIES))),
    always_replace=port_always_replace,
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.port.Port",
)

# ------------------------------------------------------------------------------------------- FloatingIP

_FIP_PROPERTIES = {
    "floating_network_id": string(
        constraints=(custom("neutron.network"),), hidden=True, alias_of="floating_network"
    ),
    "floating_network": string(required=True, constraints=(custom("neutron.network"),)),
    "floating_subnet": string(constraints=(custom("neutron.subnet"),)),
    "value_specs": map_(default={}),
    "port_id": string(update=True, constraints=(custom("neutron.port"),)),
    "fixed_ip_address": string(update=True, constraints=(custom("ip_addr"),)),
    "floating_ip_address": string(constraints=(custom("ip_addr"),)),
    "dns_name": string(update=True, constraints=(custom("rel_dns_name"),)),
    "dns_domain": string(update=True, constraints=(custom("dns_domain"),)),
}


def floating_ip_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``FloatingIP.validate``: ``fixed_ip_address`` needs ``port_id``."""
    if props.get("port_id") is None and props.get("fixed_ip_address") is not None:
        return [("fixed_ip_address", "fixed_ip_address needs port_id")]
    return []


FLOATING_IP = ResourceType(
    name="OS::Neutron::FloatingIP",
    properties=_FIP_PROPERTIES,
    attributes=attrs(
        "router_id",
        "tenant_id",
        "floating_network_id",
        "fixed_ip_address",
        "floating_ip_address",
        "port_id",
        stable=("floating_ip_address", "floating_network_id", "tenant_id"),
    ),
    validators=(floating_ip_validate, _with_value_specs(frozenset(_FIP_PROPERTIES))),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.floatingip.FloatingIP",
)

FLOATING_IP_ASSOCIATION = ResourceType(
    name="OS::Neutron::FloatingIPAssociation",
    properties={
        "floatingip_id": string(required=True, update=True),
        "port_id": string(required=True, update=True, constraints=(custom("neutron.port"),)),
        "fixed_ip_address": string(update=True, constraints=(custom("ip_addr"),)),
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.floatingip.FloatingIPAssociation",
)

# ---------------------------------------------------------------------------------------- SecurityGroup

_SG_RULE = map_(
    {
        "direction": string(default="ingress", constraints=(allowed("ingress", "egress"),)),
        "ethertype": string(default="IPv4", constraints=(allowed("IPv4", "IPv6"),)),
        "port_range_min": integer(constraints=(range_(min=0, max=65535),)),
        "port_range_max": integer(constraints=(range_(min=0, max=65535),)),
        "protocol": string(constraints=(allowed(*_SG_PROTOCOLS),)),
        "remote_mode": string(
            default="remote_ip_prefix", constraints=(allowed("remote_ip_prefix", "remote_group_id"),)
        ),
        "remote_group_id": string(constraints=(custom("neutron.security_group"),)),
        "remote_ip_prefix": string(constraints=(custom("net_cidr"),)),
        "description": string(),
    }
)


def security_group_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``SecurityGroup.validate``: the name ``default`` is reserved. (Whether Neutron supports
    ``stateful: false`` needs the cloud.)"""
    if props.get("name") == "default":
        return [("name", 'security groups cannot be given the name "default"')]
    return []


SECURITY_GROUP = ResourceType(
    name="OS::Neutron::SecurityGroup",
    properties={
        "name": string(update=True),
        "description": string(update=True),
        # Heat's handle_update deletes the rules no longer present and creates the new ones: a set.
        "rules": list_(_SG_RULE, default=[], update=True, set_like=True),
        "stateful": boolean(update=True),
    },
    attributes=attrs(),
    validators=(security_group_validate,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.security_group.SecurityGroup",
)


def security_group_rule_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``SecurityGroupRule.validate``: ``remote_group`` and ``remote_ip_prefix`` conflict; the port range
    must not be inverted (except for ICMP protocols, where the fields carry type/code)."""
    out: list[tuple[str, str]] = []
    if props.get("remote_group") is not None and props.get("remote_ip_prefix") is not None:
        out.append(("remote_group", "remote_group and remote_ip_prefix cannot both be given"))
    lo, hi, proto = props.get("port_range_min"), props.get("port_range_max"), props.get("protocol", "tcp")
    if (
        known(lo, hi, proto)
        and isinstance(lo, int)
        and isinstance(hi, int)
        and proto not in ("icmp", "icmpv6", "ipv6-icmp")
        and hi < lo
    ):
        out.append(("port_range_max", "port_range_min must be less than or equal to port_range_max"))
    return out


SECURITY_GROUP_RULE = ResourceType(
    name="OS::Neutron::SecurityGroupRule",
    properties={
        "security_group": string(required=True, constraints=(custom("neutron.security_group"),)),
        "description": string(),
        "direction": string(default="ingress", constraints=(allowed("ingress", "egress"),)),
        "ethertype": string(default="IPv4", constraints=(allowed("IPv4", "IPv6"),)),
        "port_range_min": integer(constraints=(range_(min=0, max=65535),)),
        "port_range_max": integer(constraints=(range_(min=0, max=65535),)),
        "protocol": string(default="tcp", constraints=(allowed(*_SG_PROTOCOLS),)),
        "remote_group": string(constraints=(custom("neutron.security_group"),)),
        "remote_ip_prefix": string(constraints=(custom("net_cidr"),)),
    },
    attributes=attrs(),
    validators=(security_group_rule_validate,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.security_group_rule.SecurityGroupRule",
)

# -------------------------------------------------------------------------------------------- RouterGateway

ROUTER_GATEWAY = ResourceType(
    name="OS::Neutron::RouterGateway",
    properties={
        "router_id": string(required=True, constraints=(custom("neutron.router"),)),
        "network_id": string(constraints=(custom("neutron.network"),), hidden=True, alias_of="network"),
        "network": string(constraints=(custom("neutron.network"),)),
    },
    attributes=attrs(),
    service="network",
    # Heat's support status is HIDDEN (deprecated since 2014.1), yet the plugin still sets the gateway
    support="deprecated",
    description="The gateway of a router on an external network (deprecated in Heat: use the router's "
    "external_gateway_info).",
    heat_class="heat.engine.resources.openstack.neutron.router.RouterGateway",
)

# ------------------------------------------------------------------------------------------------- QoS

QOS_POLICY = ResourceType(
    name="OS::Neutron::QoSPolicy",
    properties={
        "name": string(update=True),
        "description": string(update=True),
        "shared": boolean(default=False, update=True),
        "tenant_id": string(),
    },
    attributes=attrs(rules="list"),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.qos.QoSPolicy",
)

_QOS_RULE_BASE = {
    "policy": string(required=True, constraints=(custom("neutron.qos_policy"),)),
    "tenant_id": string(),
}
_DIRECTIONS = ("egress", "ingress")

QOS_BANDWIDTH_LIMIT_RULE = ResourceType(
    name="OS::Neutron::QoSBandwidthLimitRule",
    properties={
        "max_kbps": integer(required=True, update=True, constraints=(range_(min=0),)),
        "max_burst_kbps": integer(default=0, update=True, constraints=(range_(min=0),)),
        "direction": string(default="egress", update=True, constraints=(allowed(*_DIRECTIONS),)),
        **_QOS_RULE_BASE,
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.qos.QoSBandwidthLimitRule",
)

DSCP_MARKS = (0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56)

QOS_DSCP_MARKING_RULE = ResourceType(
    name="OS::Neutron::QoSDscpMarkingRule",
    properties={
        "dscp_mark": integer(required=True, update=True, constraints=(allowed(*DSCP_MARKS),)),
        **_QOS_RULE_BASE,
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.qos.QoSDscpMarkingRule",
)

QOS_MINIMUM_BANDWIDTH_RULE = ResourceType(
    name="OS::Neutron::QoSMinimumBandwidthRule",
    properties={
        "min_kbps": integer(required=True, update=True, constraints=(range_(min=0),)),
        "direction": string(default="egress", update=True, constraints=(allowed(*_DIRECTIONS),)),
        **_QOS_RULE_BASE,
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.qos.QoSMinimumBandwidthRule",
)

QOS_MINIMUM_PACKET_RATE_RULE = ResourceType(
    name="OS::Neutron::QoSMinimumPacketRateRule",
    properties={
        "min_kpps": integer(required=True, update=True, constraints=(range_(min=0),)),
        "direction": string(default="egress", update=True, constraints=(allowed("any", *_DIRECTIONS),)),
        **_QOS_RULE_BASE,
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.qos.QoSMinimumPacketRateRule",
)

# ------------------------------------------------------------------------------------------------ Trunk

TRUNK = ResourceType(
    name="OS::Neutron::Trunk",
    properties={
        "name": string(update=True),
        # immutable: a new parent port makes Heat's update fail (it does not replace the trunk)
        "port": string(required=True, immutable=True, constraints=(custom("neutron.port"),)),
        "sub_ports": list_(
            map_(
                {
                    "port": string(required=True, constraints=(custom("neutron.port"),)),
                    "segmentation_type": string(required=True, constraints=(allowed("vlan"),)),
                    "segmentation_id": integer(required=True, constraints=(range_(min=1, max=4094),)),
                }
            ),
            update=True,
            set_like=True,  # Heat's handle_update removes the subports no longer listed and adds the new ones
        ),
        "description": string(update=True),
        "admin_state_up": boolean(update=True),
    },
    attributes=attrs(port_id="string", stable=("port_id",)),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.trunk.Trunk",
)

# ------------------------------------------------------------------------------------------- SubnetPool


def subnetpool_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``SubnetPool._validate_prefix_bounds``: min_prefixlen <= default_prefixlen <= max_prefixlen
    (a bound of 0 or absent is not checked, as in Heat)."""
    lo, dflt, hi = (props.get(k) for k in ("min_prefixlen", "default_prefixlen", "max_prefixlen"))
    if not known(lo, dflt, hi) or not all(v is None or isinstance(v, int) for v in (lo, dflt, hi)):
        return []

    def bad(k1: str, v1: Any, k2: str, v2: Any) -> tuple[str, str]:
        return (k2, f"Illegal prefix bounds: {k1}={v1}, {k2}={v2}.")

    if lo and hi and lo > hi:
        return [bad("max_prefixlen", hi, "min_prefixlen", lo)]
    if dflt:
        if hi and dflt > hi:
            return [bad("max_prefixlen", hi, "default_prefixlen", dflt)]
        if lo and lo > dflt:
            return [bad("min_prefixlen", lo, "default_prefixlen", dflt)]
    return []


def _covered(old: list[str], new: list[str]) -> bool | None:
    """Whether the address space of the OLD prefixes is inside that of the NEW ones (None: not CIDRs)."""
    try:
        olds = [ipaddress.ip_network(str(p), strict=False) for p in old]
        news = [ipaddress.ip_network(str(p), strict=False) for p in new]
    except ValueError:
        return None
    for net in olds:
        left = [net]
        for n in news:
            if n.version != net.version:
                continue
            nxt: list[Any] = []
            for piece in left:
                if piece.subnet_of(n):  # type: ignore[arg-type]
                    continue
                if n.subnet_of(piece):  # type: ignore[arg-type]
                    nxt.extend(piece.address_exclude(n))  # type: ignore[arg-type]
                else:
                    nxt.append(piece)
            left = nxt
        if left:
            return False
    return True


def subnetpool_update_check(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``SubnetPool._validate_prefixes_for_update``: new ``prefixes`` must be a superset of the old."""
    o, n = old.get("prefixes"), new.get("prefixes")
    if (
        not changed(old, new, "prefixes")
        or not known(o, n)
        or not isinstance(o, list)
        or not isinstance(n, list)
    ):
        return []
    if _covered(o, n) is False:
        return [
            (
                "prefixes",
                f"Property prefixes updated value {sorted(map(str, n))} should be superset of existing value "
                f"{sorted(map(str, o))}.",
            )
        ]
    return []


SUBNET_POOL = ResourceType(
    name="OS::Neutron::SubnetPool",
    properties={
        "name": string(update=True),
        "prefixes": list_(
            string(constraints=(custom("net_cidr"),)),
            required=True,
            update=True,
            constraints=(length_(min=1),),
        ),
        "address_scope": string(update=True, constraints=(custom("neutron.address_scope"),)),
        "default_quota": integer(update=True, constraints=(range_(min=0),)),
        "default_prefixlen": integer(update=True, constraints=(range_(min=0),)),
        "min_prefixlen": integer(update=True, constraints=(range_(min=0),)),
        "max_prefixlen": integer(update=True, constraints=(range_(min=0),)),
        "is_default": boolean(default=False, update=True),
        "tenant_id": string(),
        "shared": boolean(default=False),
        "tags": list_(string(), update=True, set_like=True),
    },
    attributes=attrs(),
    validators=(subnetpool_validate,),
    update_checks=(subnetpool_update_check,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.subnetpool.SubnetPool",
)

# ----------------------------------------------------------------------------------------- AddressScope

ADDRESS_SCOPE = ResourceType(
    name="OS::Neutron::AddressScope",
    properties={
        "name": string(update=True),
        "shared": boolean(default=False, update=True),
        "tenant_id": string(constraints=(custom("keystone.project"),)),
        "ip_version": integer(default=4, constraints=(allowed(4, 6),)),
    },
    attributes=attrs(),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.address_scope.AddressScope",
)

# ------------------------------------------------------------------------------------------ ProviderNet

PROVIDER_NETWORK_TYPES = ("local", "vlan", "vxlan", "gre", "geneve", "flat")


def provider_net_validate(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Mirrors ``ProviderNet.validate``: no ``segmentation_id`` on local/flat networks, no ``physical_network``
    on vxlan/gre/geneve/local networks."""
    out: list[tuple[str, str]] = []
    kind, seg, phys = props.get("network_type"), props.get("segmentation_id"), props.get("physical_network")
    if not known(kind, seg, phys):
        return out
    if seg and kind in ("local", "flat"):
        out.append(("segmentation_id", f"a {kind} network takes no segmentation_id"))
    if phys and kind in ("vxlan", "gre", "geneve", "local"):
        out.append(("physical_network", f"a {kind} network takes no physical_network"))
    return out


PROVIDER_NET = ResourceType(
    name="OS::Neutron::ProviderNet",
    properties={
        "name": string(update=True),
        "network_type": string(required=True, update=True, constraints=(allowed(*PROVIDER_NETWORK_TYPES),)),
        "physical_network": string(update=True),
        "segmentation_id": string(update=True),
        "admin_state_up": boolean(default=True, update=True),
        "shared": boolean(default=True, update=True),
        "port_security_enabled": boolean(update=True),
        "router_external": boolean(default=False, update=True),
        "dns_domain": string(update=True, constraints=(custom("dns_domain"),)),
        "availability_zone_hints": list_(update=True),
        "tags": list_(string(), update=True, set_like=True),
        "tenant_id": string(),
    },
    attributes=attrs(status="string", subnets="list", segments="list"),
    validators=(provider_net_validate,),
    service="network",
    heat_class="heat.engine.resources.openstack.neutron.provider_net.ProviderNet",
)

# NeutronResource.needs_replace_failed: a FAILED Neutron resource is replaced only when it is gone or its live
# status is ERROR; one without a status field (subnet, security group, …) is updated in place instead.
_NEUTRON_FAILED = failed_replace_on_status("ERROR", missing_status=False)

# the limits of a project's network quota (OS::Neutron::Quota's properties beside project): Neutron's API keys
QUOTA_LIMITS = (
    "subnet",
    "network",
    "floatingip",
    "security_group_rule",
    "security_group",
    "router",
    "port",
    "subnetpool",
    "rbac_policy",
)

TYPES = tuple(
    dataclasses.replace(t, failed_replace=_NEUTRON_FAILED)
    for t in (
        NET,
        SUBNET,
        ROUTER,
        ROUTER_INTERFACE,
        PORT,
        FLOATING_IP,
        FLOATING_IP_ASSOCIATION,
        SECURITY_GROUP,
        SECURITY_GROUP_RULE,
        ROUTER_GATEWAY,
        QOS_POLICY,
        QOS_BANDWIDTH_LIMIT_RULE,
        QOS_DSCP_MARKING_RULE,
        QOS_MINIMUM_BANDWIDTH_RULE,
        QOS_MINIMUM_PACKET_RATE_RULE,
        TRUNK,
        SUBNET_POOL,
        ADDRESS_SCOPE,
        PROVIDER_NET,
    )
) + (
    # NeutronQuota: the limits of a project's network quota (Heat's names are Neutron's API keys)
    quota_type(
        "OS::Neutron::Quota",
        QUOTA_LIMITS,
        service="network",
        heat_class="heat.engine.resources.openstack.neutron.quota.NeutronQuota",
    ),
)
