"""The Designate types against the real Designate of the test cloud (87-designate.sh), with bind9 behind it,
through the hotc CLI: a zone and two record sets (one named inside the zone, one unnamed) are created, Designate holds what the template says and bind9 serves it; a fresh plan shows no change; a
change of ttl, description, email and records is an update in place (same ids, bind9 serves the new records); a
record set's type change and a zone's name change are replacements (the old ones gone from Designate and bind9);
drift made outside hotc (records changed, a record set deleted) is planned and put right; a zone and a record set
made outside hotc are imported by id (the record set naming its zone by name), then managed and deleted; destroy deletes everything, and bind9 serves the
zones no more. Every check asks Designate's API or bind9."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc
from tests.fixtures.cloud import require_service
from tests.fixtures.dns import TEST_DOMAIN, wait_answer

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  zone_name: {type: string}
  ttl: {type: number, default: 600}
  email: {type: string, default: admin@example.org}
  description: {type: string, default: made by hotc}
  www_records: {type: comma_delimited_list, default: "192.0.2.1,192.0.2.2"}
  note_type: {type: string, default: TXT}
  note_text: {type: string, default: '"hello from hotc"'}
resources:
  zone:
    type: OS::Designate::Zone
    properties:
      name: {get_param: zone_name}
      email: {get_param: email}
      ttl: {get_param: ttl}
      description: {get_param: description}
  www:
    type: OS::Designate::RecordSet
    properties:
      zone: {get_resource: zone}
      name: www
      type: A
      ttl: {get_param: ttl}
      records: {get_param: www_records}
  note:
    type: OS::Designate::RecordSet
    properties:
      zone: {get_resource: zone}
      type: {get_param: note_type}
      records: [{get_param: note_text}]
"""


def dns_get(cloud: Any, path: str) -> Any:
    """A GET of Designate's v2 API: the JSON, or None for a 404."""
    r = cloud.dns.get(path)
    if r.status_code == 404:
        return None
    assert r.status_code < 400, r.text
    return r.json()


def wait_gone(cloud: Any, path: str, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while (got := dns_get(cloud, path)) is not None and time.monotonic() < deadline:
        time.sleep(0.5)
    return got


def test_designate_types_through_the_cli(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "dns", "87-designate.sh")
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("stk")
    zone_a, zone_b = f"{p}-a.{TEST_DOMAIN}", f"{p}-b.{TEST_DOMAIN}"  # the tracker sweeps zones named p-*
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    cli = CliStack(tmp_path, hotc_cloud_env, stack, ["--parameter", f"zone_name={zone_a}"])

    # created: Designate holds what the template says, bind9 serves it
    cli.apply()
    ids = cli.ids()
    zone = dns_get(cloud, f"/zones/{ids['zone']}")
    assert (zone["name"], zone["status"], zone["email"], zone["ttl"], zone["description"]) == (
        zone_a, "ACTIVE", "admin@example.org", 600, "made by hotc")  # fmt: skip
    www = dns_get(cloud, f"/zones/{ids['zone']}/recordsets/{ids['www']}")
    assert (www["name"], www["type"], www["ttl"], www["status"]) == (f"www.{zone_a}", "A", 600, "ACTIVE")
    assert sorted(www["records"]) == ["192.0.2.1", "192.0.2.2"]
    note = dns_get(cloud, f"/zones/{ids['zone']}/recordsets/{ids['note']}")
    assert note["name"].startswith(f"{stack}-note-") and note["name"].endswith(f".{zone_a}")
    assert note["records"] == ['"hello from hotc"'] and note["ttl"] is None
    assert wait_answer(f"www.{zone_a}", "A", ["192.0.2.1", "192.0.2.2"]) == (
        "NOERROR",
        ["192.0.2.1", "192.0.2.2"],
    )
    assert wait_answer(note["name"], "TXT", ['"hello from hotc"'])[1] == ['"hello from hotc"']
    r = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, "zone", "--format", "json")
    assert r.returncode == 0, r.stderr
    # the zone's serial when hotc made it (its record sets, made after it, moved it on since)
    serial = json.loads(r.stdout)["attributes"]["serial"]
    assert isinstance(serial, int) and 0 < serial <= dns_get(cloud, f"/zones/{ids['zone']}")["serial"]
    cli.no_change()

    # in place: ttl, email, description and records (Heat's update_allowed); the ids stay
    change = ["--parameter", "ttl=900", "--parameter", "email=dns@example.org", "--parameter",
              "description=changed by hotc", "--parameter", "www_records=192.0.2.3"]  # fmt: skip
    planned = cli.plan(*change)
    assert {a: c["actions"] for a, c in planned.items()} == {"zone": ["update"], "www": ["update"]}, planned
    cli.apply(*change)
    assert cli.ids() == ids
    zone = dns_get(cloud, f"/zones/{ids['zone']}")
    assert (zone["email"], zone["ttl"], zone["description"]) == ("dns@example.org", 900, "changed by hotc")
    www = dns_get(cloud, f"/zones/{ids['zone']}/recordsets/{ids['www']}")
    assert (www["ttl"], www["records"]) == (900, ["192.0.2.3"])
    assert wait_answer(f"www.{zone_a}", "A", ["192.0.2.3"]) == ("NOERROR", ["192.0.2.3"])
    cli.no_change(*change)

    # drift made outside hotc: www's records changed, the note deleted; planned and put right
    r = cloud.dns.put(f"/zones/{ids['zone']}/recordsets/{ids['www']}", json={"records": ["198.51.100.9"]})
    assert r.status_code < 400, r.text
    assert cloud.dns.delete(f"/zones/{ids['zone']}/recordsets/{ids['note']}").status_code < 400
    assert wait_gone(cloud, f"/zones/{ids['zone']}/recordsets/{ids['note']}") is None
    planned = cli.plan(*change)
    assert planned["www"]["actions"] == ["update"] and "create" in planned["note"]["actions"], planned
    assert set(planned) == {"www", "note"}, planned
    cli.apply(*change, "--refresh")
    drifted = cli.ids()
    assert drifted["www"] == ids["www"] and drifted["note"] != ids["note"]
    assert dns_get(cloud, f"/zones/{ids['zone']}/recordsets/{ids['www']}")["records"] == ["192.0.2.3"]
    assert wait_answer(f"www.{zone_a}", "A", ["192.0.2.3"]) == ("NOERROR", ["192.0.2.3"])
    cli.no_change(*change)

    # replaced: the note's type (not update_allowed), then the zone's name (and with it what names the zone)
    retype = [*change, "--parameter", "note_type=SPF"]
    planned = cli.plan(*retype)
    assert set(planned) == {"note"} and set(planned["note"]["actions"]) == {"create", "delete"}, planned
    cli.apply(*retype)
    again = cli.ids()
    assert again["note"] != drifted["note"]
    assert wait_gone(cloud, f"/zones/{ids['zone']}/recordsets/{drifted['note']}") is None
    assert dns_get(cloud, f"/zones/{ids['zone']}/recordsets/{again['note']}")["type"] == "SPF"
    rename = [*retype, "--parameter", f"zone_name={zone_b}"]
    planned = cli.plan(*rename)
    assert set(planned) == {"zone", "www", "note"}, planned
    assert all(set(c["actions"]) == {"create", "delete"} for c in planned.values()), planned
    cli.apply(*rename)
    final = cli.ids()
    assert all(final[a] != again[a] for a in ("zone", "www", "note"))
    assert wait_gone(cloud, f"/zones/{ids['zone']}") is None
    assert dns_get(cloud, f"/zones/{final['zone']}")["name"] == zone_b
    assert wait_answer(f"www.{zone_b}", "A", ["192.0.2.3"]) == ("NOERROR", ["192.0.2.3"])
    assert wait_answer(zone_a, "SOA", None)[0] == "REFUSED"  # bind9 holds the old zone no more
    cli.no_change(*rename)

    # made outside hotc: a zone and a record set, imported by id into another stack, managed and deleted by it
    zone_c = f"{p}-c.{TEST_DOMAIN}"
    r = cloud.dns.post("/zones", json={"name": zone_c, "email": "ops@example.org", "ttl": 1200})
    assert r.status_code < 400, r.text
    o_zone = r.json()["id"]
    r = cloud.dns.post(f"/zones/{o_zone}/recordsets", json={"name": f"mail.{zone_c}", "type": "MX",
                                                            "records": ["10 mx.example.org."]})  # fmt: skip
    assert r.status_code < 400, r.text
    o_rs = r.json()["id"]
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  z: {{type: OS::Designate::Zone, properties: {{name: {zone_c}, email: ops@example.org, ttl: 1200}}}}\n"
        f"  mx: {{type: OS::Designate::RecordSet, properties: {{zone: {zone_c}, name: mail, type: MX,"
        " records: ['10 mx.example.org.']}}\n"
    )
    (tmp_path / "map.json").write_text(json.dumps({"z": o_zone, "mx": o_rs}))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert wait_answer(f"mail.{zone_c}", "MX", ["10 mx.example.org."])[1] == ["10 mx.example.org."]
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert wait_gone(cloud, f"/zones/{o_zone}") is None

    # destroy: everything the stack made is gone from Designate and from bind9
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout + r.stderr
    assert wait_gone(cloud, f"/zones/{final['zone']}") is None
    assert wait_answer(zone_b, "SOA", None)[0] == "REFUSED"
