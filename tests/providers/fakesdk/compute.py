"""The fake compute proxy (Nova): servers with their state machine (BUILD -> ACTIVE, RESIZE -> VERIFY_RESIZE,
REBUILD, SUSPENDED, deletion), interfaces bound to the fake Neutron's ports (a port Nova made for a network entry
goes with its interface; an explicit port in use elsewhere is a 409), snapshots into the fake Glance, volume
attachments through the fake Cinder, key pairs and flavors (extra specs, access lists).

Gates: ``server.create``, ``server.delete``, ``server.resize``, ``server.rebuild``, ``server.suspend``,
``server.resume``, ``interface.detach``, ``image.snapshot``, ``volume.attach``, ``volume.detach``.
Knobs: ``fail_build`` (a fault message: the next builds go to ERROR), ``refuse_resize``, ``snapshot_stalls``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from keystoneauth1 import adapter
from openstack.compute.v2.flavor import Flavor
from openstack.compute.v2.keypair import Keypair
from openstack.compute.v2.server import Server
from openstack.compute.v2.server_action import ServerAction
from openstack.compute.v2.server_group import ServerGroup
from openstack.compute.v2.server_interface import ServerInterface
from openstack.compute.v2.volume_attachment import VolumeAttachment

from tests.providers.fakesdk.core import Cloud, Proxy, Response, bad_request, conflict, not_found, oid


class ComputeProxy(Proxy, adapter.Adapter):  # an Adapter: Server.set_tags(session, ...) insists on one
    service = "compute"
    default_microversion = "2.90"

    def __init__(self, cloud: Cloud, network: Any, image: Any, block_storage: Any) -> None:
        Proxy.__init__(self, cloud)
        self._net = network
        self._image = image
        self._bs = block_storage
        self.fail_build: str | None = None
        self.refuse_resize = False
        self.snapshot_stalls = False

    # -- servers
    def _server(self, obj: Mapping[str, Any]) -> Any:
        data = dict(obj)
        data["addresses"] = self._addresses(obj["id"])
        data["security_groups"] = [{"name": n} for n in obj.get("_groups", [])] or [{"name": "default"}]
        return Server.existing(**{k: v for k, v in data.items() if not k.startswith("_")})

    def _ports_of(self, sid: str) -> list[dict[str, Any]]:
        return [p for p in self.cloud.all("port") if p.get("device_id") == sid]

    def _addresses(self, sid: str) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for p in self._ports_of(sid):
            net = self.cloud.get("network", p["network_id"])
            for ip in p.get("fixed_ips") or []:
                out.setdefault(net["name"] or net["id"], []).append(
                    {
                        "addr": ip["ip_address"],
                        "version": 4,
                        "OS-EXT-IPS-MAC:mac_addr": p["mac_address"],
                        "OS-EXT-IPS:type": "fixed",
                    }
                )
        return out

    def _flavor_body(self, flavor_id: str) -> dict[str, Any]:
        f = self.cloud.find("flavor", flavor_id)
        if f is None:
            raise bad_request(f"Flavor {flavor_id} could not be found")
        return {
            "original_name": f["name"],
            "vcpus": f["vcpus"],
            "ram": f["ram"],
            "disk": f["disk"],
            "ephemeral": f.get("OS-FLV-EXT-DATA:ephemeral", 0),
            "swap": f.get("swap") or 0,
            "extra_specs": dict(f.get("extra_specs") or {}),
        }

    def create_server(self, **body: Any) -> Any:
        flavor = self._flavor_body(str(body.get("flavor_id")))
        image_id = body.get("image_id")
        if image_id:
            self._image._get(image_id)
        elif not body.get("block_device_mapping"):
            raise bad_request("an image or a bootable block device mapping is required")
        if body.get("key_name") and self.cloud.find("keypair", body["key_name"]) is None:
            raise bad_request(f"Invalid key_name provided: {body['key_name']}")
        sid = self.cloud.new_id("server")
        groups = [g["name"] for g in body.get("security_groups") or []]
        group_ids = [self._group_id(g) for g in groups]
        group_names = [self.cloud.get("security_group", g)["name"] for g in group_ids]
        nets = body.get("networks")
        plan: list[tuple[str, Any]] = []
        if nets == "auto":
            private = [n for n in self.cloud.all("network") if not n.get("router:external")]
            if len(private) == 1:
                plan.append(("net", {"uuid": private[0]["id"]}))
        elif nets not in (None, "none"):
            for nic in nets:
                if nic.get("port"):
                    port = self.cloud.get("port", nic["port"])
                    if port.get("device_id"):
                        raise conflict(f"Port {port['id']} is still in use.")
                    plan.append(("port", port["id"]))
                else:
                    self.cloud.get("network", nic["uuid"])
                    plan.append(("net", nic))
        obj = {
            "id": sid,
            "name": body.get("name"),
            "status": "BUILD",
            "OS-EXT-STS:task_state": "spawning",
            "flavor": flavor,
            "image": {"id": image_id} if image_id else "",
            "metadata": dict(body.get("metadata") or {}),
            "tags": list(body.get("tags") or []),
            "key_name": body.get("key_name"),
            "OS-EXT-AZ:availability_zone": body.get("availability_zone") or "nova",
            "config_drive": "True" if body.get("config_drive") else "",
            "OS-DCF:diskConfig": body.get("disk_config") or "MANUAL",
            "OS-EXT-SRV-ATTR:instance_name": f"instance-{len(self.cloud.table('server')) + 1:08x}",
            "created": f"2026-01-01T00:01:{len(self.cloud.table('server')):02d}Z",
            "accessIPv4": "",
            "accessIPv6": "",
            "user_data": body.get("user_data"),
            # as Nova from microversion 2.100: the hints given at boot, every value a list
            "scheduler_hints": {
                k: v if isinstance(v, list) else [v] for k, v in (body.get("scheduler_hints") or {}).items()
            },
            "_groups": group_names,
            "_group_ids": group_ids,
            "_actions": [{"action": "create", "start_time": "t0", "message": None}],
            "_bdm": list(body.get("block_device_mapping") or []),
            # as Nova's instance row: no updated_at until the compute host takes the build (a list filtered by
            # changes-since leaves such a server out; Nova's builds wait there, ten at a time by default)
            "_updated": False,
        }
        self.cloud.put("server", obj)
        fault = self.fail_build
        try:
            for kind, what in plan:
                if kind == "port":
                    self._net._bind(what, sid)
                else:
                    self._nova_port(sid, what["uuid"], what.get("fixed_ip"), group_ids)
        except Exception as exc:  # the build fails on the compute host: ERROR with the fault
            fault = str(getattr(exc, "details", None) or exc)

        def built() -> None:
            obj["_updated"] = True
            if fault:
                obj.update(status="ERROR", fault={"message": fault, "code": 500})
            else:
                obj["status"] = "ACTIVE"
            obj["OS-EXT-STS:task_state"] = None

        self.cloud.later("server.create", built)
        return self._server(obj)

    def _group_id(self, name_or_id: str) -> str:
        if self.cloud.find("security_group", name_or_id) is not None:
            return name_or_id
        found = [g for g in self.cloud.all("security_group") if g["name"] == name_or_id]
        if len(found) != 1:
            raise bad_request(f"Security group {name_or_id} not found")
        return str(found[0]["id"])

    def _nova_port(self, sid: str, net_id: str, fixed_ip: str | None, group_ids: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"network_id": net_id, "device_id": sid, "device_owner": "compute:nova"}
        if fixed_ip:
            body["fixed_ips"] = [{"ip_address": fixed_ip}]
        if group_ids:
            body["security_groups"] = group_ids
        port = self._net._create_port(**body)
        port["_nova_made"] = True
        return port

    def _live(self, sid: Any) -> dict[str, Any]:
        return self.cloud.get("server", oid(sid), "Instance")

    def get_server(self, value: Any) -> Any:
        return self._server(self._live(value))

    def servers(self, details: bool = True, **query: Any) -> Iterator[Any]:
        name = query.pop("name", None)
        since = query.pop("changes_since", None)
        for obj in list(self.cloud.all("server")):
            if name and not re.search(name, obj.get("name") or ""):
                continue
            if since is not None and obj.get("_updated") is False:
                continue  # Nova compares changes-since with updated_at, which this server has not set yet
            yield self._server(obj)

    def update_server(self, value: Any, **body: Any) -> Any:
        obj = self._live(value)
        obj.update(body, _updated=True)
        return self._server(obj)

    def delete_server(self, value: Any, ignore_missing: bool = True) -> None:
        obj = self.cloud.find("server", oid(value))
        if obj is None:
            if not ignore_missing:
                raise not_found(f"Instance {oid(value)}")
            return
        obj.update({"OS-EXT-STS:task_state": "deleting", "_updated": True})
        sid = obj["id"]

        def gone() -> None:
            for p in self._ports_of(sid):
                if p.get("_nova_made"):
                    self.cloud.drop("port", p["id"])
                else:
                    self._net._unbind(p["id"])
            for vol in self.cloud.all("volume"):
                vol["attachments"] = [a for a in vol.get("attachments") or [] if a["server_id"] != sid]
                if not vol["attachments"] and vol["status"] == "in-use":
                    vol["status"] = "available"
            self.cloud.drop("server", sid)

        self.cloud.later("server.delete", gone)

    def set_server_metadata(self, value: Any, **md: Any) -> Any:
        obj = self._live(value)
        obj["metadata"].update({k: str(v) for k, v in md.items()})
        return self._server(obj)

    def delete_server_metadata(self, value: Any, keys: list[str]) -> None:
        obj = self._live(value)
        for k in keys:
            obj["metadata"].pop(k, None)

    def put(self, url: str, json: Any = None, **_kw: Any) -> Response:  # Server.set_tags
        match = re.match(r"/?servers/([^/]+)/tags$", url)
        if match is None:
            return Response(404, {"itemNotFound": {"message": url}})
        obj = self.cloud.find("server", match.group(1))
        if obj is None:
            return Response(404, {"itemNotFound": {"message": "Instance not found"}})
        obj["tags"] = list((json or {}).get("tags") or [])
        return Response(200, {"tags": obj["tags"]})

    def change_server_password(self, value: Any, password: str) -> None:
        self._live(value)["_password"] = password

    def _busy(self, obj: Mapping[str, Any], action: str) -> None:
        if obj["status"] not in ("ACTIVE", "SHUTOFF") or obj.get("OS-EXT-STS:task_state"):
            raise conflict(f"Cannot '{action}' instance {obj['id']} while it is in vm_state {obj['status']}")

    def resize_server(self, value: Any, flavor_id: str) -> None:
        obj = self._live(value)
        self._busy(obj, "resize")
        new = self._flavor_body(flavor_id)
        obj.update(status="RESIZE", **{"OS-EXT-STS:task_state": "resize_prep"})
        refused = self.refuse_resize
        obj["_actions"].append({"action": "resize", "start_time": f"t{self.cloud.ticks}", "message": None})

        def done() -> None:
            obj["OS-EXT-STS:task_state"] = None
            if refused:
                obj["status"] = "ACTIVE"
                obj["_actions"][-1]["message"] = "Error"
            else:
                obj["status"] = "VERIFY_RESIZE"
                obj["_resized_to"] = new

        self.cloud.later("server.resize", done)

    def confirm_server_resize(self, value: Any) -> None:
        obj = self._live(value)
        if obj["status"] != "VERIFY_RESIZE":
            raise conflict(f"Instance {obj['id']} is not in VERIFY_RESIZE")
        obj.update(status="ACTIVE", flavor=obj.pop("_resized_to"))

    def rebuild_server(self, value: Any, image: Any, **kwargs: Any) -> Any:
        obj = self._live(value)
        self._busy(obj, "rebuild")
        image_id = oid(image)
        self._image._get(image_id)
        obj.update(status="REBUILD", **{"OS-EXT-STS:task_state": "rebuilding"})
        if "user_data" in kwargs:
            obj["user_data"] = kwargs["user_data"]

        def done() -> None:
            obj.update(status="ACTIVE", image={"id": image_id}, **{"OS-EXT-STS:task_state": None})

        self.cloud.later("server.rebuild", done)
        return self._server(obj)

    def suspend_server(self, value: Any) -> None:
        obj = self._live(value)
        self._busy(obj, "suspend")
        obj["OS-EXT-STS:task_state"] = "suspending"
        self.cloud.later(
            "server.suspend", lambda: obj.update(status="SUSPENDED", **{"OS-EXT-STS:task_state": None})
        )

    def resume_server(self, value: Any) -> None:
        obj = self._live(value)
        if obj["status"] != "SUSPENDED":
            raise conflict(f"Cannot 'resume' instance {obj['id']} while it is in vm_state {obj['status']}")
        obj["OS-EXT-STS:task_state"] = "resuming"
        self.cloud.later(
            "server.resume", lambda: obj.update(status="ACTIVE", **{"OS-EXT-STS:task_state": None})
        )

    def server_actions(self, value: Any) -> Iterator[Any]:
        for a in self._live(value)["_actions"]:
            yield ServerAction.existing(**a)

    # -- interfaces
    def _iface(self, p: Mapping[str, Any]) -> Any:
        return ServerInterface.existing(
            id=p["id"],
            port_id=p["id"],
            net_id=p["network_id"],
            mac_addr=p["mac_address"],
            fixed_ips=[dict(i) for i in p.get("fixed_ips") or []],
            port_state=p.get("status"),
            server_id=p.get("device_id"),
        )

    def server_interfaces(self, value: Any) -> Iterator[Any]:
        sid = self._live(value)["id"]
        for p in self._ports_of(sid):
            yield self._iface(p)

    def create_server_interface(self, value: Any, **attrs: Any) -> Any:
        obj = self._live(value)
        if attrs.get("port_id"):
            self._net._bind(attrs["port_id"], obj["id"])
            return self._iface(self.cloud.get("port", attrs["port_id"]))
        fixed = attrs.get("fixed_ips") or [{}]
        port = self._nova_port(obj["id"], attrs["net_id"], fixed[0].get("ip_address"), obj["_group_ids"])
        return self._iface(port)

    def delete_server_interface(self, port: Any, server: Any = None, ignore_missing: bool = True) -> None:
        sid = self._live(server)["id"]
        p = self.cloud.find("port", oid(port))
        if p is None or p.get("device_id") != sid:
            if not ignore_missing:
                raise not_found(f"interface {oid(port)}")
            return

        def detached() -> None:
            if p.get("_nova_made"):
                self.cloud.drop("port", p["id"])
            else:
                self._net._unbind(p["id"])

        self.cloud.later("interface.detach", detached)

    # -- snapshots
    def create_server_image(self, value: Any, name: str, metadata: Mapping[str, Any] | None = None) -> Any:
        obj = self._live(value)
        if obj.get("OS-EXT-STS:task_state"):
            raise conflict(
                f"Cannot 'createImage' instance {obj['id']} while it is in task_state {obj['OS-EXT-STS:task_state']}"
            )
        image = self._image._make(
            {"name": name, "status": "queued", "instance_uuid": obj["id"], **dict(metadata or {})}
        )
        obj["OS-EXT-STS:task_state"] = "image_uploading"

        def uploaded() -> None:
            obj["OS-EXT-STS:task_state"] = None
            if not self.snapshot_stalls:
                image["status"] = "active"

        self.cloud.later("image.snapshot", uploaded)
        return self._image._res(image)

    # -- volume attachments
    def _attachment(self, sid: str, vid: str) -> dict[str, Any] | None:
        vol = self.cloud.find("volume", vid)
        for a in (vol or {}).get("attachments") or []:
            if a["server_id"] == sid:
                return dict(a)
        for a in (vol or {}).get("_attaching") or []:
            if a["server_id"] == sid:
                return dict(a)
        return None

    def get_volume_attachment(self, server: Any, volume: Any) -> Any:
        sid, vid = oid(server), oid(volume)
        self._live(sid)
        att = self._attachment(sid, vid)
        if att is None:
            raise not_found(f"volume {vid} is not attached to server {sid}")
        return VolumeAttachment.existing(id=vid, volume_id=vid, server_id=sid, device=att.get("device"))

    def create_volume_attachment(
        self, server: Any, volume_id: Any = None, device: str | None = None, **_: Any
    ) -> Any:
        sid = self._live(server)["id"]
        vol = self.cloud.get("volume", oid(volume_id))
        if vol["status"] != "available" and not vol.get("multiattach"):
            raise bad_request(
                f"Invalid volume: volume {vol['id']} status must be available, not {vol['status']}"
            )
        att = {
            "server_id": sid,
            "attachment_id": self.cloud.new_id("att"),
            "volume_id": vol["id"],
            "device": device or "/dev/vdb",
        }
        vol["status"] = "attaching"
        vol.setdefault("_attaching", []).append(att)

        def attached() -> None:
            vol["_attaching"].remove(att)
            vol["attachments"] = [*vol.get("attachments", []), att]
            vol["status"] = "in-use"

        self.cloud.later("volume.attach", attached)
        return VolumeAttachment.existing(
            id=vol["id"], volume_id=vol["id"], server_id=sid, device=att["device"]
        )

    def delete_volume_attachment(self, server: Any, volume: Any, ignore_missing: bool = True) -> None:
        sid, vid = oid(server), oid(volume)
        vol = self.cloud.find("volume", vid)
        att = self._attachment(sid, vid) if vol is not None else None
        if att is None:
            if not ignore_missing:
                raise not_found(f"volume {vid} is not attached to server {sid}")
            return
        assert vol is not None
        vol["status"] = "detaching"

        def detached() -> None:
            vol["attachments"] = [a for a in vol.get("attachments") or [] if a["server_id"] != sid]
            vol["status"] = "in-use" if vol["attachments"] else "available"

        self.cloud.later("volume.detach", detached)

    # -- key pairs
    def create_keypair(self, **body: Any) -> Any:
        name = body["name"]
        if self.cloud.find("keypair", name) is not None:
            raise conflict(f"Key pair '{name}' already exists.")
        obj = {
            "id": name,
            "name": name,
            "public_key": body.get("public_key"),
            "type": body.get("type") or "ssh",
            "user_id": body.get("user_id") or "u-0001",
            "fingerprint": "fp",
        }
        return Keypair.existing(**self.cloud.put("keypair", obj))

    def get_keypair(self, value: Any) -> Any:
        return Keypair.existing(**self.cloud.get("keypair", oid(value), "Keypair"))

    def keypairs(self, **query: Any) -> Iterator[Any]:
        for obj in list(self.cloud.all("keypair")):
            yield Keypair.existing(**obj)

    def delete_keypair(self, value: Any, ignore_missing: bool = True) -> None:
        name = oid(value)
        if self.cloud.find("keypair", name) is None and not ignore_missing:
            raise not_found(f"Keypair {name}")
        self.cloud.drop("keypair", name)

    # -- flavors
    def _flavor(self, obj: Mapping[str, Any]) -> Any:
        return Flavor.existing(**obj)

    def create_flavor(self, **body: Any) -> Any:
        fid = str(body.pop("id", None) or self.cloud.new_id("flavor"))
        if self.cloud.find("flavor", fid) is not None or any(
            f["name"] == body["name"] for f in self.cloud.all("flavor")
        ):
            raise conflict(f"Flavor with name {body['name']} already exists.")
        obj = {
            "id": fid,
            "name": body["name"],
            "ram": body["ram"],
            "vcpus": body["vcpus"],
            "disk": body.get("disk", 0),
            "swap": body.get("swap") or "",  # Nova shows no swap as ""
            "OS-FLV-EXT-DATA:ephemeral": body.get("ephemeral", 0),
            "rxtx_factor": body.get("rxtx_factor", 1.0),
            "os-flavor-access:is_public": body.get("is_public", True),
            "extra_specs": {},
            "_access": [],
        }
        self.cloud.put("flavor", obj)
        return self._flavor(self._public(obj))

    @staticmethod
    def _public(obj: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    def get_flavor(self, value: Any) -> Any:
        return self._flavor(self._public(self.cloud.get("flavor", oid(value), "Flavor")))

    def flavors(self, details: bool = True, **query: Any) -> Iterator[Any]:
        for obj in self.cloud.all("flavor"):
            yield self._flavor(self._public(obj))

    def delete_flavor(self, value: Any, ignore_missing: bool = True) -> None:
        fid = oid(value)
        if self.cloud.find("flavor", fid) is None and not ignore_missing:
            raise not_found(f"Flavor {fid}")
        self.cloud.drop("flavor", fid)

    def create_flavor_extra_specs(self, flavor: Any, specs: Mapping[str, str]) -> Any:
        obj = self.cloud.get("flavor", oid(flavor), "Flavor")
        obj["extra_specs"].update({str(k): str(v) for k, v in specs.items()})
        return self._flavor(self._public(obj))

    def fetch_flavor_extra_specs(self, flavor: Any) -> Any:
        return self._flavor(self._public(self.cloud.get("flavor", oid(flavor), "Flavor")))

    def delete_flavor_extra_specs_property(self, flavor: Any, key: str) -> None:
        obj = self.cloud.get("flavor", oid(flavor), "Flavor")
        if key not in obj["extra_specs"]:
            raise not_found(f"Flavor {obj['id']} has no extra spec {key}")
        del obj["extra_specs"][key]

    def flavor_add_tenant_access(self, flavor: Any, tenant: str) -> None:
        obj = self.cloud.get("flavor", oid(flavor), "Flavor")
        if obj["os-flavor-access:is_public"]:
            raise conflict("Can not add access to a public flavor.")
        if tenant in obj["_access"]:
            raise conflict(f"Flavor access already exists for flavor {obj['id']} and project {tenant}")
        obj["_access"].append(tenant)

    def flavor_remove_tenant_access(self, flavor: Any, tenant: str) -> None:
        obj = self.cloud.get("flavor", oid(flavor), "Flavor")
        if tenant not in obj["_access"]:
            raise not_found(f"Flavor access not found for {obj['id']} / {tenant}")
        obj["_access"].remove(tenant)

    def get_flavor_access(self, flavor: Any) -> list[dict[str, str]]:
        obj = self.cloud.get("flavor", oid(flavor), "Flavor")
        if obj["os-flavor-access:is_public"]:
            raise not_found("Access list not available for public flavors.")
        return [{"flavor_id": obj["id"], "tenant_id": t} for t in obj["_access"]]

    # -- server groups (Nova >= 2.64: one ``policy``, ``rules``; nothing can be changed)
    def create_server_group(self, **body: Any) -> Any:
        policy = body.get("policy")
        if policy not in ("affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"):
            raise bad_request(f"Invalid input for field/attribute policy: {policy!r}")
        rules = dict(body.get("rules") or {})
        if rules and policy != "anti-affinity":
            raise bad_request("Only anti-affinity policy supports rules.")
        if any(not isinstance(v, int) or v < 1 for v in rules.values()):
            raise bad_request("Invalid input for field/attribute max_server_per_host.")
        obj = {
            "id": self.cloud.new_id("server_group"),
            "name": body.get("name"),
            "policy": policy,
            "rules": rules,
            "member_ids": [],
            "metadata": {},
            "project_id": self.cloud.project_id,
        }
        self.cloud.put("server_group", obj)
        return ServerGroup.existing(**obj)

    def get_server_group(self, value: Any) -> Any:
        return ServerGroup.existing(**self.cloud.get("server_group", oid(value), "Server group"))

    def server_groups(self, **query: Any) -> Iterator[Any]:
        for g in list(self.cloud.all("server_group")):
            yield ServerGroup.existing(**g)

    def delete_server_group(self, value: Any, ignore_missing: bool = True) -> None:
        gid = oid(value)
        if self.cloud.find("server_group", gid) is None:
            if not ignore_missing:
                raise not_found(f"Instance group {gid} could not be found.")
            return
        self.cloud.drop("server_group", gid)
