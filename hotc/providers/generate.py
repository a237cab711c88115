"""The HOT template of objects that already run (``hotc import --generate``): a pure function of what was read.

:func:`build` takes the objects found (their type, id, name and the properties their driver read, references
given as ids) and returns the template, its parameters' values and the import map (``address: id``) that
``hotc import --file`` reads. Relations between the objects become ``get_resource``; the image, flavor, key and
external network a server or router uses become parameters; a value equal to the type's default, an empty value
and a secret (a sensitive property, an ``admin_pass``) are left out. Resource names come from the objects'
names, made valid and unique.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from typing import Any

from hotc.model import model
from hotc.providers.registry import get_schema
from hotc.values import MISSING

HOT_VERSION = "2018-08-31"

# Properties never written, whatever the type: secrets and what only the cloud sets.
NEVER = frozenset({"admin_pass", "tenant_id", "project_id", "user_data", "value_specs"})

# (type, property) whose value becomes a template parameter, by the parameter's base name; for a map value,
# the key inside it too.
PARAMETERS: dict[tuple[str, str], tuple[str, str | None]] = {
    ("OS::Nova::Server", "image"): ("image", None),
    ("OS::Nova::Server", "flavor"): ("flavor", None),
    ("OS::Nova::Server", "key_name"): ("key_name", None),
    ("OS::Cinder::Volume", "image"): ("image", None),
    ("OS::Neutron::Router", "external_gateway_info"): ("external_network", "network"),
    ("OS::Neutron::FloatingIP", "floating_network"): ("external_network", None),
    # a network or subnet the selection did not pick (one it picked is a get_resource)
    ("OS::Neutron::Subnet", "network"): ("network", None),
    ("OS::Neutron::Port", "network"): ("network", None),
    ("OS::Neutron::Port", "fixed_ips"): ("subnet", "subnet"),
    ("OS::Neutron::RouterInterface", "subnet"): ("subnet", None),
    ("OS::Octavia::LoadBalancer", "vip_subnet"): ("subnet", None),
    ("OS::Octavia::PoolMember", "subnet"): ("subnet", None),
}

PARAMETER_DESCRIPTIONS = {
    "image": "Image (name or id) of the server or volume",
    "flavor": "Flavor (name or id) of the server",
    "key_name": "Key pair of the server",
    "external_network": "External network (name or id)",
    "network": "Network (name or id)",
    "subnet": "Subnet (name or id)",
    "default_security_group": "The project's default security group",
}

# Values the cloud gives when nothing asks otherwise, for properties without a default in the schema: left out
# (a property the template leaves out is not compared).
USUAL: dict[str, Any] = {"port_security_enabled": True, "volume_type": "__DEFAULT__"}

# Empty values that say something: a subnet's gateway_ip "" is a subnet without a gateway.
MEANINGFUL_EMPTY = frozenset({("OS::Neutron::Subnet", "gateway_ip")})


def _first_host(cidr: Any) -> str | None:
    try:
        net = ipaddress.ip_network(str(cidr), strict=False)
    except ValueError:
        return None
    return str(net.network_address + 1) if net.num_addresses > 2 else None


def default_pools(cidr: Any, gateway: Any) -> list[dict[str, str]] | None:
    """The allocation pools Neutron gives an IPv4 subnet that names none: every host address but the gateway's
    (None for what this cannot tell: IPv6, a bad CIDR)."""
    try:
        net = ipaddress.IPv4Network(str(cidr), strict=False)
        gw = ipaddress.IPv4Address(str(gateway)) if gateway else None
    except ValueError:
        return None
    if net.num_addresses < 4:
        return None
    first, last = net.network_address + 1, net.broadcast_address - 1
    if gw is None or not first <= gw <= last:
        return [{"start": str(first), "end": str(last)}]
    ranges = [(first, gw - 1), (gw + 1, last)]
    return [{"start": str(a), "end": str(b)} for a, b in ranges if a <= b]


@model
class Found:
    """One object to put in the template: its type, its id as ``hotc import`` takes it, its name and the
    properties its driver read (references as the ids of the objects they name)."""

    type: str
    id: str
    name: str
    properties: Mapping[str, Any]


@model
class Generated:
    template: Mapping[str, Any]
    parameters: Mapping[str, Any]  # values, for the environment's ``parameters:``
    import_map: Mapping[str, str]  # address -> id


_SHORT = {
    "OS::Neutron::Net": "net",
    "OS::Neutron::Subnet": "subnet",
    "OS::Neutron::Router": "router",
    "OS::Neutron::RouterInterface": "router_interface",
    "OS::Neutron::Port": "port",
    "OS::Neutron::SecurityGroup": "security_group",
    "OS::Neutron::FloatingIP": "floating_ip",
    "OS::Nova::Server": "server",
    "OS::Cinder::Volume": "volume",
    "OS::Cinder::VolumeAttachment": "volume_attachment",
    "OS::Nova::KeyPair": "keypair",
    "OS::Nova::ServerGroup": "server_group",
    "OS::Octavia::LoadBalancer": "loadbalancer",
    "OS::Octavia::Listener": "listener",
    "OS::Octavia::Pool": "pool",
    "OS::Octavia::PoolMember": "member",
    "OS::Octavia::HealthMonitor": "health_monitor",
}


def resource_name(name: str, type_name: str, strip_prefix: str | None = None) -> str:
    """A resource name from an object's name: the prefix taken off, every character other than a letter, digit,
    ``_`` or ``-`` made ``_``; the type's short name when nothing is left."""
    if strip_prefix and name.startswith(strip_prefix) and len(name) > len(strip_prefix):
        name = name[len(strip_prefix) :]
    clean = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_-")
    if not clean or not clean[0].isalpha():
        short = _SHORT.get(type_name) or type_name.rsplit("::", 1)[-1].lower()
        clean = f"{short}_{clean}" if clean else short
    return clean


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _is_default(type_name: str, key: str, value: Any) -> bool:
    schema = get_schema(type_name)
    prop = None if schema is None else schema.properties.get(key)
    if prop is None:
        return False
    if prop.default is not MISSING and prop.default is not None:
        return bool(prop.default == value)
    return value in ([], {}, "") or USUAL.get(key, object()) == value


def _without_item_defaults(type_name: str, key: str, value: Any) -> Any:
    """A list of maps (security group rules) with each item's keys equal to their defaults left out."""
    schema = get_schema(type_name)
    prop = None if schema is None else schema.properties.get(key)
    sub = None if prop is None or prop.item is None else prop.item.schema
    if sub is None or not isinstance(value, list):
        return value
    return [
        {
            k: v
            for k, v in item.items()
            if v is not None and not (k in sub and sub[k].default is not MISSING and sub[k].default == v)
        }
        if isinstance(item, Mapping)
        else item
        for item in value
    ]


def _keep(type_name: str, key: str, value: Any) -> bool:
    if value is None or key in NEVER:
        return False
    if _is_default(type_name, key, value) and (type_name, key) not in MEANINGFUL_EMPTY:
        return False
    schema = get_schema(type_name)
    prop = None if schema is None else schema.properties.get(key)
    return prop is not None and not (prop.sensitive or prop.hidden)


class _AsId(str):
    """An id written as it is, not as a ``get_resource`` (a reference that would close a loop)."""

    __slots__ = ()


def _group_loops(found: Sequence[Found]) -> set[tuple[str, str]]:
    """``(group, remote group)`` of the rules that close a loop between security groups whose rules name each
    other (the later edge of each loop, in the order found)."""
    groups = [f for f in found if f.type == "OS::Neutron::SecurityGroup"]
    ids = {f.id for f in groups}
    edges: dict[str, list[str]] = {}
    for f in groups:
        rules = f.properties.get("rules")
        for r in rules if isinstance(rules, list) else []:
            other = r.get("remote_group_id") if isinstance(r, Mapping) else None
            if isinstance(other, str) and other in ids and other != f.id and other not in edges.get(f.id, []):
                edges.setdefault(f.id, []).append(other)
    loops: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(gid: str) -> None:
        state[gid] = 1
        for other in edges.get(gid, []):
            if state.get(other) == 1:
                loops.add((gid, other))
            elif other not in state:
                visit(other)
        state[gid] = 2

    for f in groups:
        if f.id not in state:
            visit(f.id)
    return loops


def _without_cycles(found: Sequence[Found]) -> dict[str, dict[str, Any]]:
    """Each object's properties with the references that would make a loop in Heat's graph left out, where
    the other end already says it: a security group rule whose remote group is its own group (Heat's
    ``remote_mode: remote_group_id`` with no group means the rule's own group), and a listener's
    ``default_pool`` that is a pool made on that listener (Octavia makes the first pool made on a listener
    its default pool). A pool on a listener names the listener, not its load balancer. Security groups whose
    rules name each other in a loop: the rule that closes it names the other group by its id."""
    loops = _group_loops(found)
    pools_on = {
        (f.id, str(f.properties.get("listener")))
        for f in found
        if f.type == "OS::Octavia::Pool" and f.properties.get("listener")
    }
    out: dict[str, dict[str, Any]] = {}
    for f in found:
        props = dict(f.properties)
        if f.type == "OS::Neutron::SecurityGroup" and isinstance(props.get("rules"), list):
            props["rules"] = [_rule_without_loop(f.id, r, loops) for r in props["rules"]]
        if f.type == "OS::Octavia::Listener" and (str(props.get("default_pool")), f.id) in pools_on:
            props.pop("default_pool")
        if f.type == "OS::Octavia::Pool" and props.get("listener"):
            props.pop("loadbalancer", None)
        out[f.id] = props
    return out


def _rule_without_loop(group: str, rule: Any, loops: set[tuple[str, str]]) -> Any:
    if not isinstance(rule, Mapping):
        return rule
    other = rule.get("remote_group_id")
    if other == group:
        return {k: v for k, v in rule.items() if k != "remote_group_id"}
    if isinstance(other, str) and (group, other) in loops:
        return {**rule, "remote_group_id": _AsId(other)}
    return rule


def build(
    found: Sequence[Found], strip_prefix: str | None = None, default_groups: frozenset[str] = frozenset()
) -> Generated:
    """The template, parameter values and import map of ``found`` (in that order in the template).
    ``default_groups``: the ids of the project's "default" security groups, which become a parameter."""
    taken: set[str] = set()
    names: dict[str, str] = {}
    for f in found:
        names[f.id] = _unique(resource_name(f.name, f.type, strip_prefix), taken)
    params: dict[str, Any] = {}
    by_value: dict[tuple[str, str], str] = {}

    def parameter(base: str, value: Any) -> dict[str, str]:
        key = (base, str(value))
        if key not in by_value:
            by_value[key] = _unique(base, set(params))
            params[by_value[key]] = value
        return {"get_param": by_value[key]}

    def refs(value: Any, own: str) -> Any:
        """``value`` with the ids of other objects found as their ``get_resource`` (an object's own id, such
        as a key pair's name, stays as it is)."""
        if isinstance(value, _AsId):
            return str(value)
        if isinstance(value, str) and value in names and value != own:
            return {"get_resource": names[value]}
        if isinstance(value, str) and value in default_groups:
            return parameter("default_security_group", value)
        if isinstance(value, list):
            return [refs(v, own) for v in value]
        if isinstance(value, Mapping):
            return {k: refs(v, own) for k, v in value.items()}
        return value

    resources: dict[str, Any] = {}
    acyclic = _without_cycles(found)
    for f in found:
        props: dict[str, Any] = {}
        for key, value in acyclic[f.id].items():
            if not _keep(f.type, key, value):
                continue
            if key == "allocation_pools" and value == default_pools(
                f.properties.get("cidr"), f.properties.get("gateway_ip")
            ):
                continue
            if key == "gateway_ip" and value and value == _first_host(f.properties.get("cidr")):
                continue  # Neutron's choice when none is given
            value = _without_item_defaults(f.type, key, value)
            spec = PARAMETERS.get((f.type, key))
            if spec is not None:
                base, inner = spec
                if inner is None and not (isinstance(value, str) and value in names):
                    value = parameter(base, value)
                elif inner is not None:

                    def inside(item: Any, inner: str = inner, base: str = base) -> Any:
                        held = item.get(inner) if isinstance(item, Mapping) else None
                        if held is None or (isinstance(held, str) and held in names):
                            return item
                        return {**item, inner: parameter(base, held)}

                    value = [inside(v) for v in value] if isinstance(value, list) else inside(value)
            props[key] = refs(value, f.id)
        body: dict[str, Any] = {"type": f.type}
        if props:
            body["properties"] = props
        resources[names[f.id]] = body
    parameters = {
        p: {"type": "string", "description": PARAMETER_DESCRIPTIONS[re.sub(r"_\d+$", "", p)]} for p in params
    }
    template: dict[str, Any] = {"heat_template_version": HOT_VERSION}
    if parameters:
        template["parameters"] = parameters
    template["resources"] = resources
    return Generated(
        template=template,
        parameters=params,
        import_map={names[f.id]: f.id for f in found},
    )
