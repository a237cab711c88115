"""Heat 27 of the test cloud and hotc make the same zones and record sets in the same Designate (Heat's own
designateclient finds the ``dns`` endpoint in the catalog; Heat needs no configuration for it): one template is
created by Heat and by hotc (only the zone names differ), and what Heat made is what hotc made, field by field,
bind9 serving both; the unnamed record set's name has the same ``<stack>-<resource>-<random>`` form inside its
zone; the zone's ``serial`` attribute is, under both, the serial the zone had when it was made. What Heat does
on an update (ttl and records: in place, same ids; a record set's type and a zone's name: replaced, new ids) is
what hotc decides for the same change. ``hotc import --from-heat --abandon`` takes Heat's zone and record sets
over: no change planned, and hotc's destroy deletes them."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults
from tests.apply.cloud_cli import CliStack, hotc
from tests.fixtures.cloud import require_service
from tests.fixtures.dns import TEST_DOMAIN, wait_answer

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  zone_name: {type: string}
  ttl: {type: number, default: 600}
  www_records: {type: comma_delimited_list, default: "192.0.2.1,192.0.2.2"}
  note_type: {type: string, default: TXT}
resources:
  zone:
    type: OS::Designate::Zone
    properties:
      name: {get_param: zone_name}
      email: admin@example.org
      ttl: {get_param: ttl}
      description: one template, two makers
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
      records: ['"v=spf1 -all"']
outputs:
  serial: {value: {get_attr: [zone, serial]}}
"""

#: what differs between two objects of the same template (who made them, when, where, and their names)
_OWN = {"id", "name", "zone_id", "zone_name", "project_id", "pool_id", "serial", "created_at", "updated_at",
        "links", "version", "transferred_at"}  # fmt: skip


def _doc(text: str) -> dict[str, Any]:
    """A template as Heat's API takes it (the version as text, not a YAML date)."""
    import yaml

    doc: dict[str, Any] = yaml.safe_load(text)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


def dns_get(cloud: Any, path: str) -> Any:
    r = cloud.dns.get(path)
    if r.status_code == 404:
        return None
    assert r.status_code < 400, r.text
    return r.json()


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: (sorted(v) if k == "records" else v) for k, v in obj.items() if k not in _OWN}


def _wait(heat: Any, stack_id: str, before: Any) -> Any:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        now = heat.get_stack(stack_id)
        if now.updated_at != before and now.status in ("UPDATE_COMPLETE", "UPDATE_FAILED"):
            return now
        time.sleep(2)
    raise AssertionError("Heat's stack update did not end")


def decision(type_name: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    rtype = get_schema(type_name)
    assert rtype is not None
    return decide_update(rtype, apply_defaults(rtype, old), apply_defaults(rtype, new)).kind


def test_heat_and_hotc_make_the_same_zones_and_decide_the_same(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "dns", "87-designate.sh")
    p = cloud_tracker.prefix
    heat_zone, hotc_zone = f"{p}-heat.{TEST_DOMAIN}", f"{p}-hotc.{TEST_DOMAIN}"
    heat = cloud.orchestration
    hname = cloud_tracker.name("heat")
    st = heat.create_stack(name=hname, template=_doc(TEMPLATE), parameters={"zone_name": heat_zone})
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    def heat_ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    stack = cloud_tracker.name("hotc")
    cli = CliStack(tmp_path, hotc_cloud_env, stack, ["--parameter", f"zone_name={hotc_zone}"])
    cli.apply()
    mine, first = cli.ids(), heat_ids()
    by_heat, by_hotc = dns_get(cloud, f"/zones/{first['zone']}"), dns_get(cloud, f"/zones/{mine['zone']}")
    assert comparable(by_heat) == comparable(by_hotc)
    assert by_heat["name"] == heat_zone and by_hotc["name"] == hotc_zone
    for address in ("www", "note"):
        h = dns_get(cloud, f"/zones/{first['zone']}/recordsets/{first[address]}")
        m = dns_get(cloud, f"/zones/{mine['zone']}/recordsets/{mine[address]}")
        assert comparable(h) == comparable(m), address
    h_note = dns_get(cloud, f"/zones/{first['zone']}/recordsets/{first['note']}")["name"]
    m_note = dns_get(cloud, f"/zones/{mine['zone']}/recordsets/{mine['note']}")["name"]
    assert re.fullmatch(re.escape(hname) + r"-note-[a-z0-9]+\." + re.escape(heat_zone), h_note), h_note
    assert re.fullmatch(re.escape(stack) + r"-note-[0-9a-f]+\." + re.escape(hotc_zone), m_note), m_note
    for zone in (heat_zone, hotc_zone):
        assert wait_answer(f"www.{zone}", "A", ["192.0.2.1", "192.0.2.2"])[0] == "NOERROR"
    # the serial attribute: the zone's serial when it was made, under Heat as under hotc
    heat_serial = next(
        o["output_value"] for o in heat.get_stack(st.id).outputs if o["output_key"] == "serial"
    )
    r = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, "zone", "--format", "json")
    assert r.returncode == 0, r.stderr
    hotc_serial = json.loads(r.stdout)["attributes"]["serial"]
    assert isinstance(heat_serial, int) and isinstance(hotc_serial, int)
    assert heat_serial < by_heat["serial"] and hotc_serial < by_hotc["serial"]  # both before the record sets

    zone_props = {"name": heat_zone, "email": "admin@example.org", "ttl": 600,
                  "description": "one template, two makers"}  # fmt: skip
    www_props = {"zone": first["zone"], "name": "www", "type": "A", "ttl": 600,
                 "records": ["192.0.2.1", "192.0.2.2"]}  # fmt: skip
    note_props = {"zone": first["zone"], "type": "TXT", "records": ['"v=spf1 -all"']}

    # ttl and records: Heat updates in place (same ids); hotc decides updates
    params = {"zone_name": heat_zone, "ttl": 900, "www_records": "192.0.2.3"}
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters=params)
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    assert heat_ids() == first
    assert dns_get(cloud, f"/zones/{first['zone']}")["ttl"] == 900
    www = dns_get(cloud, f"/zones/{first['zone']}/recordsets/{first['www']}")
    assert (www["ttl"], www["records"]) == (900, ["192.0.2.3"])
    assert decision("OS::Designate::Zone", zone_props, {**zone_props, "ttl": 900}) == UPDATE
    www_new = {**www_props, "ttl": 900, "records": ["192.0.2.3"]}
    assert decision("OS::Designate::RecordSet", www_props, www_new) == UPDATE

    # a record set's type: Heat replaces it (a new id); hotc decides a replacement
    params = {**params, "note_type": "SPF"}
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters=params)
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    second = heat_ids()
    assert second["note"] != first["note"] and second["zone"] == first["zone"]
    assert dns_get(cloud, f"/zones/{first['zone']}/recordsets/{second['note']}")["type"] == "SPF"
    assert decision("OS::Designate::RecordSet", note_props, {**note_props, "type": "SPF"}) == REPLACE

    # the zone's name: Heat replaces the zone (and what names it); hotc decides a replacement
    renamed = f"{p}-heat2.{TEST_DOMAIN}"
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={**params, "zone_name": renamed})
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    third = heat_ids()
    assert all(third[a] != second[a] for a in ("zone", "www", "note"))
    assert dns_get(cloud, f"/zones/{third['zone']}")["name"] == renamed
    assert decision("OS::Designate::Zone", zone_props, {**zone_props, "name": renamed}) == REPLACE
    assert decision("OS::Designate::RecordSet", www_props, {**www_props, "zone": third["zone"]}) == REPLACE

    # hotc takes Heat's stack over: no change planned, then hotc's destroy deletes the zone
    r = hotc(tmp_path, hotc_cloud_env, "import", cloud_tracker.name("mig"), "--from-heat", st.name, "mig",
             "--abandon")  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    mig = cloud_tracker.name("mig")
    plan = ["plan", "-t", "mig/template.yaml", "-e", "mig/environment.yaml", mig, "--refresh"]
    r = hotc(tmp_path, hotc_cloud_env, *plan, "--detailed-exitcode")
    assert r.returncode in (0, 2), r.stdout[-3000:] + r.stderr[-3000:]
    changed = [line for line in r.stdout.splitlines() if " will be " in line]
    assert changed == [], r.stdout  # only the serial output may move (record sets move a zone's serial)
    assert CliStack(tmp_path, hotc_cloud_env, mig, []).ids() == third
    r = hotc(tmp_path, hotc_cloud_env, "destroy", mig, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    deadline = time.monotonic() + 90
    while dns_get(cloud, f"/zones/{third['zone']}") is not None and time.monotonic() < deadline:
        time.sleep(0.5)
    assert dns_get(cloud, f"/zones/{third['zone']}") is None
    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
