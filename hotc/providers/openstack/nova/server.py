"""OS::Nova::Server: create (image or block devices, networks, security groups, user data), read with live
properties, update (rename, metadata, tags, password, resize, rebuild, networks), suspend/resume, delete.

Servers carry the hotc stamp in their metadata (``hotc-lineage``, ``hotc-address``); ports hotc makes for a
server (a ``networks`` entry that names a ``subnet``, which Nova cannot take) carry it as Neutron tags plus the tag
``hotc-internal-port`` and are deleted with the server or when their entry leaves ``networks``.

``user_data_format`` SOFTWARE_CONFIG gets Heat's multipart payload and a metadata object in the signal store
(:mod:`hotc.providers.native.server_metadata`); HEAT_CFNTOOLS is not wrapped in Heat's cfntools envelope:
hotc passes ``user_data`` to Nova as is (RAW) and logs that it did."""

from __future__ import annotations

import base64
import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from hotc.providers.base import DELETE, SNAPSHOT, ActionContext, Driver, Outcome
from hotc.providers.openstack.batch import Item, ListRead, shared
from hotc.providers.openstack.board import Board, board
from hotc.providers.openstack.common import (
    TAG_ADDRESS,
    ProviderError,
    base_address,
    call,
    create_once,
    fresh_finder,
    generated_name_base,
    get_or_none,
    has_stamp,
    ignore_missing,
    merge_metadata,
    newest,
    outcome,
    physical_name,
    settle,
    stack_name_prefix,
    stamp,
    user_metadata,
    wait_for,
    wait_gone,
    wait_status,
    with_defaults,
)
from hotc.providers.openstack.live import LiveProps, as_given, match_items, resolve
from hotc.providers.openstack.neutron import (
    find_security_group,
    security_group_ids,
)
from hotc.providers.openstack.nova.common import BUSY, RESTING, fault, find_flavor, find_image, live_server
from hotc.providers.openstack.nova.server_network import ServerNetworkMixin, _live_networks
from hotc.providers.openstack.nova.server_snapshot import ServerSnapshotMixin
from hotc.providers.openstack.polling import Paced
from hotc.providers.shared_lookup import peek

SINCE_MARGIN = 300.0  # seconds: a delete's (or an unfiltered) board lists the servers changed since its making, less this


def stack_prefix(ctx: ActionContext, name: str | None) -> str | None:
    """The start of the names hotc gives this stack's servers (``<stack>-``), when ``name`` (the server's) has it;
    else None (a name the template gives, or one shortened to fit Nova's limit)."""
    prefix = stack_name_prefix(ctx)
    return prefix if name and name.startswith(prefix) and len(prefix) > 1 else None


def server_poll(
    ctx: ActionContext, conn: Any, sid: str, *, gone: bool = False, name: str | None = None
) -> Any:
    """A poll of server ``sid``: the run's servers board (one list of the servers changed lately answers the
    polls of every server the run waits for: :mod:`hotc.providers.openstack.board`), else its own GET. A server
    the list has in ERROR is read by its own GET, for its fault. ``gone`` (a delete's wait): None once the server
    is gone (DELETED, or not found). A board's poll paces itself (each waits for the board's next list, and the
    board spaces its lists): the wait polls it again without a sleep of its own. A server whose ``name`` starts
    as hotc names this stack's servers is polled through a board that lists only those (Nova's regex filter on
    the name): on a shared cloud the servers changed lately are mostly other stacks' (thirty deleted by a group's
    delete a minute before made every list of a two-server stack slow to build and to answer).

    The board of a create's waits for this stack's servers lists them without ``changes-since``: Nova filters
    that on the instance's ``updated_at``, which a new instance has not set yet while it waits for the compute
    host (its builds are limited, ten at a time by default), so of thirty servers created at once, twenty were
    missing from those lists and each of their polls made its own GET (33 GETs at 1.4 s each on a loaded Nova
    API, beside 10 lists). The name filter alone already keeps other stacks' servers out. A delete's board keeps
    ``changes-since``: it lists a deleted server as DELETED (without, it is absent, and its poll's GET is needed to
    see the 404); an unfiltered board keeps it too (the project's servers are not this stack's)."""

    def get() -> Any:
        return live_server(conn, sid) if gone else conn.compute.get_server(sid)

    prefix = stack_prefix(ctx, name)
    since_filter = gone or prefix is None

    def make() -> Board:
        query: dict[str, Any] = {"details": True}
        if since_filter:
            since = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=SINCE_MARGIN)
            query["changes_since"] = since.strftime("%Y-%m-%dT%H:%M:%SZ")
        if prefix is not None:
            query["name"] = f"^{re.escape(prefix)}"
        return Board(lambda: conn.compute.servers(**query))

    shared_board = board(ctx.lookups, ("nova", "servers board", prefix, since_filter), make)
    if shared_board is None:
        return get

    def poll() -> Any:
        found = shared_board.get(sid, get)
        status = str(getattr(found, "status", "")).upper()
        if gone and status in ("DELETED", "SOFT_DELETED"):
            return None
        return get() if status == "ERROR" else found

    return Paced(poll)


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


class ServerDriver(ServerNetworkMixin, ServerSnapshotMixin, ListRead):
    what = "server"
    snapshot_delete = True  # delete(policy=Snapshot) makes an image first

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
        fmt = props.get("user_data_format") or "HEAT_CFNTOOLS"
        metadata_key: str | None = None
        if fmt == "SOFTWARE_CONFIG":
            # Heat's multipart payload with the metadata object os-collect-config polls (POLL_TEMP_URL)
            # lazy: hotc.providers.native.server_metadata (email.mime) only for SOFTWARE_CONFIG user data
            from hotc.providers.native.server_metadata import create_server_metadata

            payload, metadata_key = create_server_metadata(ctx, str(user_data))
            body["user_data"] = base64.b64encode(payload.encode()).decode()
        elif user_data:
            if fmt != "RAW":
                ctx.log(
                    f"server: user_data_format {fmt} is passed to Nova as RAW user data (hotc does not wrap "
                    "it in Heat's cloud-init multipart envelope)"
                )
            body["user_data"] = base64.b64encode(str(user_data).encode()).decode()
        if props.get("personality"):
            ctx.log("server: personality (deprecated) is not applied")

        find_new = fresh_finder(
            ctx,
            "create server",
            lambda: [
                s
                for s in conn.compute.servers(details=True, name=f"^{re.escape(name)}$")
                if has_stamp(ctx, metadata=s.metadata or {})
            ],
            unique=not props.get("name"),  # a generated name: no server has it before this create
        )
        server = create_once(ctx, "create server", lambda: conn.compute.create_server(**body), find_new)
        ctx.record_physical_id(server.id)
        if metadata_key is not None:
            # lazy: hotc.providers.native.server_metadata (email.mime) only for SOFTWARE_CONFIG user data
            from hotc.providers.native.server_metadata import register_server

            register_server(ctx, str(server.id), metadata_key)
        server = self._wait_active(ctx, conn, server.id, "create server", name=name)
        networks = props.get("networks") or []
        if not any(n.get("floating_ip") for n in networks if isinstance(n, Mapping)):
            ctx.ready_for_dependents()  # ACTIVE, and nothing left to attach: only its attributes are read now
        self._associate_floating_ips(ctx, conn, server.id, networks)
        return self._outcome(ctx, conn, server)

    def _wait_active(
        self,
        ctx: ActionContext,
        conn: Any,
        sid: str,
        what: str,
        targets: Iterable[str] = ("ACTIVE",),
        *,
        name: str | None = None,
    ) -> Any:
        return wait_status(
            ctx,
            f"{what} {sid}",
            server_poll(ctx, conn, sid, name=name),
            list(targets),
            ("ERROR", "DELETED", "SOFT_DELETED"),
            fault=fault,
        )

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

    list_what = "servers"

    def list_live(self, ctx: ActionContext, conn: Any) -> Iterable[Any]:
        return list(conn.compute.servers(details=True))

    def listed_usable(self, obj: Any) -> bool:
        return str(obj.status).upper() not in BUSY | {"DELETED", "SOFT_DELETED"}

    def read_many(self, items: Sequence[Item]) -> dict[str, Outcome]:
        """One list of servers and one list of ports (their interfaces) for all of them."""
        if items and items[0][0].cache is not None:
            ctx0 = items[0][0]
            conn = ctx0.cloud()
            shared(ctx0, PORTS_BY_DEVICE, lambda: _ports_by_device(ctx0, conn))
        return super().read_many(items)

    @staticmethod
    def _interfaces(ctx: ActionContext, conn: Any, server: Any) -> list[Any]:
        by_device = peek(ctx.cache, PORTS_BY_DEVICE)
        if by_device is not None:  # a refresh listed every port once
            return list(by_device.get(str(server.id), []))
        # Nova's interface list is Neutron's list of the ports bound to the server (Nova asks Neutron for it):
        # asked of Neutron directly it is the same answer without a call to Nova's API, which serves every server
        # create and status list of the run (a create's last call, on the path to what waits for the server)
        try:
            return _interfaces_of(
                call(
                    ctx,
                    f"list ports of server {server.id}",
                    lambda: list(conn.network.ports(device_id=str(server.id))),
                )
            )
        except ProviderError:
            pass
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
        lp.text("key_name", server.key_name)
        lp.chosen("availability_zone", server.availability_zone)
        lp.mapping("metadata", user_metadata(server.metadata))
        if lp.wants("tags") and server.tags is not None:
            lp.put("tags", list(server.tags))
        if lp.wants("config_drive"):
            lp.put("config_drive", str(server.config_drive or "").lower() in ("true", "1"))
        lp.chosen("diskConfig", server.disk_config)
        if lp.wants("scheduler_hints") and server.scheduler_hints is not None:  # Nova reports them from 2.100
            lp.put("scheduler_hints", hints_as_given(props["scheduler_hints"], server.scheduler_hints))
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
            lambda s: f"went to ERROR: {fault(s)}" if str(s.status).upper() == "ERROR" else None,
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
            fault=fault,
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
                return f"went to ERROR: {fault(s)}"
            if status == "ACTIVE" and not getattr(s, "task_state", None) and _resize_failed(conn, sid):
                return f"the resize was refused by Nova{': ' + fault(s) if fault(s) else ''} (see its server actions)"
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
            lambda s: f"went to ERROR: {fault(s)}" if str(s.status).upper() == "ERROR" else None,
        )

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        conn = ctx.cloud()
        # read first only for a snapshot: a plain delete is the DELETE (a 404 is done) and the wait for it to go,
        # one Nova call fewer per server (thirty servers deleted at once queue at Nova's API)
        server = (
            get_or_none(ctx, f"read server {physical_id}", conn.compute.get_server, physical_id)
            if policy == SNAPSHOT
            else None
        )
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
        if server is not None:
            self._snapshot_before_delete(ctx, conn, server)
        if server is not None or policy != SNAPSHOT:
            ignore_missing(ctx, f"delete server {physical_id}", conn.compute.delete_server, physical_id)
            # the name hotc generated (the template gave none, and this is not a server taken over from Heat)
            generated = (
                generated_name_base(ctx, limit=63)
                if not props.get("name") and ctx.generated_name is None
                else None
            )
            wait_gone(
                ctx,
                f"delete server {physical_id}",
                server_poll(ctx, conn, physical_id, gone=True, name=generated),
            )
        if props.get("user_data_format") == "SOFTWARE_CONFIG":
            # lazy: hotc.providers.native.server_metadata (email.mime) only for SOFTWARE_CONFIG user data
            from hotc.providers.native.server_metadata import forget_server

            forget_server(ctx, physical_id)  # its metadata object in the signal store
        for port in ours:
            ignore_missing(ctx, f"delete port {port.id}", conn.network.delete_port, port.id)

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


PORTS_BY_DEVICE = ("nova", "ports-by-device")


#: the scheduler hints Heat adds to every server when its ``stack_scheduler_hints`` option is on
HEAT_HINTS = frozenset(
    {
        "heat_root_stack_id",
        "heat_stack_id",
        "heat_stack_name",
        "heat_path_in_stack",
        "heat_resource_name",
        "heat_resource_uuid",
    }
)


def hints_as_given(given: Any, live: Mapping[str, Any]) -> Any:
    """A server's live ``scheduler_hints`` written as the template wrote them. Nova (microversion 2.100 and
    later) reports the hints given at boot with every value as a list (``group: X`` reads back as
    ``group: [X]``); a one-item list whose item is the given scalar is reported as that scalar. No hints read
    back as the empty map, reported as the template's empty value. The hints Heat adds by itself (its
    ``stack_scheduler_hints`` option: ``heat_stack_id``, ...) are left out unless the template gives them, as
    hotc's own stamp is: a server Heat made reads back as its template wrote it."""
    g0 = given if isinstance(given, Mapping) else {}
    live = {k: v for k, v in dict(live or {}).items() if k not in HEAT_HINTS or k in g0}
    if not live and not given:
        return given
    g = dict(given) if isinstance(given, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in live.items():
        want = g.get(key)
        if key in g and not isinstance(want, list) and isinstance(value, list) and len(value) == 1:
            out[key] = as_given(want, value[0])
        elif key in g and isinstance(want, list) and isinstance(value, list) and len(want) == len(value):
            out[key] = [as_given(w, v) for w, v in zip(want, value, strict=True)]
        else:
            out[key] = value
    return out


def _ports_by_device(ctx: ActionContext, conn: Any) -> dict[str, list[Any]]:
    """Every port of the project as the server interfaces it stands for, by the server (device) it is bound to."""
    out: dict[str, list[Any]] = {}
    for iface in _interfaces_of(call(ctx, "list ports", lambda: list(conn.network.ports()))):
        out.setdefault(iface.device_id, []).append(iface)
    return out


def _interfaces_of(ports: Iterable[Any]) -> list[Any]:
    """The server interfaces (Nova's os-interface view: port, network, fixed IPs, MAC) that Neutron ports bound
    to a server stand for, in the ports' order."""
    return [
        SimpleNamespace(
            port_id=p.id,
            net_id=p.network_id,
            fixed_ips=list(p.fixed_ips or []),
            mac_addr=p.mac_address,
            device_id=str(p.device_id),
        )
        for p in ports
        if p.device_id and str(p.device_owner or "").startswith("compute:")
    ]


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

    def get(key: str) -> Any:
        return flavor.get(key) if isinstance(flavor, Mapping) else getattr(flavor, key, None)

    live_name = get("original_name") or get("name")
    live_id = get("id")
    given = lp.props.get("flavor")
    if given is not None and str(given) in {str(live_name), str(live_id)}:
        return given
    found = resolve(lp.ctx, lp.conn, "flavor", given, find_flavor)
    if found is not None and (found.name == live_name or (live_id and str(found.id) == str(live_id))):
        return given
    return live_name or live_id


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


DRIVERS: dict[str, Driver] = with_defaults({"OS::Nova::Server": ServerDriver()})
