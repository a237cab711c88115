"""A fake openstacksdk connection for offline driver tests (see ``core`` for time, gates and the call log).

``FakeConnection`` has the proxies the drivers use, each keeping the real API's state machine and refusals,
and returning openstacksdk's own resource classes (so attribute names and ``to_dict`` are the real ones)::

    conn = FakeConnection()
    conn.clock.install(monkeypatch)          # driver waits advance the fake clock and tick the cloud
    conn.cloud.gate("server.create").hold()  # servers stay BUILD until released
"""

from __future__ import annotations

from typing import Any

from tests.providers.fakesdk.block_storage import BlockStorageProxy
from tests.providers.fakesdk.compute import ComputeProxy
from tests.providers.fakesdk.core import Cloud, FakeClock, Gate, conflict, not_found
from tests.providers.fakesdk.identity import IdentityProxy
from tests.providers.fakesdk.image import ImageProxy
from tests.providers.fakesdk.load_balancer import LoadBalancerProxy
from tests.providers.fakesdk.network import NetworkProxy
from tests.providers.fakesdk.object_store import ObjectStoreProxy


class FakeConnection:
    def __init__(self, cloud: Cloud | None = None) -> None:
        self.cloud = cloud or Cloud()
        self.current_project_id = self.cloud.project_id
        self.network = NetworkProxy(self.cloud)
        self.image = ImageProxy(self.cloud)
        self.block_storage = BlockStorageProxy(self.cloud)
        self.compute = ComputeProxy(self.cloud, self.network, self.image, self.block_storage)
        self.load_balancer = LoadBalancerProxy(self.cloud)
        self.object_store = ObjectStoreProxy(self.cloud)
        self.identity = IdentityProxy(self.cloud)
        self.clock = FakeClock(self.cloud)

    def seed(self) -> dict[str, Any]:
        """The shared objects of the real test cloud: image ``hotc-tiny``, flavors ``m1.tiny``/``m1.small``,
        network ``hotc-private`` with a subnet, external network ``public`` with a subnet, router
        ``hotc-router``. Returns them by name (API dicts)."""
        c = self.cloud
        net, img = self.network, self.image
        out: dict[str, Any] = {}
        out["hotc-tiny"] = img._make(
            {
                "name": "hotc-tiny",
                "status": "active",
                "disk_format": "raw",
                "container_format": "bare",
                "visibility": "public",
            }
        )
        for name, ram, disk in (("m1.tiny", 512, 1), ("m1.small", 2048, 20)):
            out[name] = c.put(
                "flavor",
                {
                    "id": c.new_id("flavor"),
                    "name": name,
                    "ram": ram,
                    "vcpus": 1,
                    "disk": disk,
                    "swap": "",
                    "OS-FLV-EXT-DATA:ephemeral": 0,
                    "rxtx_factor": 1.0,
                    "os-flavor-access:is_public": True,
                    "extra_specs": {},
                    "_access": [],
                },
            )
        public = net._base("network", {"name": "public"})
        public.update(
            {
                "admin_state_up": True,
                "shared": False,
                "status": "ACTIVE",
                "router:external": True,
                "port_security_enabled": True,
                "availability_zone_hints": [],
            }
        )
        out["public"] = c.put("network", public)
        pub_sub = self._subnet(public["id"], "public-subnet", "172.24.4.0/24")
        out["public-subnet"] = pub_sub
        private = net._base("network", {"name": "hotc-private"})
        private.update(
            {
                "admin_state_up": True,
                "shared": False,
                "status": "ACTIVE",
                "router:external": False,
                "port_security_enabled": True,
                "availability_zone_hints": [],
            }
        )
        out["hotc-private"] = c.put("network", private)
        out["hotc-private-subnet"] = self._subnet(private["id"], "hotc-private-subnet", "10.10.0.0/24")
        c.calls.clear()
        return out

    def _subnet(self, network_id: str, name: str, cidr: str) -> dict[str, Any]:
        res = self.network.create_subnet(network_id=network_id, name=name, cidr=cidr, ip_version=4)
        return self.cloud.get("subnet", res.id)


__all__ = ["Cloud", "FakeClock", "FakeConnection", "Gate", "conflict", "not_found"]
