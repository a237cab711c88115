"""Nova drivers: Server, KeyPair, Flavor.

Servers carry the hotc stamp in their metadata (``hotc-lineage``, ``hotc-address``); ports hotc makes for a
server (a ``networks`` entry that names a ``subnet``, which Nova cannot take) carry it as Neutron tags plus the tag
``hotc-internal-port`` and are deleted with the server or when their entry leaves ``networks``. Flavors carry the
stamp as extra specs in the ``hotc:`` namespace. Key pairs have nowhere to carry it.

``user_data_format`` HEAT_CFNTOOLS and SOFTWARE_CONFIG are not wrapped in Heat's multipart cloud-init envelope:
hotc passes ``user_data`` to Nova as is (RAW) and logs that it did.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.providers.base import ActionContext, Driver, Outcome
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    TAG_LINEAGE,
    NotFound,
    ProviderError,
    base_address,
    call,
    create_once,
    deletion_policy,
    fresh_finder,
    get_or_none,
    has_stamp,
    ignore_missing,
    lookup,
    merge_metadata,
    merge_tags,
    newest,
    now,
    outcome,
    physical_name,
    plain,
    props_get,
    settle,
    stamp,
    user_metadata,
    wait_for,
    wait_gone,
    wait_status,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, match_items, resolve, resolve_id
from hotc.providers.openstack.neutron import (
    find_network,
    find_port,
    find_security_group,
    find_subnet,
    security_group_ids,
)

INTERNAL_PORT_TAG = "hotc-internal-port"
SNAPSHOT_GRACE = 20.0  # seconds an image may stay unfinished after Nova's snapshot task ended
RESTING = frozenset({"ACTIVE", "SHUTOFF", "SUSPENDED", "PAUSED"})
BUSY = frozenset({"BUILD", "REBUILD", "RESIZE", "REBOOT", "HARD_REBOOT", "MIGRATING", "PASSWORD"})

# --------------------------------------------------------------------------------------------- look-ups


def find_flavor(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(
        ctx,
        "flavor",
        value,
        conn.compute.get_flavor,
        lambda v: [f for f in conn.compute.flavors(is_public=None) if f.name == v],
    )


def find_image(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "image", value, conn.image.get_image, lambda v: conn.image.images(name=v))


def find_keypair(ctx: ActionContext | None, conn: Any, value: Any) -> Any:
    return lookup(ctx, "key pair", value, conn.compute.get_keypair, lambda v: [])


# --------------------------------------------------------------------------------------------- Server


def _fault(server: Any) -> str:
    fault = getattr(server, "fault", None) or {}
    return str(fault.get("message") or "") if isinstance(fault, Mapping) else str(fault)


def _clean(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None and v != ""}


def block_device_mapping_v2(
    ctx: ActionContext, conn: Any, items: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Heat's block_device_mapping_v2 items as Nova's (same defaults as Heat: a volume, snapshot or image source
    boots at index 0 onto a kept volume; swap and ephemeral are local blanks at index -1)."""
    out = []
    for m in items:
        bdm: dict[str, Any]
        if m.get("volume_id"):
            bdm = {
                "uuid": m["volume_id"],
                "source_type": "volume",
                "destination_type": "volume",
                "boot_index": 0,
                "delete_on_termination": False,
            }
        elif m.get("snapshot_id"):
            bdm = {
                "uuid": m["snapshot_id"],
                "source_type": "snapshot",
                "destination_type": "volume",
                "boot_index": 0,
                "delete_on_termination": False,
            }
        elif m.get("image"):
            bdm = {
                "uuid": find_image(ctx, conn, m["image"]).id,
                "source_type": "image",
                "destination_type": "volume",
                "boot_index": 0,
                "delete_on_termination": False,
            }
        elif m.get("swap_size"):
            bdm = {
                "source_type": "blank",
                "destination_type": "local",
                "boot_index": -1,
                "delete_on_termination": True,
                "guest_format": "swap",
                "volume_size": m["swap_size"],
            }
        elif m.get("ephemeral_size"):
            bdm = {
                "source_type": "blank",
                "destination_type": "local",
                "boot_index": -1,
                "delete_on_termination": True,
                "volume_size": m["ephemeral_size"],
            }
            if m.get("ephemeral_format"):
                bdm["guest_format"] = m["ephemeral_format"]
        else:
            raise ProviderError(
                "block_device_mapping_v2: each item needs one of volume_id, snapshot_id, image, "
                "swap_size or ephemeral_size"
            )
        for key in (
            "device_name",
            "device_type",
            "disk_bus",
            "boot_index",
            "volume_size",
            "delete_on_termination",
            "volume_type",
        ):
            if m.get(key) is not None:
                bdm[key] = m[key]
        out.append(bdm)
    return out


class ServerDriver:
    what = "server"

    # -- networks
    def _nics(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        items: list[Mapping[str, Any]] | None,
        sg_ids: list[str] | None,
    ) -> list[dict[str, Any]] | str | None:
        if items is None:
            return None
        nics: list[dict[str, Any]] = []
        for i, item in enumerate(items):
            nic = self._nic(ctx, conn, name, i, item, sg_ids)
            if isinstance(nic, str):  # allocate_network none|auto
                if len(items) > 1:
                    raise ProviderError("networks: allocate_network must be the only entry")
                return nic
            nics.append(nic)
        return nics

    def _nic(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        index: int,
        item: Mapping[str, Any],
        sg_ids: list[str] | None,
    ) -> dict[str, Any] | str:
        if item.get("allocate_network"):
            return str(item["allocate_network"])
        nic: dict[str, Any] = {}
        if item.get("tag"):
            nic["tag"] = item["tag"]
        if item.get("port"):
            nic["port"] = find_port(ctx, conn, item["port"]).id
            return nic
        subnet = item.get("subnet")
        if subnet or item.get("port_extra_properties"):
            nic["port"] = self._internal_port(ctx, conn, name, index, item, sg_ids)
            return nic
        net = props_get(item, "network", "uuid")
        if not net:
            raise ProviderError("networks: each entry needs a network, port or subnet")
        nic["uuid"] = find_network(ctx, conn, net).id
        if item.get("fixed_ip"):
            nic["fixed_ip"] = item["fixed_ip"]
        return nic

    def _internal_port(
        self,
        ctx: ActionContext,
        conn: Any,
        name: str,
        index: int,
        item: Mapping[str, Any],
        sg_ids: list[str] | None,
    ) -> str:
        extra = {k: v for k, v in dict(item.get("port_extra_properties") or {}).items() if v is not None}
        body: dict[str, Any] = dict(extra.pop("value_specs", None) or {})
        if extra.get("qos_policy"):
            from hotc.providers.openstack.neutron import find_qos_policy

            body["qos_policy_id"] = find_qos_policy(ctx, conn, extra.pop("qos_policy")).id
        extra.pop("qos_policy", None)
        body.update(extra)
        if item.get("subnet"):
            subnet = find_subnet(ctx, conn, item["subnet"])
            body["network_id"] = subnet.network_id
            fixed: dict[str, Any] = {"subnet_id": subnet.id}
            if item.get("fixed_ip"):
                fixed["ip_address"] = item["fixed_ip"]
            body["fixed_ips"] = [fixed]
        else:
            body["network_id"] = find_network(ctx, conn, item.get("network")).id
            if item.get("fixed_ip"):
                body["fixed_ips"] = [{"ip_address": item["fixed_ip"]}]
        if sg_ids is not None:
            body["security_groups"] = sg_ids
        body["name"] = f"{name}-port-{index}"
        port = call(ctx, f"create port for server {name}", lambda: conn.network.create_port(**body))
        call(ctx, f"tag port {port.id}", conn.network.set_tags, port, merge_tags(ctx, [INTERNAL_PORT_TAG]))
        return str(port.id)

    def _internal_ports(self, ctx: ActionContext, conn: Any) -> list[Any]:
        """Ports hotc made for servers of this stack (any address, any instance): the caller narrows down."""
        tags = [INTERNAL_PORT_TAG, f"{TAG_LINEAGE}={stamp(ctx)[TAG_LINEAGE]}"]
        return call(ctx, "list internal ports", lambda: list(conn.network.ports(tags=tags)))

    # -- create
    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = physical_name(ctx, props.get("name"), limit=63)
        body: dict[str, Any] = {"name": name}
        body["flavor_id"] = find_flavor(ctx, conn, props.get("flavor")).id
        if props.get("image"):
            body["image_id"] = find_image(ctx, conn, props["image"]).id
        bdm = props.get("block_device_mapping_v2") or []
        if props.get("block_device_mapping"):
            bdm = list(bdm) + [
                {
                    "device_name": m.get("device_name"),
                    "volume_id": m.get("volume_id"),
                    "snapshot_id": m.get("snapshot_id"),
                    "volume_size": m.get("volume_size"),
                    "delete_on_termination": m.get("delete_on_termination"),
                    "boot_index": None if i else 0,
                }
                for i, m in enumerate(props["block_device_mapping"])
            ]
        if bdm:
            mappings = block_device_mapping_v2(ctx, conn, bdm)
            if props.get("image") and not any(m.get("boot_index") == 0 for m in mappings):
                # Nova wants the boot image in the mapping list too when both are given (as Heat adds it)
                mappings.insert(
                    0,
                    {
                        "uuid": body["image_id"],
                        "source_type": "image",
                        "destination_type": "local",
                        "boot_index": 0,
                        "delete_on_termination": True,
                    },
                )
            body["block_device_mapping"] = mappings
            if not props.get("image"):
                body["image_id"] = ""
        if not props.get("image") and not bdm:
            raise ProviderError("server: neither image nor a bootable block_device_mapping(_v2) given")
        groups = props.get("security_groups") or []
        sg_ids = security_group_ids(ctx, conn, groups) if groups else None
        nics = self._nics(ctx, conn, name, props.get("networks"), sg_ids)
        # no networks: let Nova pick (the project's only network, or auto-allocation), as Heat does
        body["networks"] = nics if nics else "auto"
        if groups:
            body["security_groups"] = [{"name": g} for g in (sg_ids or [])]
        for prop, field in (
            ("key_name", "key_name"),
            ("availability_zone", "availability_zone"),
            ("config_drive", "config_drive"),
            ("admin_pass", "admin_password"),
            ("diskConfig", "disk_config"),
            ("scheduler_hints", "scheduler_hints"),
        ):
            if props.get(prop) not in (None, "", {}):
                body[field] = props[prop]
        if props.get("tags"):
            body["tags"] = list(props["tags"])
        body["metadata"] = merge_metadata(ctx, props.get("metadata"))
        user_data = props.get("user_data") or ""
        if user_data:
            fmt = props.get("user_data_format") or "HEAT_CFNTOOLS"
            if fmt != "RAW":
                ctx.log(
                    f"server: user_data_format {fmt} is passed to Nova as RAW user data (hotc does not wrap "
                    "it in Heat's cloud-init multipart envelope)"
                )
            body["user_data"] = base64.b64encode(str(user_data).encode()).decode()
        if props.get("personality"):
            ctx.log("server: personality (deprecated) is not applied")

        self._free_ports_of_replaced(ctx, conn, nics)
        find_new = fresh_finder(
            ctx,
            "create server",
            lambda: [
                s
                for s in conn.compute.servers(details=True, name=f"^{re.escape(name)}$")
                if has_stamp(ctx, metadata=s.metadata or {})
            ],
        )
        server = create_once(ctx, "create server", lambda: conn.compute.create_server(**body), find_new)
        ctx.record_physical_id(server.id)
        server = self._wait_active(ctx, conn, server.id, "create server")
        self._associate_floating_ips(ctx, conn, server.id, props.get("networks") or [])
        return self._outcome(ctx, conn, server)

    def _free_ports_of_replaced(self, ctx: ActionContext, conn: Any, nics: Any) -> None:
        """Heat's prepare-for-replace: a port the new server must use that is still bound to the instance this
        server replaces (same lineage and address) is detached from it first, or Nova refuses the port."""
        if not isinstance(nics, list):
            return
        for nic in nics:
            if not nic.get("port"):
                continue
            port = call(ctx, f"read port {nic['port']}", conn.network.get_port, nic["port"])
            owner = port.device_id
            if not owner or not str(port.device_owner or "").startswith("compute:"):
                continue
            old = get_or_none(ctx, f"read server {owner}", conn.compute.get_server, owner)
            md = (old.metadata or {}) if old is not None else {}
            # the same address, any instance of it (a replacement's stamp is ``address@nonce``)
            if md.get(TAG_LINEAGE) != ctx.lineage or base_address(md.get(TAG_ADDRESS)) != base_address(
                stamp(ctx)[TAG_ADDRESS]
            ):
                continue  # someone else's server: let Nova say the port is in use
            ctx.log(f"server: detaching port {port.id} from {owner}, the server this one replaces")
            ignore_missing(
                ctx,
                f"detach port {port.id} from server {owner}",
                conn.compute.delete_server_interface,
                port.id,
                server=owner,
            )
            port_id = str(port.id)
            wait_for(
                ctx,
                f"detach port {port_id} from server {owner}",
                lambda pid=port_id: conn.network.get_port(pid),  # type: ignore[misc]
                lambda p: p is not None and not p.device_id,
            )

    def _wait_active(
        self, ctx: ActionContext, conn: Any, sid: str, what: str, targets: Iterable[str] = ("ACTIVE",)
    ) -> Any:
        return wait_status(
            ctx,
            f"{what} {sid}",
            lambda: conn.compute.get_server(sid),
            list(targets),
            ("ERROR", "DELETED", "SOFT_DELETED"),
            fault=_fault,
        )

    def _associate_floating_ips(
        self, ctx: ActionContext, conn: Any, sid: str, items: Iterable[Mapping[str, Any]]
    ) -> None:
        ifaces = None
        for item in items:
            if not item.get("floating_ip"):
                continue
            if ifaces is None:
                ifaces = call(
                    ctx, f"list interfaces of server {sid}", lambda: list(conn.compute.server_interfaces(sid))
                )
            port_id = self._match_interface(ctx, conn, item, ifaces, set())
            if port_id:
                call(
                    ctx,
                    f"associate floating IP {item['floating_ip']}",
                    conn.network.update_ip,
                    item["floating_ip"],
                    port_id=port_id,
                )

    # -- read
    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        server = get_or_none(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
        server = settle(
            ctx,
            f"read server {physical_id}",
            server,
            lambda: conn.compute.get_server(physical_id),
            lambda s: str(s.status).upper() in BUSY,
        )
        if server is None or str(server.status).upper() in ("DELETED", "SOFT_DELETED"):
            return None
        return self.read_outcome(ctx, conn, server, props)

    def read_outcome(self, ctx: ActionContext, conn: Any, server: Any, props: Mapping[str, Any]) -> Outcome:
        """Attributes and live properties of ``server`` (also one from a list call)."""
        ifaces = self._interfaces(ctx, conn, server)
        out = self._outcome(ctx, conn, server, ifaces)
        return replace(out, properties=self._live_properties(ctx, conn, server, ifaces, props))

    @staticmethod
    def _interfaces(ctx: ActionContext, conn: Any, server: Any) -> list[Any]:
        return (
            get_or_none(
                ctx,
                f"list interfaces of server {server.id}",
                lambda: list(conn.compute.server_interfaces(server.id)),
            )
            or []
        )

    def _live_properties(
        self, ctx: ActionContext, conn: Any, server: Any, ifaces: list[Any], props: Mapping[str, Any]
    ) -> dict[str, Any]:
        lp = LiveProps(ctx, conn, props)
        lp.name(server.name, limit=63)
        if lp.wants("flavor"):
            lp.put("flavor", _live_flavor(lp, server.flavor))
        if lp.wants("image"):
            image = server.image or {}
            live_image = image.get("id") if isinstance(image, Mapping) else getattr(image, "id", None)
            lp.ref("image", live_image, "image", find_image)
        lp.put("key_name", server.key_name)
        lp.text("availability_zone", server.availability_zone)
        lp.mapping("metadata", user_metadata(server.metadata))
        if lp.wants("tags") and server.tags is not None:
            lp.put("tags", list(server.tags))
        if lp.wants("config_drive"):
            lp.put("config_drive", str(server.config_drive or "").lower() in ("true", "1"))
        lp.put("diskConfig", server.disk_config)
        if props.get("security_groups"):  # none given: Nova puts the server in "default"
            names = [str(g.get("name")) for g in server.security_groups or [] if isinstance(g, Mapping)]

            def same_group(given: Any, name: str) -> bool:
                if str(given) == name:
                    return True
                group = resolve(ctx, conn, "security group", given, find_security_group)
                return group is not None and (group.name == name or str(group.id) == name)

            lp.put(
                "security_groups",
                match_items(props["security_groups"], list(dict.fromkeys(names)), same_group, lambda n: n),
            )
        nets = props.get("networks")
        if nets is not None and not any(isinstance(i, Mapping) and i.get("allocate_network") for i in nets):
            lp.put("networks", _live_networks(lp, nets, ifaces))
        return lp.result()

    def _outcome(
        self, ctx: ActionContext, conn: Any, server: Any, ifaces: list[Any] | None = None
    ) -> Outcome:
        raw = server.to_dict(original_names=True)
        if ifaces is None:
            ifaces = self._interfaces(ctx, conn, server)
        # As Heat: every address gets the port of the interface with that (fixed ip, mac), or None; both maps
        # are also keyed by network id (a copy of the network label's entry).
        port_of = {((i.fixed_ips or [{}])[0].get("ip_address"), i.mac_addr): i.port_id for i in ifaces}
        labels = server.addresses or {}
        addresses: dict[str, list[dict[str, Any]]] = {}
        networks: dict[str, list[str]] = {}
        for label, entries in labels.items():
            addresses[label] = [
                dict(e, port=port_of.get((e.get("addr"), e.get("OS-EXT-IPS-MAC:mac_addr")))) for e in entries
            ]
            networks[label] = [e.get("addr") for e in entries]
        for label, entries in list(labels.items()):
            ips = {e.get("addr") for e in entries}
            net_id = next(
                (i.net_id for i in ifaces if any(f.get("ip_address") in ips for f in i.fixed_ips or [])), None
            )
            if net_id and net_id not in networks:
                networks[net_id] = list(networks[label])
                addresses[net_id] = [dict(e) for e in addresses[label]]
        # Heat: the first address of the first network with addresses, network labels in reverse sort order
        first = ""
        for label in sorted(server.addresses or {}, reverse=True):
            entries = (server.addresses or {})[label]
            if entries:
                first = entries[0].get("addr", "")
                break
        attrs = {
            "name": server.name,
            "addresses": addresses,
            "networks": networks,
            "first_address": first,
            "instance_name": raw.get("OS-EXT-SRV-ATTR:instance_name"),
            "accessIPv4": server.access_ipv4 or "",
            "accessIPv6": server.access_ipv6 or "",
            "tags": list(server.tags or []),
            "console_urls": None,
            "os_collect_config": None,
        }
        return outcome(server, attrs)

    # -- update
    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        sid = physical_id
        server = call(ctx, f"read server {sid}", conn.compute.get_server, sid)
        if str(server.status).upper() == "VERIFY_RESIZE":  # a resize an interrupted run never confirmed
            ctx.log(f"server: confirming the pending resize of {sid} left by an earlier run")
            call(ctx, f"confirm resize of server {sid}", conn.compute.confirm_server_resize, server)
            server = self._wait_settled(ctx, conn, sid, "confirm resize of server")
        if "name" in changed:
            call(
                ctx,
                f"rename server {sid}",
                conn.compute.update_server,
                sid,
                name=physical_name(ctx, new.get("name"), limit=63),
            )
        if "metadata" in changed:
            want = merge_metadata(ctx, new.get("metadata"))
            have = dict(server.metadata or {})
            gone = [k for k in have if k not in want]
            if gone:
                call(ctx, f"delete metadata of server {sid}", conn.compute.delete_server_metadata, sid, gone)
            call(ctx, f"set metadata of server {sid}", lambda: conn.compute.set_server_metadata(sid, **want))
        if "tags" in changed:
            call(ctx, f"set tags of server {sid}", server.set_tags, conn.compute, list(new.get("tags") or []))
        if "admin_pass" in changed and new.get("admin_pass"):
            call(
                ctx,
                f"change password of server {sid}",
                conn.compute.change_server_password,
                sid,
                new["admin_pass"],
            )
        if "flavor" in changed:
            self._resize(ctx, conn, sid, new)
        rebuild_user_data = "user_data" in changed and new.get("user_data_update_policy") == "REBUILD"
        if "image" in changed or rebuild_user_data:
            self._rebuild(ctx, conn, sid, new, with_user_data=rebuild_user_data)
        if "networks" in changed:
            self._update_networks(ctx, conn, sid, old.get("networks") or [], new.get("networks") or [], new)
        server = self._wait_settled(ctx, conn, sid, "update server")
        return self._outcome(ctx, conn, server)

    def _wait_settled(self, ctx: ActionContext, conn: Any, sid: str, what: str) -> Any:
        """Wait until no task runs on the server and it is in a resting state (ACTIVE, or SHUTOFF/SUSPENDED/
        PAUSED for a server that was stopped or suspended before the update)."""
        return wait_for(
            ctx,
            f"{what} {sid}",
            lambda: conn.compute.get_server(sid),
            lambda s: (
                s is not None and str(s.status).upper() in RESTING and not getattr(s, "task_state", None)
            ),
            lambda s: f"went to ERROR: {_fault(s)}" if str(s.status).upper() == "ERROR" else None,
        )

    # -- suspend / resume (hotc suspend / resume)
    def suspend(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        conn = ctx.cloud()
        server = call(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
        if str(server.status).upper() == "SUSPENDED":
            return
        call(ctx, f"suspend server {physical_id}", conn.compute.suspend_server, physical_id)
        wait_status(
            ctx,
            f"suspend server {physical_id}",
            lambda: conn.compute.get_server(physical_id),
            "SUSPENDED",
            ("ERROR",),
            fault=_fault,
        )

    def resume(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        conn = ctx.cloud()
        server = call(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
        if str(server.status).upper() == "ACTIVE":
            return
        call(ctx, f"resume server {physical_id}", conn.compute.resume_server, physical_id)
        self._wait_active(ctx, conn, physical_id, "resume server")

    def _resize(self, ctx: ActionContext, conn: Any, sid: str, new: Mapping[str, Any]) -> None:
        flavor = find_flavor(ctx, conn, new.get("flavor"))
        current = call(ctx, f"read server {sid}", conn.compute.get_server, sid)
        if _flavor_of(current) in (flavor.id, flavor.name):
            return  # already of that flavor (an earlier run resized it)
        call(ctx, f"resize server {sid}", conn.compute.resize_server, sid, flavor.id)

        def refused(s: Any) -> str | None:
            status = str(s.status).upper()
            if status == "ERROR":
                return f"went to ERROR: {_fault(s)}"
            if status == "ACTIVE" and not getattr(s, "task_state", None) and _resize_failed(conn, sid):
                return f"the resize was refused by Nova{': ' + _fault(s) if _fault(s) else ''} (see its server actions)"
            return None

        server = wait_for(
            ctx,
            f"resize server {sid} to flavor {flavor.name}",
            lambda: conn.compute.get_server(sid),
            lambda s: s is not None and str(s.status).upper() == "VERIFY_RESIZE",
            refused,
        )
        call(ctx, f"confirm resize of server {sid}", conn.compute.confirm_server_resize, server)
        self._wait_active(ctx, conn, sid, "confirm resize of server")

    def _rebuild(
        self, ctx: ActionContext, conn: Any, sid: str, new: Mapping[str, Any], *, with_user_data: bool
    ) -> None:
        image = find_image(ctx, conn, new.get("image"))
        current = call(ctx, f"read server {sid}", conn.compute.get_server, sid)
        if not with_user_data and (current.image or {}).get("id") == image.id:
            return  # already built from that image (an earlier run rebuilt it): no second wipe
        kwargs: dict[str, Any] = {}
        if new.get("image_update_policy") == "REBUILD_PRESERVE_EPHEMERAL":
            kwargs["preserve_ephemeral"] = True
        if with_user_data:
            kwargs["user_data"] = base64.b64encode(str(new.get("user_data") or "").encode()).decode()
        if new.get("admin_pass"):
            kwargs["admin_password"] = new["admin_pass"]
        ctx.log(f"server: rebuilding {sid} from image {image.id} (the root disk is replaced)")
        call(ctx, f"rebuild server {sid}", lambda: conn.compute.rebuild_server(sid, image.id, **kwargs))
        wait_for(
            ctx,
            f"rebuild server {sid}",
            lambda: conn.compute.get_server(sid),
            lambda s: (
                s is not None
                and str(s.status).upper() == "ACTIVE"
                and getattr(s, "task_state", None) in (None, "")
                and (s.image or {}).get("id") == image.id
            ),
            lambda s: f"went to ERROR: {_fault(s)}" if str(s.status).upper() == "ERROR" else None,
        )

    def _match_interface(
        self, ctx: ActionContext, conn: Any, item: Mapping[str, Any], ifaces: list[Any], taken: set[str]
    ) -> str | None:
        """The port of the server's interface that a networks entry stands for."""
        if item.get("port"):
            pid = find_port(ctx, conn, item["port"]).id
            return pid if any(i.port_id == pid for i in ifaces) else None
        net_id = subnet_id = None
        if item.get("subnet"):
            sub = find_subnet(ctx, conn, item["subnet"])
            subnet_id, net_id = sub.id, sub.network_id
        elif props_get(item, "network", "uuid"):
            net_id = find_network(ctx, conn, props_get(item, "network", "uuid")).id
        for i in ifaces:
            if i.port_id in taken or (net_id and i.net_id != net_id):
                continue
            ips = i.fixed_ips or []
            if subnet_id and not any(ip.get("subnet_id") == subnet_id for ip in ips):
                continue
            if item.get("fixed_ip") and not any(ip.get("ip_address") == item["fixed_ip"] for ip in ips):
                continue
            return str(i.port_id)
        return None

    def _update_networks(
        self,
        ctx: ActionContext,
        conn: Any,
        sid: str,
        old: list[Mapping[str, Any]],
        new: list[Mapping[str, Any]],
        props: Mapping[str, Any],
    ) -> None:
        """Detach the interfaces of entries that left, attach those of entries that came (as Heat does)."""
        olds = [_clean(i) for i in old]
        news = [_clean(i) for i in new]
        removed = list(olds)
        added = []
        for item in news:
            if item in removed:
                removed.remove(item)
            else:
                added.append(item)
        ifaces = call(
            ctx, f"list interfaces of server {sid}", lambda: list(conn.compute.server_interfaces(sid))
        )
        kept = [i for i in olds if i not in removed]
        taken: set[str] = set()
        for item in kept:
            pid = self._match_interface(ctx, conn, item, ifaces, taken)
            if pid:
                taken.add(pid)
        internal = {p.id for p in self._internal_ports(ctx, conn)}
        for item in removed:
            pid = self._match_interface(ctx, conn, item, ifaces, taken)
            if pid is None:
                ctx.log(f"server: no interface found for removed networks entry {item}; nothing to detach")
                continue
            taken.add(pid)
            call(
                ctx,
                f"detach port {pid} from server {sid}",
                conn.compute.delete_server_interface,
                pid,
                server=sid,
            )
            self._wait_detached(ctx, conn, sid, pid)
            if pid in internal:
                ignore_missing(ctx, f"delete port {pid}", conn.network.delete_port, pid)
        server = call(ctx, f"read server {sid}", conn.compute.get_server, sid)
        groups = props.get("security_groups") or []
        sg_ids = security_group_ids(ctx, conn, groups) if groups else None
        for idx, item in enumerate(added):
            nic = self._nic(ctx, conn, server.name, len(olds) + idx, item, sg_ids)
            if isinstance(nic, str):
                continue
            attrs: dict[str, Any] = {}
            if nic.get("port"):
                attrs["port_id"] = nic["port"]
            else:
                attrs["net_id"] = nic["uuid"]
                if nic.get("fixed_ip"):
                    attrs["fixed_ips"] = [{"ip_address": nic["fixed_ip"]}]
            if nic.get("tag"):
                attrs["tag"] = nic["tag"]
            call(
                ctx,
                f"attach interface to server {sid}",
                lambda attrs=attrs: conn.compute.create_server_interface(sid, **attrs),
            )
        self._associate_floating_ips(ctx, conn, sid, [i for i in added if i.get("floating_ip")])

    @staticmethod
    def _wait_detached(ctx: ActionContext, conn: Any, sid: str, port_id: str) -> None:
        def ports_of_server() -> list[str]:
            return [str(i.port_id) for i in conn.compute.server_interfaces(sid)]

        wait_for(
            ctx,
            f"detach port {port_id} from server {sid}",
            ports_of_server,
            lambda ports: port_id not in ports,
        )

    # -- replacement (Heat's Server.prepare_for_replace / restore_prev_rsrc)
    @staticmethod
    def _shared_ports(
        ctx: ActionContext, conn: Any, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> list[str]:
        """Ids of the explicit ``port`` entries the old instance has and its replacement takes too: a port attaches
        to one server only, so the old server must let go of them before the new one is created."""

        def explicit(props: Mapping[str, Any]) -> list[str]:
            ids: list[str] = []
            for item in props.get("networks") or []:
                if isinstance(item, Mapping) and item.get("port"):
                    try:
                        pid = str(find_port(ctx, conn, item["port"]).id)
                    except NotFound:
                        continue
                    if pid not in ids:
                        ids.append(pid)
            return ids

        wanted = set(explicit(new))
        return [pid for pid in explicit(old) if pid in wanted] if wanted else []

    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        """Detach from the old server the explicit ports its replacement takes over (and wait until Neutron shows
        them unbound). True when something was detached (a failed replacement then re-attaches it)."""
        conn = ctx.cloud()
        ports = self._shared_ports(ctx, conn, old, new)
        ips = _shared_fixed_ips(ctx, conn, old, new)
        if not (ports or ips) or _live_server(conn, physical_id) is None:
            return False
        detached = False
        for (
            net_id,
            ip,
        ) in ips:  # a port Nova made with a requested fixed_ip: detaching deletes it, freeing the IP
            held = _port_with_ip(conn, net_id, ip)
            if held is None or held.device_id != physical_id:
                continue
            ctx.log(
                f"server: detaching the interface with {ip} from the old server {physical_id} for its "
                "replacement"
            )
            ignore_missing(
                ctx,
                f"detach port {held.id} from server {physical_id}",
                conn.compute.delete_server_interface,
                held.id,
                server=physical_id,
            )
            _wait_ip_owner(
                ctx,
                conn,
                net_id,
                ip,
                lambda dev: dev != physical_id,
                f"detach the interface with {ip} from server {physical_id}",
            )
            detached = True
        for port_id in ports:
            port = get_or_none(ctx, f"read port {port_id}", conn.network.get_port, port_id)
            if port is None or port.device_id != physical_id:
                continue
            ctx.log(f"server: detaching port {port_id} from the old server {physical_id} for its replacement")
            ignore_missing(
                ctx,
                f"detach port {port_id} from server {physical_id}",
                conn.compute.delete_server_interface,
                port_id,
                server=physical_id,
            )
            _wait_port_owner(
                ctx,
                conn,
                port_id,
                lambda dev: dev != physical_id,
                f"detach port {port_id} from server {physical_id}",
            )
            detached = True
        return detached

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        """Give the old server back the explicit ports :meth:`prepare_for_replace` took, detaching them first from
        the failed replacement when that got them."""
        conn = ctx.cloud()
        if _live_server(conn, physical_id) is None:
            ctx.log(f"server: the old server {physical_id} is gone; its ports cannot be re-attached")
            return
        for port_id in self._shared_ports(ctx, conn, old, new):
            port = get_or_none(ctx, f"read port {port_id}", conn.network.get_port, port_id)
            if port is None or port.device_id == physical_id:
                continue
            holder = str(port.device_id or "")
            if holder and str(port.device_owner or "").startswith("compute:"):
                _take_port_back(ctx, conn, port_id, holder)
            elif holder:
                raise ProviderError(
                    f"port {port_id} is now used by {port.device_owner or 'another device'} "
                    f"{holder}: cannot re-attach it to server {physical_id}"
                )
            ctx.log(f"server: re-attaching port {port_id} to the old server {physical_id}")
            call(
                ctx,
                f"attach port {port_id} to server {physical_id}",
                lambda pid=port_id: conn.compute.create_server_interface(physical_id, port_id=pid),
            )
            _wait_port_owner(
                ctx,
                conn,
                port_id,
                lambda dev: dev == physical_id,
                f"attach port {port_id} to server {physical_id}",
            )
        for net_id, ip in _shared_fixed_ips(ctx, conn, old, new):
            held = _port_with_ip(conn, net_id, ip)
            if held is not None and held.device_id == physical_id:
                continue
            if held is not None and held.device_id and str(held.device_owner or "").startswith("compute:"):
                _take_port_back(ctx, conn, str(held.id), str(held.device_id))
                _wait_ip_owner(
                    ctx, conn, net_id, ip, lambda dev: dev == "", f"free {ip} from the failed replacement"
                )
            elif held is not None and held.device_id:
                raise ProviderError(
                    f"{ip} is now used by {held.device_owner or 'another device'} {held.device_id}: "
                    f"cannot give it back to server {physical_id}"
                )
            ctx.log(f"server: re-attaching an interface with {ip} to the old server {physical_id}")
            call(
                ctx,
                f"attach an interface with {ip} to server {physical_id}",
                lambda n=net_id, a=ip: conn.compute.create_server_interface(
                    physical_id, net_id=n, fixed_ips=[{"ip_address": a}]
                ),
            )
            _wait_ip_owner(
                ctx,
                conn,
                net_id,
                ip,
                lambda dev: dev == physical_id,
                f"attach an interface with {ip} to server {physical_id}",
            )

    # -- delete
    def delete(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        conn = ctx.cloud()
        server = get_or_none(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
        # the ports hotc made for this server: bound to it, or (a create that failed) bound to nothing; found by
        # the internal-port tag and the lineage, so also when this is an older instance of the address
        address = base_address(stamp(ctx)[TAG_ADDRESS])
        ours = [
            p
            for p in self._internal_ports(ctx, conn)
            if p.device_id == physical_id
            or (
                not p.device_id
                and any(
                    t.startswith(f"{TAG_ADDRESS}=") and base_address(t.split("=", 1)[1]) == address
                    for t in p.tags or []
                )
            )
        ]
        if server is not None and deletion_policy(ctx, physical_id) == "Snapshot":
            self._snapshot_before_delete(ctx, conn, server)
        if server is not None:
            ignore_missing(ctx, f"delete server {physical_id}", conn.compute.delete_server, physical_id)
            wait_gone(ctx, f"delete server {physical_id}", lambda: _live_server(conn, physical_id))
        for port in ours:
            ignore_missing(ctx, f"delete port {port.id}", conn.network.delete_port, port.id)

    @staticmethod
    def _snapshot_before_delete(ctx: ActionContext, conn: Any, server: Any) -> None:
        """``deletion_policy: Snapshot`` (Heat's Server.handle_snapshot_delete): an image of the server, active in
        Glance, before the server is deleted; if the snapshot fails the delete fails and the server stays."""
        sid = str(server.id)
        name = f"{server.name}-snapshot"

        def of_server(img: Any) -> bool:
            props = dict(getattr(img, "properties", None) or {})
            return (
                img.name == name
                and (getattr(img, "instance_uuid", None) or props.get("instance_uuid")) == sid
            )

        images = [
            i for i in call(ctx, "list images", lambda: list(conn.image.images(name=name))) if of_server(i)
        ]
        if any(str(i.status) == "active" for i in images):
            ctx.log(f"server {sid}: snapshot image {name} already made (deletion_policy Snapshot)")
            return
        for img in images:  # failed attempts of an earlier run
            if str(img.status) in ("killed", "deleted", "deactivated"):
                ignore_missing(ctx, f"delete failed snapshot {img.id}", conn.image.delete_image, img.id)
        pending = [i for i in images if str(i.status) in ("queued", "saving", "uploading", "importing")]
        if pending:
            image_id = str(pending[0].id)
        else:
            _wait_no_task(ctx, conn, sid)
            ctx.log(f"server {sid}: taking snapshot image {name} before deletion (deletion_policy Snapshot)")
            image = call(
                ctx,
                f"snapshot server {sid}",
                lambda: conn.compute.create_server_image(sid, name, metadata={"hotc-snapshot-of": sid}),
            )
            image_id = str(image.id)
        idle_since: list[float] = []

        def failed(img: Any) -> str | None:
            if str(img.status) in ("killed", "deleted"):
                return f"the image went to {img.status}"
            # Nova uploads the image while the server's task is image_uploading; once the task is over and the
            # image is still not active, the upload is not coming (a virt driver that cannot snapshot)
            srv = _live_server(conn, sid)
            if srv is not None and not getattr(srv, "task_state", None):
                idle_since.append(now())
                if idle_since[-1] - idle_since[0] > SNAPSHOT_GRACE:
                    return f"Nova finished the snapshot but the image stayed {img.status}"
            return None

        try:
            wait_for(
                ctx,
                f"snapshot server {sid} as image {image_id}",
                lambda: conn.image.get_image(image_id),
                lambda i: i is not None and str(i.status) == "active",
                failed,
            )
        except ProviderError as exc:
            ignore_missing(ctx, f"delete failed snapshot {image_id}", conn.image.delete_image, image_id)
            raise ProviderError(
                f"server {sid}: {exc.message}; deletion_policy Snapshot: the server is kept (change "
                "the deletion_policy to Retain or Delete, or fix the snapshot, then run again)"
            ) from exc

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud())
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        servers = call(ctx, "list servers", lambda: list(conn.compute.servers(details=True)))
        return newest(
            s
            for s in servers
            if has_stamp(ctx, metadata=s.metadata or {})
            and str(s.status).upper() not in ("DELETED", "SOFT_DELETED")
        )


def _shared_fixed_ips(
    ctx: ActionContext, conn: Any, old: Mapping[str, Any], new: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(network id, ip) of ``{network, fixed_ip}`` entries (a port Nova makes) the old instance and its
    replacement both have: the IP can be allocated once per network."""

    def entries(props: Mapping[str, Any]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for item in props.get("networks") or []:
            if (
                not isinstance(item, Mapping)
                or item.get("port")
                or item.get("subnet")
                or not item.get("fixed_ip")
            ):
                continue
            if item.get("port_extra_properties"):
                continue
            net = props_get(item, "network", "uuid")
            if not net:
                continue
            try:
                out.append((str(find_network(ctx, conn, net).id), str(item["fixed_ip"])))
            except NotFound:
                continue
        return out

    wanted = set(entries(new))
    return [e for e in entries(old) if e in wanted]


def _port_with_ip(conn: Any, net_id: str, ip: str) -> Any:
    found = [
        p
        for p in conn.network.ports(network_id=net_id, fixed_ips=[f"ip_address={ip}"])
        if any(f.get("ip_address") == ip for f in p.fixed_ips or [])
    ]
    return found[0] if found else None


def _wait_ip_owner(ctx: ActionContext, conn: Any, net_id: str, ip: str, ok: Any, what: str) -> None:
    """Wait until the device holding ``ip`` ("" when no port holds it) satisfies ``ok``."""

    def holder() -> str:
        p = _port_with_ip(conn, net_id, ip)
        return "" if p is None else str(p.device_id or "")

    wait_for(ctx, what, holder, lambda dev: dev is not None and bool(ok(dev)))


def _take_port_back(ctx: ActionContext, conn: Any, port_id: str, holder: str) -> None:
    """Detach the port from ``holder`` (a failed replacement), once that is no longer building."""
    settle(
        ctx,
        f"server {holder}",
        _live_server(conn, holder),
        lambda: _live_server(conn, holder),
        lambda s: str(s.status).upper() in BUSY,
    )
    ctx.log(f"server: detaching port {port_id} from the failed replacement {holder}")
    ignore_missing(
        ctx,
        f"detach port {port_id} from server {holder}",
        conn.compute.delete_server_interface,
        port_id,
        server=holder,
    )
    _wait_port_owner(
        ctx, conn, port_id, lambda dev: dev != holder, f"detach port {port_id} from server {holder}"
    )


def _wait_port_owner(ctx: ActionContext, conn: Any, port_id: str, ok: Any, what: str) -> None:
    """Wait until the port's ``device_id`` satisfies ``ok`` (Neutron's view: the port is free or bound)."""
    wait_for(
        ctx,
        what,
        lambda: conn.network.get_port(port_id),
        lambda p: p is not None and bool(ok(str(p.device_id or ""))),
    )


def _wait_no_task(ctx: ActionContext, conn: Any, sid: str) -> None:
    """Nova refuses an image snapshot while another task runs on the server."""
    wait_for(
        ctx,
        f"wait for server {sid} to be idle",
        lambda: conn.compute.get_server(sid),
        lambda s: s is not None and not getattr(s, "task_state", None) and str(s.status).upper() not in BUSY,
    )


def _live_server(conn: Any, sid: str) -> Any:
    s = conn.compute.get_server(sid)
    return None if s is None or str(s.status).upper() in ("DELETED", "SOFT_DELETED") else s


def _flavor_of(server: Any) -> str:
    fl = server.flavor
    if fl is None:
        return ""
    if isinstance(fl, Mapping):
        return str(fl.get("original_name") or fl.get("id") or "")
    return str(getattr(fl, "original_name", None) or getattr(fl, "name", None) or getattr(fl, "id", "") or "")


def _live_flavor(lp: LiveProps, flavor: Any) -> Any:
    """The server's flavor as the template names it when it is that flavor, else its name (or id)."""
    if flavor is None:
        return None
    get = flavor.get if isinstance(flavor, Mapping) else (lambda k: getattr(flavor, k, None))
    live_name = get("original_name") or get("name")
    live_id = get("id")
    given = lp.props.get("flavor")
    if given is not None and str(given) in {str(live_name), str(live_id)}:
        return given
    found = resolve(lp.ctx, lp.conn, "flavor", given, find_flavor)
    if found is not None and (found.name == live_name or (live_id and str(found.id) == str(live_id))):
        return given
    return live_name or live_id


def _live_networks(lp: LiveProps, given: list[Any], ifaces: list[Any]) -> list[Any]:
    """The template's ``networks`` entries that still have their interface (each once), then ``{port: ID}`` for
    each interface that none stands for."""
    ctx, conn = lp.ctx, lp.conn

    def matches(item: Any, iface: Any) -> bool:
        if not isinstance(item, Mapping):
            return False
        ips = iface.fixed_ips or []
        if item.get("port"):
            return resolve_id(ctx, conn, "port", item["port"], find_port) == str(iface.port_id)
        if item.get("subnet"):
            sub = resolve_id(ctx, conn, "subnet", item["subnet"], find_subnet)
            if not any(ip.get("subnet_id") == sub for ip in ips):
                return False
        else:
            net = props_get(item, "network", "uuid")
            if net and resolve_id(ctx, conn, "network", net, find_network) != str(iface.net_id):
                return False
        return not item.get("fixed_ip") or any(ip.get("ip_address") == item["fixed_ip"] for ip in ips)

    return match_items(given, ifaces, matches, lambda i: {"port": str(i.port_id)})


def _resize_failed(conn: Any, sid: str) -> bool:
    """After a refused resize the server is ACTIVE again with the old flavor; the last action says so."""
    try:
        actions = list(conn.compute.server_actions(sid))
    except Exception:
        return False
    resizes = [a for a in actions if a.action == "resize"]
    if not resizes:
        return False
    last = max(resizes, key=lambda a: str(a.start_time))
    return str(getattr(last, "message", "") or "").lower() == "error"


# --------------------------------------------------------------------------------------------- KeyPair


def _generate_keypair(key_type: str) -> tuple[str, str]:
    """A new ssh key pair (public, private in OpenSSH format), made locally: Nova >= 2.92 no longer generates."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    if key_type == "x509":
        raise ProviderError("key pair: type x509 needs a public_key (hotc generates only ssh keys)")
    key = ed25519.Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    return public, private


class KeyPairDriver:
    """Physical id = the key pair's name (as in Heat). Without public_key, hotc generates an ed25519 key pair
    locally and uploads its public half; the private key is an attribute only with save_private_key."""

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        name = str(props["name"])
        body: dict[str, Any] = {"name": name}
        private = ""
        public = props.get("public_key")
        if not public:
            public, private = _generate_keypair(props.get("type") or "ssh")
        body["public_key"] = public
        if props.get("type"):
            body["type"] = props["type"]
        if props.get("user"):
            body["user_id"] = props["user"]
        existing = get_or_none(ctx, f"read key pair {name}", conn.compute.get_keypair, name)
        if existing is not None:
            raise ProviderError(f"key pair {name!r} already exists; choose another name or delete it")
        kp = create_once(
            ctx,
            f"create key pair {name}",
            lambda: conn.compute.create_keypair(**body),
            lambda: _same_key(conn, name, public),
        )
        ctx.record_physical_id(name)
        attrs = {
            "public_key": kp.public_key or public,
            "private_key": private if props.get("save_private_key") else "",
        }
        return outcome(kp, attrs, physical_id=name)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        kp = get_or_none(ctx, f"read key pair {physical_id}", conn.compute.get_keypair, physical_id)
        if kp is None:
            return None
        # the private key is known only at creation: read leaves it out (the applier keeps the stored value)
        lp = LiveProps(ctx, conn, props)
        lp.put("name", props.get("name") if str(props.get("name")) == physical_id else physical_id)
        if lp.wants("public_key"):
            given = str(props.get("public_key") or "")
            live = str(kp.public_key or "")
            lp.put("public_key", props["public_key"] if given.split()[:2] == live.split()[:2] else live)
        if getattr(kp, "type", None):
            lp.put("type", kp.type)
        out = outcome(kp, {"public_key": kp.public_key}, physical_id=physical_id)
        return replace(out, properties=lp.result())

    def update(self, ctx, physical_id, old, new, changed):  # type: ignore[no-untyped-def]
        raise ProviderError("a key pair cannot be updated in place (replace it)")

    def delete(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        ignore_missing(ctx, f"delete key pair {physical_id}", ctx.cloud().compute.delete_keypair, physical_id)

    # Heat's KeyPair.prepare_for_replace: a key pair's name is its id, so a replacement under the same name
    # (a new public_key, type or user) can only be created once the old one is gone.
    def prepare_for_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> bool:
        if str(new.get("name")) != physical_id:
            return False  # a new name: both can exist side by side
        conn = ctx.cloud()
        if get_or_none(ctx, f"read key pair {physical_id}", conn.compute.get_keypair, physical_id) is None:
            return False
        ctx.log(
            f"key pair: deleting the old key pair {physical_id} so that its replacement can take the name"
        )
        ignore_missing(ctx, f"delete key pair {physical_id}", conn.compute.delete_keypair, physical_id)
        return True

    def restore_after_failed_replace(
        self, ctx: ActionContext, physical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        """Re-import the old key pair when its public key is known (given in the template); a key pair hotc
        generated cannot be brought back (its private half was never stored in the cloud)."""
        conn = ctx.cloud()
        if (
            get_or_none(ctx, f"read key pair {physical_id}", conn.compute.get_keypair, physical_id)
            is not None
        ):
            return  # the name is taken (by the old key pair, or the failed replacement): nothing to restore
        if not old.get("public_key"):
            raise ProviderError(
                f"the old key pair {physical_id} was deleted for its replacement and hotc generated "
                "it, so it cannot be re-imported: the next apply creates a new one"
            )
        body: dict[str, Any] = {"name": physical_id, "public_key": old["public_key"]}
        if old.get("type"):
            body["type"] = old["type"]
        if old.get("user"):
            body["user_id"] = old["user"]
        ctx.log(f"key pair: re-importing the old key pair {physical_id}")
        call(ctx, f"re-import key pair {physical_id}", lambda: conn.compute.create_keypair(**body))

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        # A key pair has no metadata: adopt only one whose public key is the one the template gives.
        if not props.get("public_key") or not props.get("name"):
            return None
        kp = _same_key(ctx.cloud(), str(props["name"]), str(props["public_key"]))
        return None if kp is None else str(props["name"])


def _same_key(conn: Any, name: str, public: str) -> Any:
    try:
        kp = conn.compute.get_keypair(name)
    except Exception:
        return None
    return kp if kp is not None and (kp.public_key or "").split()[:2] == public.split()[:2] else None


# --------------------------------------------------------------------------------------------- Flavor

SPEC_LINEAGE = "hotc:lineage"
SPEC_ADDRESS = "hotc:address"


class FlavorDriver:
    """Flavors carry the stamp as extra specs ``hotc:lineage`` / ``hotc:address`` (an unregistered namespace
    that Nova's scheduler filters ignore)."""

    def _stamp_specs(self, ctx: ActionContext) -> dict[str, str]:
        st = stamp(ctx)
        return {SPEC_LINEAGE: st[TAG_LINEAGE], SPEC_ADDRESS: st[TAG_ADDRESS]}

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        conn = ctx.cloud()
        body: dict[str, Any] = {
            "name": physical_name(ctx, props.get("name")),
            "ram": props["ram"],
            "vcpus": props["vcpus"],
            "disk": props.get("disk") or 0,
            "swap": props.get("swap") or 0,
            "ephemeral": props.get("ephemeral") or 0,
            "rxtx_factor": props.get("rxtx_factor") if props.get("rxtx_factor") is not None else 1.0,
            "is_public": props.get("is_public", True) if props.get("is_public") is not None else True,
        }
        if props.get("flavorid"):
            body["id"] = str(props["flavorid"])
        find_new = fresh_finder(
            ctx,
            "create flavor",
            lambda: [f for f in conn.compute.flavors(is_public=None) if f.name == body["name"]],
        )
        flavor = create_once(ctx, "create flavor", lambda: conn.compute.create_flavor(**body), find_new)
        ctx.record_physical_id(flavor.id)
        specs = {str(k): str(v) for k, v in (props.get("extra_specs") or {}).items()}
        specs.update(self._stamp_specs(ctx))
        call(
            ctx,
            f"set extra specs of flavor {flavor.id}",
            conn.compute.create_flavor_extra_specs,
            flavor.id,
            specs,
        )
        if not body["is_public"]:
            for tenant in props.get("tenants") or []:
                call(
                    ctx,
                    f"give project {tenant} access to flavor {flavor.id}",
                    conn.compute.flavor_add_tenant_access,
                    flavor.id,
                    tenant,
                )
        out = self.read(ctx, flavor.id, props)
        assert out is not None
        return out

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        conn = ctx.cloud()
        flavor = get_or_none(ctx, f"read flavor {physical_id}", conn.compute.get_flavor, physical_id)
        if flavor is None:
            return None
        specs = get_or_none(
            ctx,
            f"read extra specs of flavor {physical_id}",
            conn.compute.fetch_flavor_extra_specs,
            physical_id,
        )
        extra = dict(getattr(specs, "extra_specs", None) or flavor.extra_specs or {})
        user_specs = {k: v for k, v in extra.items() if k not in (SPEC_LINEAGE, SPEC_ADDRESS)}
        out = outcome(flavor, {"is_public": flavor.is_public, "extra_specs": user_specs})
        return replace(out, properties=self._live_properties(ctx, conn, flavor, user_specs, props))

    @staticmethod
    def _live_properties(
        ctx: ActionContext, conn: Any, flavor: Any, specs: Mapping[str, Any], props: Mapping[str, Any]
    ) -> dict[str, Any]:
        lp = LiveProps(ctx, conn, props)
        lp.name(flavor.name)
        lp.text("flavorid", flavor.id)
        for key in ("ram", "vcpus", "disk"):
            lp.put(key, getattr(flavor, key, None))
        lp.put("swap", int(flavor.swap or 0))  # Nova shows no swap as ""
        lp.put("ephemeral", int(flavor.ephemeral or 0))
        lp.put("rxtx_factor", float(flavor.rxtx_factor) if flavor.rxtx_factor is not None else 1.0)
        lp.put("is_public", flavor.is_public)
        lp.mapping("extra_specs", specs)
        if props.get("tenants") and not flavor.is_public:
            access = get_or_none(
                ctx, f"read access list of flavor {flavor.id}", conn.compute.get_flavor_access, flavor.id
            )
            live = [str(a.get("tenant_id") if isinstance(a, Mapping) else a) for a in access or []]
            lp.put("tenants", match_items(props["tenants"], live, lambda g, t: str(g) == t, lambda t: t))
        return lp.result()

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        conn = ctx.cloud()
        if "extra_specs" in changed:
            want = {str(k): str(v) for k, v in (new.get("extra_specs") or {}).items()}
            want.update(self._stamp_specs(ctx))
            specs = call(
                ctx,
                f"read extra specs of flavor {physical_id}",
                conn.compute.fetch_flavor_extra_specs,
                physical_id,
            )
            for key in dict(specs.extra_specs or {}):
                if key not in want:
                    call(
                        ctx,
                        f"delete extra spec {key} of flavor {physical_id}",
                        conn.compute.delete_flavor_extra_specs_property,
                        physical_id,
                        key,
                    )
            call(
                ctx,
                f"set extra specs of flavor {physical_id}",
                conn.compute.create_flavor_extra_specs,
                physical_id,
                want,
            )
        if "tenants" in changed:
            old_t, new_t = set(old.get("tenants") or []), set(new.get("tenants") or [])
            for t in sorted(new_t - old_t):
                call(
                    ctx,
                    f"give project {t} access to flavor {physical_id}",
                    conn.compute.flavor_add_tenant_access,
                    physical_id,
                    t,
                )
            for t in sorted(old_t - new_t):
                ignore_missing(
                    ctx,
                    f"remove access of project {t} to flavor {physical_id}",
                    conn.compute.flavor_remove_tenant_access,
                    physical_id,
                    t,
                )
        out = self.read(ctx, physical_id, new)
        if out is None:
            raise NotFound(f"flavor {physical_id} disappeared during its update")
        return out

    def delete(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> None:
        ignore_missing(ctx, f"delete flavor {physical_id}", ctx.cloud().compute.delete_flavor, physical_id)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        found = self._find(ctx, ctx.cloud())
        return None if found is None else str(found.id)

    def _find(self, ctx: ActionContext, conn: Any) -> Any:
        want = self._stamp_specs(ctx)
        flavors = call(ctx, "list flavors", lambda: list(conn.compute.flavors(is_public=None)))
        return newest(
            f for f in flavors if all(plain(f.extra_specs or {}).get(k) == v for k, v in want.items())
        )


__all__ = ["DRIVERS", "find_flavor", "find_image", "find_keypair", "user_metadata"]

DRIVERS: dict[str, Driver] = with_defaults(
    {
        "OS::Nova::Server": ServerDriver(),
        "OS::Nova::KeyPair": KeyPairDriver(),
        "OS::Nova::Flavor": FlavorDriver(),
    }
)
