"""Heat 27 of the test cloud and hotc make the same Manila objects in the same Manila (Heat's manila client reaches
the test cloud's ``sharev2`` endpoint with no change to Heat): one template is created by Heat and by hotc, and
each share type, security service, share network and share Heat made is the one hotc made (extra specs, fields,
the network and its security service, the share's protocol, size, status, metadata and access rules; only names
and ids differ), with the same outputs (a share's status, its ``share_server_id`` "None", three export paths).
What Heat does on an update (descriptions: in place, same ids; a share's size: the share replaced) is what hotc
decides for the same change; ``hotc import --from-heat --abandon`` takes Heat's objects over: no change planned,
and hotc's destroy deletes them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hotc.providers.registry import get_schema
from hotc.providers.schemas.decide import REPLACE, UPDATE, decide_update
from hotc.providers.validation import apply_defaults
from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.manila_cloud import access, api, get, sweep, wait_share
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  desc: {type: string, default: first}
  size: {type: number, default: 1}
resources:
  stype:
    type: OS::Manila::ShareType
    properties:
      name: {list_join: ['-', [{get_param: prefix}, type]]}
      driver_handles_share_servers: false
      extra_specs: {share_backend_name: ALPHA, "hotc_test:flavour": plain}
  secsvc:
    type: OS::Manila::SecurityService
    properties:
      name: {list_join: ['-', [{get_param: prefix}, ldap]]}
      type: ldap
      server: ldap.example.org
      user: binder
      password: pw-of-both
      description: {get_param: desc}
  net:
    type: OS::Manila::ShareNetwork
    properties:
      name: {list_join: ['-', [{get_param: prefix}, net]]}
      neutron_subnet: hotc-private-subnet
      security_services: [{get_resource: secsvc}]
      description: {get_param: desc}
  share:
    type: OS::Manila::Share
    properties:
      name: {list_join: ['-', [{get_param: prefix}, share]]}
      share_protocol: NFS
      size: {get_param: size}
      share_type: {get_resource: stype}
      description: {get_param: desc}
      metadata: {tier: gold}
      access_rules:
        - {access_to: 10.0.0.0/24, access_type: ip}
        - {access_to: 10.0.1.5, access_type: ip, access_level: ro}
outputs:
  status: {value: {get_attr: [share, status]}}
  server: {value: {get_attr: [share, share_server_id]}}
  exports: {value: {get_attr: [share, export_locations]}}
"""

#: what differs between two objects of the same template (who made them, when, their names and ids)
_OWN = {"id", "name", "created_at", "updated_at", "project_id", "user_id", "links", "export_location",
        "export_locations", "share_type", "share_type_name", "volume_type", "share_network_id", "metadata", "host"}  # fmt: skip


def _doc(text: str) -> dict[str, Any]:
    import yaml

    doc: dict[str, Any] = yaml.safe_load(text)
    doc["heat_template_version"] = str(doc["heat_template_version"])
    return doc


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _OWN}


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


def _outputs(heat: Any, stack_id: str) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in heat.get_stack(stack_id).outputs}


def test_heat_and_hotc_make_the_same_manila_objects_and_decide_the_same(
    cloud: Any, cloud_shared: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    del cloud_shared  # asked for: the template's share network names hotc-private-subnet, which it makes
    require_service(cloud, "sharev2", "88-manila.sh")
    cloud_tracker.defer("sweep manila", lambda: sweep(cloud, cloud_tracker.prefix))
    heat = cloud.orchestration
    hp, op = cloud_tracker.name("h"), cloud_tracker.name("o")
    st = heat.create_stack(
        name=cloud_tracker.name("heat"), template=_doc(TEMPLATE), parameters={"prefix": hp}
    )
    cloud_tracker.track(st)
    st = heat.wait_for_status(st, "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=900)

    def heat_ids() -> dict[str, str]:
        return {r.name: r.physical_resource_id for r in heat.resources(st.id)}

    (tmp_path / "t.yaml").write_text(TEMPLATE)
    cli = CliStack(tmp_path, hotc_cloud_env, cloud_tracker.name("hotc"), ["--parameter", f"prefix={op}"])
    cli.apply()
    mine, first = cli.ids(), heat_ids()

    t_heat, t_hotc = (get(cloud, "types", "share_type", ids["stype"]) for ids in (first, mine))
    assert t_heat["extra_specs"] == {
        k: v for k, v in t_hotc["extra_specs"].items() if not k.startswith("hotc:")
    }
    assert comparable(t_heat) == {**comparable(t_hotc), "extra_specs": t_heat["extra_specs"]}
    s_heat, s_hotc = (
        get(cloud, "security-services", "security_service", ids["secsvc"]) for ids in (first, mine)
    )
    assert comparable(s_heat) == comparable(s_hotc) and s_hotc["password"] == "pw-of-both"
    n_heat, n_hotc = (get(cloud, "share-networks", "share_network", ids["net"]) for ids in (first, mine))
    assert comparable(n_heat) == comparable(n_hotc) and n_hotc["neutron_net_id"]
    for ids in (first, mine):
        linked = api(cloud, "GET", f"/security-services?share_network_id={ids['net']}")["security_services"]
        assert [s["id"] for s in linked] == [ids["secsvc"]]
    # hotc's apply ends once Manila has applied the rules; Heat's create ends before that, so its share is waited for
    sh_hotc = get(cloud, "shares", "share", mine["share"])
    assert sh_hotc["access_rules_status"] == "active", sh_hotc
    sh_heat = wait_share(cloud, first["share"], "active", field="access_rules_status")
    assert comparable(sh_heat) == comparable(sh_hotc) and sh_hotc["status"] == "available"
    assert sh_heat["metadata"] == {k: v for k, v in sh_hotc["metadata"].items() if not k.startswith("hotc-")}
    assert (
        access(cloud, first["share"])
        == access(cloud, mine["share"])
        == {
            ("10.0.0.0/24", "ip", "rw"),
            ("10.0.1.5", "ip", "ro"),
        }
    )
    r = hotc(tmp_path, hotc_cloud_env, "output", cli.stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    import json

    ours = {k: v["value"] for k, v in json.loads(r.stdout).items()}
    theirs = _outputs(heat, st.id)
    assert ours["status"] == theirs["status"] == "available" and ours["server"] == theirs["server"] == "None"
    assert len(ours["exports"]) == len(theirs["exports"]) == 3
    assert [e.split(":", 1)[0] for e in ours["exports"]] == [e.split(":", 1)[0] for e in theirs["exports"]]

    old = {
        "share_protocol": "NFS",
        "size": 1,
        "share_type": "t",
        "description": "first",
        "metadata": {"tier": "gold"},
    }
    # descriptions: Heat updates in place (same ids); hotc decides updates
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={"prefix": hp, "desc": "second"})
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    assert heat_ids() == first
    assert get(cloud, "shares", "share", first["share"])["description"] == "second"
    assert decision("OS::Manila::Share", old, {**old, "description": "second"}) == UPDATE
    sec = {"type": "ldap", "description": "first"}
    assert decision("OS::Manila::SecurityService", sec, {**sec, "description": "second"}) == UPDATE
    assert decision("OS::Manila::ShareNetwork", {"description": "first"}, {"description": "second"}) == UPDATE
    planned = cli.plan("--parameter", "desc=second")
    assert {a: c["actions"] for a, c in planned.items()} == {
        a: ["update"] for a in ("secsvc", "net", "share")
    }

    # a share's size: Heat replaces the share; hotc decides a replacement
    before = heat.get_stack(st.id).updated_at
    heat.update_stack(st.id, template=_doc(TEMPLATE), parameters={"prefix": hp, "desc": "second", "size": 2})
    assert _wait(heat, st.id, before).status == "UPDATE_COMPLETE"
    now = heat_ids()
    assert now["share"] != first["share"] and get(cloud, "shares", "share", first["share"]) is None
    assert {a: now[a] for a in ("stype", "secsvc", "net")} == {
        a: first[a] for a in ("stype", "secsvc", "net")
    }
    assert decision("OS::Manila::Share", old, {**old, "size": 2}) == REPLACE
    planned = cli.plan("--parameter", "desc=second", "--parameter", "size=2")
    assert set(planned["share"]["actions"]) == {"create", "delete"}, planned

    # --from-heat: Heat's objects taken over, no change planned, deleted by hotc's destroy
    stack = cloud_tracker.name("mig")
    r = hotc(tmp_path, hotc_cloud_env, "import", stack, "--from-heat", st.name, "mig", "--abandon")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert heat.find_stack(st.id, ignore_missing=True) is None
    assert get(cloud, "shares", "share", now["share"]) is not None  # abandoned: the objects stay
    plan = ["plan", "-t", "mig/template.yaml", "-e", "mig/environment.yaml", stack, "--refresh"]
    r = hotc(tmp_path, hotc_cloud_env, *plan, "--detailed-exitcode")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert CliStack(tmp_path, hotc_cloud_env, stack, []).ids() == now
    for name in (stack, cli.stack):
        r = hotc(tmp_path, hotc_cloud_env, "destroy", name, "--auto-approve")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for ids in (now, mine):
        assert get(cloud, "shares", "share", ids["share"]) is None
        assert get(cloud, "share-networks", "share_network", ids["net"]) is None
        assert get(cloud, "security-services", "security_service", ids["secsvc"]) is None
        assert get(cloud, "types", "share_type", ids["stype"]) is None
