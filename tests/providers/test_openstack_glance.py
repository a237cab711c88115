"""Glance WebImage against the real test cloud: Glance downloads the image from a local HTTP server
(port 80 of a non-loopback address: Glance's web-download import filter refuses loopback hosts and ports
other than 80 and 443 by default)."""

from __future__ import annotations

import http.server
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hotc.providers.openstack.common import ProviderError
from hotc.providers.openstack.glance import DRIVERS
from tests.providers.test_openstack_common import make_ctx

pytestmark = pytest.mark.cloud

IMAGE = DRIVERS["OS::Glance::WebImage"]
PAYLOAD = bytes(range(256)) * 64


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path.startswith("/missing"):
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(PAYLOAD)))
        self.end_headers()
        self.wfile.write(PAYLOAD)

    def log_message(self, *args: Any) -> None:
        return None


def _local_address() -> str:
    """A non-loopback address of this machine (Glance refuses loopback and link-local download hosts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.255.255.255", 9))  # no packet is sent: this only picks the outgoing interface
        return str(s.getsockname()[0])


@pytest.fixture(scope="module")
def web_server() -> Iterator[str]:
    host = _local_address()
    srv = None
    deadline = time.monotonic() + 60
    while srv is None:  # Glance's default filter allows only ports 80 and 443; another test may hold one
        for port in (80, 443):
            try:
                srv = http.server.ThreadingHTTPServer((host, port), _Handler)
                break
            except OSError as exc:
                last = exc
        if srv is None:
            if time.monotonic() > deadline:
                pytest.skip(
                    f"cannot serve an image on port 80 or 443 of {host} for Glance's web-download: {last}"
                )
            time.sleep(1)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://{host}:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def fs(*names: str) -> frozenset[str]:
    return frozenset(names)


def test_web_image_lifecycle(cloud: Any, cloud_tracker: Any, web_server: str) -> None:
    lineage = uuid.uuid4().hex
    ctx = make_ctx(cloud, "img", lineage=lineage, timeout=120)
    props = {
        "name": cloud_tracker.name("img"),
        "location": f"{web_server}/disk.raw",
        "disk_format": "raw",
        "container_format": "bare",
        "min_disk": 0,
        "min_ram": 0,
        "protected": False,
        "visibility": "private",
        "tags": ["os=test"],
        "extra_properties": {"hw_rng_model": "virtio"},
        "os_distro": "cirros",
        "active": True,
    }
    out = IMAGE.create(ctx, props)
    iid = out.physical_id
    assert iid is not None
    img = cloud.image.get_image(iid)
    assert img.status == "active" and img.size == len(PAYLOAD)
    assert set(img.tags) == {"os=test", f"hotc-lineage={lineage}", "hotc-address=img"}
    raw = cloud.image.get(f"/images/{iid}").json()
    assert raw["hw_rng_model"] == "virtio" and raw["os_distro"] == "cirros"
    assert out.attributes["show"]["id"] == iid
    assert IMAGE.find_adoptable(ctx, props) == iid

    new = {
        **props,
        "tags": ["os=prod"],
        "extra_properties": {"hw_video_model": "vga"},
        "os_distro": "debian",
        "active": False,
    }
    out = IMAGE.update(ctx, iid, props, new, fs("tags", "extra_properties", "os_distro", "active"))
    img = cloud.image.get_image(iid)
    assert set(img.tags) == {"os=prod", f"hotc-lineage={lineage}", "hotc-address=img"}
    raw = cloud.image.get(f"/images/{iid}").json()
    assert raw["hw_video_model"] == "vga" and "hw_rng_model" not in raw
    assert raw["os_distro"] == "debian" and raw["status"] == "deactivated"

    IMAGE.delete(ctx, iid, new)
    assert IMAGE.read(ctx, iid, new) is None
    IMAGE.delete(ctx, iid, new)


def test_web_image_download_failure_is_reported(cloud: Any, cloud_tracker: Any, web_server: str) -> None:
    ctx = make_ctx(cloud, "img", timeout=60)
    props = {
        "name": cloud_tracker.name("bad"),
        "location": f"{web_server}/missing.raw",
        "disk_format": "raw",
        "container_format": "bare",
    }
    with pytest.raises(ProviderError, match="import failed"):
        IMAGE.create(ctx, props)
