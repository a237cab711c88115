"""Designate with bind9 (87-designate.sh): a zone made through Designate's API reaches ACTIVE because bind9 took it
from designate-mdns (the worker polls bind9 for the serial), and bind9 then serves it and a record set of it;
once the zone is deleted bind9 serves it no more."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.fixtures.cloud import CloudTracker, require_service
from tests.fixtures.dns import TEST_DOMAIN, dig, wait_answer

pytestmark = pytest.mark.cloud


def _wait(get: Any, done: Any, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        obj = get()
        if done(obj) or time.monotonic() > deadline:
            return obj
        time.sleep(0.5)


def test_designate_zone_goes_active_and_bind9_serves_it(cloud: Any, cloud_tracker: CloudTracker) -> None:
    require_service(cloud, "dns", "87-designate.sh")
    dns = cloud.dns
    name = f"{cloud_tracker.name('zone')}.{TEST_DOMAIN}"
    zone = dns.create_zone(name=name, email="admin@example.org", ttl=600)
    try:
        zone = _wait(lambda: dns.get_zone(zone.id), lambda z: z.status != "PENDING")
        assert zone.status == "ACTIVE", zone
        status, soa = dig(name, "SOA")
        assert status == "NOERROR" and soa and soa[0].split()[0] == "ns1.hotc-cloud.test.", (status, soa)
        assert int(soa[0].split()[2]) == zone.serial  # bind9 serves the serial Designate holds
        rs = dns.create_recordset(zone, name=f"www.{name}", type="A", records=["192.0.2.10", "192.0.2.11"])
        rs = _wait(lambda: dns.get_recordset(rs, zone), lambda r: r.status != "PENDING")
        assert rs.status == "ACTIVE", rs
        assert wait_answer(f"www.{name}", "A", ["192.0.2.10", "192.0.2.11"]) == (
            "NOERROR",
            ["192.0.2.10", "192.0.2.11"],
        )
    finally:
        dns.delete_zone(zone, ignore_missing=True)
    gone = _wait(lambda: dns.find_zone(zone.id, ignore_missing=True), lambda z: z is None)
    assert gone is None
    assert wait_answer(name, "SOA", None)[0] == "REFUSED"  # bind9 no longer holds the zone
