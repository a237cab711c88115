"""Finding objects that already run, and reading them as hotc's drivers see them (``hotc import --generate``).

:func:`select` picks the objects of the covered types (by id, name prefix, tag, or everything connected to one
network or server), and :func:`read_found` reads each through its type's driver, with a probe of the properties
that type's template would give: the driver answers with the live values in the form the next plan compares
(references as ids, rules in Heat's form, values equal to Heat's defaults left out). The building of the HOT
document from what is found is :mod:`hotc.providers.generate`'s (pure).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from hotc.errors import HotcError
from hotc.model import model
from hotc.providers.base import ActionContext
from hotc.providers.generate import Found
from hotc.providers.openstack.common import all_at_once

NET = "OS::Neutron::Net"
SUBNET = "OS::Neutron::Subnet"
ROUTER = "OS::Neutron::Router"
IFACE = "OS::Neutron::RouterInterface"
PORT = "OS::Neutron::Port"
SG = "OS::Neutron::SecurityGroup"
FIP = "OS::Neutron::FloatingIP"
SERVER = "OS::Nova::Server"
VOLUME = "OS::Cinder::Volume"
ATTACH = "OS::Cinder::VolumeAttachment"
KEYPAIR = "OS::Nova::KeyPair"
SGROUP = "OS::Nova::ServerGroup"
LB = "OS::Octavia::LoadBalancer"
LISTENER = "OS::Octavia::Listener"
POOL = "OS::Octavia::Pool"
MEMBER = "OS::Octavia::PoolMember"
MONITOR = "OS::Octavia::HealthMonitor"

COVERED = (
    NET,
    SUBNET,
    ROUTER,
    IFACE,
    SG,
    PORT,
    FIP,
    KEYPAIR,
    SGROUP,
    SERVER,
    VOLUME,
    ATTACH,
    LB,
    LISTENER,
    POOL,
    MEMBER,
    MONITOR,
)


# The properties asked of each type's driver (None: the live value, whatever it is; a list: read as a list).
PROBES: dict[str, dict[str, Any]] = {
    NET: {"name": None, "admin_state_up": None, "shared": None, "port_security_enabled": None, "tags": None},
    SUBNET: {
        "name": None,
        "network": None,
        "cidr": None,
        "ip_version": None,
        "enable_dhcp": None,
        "gateway_ip": None,
        "allocation_pools": None,
        "dns_nameservers": None,
        "host_routes": None,
        "ipv6_ra_mode": None,
        "ipv6_address_mode": None,
        "tags": None,
    },
    ROUTER: {"name": None, "admin_state_up": None, "external_gateway_info": {}, "tags": None},
    IFACE: {"router": None, "subnet": None},
    PORT: {
        "name": None,
        "network": None,
        "admin_state_up": None,
        "fixed_ips": [],
        "security_groups": [],
        "tags": None,
    },
    SG: {"name": None, "description": None, "rules": []},
    FIP: {"floating_network": None, "port_id": None},
    SERVER: {"name": None, "image": None, "flavor": None, "key_name": None, "metadata": None, "tags": None},
    VOLUME: {
        "name": None,
        "size": None,
        "description": None,
        "metadata": None,
        "volume_type": None,
        "image": None,
    },
    ATTACH: {"instance_uuid": None, "volume_id": None},
    KEYPAIR: {"name": None, "public_key": None, "type": None},
    SGROUP: {"name": None, "policies": None, "rules": None},
    LB: {"name": None, "description": None, "vip_subnet": None, "admin_state_up": None, "tags": None},
    LISTENER: {
        "name": None,
        "description": None,
        "loadbalancer": None,
        "protocol": None,
        "protocol_port": None,
        "default_pool": None,
        "admin_state_up": None,
        "connection_limit": None,
    },
    POOL: {
        "name": None,
        "description": None,
        "listener": None,
        "loadbalancer": None,
        "protocol": None,
        "lb_algorithm": None,
        "admin_state_up": None,
    },
    MEMBER: {
        "address": None,
        "protocol_port": None,
        "subnet": None,
        "weight": None,
        "admin_state_up": None,
        "pool": None,
    },
    # Heat's health monitor has no name property
    MONITOR: {
        "pool": None,
        "type": None,
        "delay": None,
        "timeout": None,
        "max_retries": None,
        "http_method": None,
        "url_path": None,
        "expected_codes": None,
        "admin_state_up": None,
    },
}

# Ports Neutron, Nova or Octavia make for other objects: a router's interface (OS::Neutron::RouterInterface
# stands for it), a DHCP agent's, a floating IP's, a router gateway's, a load balancer's VIP.
_SERVICE_OWNERS = ("network:", "Octavia", "neutron:LOADBALANCER")


@model
class Selection:
    ids: tuple[str, ...] = ()
    name_prefix: str | None = None
    tag: str | None = None
    reachable_from: str | None = None


class _Cloud:
    """The project's objects of the covered types, each listed once."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        project = getattr(conn, "current_project_id", None)
        self.project = str(project) if project else None
        net, compute = conn.network, conn.compute
        octavia = getattr(conn, "load_balancer", None)
        mine = self._mine

        def lister(owner: Any, name: str, **query: Any) -> Callable[[], list[Any]]:
            return lambda: _listed(getattr(owner, name, None), **query)

        # every list asked at once (the first call to each service finds its endpoint: seconds each)
        got = all_at_once(
            {
                "nets": lister(net, "networks"),
                "subnets": lister(net, "subnets"),
                "routers": lister(net, "routers"),
                "ports": lister(net, "ports"),
                "sgs": lister(net, "security_groups"),
                "fips": lister(net, "ips"),
                "servers": lister(compute, "servers", details=True),
                "volumes": lister(conn.block_storage, "volumes", details=True),
                "keypairs": lister(compute, "keypairs"),
                "server_groups": lister(compute, "server_groups"),
                "lbs": lister(octavia, "load_balancers"),
                "listeners": lister(octavia, "listeners"),
                "pools": lister(octavia, "pools"),
                "monitors": lister(octavia, "health_monitors"),
            }
        )
        self.nets = {str(o.id): o for o in mine(got["nets"])}
        self.subnets = {str(o.id): o for o in mine(got["subnets"])}
        self.routers = {str(o.id): o for o in mine(got["routers"])}
        self.all_ports = {str(o.id): o for o in mine(got["ports"])}
        self.ports = {
            k: p
            for k, p in self.all_ports.items()
            if not str(p.device_owner or "").startswith(_SERVICE_OWNERS)
        }
        # a project's "default" group is Neutron's (made with the project, never deleted): never generated
        groups = mine(got["sgs"])
        self.sgs = {str(o.id): o for o in groups if o.name != "default"}
        self.default_sgs = frozenset(str(o.id) for o in groups if o.name == "default")
        self.fips = {str(o.id): o for o in mine(got["fips"])}
        self.servers = {str(o.id): o for o in got["servers"]}
        self.volumes = {str(o.id): o for o in got["volumes"]}
        self.keypairs = {str(o.name): o for o in got["keypairs"]}
        self.server_groups = {str(o.id): o for o in got["server_groups"]}
        self.lbs = {str(o.id): o for o in mine(got["lbs"])}
        self.listeners = {str(o.id): o for o in mine(got["listeners"])}
        self.pools = {str(o.id): o for o in mine(got["pools"])}
        self.monitors = {str(o.id): o for o in mine(got["monitors"])}
        self.members: dict[str, Any] = {}
        self.member_pool: dict[str, str] = {}  # member -> its pool
        members = all_at_once({pid: lister(octavia, "members", pool=pid) for pid in self.pools})
        for pid, listed in members.items():
            for m in listed:
                self.members[str(m.id)] = m
                self.member_pool[str(m.id)] = pid
        self.ifaces: dict[str, tuple[str, str]] = {}  # router:subnet_id=S -> (router, subnet)
        for p in self.all_ports.values():
            if str(p.device_owner or "") == "network:router_interface" and str(p.device_id) in self.routers:
                for ip in p.fixed_ips or []:
                    sub = str(ip.get("subnet_id"))
                    self.ifaces[f"{p.device_id}:subnet_id={sub}"] = (str(p.device_id), sub)
        self.attachments: dict[str, tuple[str, str]] = {}  # server:volume -> (server, volume)
        # server -> the volume it boots from (its block_device_mapping_v2, not an attachment)
        self.boot: dict[str, str] = {}
        mounted: dict[str, list[tuple[str, str, bool]]] = {}
        for v in self.volumes.values():
            for a in v.attachments or []:
                sid = str(a.get("server_id") or "")
                if sid in self.servers:
                    mounted.setdefault(sid, []).append(
                        (str(a.get("device") or ""), str(v.id), bool(v.is_bootable))
                    )
        for sid, vols in mounted.items():
            root = boot_volume(self.servers[sid], vols)
            if root is not None:
                self.boot[sid] = root
            for _dev, vid, _b in vols:
                if vid != root:
                    self.attachments[f"{sid}:{vid}"] = (sid, vid)

    def _mine(self, items: Iterable[Any]) -> list[Any]:
        return [o for o in items if self.project is None or str(o.project_id or "") in ("", self.project)]

    def kinds(self) -> list[tuple[str, Mapping[str, Any]]]:
        return [
            (NET, self.nets),
            (SUBNET, self.subnets),
            (ROUTER, self.routers),
            (PORT, self.ports),
            (SG, self.sgs),
            (FIP, self.fips),
            (KEYPAIR, self.keypairs),
            (SGROUP, self.server_groups),
            (SERVER, self.servers),
            (VOLUME, self.volumes),
            (LB, self.lbs),
            (LISTENER, self.listeners),
            (POOL, self.pools),
            (MEMBER, self.members),
            (MONITOR, self.monitors),
        ]

    def type_of(self, oid: str) -> str | None:
        if oid in self.ifaces:
            return IFACE
        if oid in self.attachments:
            return ATTACH
        return next((t for t, objs in self.kinds() if oid in objs), None)

    def name_of(self, type_name: str, oid: str) -> str:
        objs = dict(self.kinds()).get(type_name)
        obj = objs.get(oid) if objs is not None else None
        return str(getattr(obj, "name", None) or "")

    def group_of(self, server: str) -> str | None:
        """The server group ``server`` is a member of."""
        return next(
            (g for g, o in self.server_groups.items() if server in {str(m) for m in o.member_ids or []}), None
        )

    def neighbours(self, type_name: str, oid: str) -> set[str]:
        """The objects one relation away (both directions) from ``oid``."""
        out: set[str] = set()
        if type_name == NET:
            out |= {k for k, s in self.subnets.items() if str(s.network_id) == oid}
            out |= {k for k, p in self.ports.items() if str(p.network_id) == oid}
        elif type_name == SUBNET:
            out.add(str(self.subnets[oid].network_id))
            out |= {k for k, (_r, s) in self.ifaces.items() if s == oid}
        elif type_name == ROUTER:
            out |= {k for k, (r, _s) in self.ifaces.items() if r == oid}
        elif type_name == IFACE:
            out |= set(self.ifaces[oid])
        elif type_name == PORT:
            p = self.ports[oid]
            out.add(str(p.network_id))
            out |= {str(ip.get("subnet_id")) for ip in p.fixed_ips or []}
            out |= {str(g) for g in p.security_group_ids or []}
            if str(p.device_id or "") in self.servers:
                out.add(str(p.device_id))
            out |= {k for k, f in self.fips.items() if str(f.port_id or "") == oid}
        elif type_name == FIP:
            port = str(self.fips[oid].port_id or "")
            if port:
                out.add(port)
        elif type_name == SERVER:
            out |= {k for k, p in self.ports.items() if str(p.device_id or "") == oid}
            out |= {k for k, (s, _v) in self.attachments.items() if s == oid}
            out.add(self.boot.get(oid, ""))
            out.add(self.group_of(oid) or "")
        elif type_name == SGROUP:
            out |= {str(m) for m in self.server_groups[oid].member_ids or []}
        elif type_name == VOLUME:
            out |= {k for k, (_s, v) in self.attachments.items() if v == oid}
            out |= {s for s, v in self.boot.items() if v == oid}
        elif type_name == ATTACH:
            out |= set(self.attachments[oid])
        elif type_name == LB:
            lb = self.lbs[oid]
            out.add(str(lb.vip_subnet_id or ""))
            out |= {k for k, o in self.listeners.items() if oid in _ids(o.load_balancers)}
            out |= {k for k, o in self.pools.items() if oid in _ids(o.loadbalancers)}
        elif type_name == LISTENER:
            o = self.listeners[oid]
            out |= _ids(o.load_balancers) | {str(o.default_pool_id or "")}
            out |= {k for k, p in self.pools.items() if oid in _ids(p.listeners)}
        elif type_name == POOL:
            o = self.pools[oid]
            out |= _ids(o.loadbalancers) | _ids(o.listeners) | {str(o.health_monitor_id or "")}
            out |= {k for k, p in self.member_pool.items() if p == oid}
        elif type_name == MEMBER:
            out |= {self.member_pool[oid], str(self.members[oid].subnet_id or "")}
        elif type_name == MONITOR:
            out |= _ids(self.monitors[oid].pools)
        if type_name == SUBNET:
            out |= {k for k, o in self.lbs.items() if str(o.vip_subnet_id or "") == oid}
            out |= {k for k, o in self.members.items() if str(o.subnet_id or "") == oid}
        return {o for o in out if o and self.type_of(o) is not None}


def _listed(lister: Any, **query: Any) -> list[Any]:
    """Everything ``lister`` lists (none when the cloud has no such service)."""
    if lister is None:
        return []
    try:
        return list(lister(**query))
    except Exception as exc:  # noqa: BLE001 -- a service the cloud does not run lists nothing
        if type(exc).__name__ in ("EndpointNotFound", "ServiceDisabledException", "NotSupported"):
            return []
        raise


def _ids(items: Any) -> set[str]:
    """The ids of a list of ``{"id": ...}`` (or of ids)."""
    out = set()
    for i in items or []:
        got = i.get("id") if isinstance(i, Mapping) else getattr(i, "id", i)
        if got:
            out.add(str(got))
    return out


def boot_volume(server: Any, mounted: Iterable[tuple[str, str, bool]]) -> str | None:
    """The volume a server boots from: none when it boots from an image; else the bootable volume on the first
    device among ``mounted`` (device, volume id, bootable)."""
    image = getattr(server, "image", None) or {}
    image_id = image.get("id") if isinstance(image, Mapping) else getattr(image, "id", None)
    if image_id:
        return None
    bootable = sorted((dev, vid) for dev, vid, is_bootable in mounted if is_bootable)
    return bootable[0][1] if bootable else None


@model
class Picked:
    """What :func:`pick` found: ``(type, id, name)`` of each object, the probe entries each object's read needs
    beyond its type's (a member's pool, a server's group), and the ids of the project's "default" groups."""

    objects: tuple[tuple[str, str, str], ...]
    extra: Mapping[str, Mapping[str, Any]]
    default_groups: frozenset[str] = frozenset()


def select(conn: Any, selection: Selection) -> list[tuple[str, str, str]]:
    """``(type, id, name)`` of the objects ``selection`` picks (see :func:`pick`)."""
    return list(pick(conn, selection).objects)


def pick(conn: Any, selection: Selection) -> Picked:
    """The objects ``selection`` picks, with the router interfaces of the routers and subnets picked and the
    volume attachments between the servers and volumes picked. Key pairs are picked by id (their name) or name
    prefix only. HotcError when an id given is none of the covered types' or when nothing is picked."""
    try:
        cloud = _Cloud(conn)
    except HotcError:
        raise
    except Exception as exc:  # noqa: BLE001 -- a cloud error, said as such
        raise HotcError(f"listing the project's objects failed: {exc}") from exc
    picked: set[str] = set()
    for oid in selection.ids:
        if cloud.type_of(oid) is None:
            raise HotcError(
                f"--id {oid}: no network, subnet, router, router interface (ROUTER:subnet_id=SUBNET), port, "
                "security group, floating IP, key pair, server group, server, volume, volume attachment "
                "(SERVER:VOLUME) or load balancer, listener, pool, pool member or health monitor of this "
                "project has that id"
            )
        picked.add(oid)
    for type_name, objs in cloud.kinds():
        for oid, obj in objs.items():
            name = str(getattr(obj, "name", None) or "")
            if selection.name_prefix and name.startswith(selection.name_prefix):
                picked.add(oid)
            tags = list(getattr(obj, "tags", None) or [])
            if type_name == VOLUME:
                tags = list((getattr(obj, "metadata", None) or {}).keys())
            if selection.tag and selection.tag in tags and type_name != KEYPAIR:
                picked.add(oid)
    if selection.reachable_from:
        start = selection.reachable_from
        if cloud.type_of(start) not in (NET, SERVER):
            raise HotcError(f"--reachable-from {start}: give the id of a network or a server of this project")
        seen = {start}
        todo = [start]
        while todo:
            oid = todo.pop()
            picked.add(oid)
            t = cloud.type_of(oid)
            assert t is not None
            fresh = cloud.neighbours(t, oid) - seen
            seen |= fresh
            todo.extend(sorted(fresh))
    # the joins between what is picked
    for key, (router, subnet) in cloud.ifaces.items():
        if router in picked and subnet in picked:
            picked.add(key)
    for key, (server, volume) in cloud.attachments.items():
        if server in picked and volume in picked:
            picked.add(key)
    if not picked:
        raise HotcError("nothing was selected: no object of the covered types matches")
    out = []
    extra: dict[str, dict[str, Any]] = {}
    for oid in sorted(picked):
        t = cloud.type_of(oid)
        assert t is not None
        out.append((t, oid, cloud.name_of(t, oid)))
        if t == MEMBER:
            extra[oid] = {"pool": cloud.member_pool[oid]}
        if t == SERVER:
            group = cloud.group_of(oid)
            if group is not None:
                extra[oid] = {"scheduler_hints": {"group": group}}
    out.sort(key=lambda x: (COVERED.index(x[0]), x[2], x[1]))
    return Picked(objects=tuple(out), extra=extra, default_groups=cloud.default_sgs)


def nic_order(server: Any, ports: Iterable[Any]) -> list[Any]:
    """``ports`` (a server's) in the order of the server's interfaces: the order Nova lists their MAC addresses
    in the server's ``addresses`` (then by id, for a port it does not list yet)."""
    macs: list[str] = []
    for entries in (getattr(server, "addresses", None) or {}).values():
        for entry in entries or []:
            mac = entry.get("OS-EXT-IPS-MAC:mac_addr") if isinstance(entry, Mapping) else None
            if mac and str(mac).lower() not in macs:
                macs.append(str(mac).lower())

    def key(p: Any) -> tuple[int, str]:
        mac = str(getattr(p, "mac_address", "") or "").lower()
        return (macs.index(mac) if mac in macs else len(macs), str(p.id))

    return sorted(ports, key=key)


def probe_of(conn: Any, type_name: str, oid: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The properties to ask ``oid``'s driver for (a server's ports, to read its networks in that form, in the
    server's order; the volume it boots from, when it boots from one), with ``extra``'s entries."""
    probe = {**PROBES[type_name], **(extra or {})}
    if type_name == SERVER:
        server = conn.compute.get_server(oid)
        ports = nic_order(server, conn.network.ports(device_id=oid))
        probe["networks"] = [{"port": str(p.id)} for p in ports]
        mounted = []
        for a in conn.compute.volume_attachments(oid):
            vol = conn.block_storage.get_volume(a.volume_id)
            mounted.append((str(a.device or ""), str(a.volume_id), bool(vol.is_bootable)))
        root = boot_volume(server, mounted)
        if root is not None:
            probe["block_device_mapping_v2"] = [{"boot_index": 0, "volume_id": root}]
    if type_name == ATTACH:
        probe["instance_uuid"] = oid.partition(":")[0]
    return probe


def _read_one(
    conn: Any,
    type_name: str,
    oid: str,
    name: str,
    extra: Mapping[str, Any] | None,
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
    default_groups: frozenset[str],
) -> Found:
    driver = drivers(type_name)
    if driver is None:
        raise HotcError(f"hotc has no driver for {type_name}")
    ctx = ActionContext(
        address=f"generate.{oid}",
        type=type_name,
        stack_name="generate",
        lineage="generate",
        timeout=120.0,
        cloud=cloud,
        record_physical_id=lambda _pid: None,
    )
    try:
        probe = probe_of(conn, type_name, oid, extra)
    except Exception as exc:  # noqa: BLE001 -- a cloud error, said with the object
        raise HotcError(f"reading {type_name} {oid} failed: {exc}; nothing was written") from exc
    try:
        got = driver.read(ctx, oid, probe)
    except HotcError as exc:
        raise HotcError(f"reading {type_name} {oid}: {exc.message}; nothing was written") from exc
    except Exception as exc:  # noqa: BLE001 -- a cloud error, said with the object
        raise HotcError(f"reading {type_name} {oid} failed: {exc}; nothing was written") from exc
    if got is None:
        raise HotcError(f"{type_name} {oid} disappeared while it was read")
    props = {k: v for k, v in (got.properties or {}).items()}
    # what the driver does not read back (Nova reports a server's hints from microversion 2.100 only)
    for key in ("networks", "block_device_mapping_v2", "scheduler_hints"):
        if type_name == SERVER and key in probe and key not in props:
            props[key] = probe[key]
    if type_name == MEMBER:
        props["pool"] = probe["pool"]
    if type_name == PORT and set(map(str, props.get("security_groups") or [])) <= default_groups:
        props.pop("security_groups", None)  # the "default" group alone: what Neutron gives a port anyway
    return Found(type=type_name, id=oid, name=name, properties=props)


def read_found(
    conn: Any,
    picked: Picked | list[tuple[str, str, str]],
    drivers: Callable[[str], Any],
    cloud: Callable[[], Any],
) -> list[Found]:
    """Each picked object read through its type's driver, with its type's probe,
    :data:`~hotc.providers.openstack.common.READERS` at a time; in the order picked. The first failure stops the
    reading (HotcError)."""
    if not isinstance(picked, Picked):
        picked = Picked(objects=tuple(picked), extra={})
    calls = {
        i: partial(
            _read_one, conn, t, oid, name, picked.extra.get(oid), drivers, cloud, picked.default_groups
        )
        for i, (t, oid, name) in enumerate(picked.objects)
    }
    return list(all_at_once(calls).values())
