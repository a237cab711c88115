"""The Manila types against the real Manila of the test cloud (tests/cloud/88-manila.sh: API, scheduler and share
service, Manila's dummy share driver), through the hotc CLI: a share type, a security service (its password from
a hidden parameter), a share network on the cloud's Neutron network with that service, a share of the new type
with access rules, and a share on a second share network that the share service gives a share server with a real
Neutron port. Created (Manila holds what the template says; the shares reach ``available``); a fresh plan shows no
change; the password is in the state only encrypted; what Heat updates in place is updated (the ids stay),
what it does not is replaced (a share's size, a share type's name, a security service's type); drift made outside
hotc (a share renamed, an access rule denied) is planned and put back; objects made outside hotc (one of each
type) are imported by id, managed (a share made from a snapshot of one, on another) and deleted; ``hotc check``
passes, and fails a share Manila holds in error; destroy deletes everything. A share type or share network that
does not exist stops the plan at its value, as Heat's validate stops the create. Every check asks Manila's API."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.apply.cloud_cli import CliStack, hotc
from tests.apply.manila_cloud import access, api, get, sweep, wait_share
from tests.fixtures.cloud import require_service

pytestmark = pytest.mark.cloud

PASSWORD = "bind-pw-c41e7a"

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  password: {type: string, hidden: true}
  desc: {type: string, default: first}
  flavour: {type: string, default: plain}
  ro_client: {type: string, default: 10.0.1.5}
  size: {type: number, default: 1}
  type_suffix: {type: string, default: type}
  sec_type: {type: string, default: ldap}
  net_name: {type: string, default: hotc-private}
  subnet_name: {type: string, default: hotc-private-subnet}
resources:
  stype:
    type: OS::Manila::ShareType
    properties:
      name: {list_join: ['-', [{get_param: prefix}, {get_param: type_suffix}]]}
      driver_handles_share_servers: false
      extra_specs: {share_backend_name: ALPHA, "hotc_test:flavour": {get_param: flavour}}
  secsvc:
    type: OS::Manila::SecurityService
    properties:
      name: {list_join: ['-', [{get_param: prefix}, ldap]]}
      type: {get_param: sec_type}
      server: ldap.example.org
      user: binder
      password: {get_param: password}
      description: {get_param: desc}
  net:
    type: OS::Manila::ShareNetwork
    properties:
      name: {list_join: ['-', [{get_param: prefix}, net]]}
      neutron_network: {get_param: net_name}
      neutron_subnet: {get_param: subnet_name}
      security_services: [{get_resource: secsvc}]
      description: {get_param: desc}
  dnet:
    type: OS::Manila::ShareNetwork
    properties:
      name: {list_join: ['-', [{get_param: prefix}, dnet]]}
      neutron_subnet: hotc-private-subnet
  share:
    type: OS::Manila::Share
    properties:
      name: {list_join: ['-', [{get_param: prefix}, share]]}
      share_protocol: NFS
      size: {get_param: size}
      share_type: {get_resource: stype}
      description: {get_param: desc}
      metadata: {tier: {get_param: flavour}}
      access_rules:
        - {access_to: 10.0.0.0/24, access_type: ip}
        - {access_to: {get_param: ro_client}, access_type: ip, access_level: ro}
  dshare:
    type: OS::Manila::Share
    properties:
      name: {list_join: ['-', [{get_param: prefix}, dshare]]}
      share_protocol: CIFS
      size: 1
      share_type: dhss
      share_network: {get_resource: dnet}
outputs:
  exports: {value: {get_attr: [share, export_locations]}}
  status: {value: {get_attr: [share, status]}}
  server: {value: {get_attr: [share, share_server_id]}}
  dserver: {value: {get_attr: [dshare, share_server_id]}}
  host: {value: {get_attr: [dshare, host]}}
"""


def test_manila_types_through_the_cli(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    require_service(cloud, "sharev2", "88-manila.sh")
    p = cloud_tracker.prefix
    cloud_tracker.defer("sweep manila", lambda: sweep(cloud, p))
    stack = cloud_tracker.name("stk")
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    params = ["--parameter", f"prefix={p}", "--parameter", f"password={PASSWORD}"]
    cli = CliStack(tmp_path, hotc_cloud_env, stack, params)
    subnet = cloud.network.find_subnet("hotc-private-subnet")

    # a share type or share network that does not exist: the plan stops at the value, as Heat's validate does
    (tmp_path / "bad.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  s:\n    type: OS::Manila::Share\n    properties:\n"
        f"      share_protocol: NFS\n      size: 1\n      share_type: {p}-none\n      share_network: {p}-none\n"
    )
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "bad.yaml", cloud_tracker.name("bad"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        f"bad.yaml:8:19: error: s: property share_type: The share type ({p}-none) could not be found."
        in r.stderr
    )
    assert (
        f"bad.yaml:9:22: error: s: property share_network: The share network ({p}-none) could not be found."
        in r.stderr
    )

    cli.apply()
    got = cli.ids()
    stype = get(cloud, "types", "share_type", got["stype"])
    assert stype["name"] == f"{p}-type"
    specs = stype["extra_specs"]
    assert specs["driver_handles_share_servers"] in ("False", "false")
    assert specs["share_backend_name"] == "ALPHA" and specs["hotc_test:flavour"] == "plain"
    sec = get(cloud, "security-services", "security_service", got["secsvc"])
    assert (sec["type"], sec["server"], sec["user"], sec["name"]) == (
        "ldap",
        "ldap.example.org",
        "binder",
        f"{p}-ldap",
    )
    net = get(cloud, "share-networks", "share_network", got["net"])
    assert net["neutron_net_id"] == subnet.network_id and net["neutron_subnet_id"] == subnet.id
    linked = api(cloud, "GET", f"/security-services?share_network_id={got['net']}")["security_services"]
    assert [s["id"] for s in linked] == [got["secsvc"]]
    dnet = get(cloud, "share-networks", "share_network", got["dnet"])
    assert dnet["neutron_net_id"] == subnet.network_id  # found from the subnet, as Heat does
    share = get(cloud, "shares", "share", got["share"])
    assert share["status"] == "available" and share["share_type"] == got["stype"] and share["size"] == 1
    assert share["metadata"]["tier"] == "plain" and share["description"] == "first"
    assert access(cloud, got["share"]) == {("10.0.0.0/24", "ip", "rw"), ("10.0.1.5", "ip", "ro")}
    dshare = get(cloud, "shares", "share", got["dshare"])
    assert dshare["status"] == "available" and dshare["share_network_id"] == got["dnet"]
    server = dshare["share_server_id"]
    assert server
    ports = [
        pt for pt in cloud.network.ports(network_id=subnet.network_id) if pt.device_owner == "manila:share"
    ]
    assert ports, "the share server of a DHSS share has a real Neutron port"
    r = hotc(tmp_path, hotc_cloud_env, "output", stack, "--format", "json")
    assert r.returncode == 0, r.stderr
    out = {k: v["value"] for k, v in json.loads(r.stdout).items()}
    assert out["status"] == "available" and out["server"] == "None" and out["dserver"] == server
    assert out["exports"] and all(got["share"].replace("-", "_") in e for e in out["exports"])
    assert out["host"].startswith("hotc@beta")
    cli.no_change()

    # the password is a secret: not in clear in the state, plans or resource show
    stored = [f for f in (tmp_path / ".hotc").rglob("*") if f.is_file() and f.name != "state.key"]
    assert PASSWORD not in "".join(f.read_text(errors="replace") for f in stored)
    r = hotc(tmp_path, hotc_cloud_env, "resource", "show", stack, "secsvc")
    assert r.returncode == 0 and PASSWORD not in r.stdout, r.stderr
    r = hotc(
        tmp_path, hotc_cloud_env, "plan", "-t", "t.yaml", *params, "--refresh", "--parameter", "desc=x", stack
    )
    assert r.returncode == 0 and PASSWORD not in r.stdout + r.stderr, r.stderr

    # in place: descriptions, metadata, extra specs, an access rule, a share network's network; the ids stay
    change = [
        "--parameter",
        "desc=second",
        "--parameter",
        "flavour=gold",
        "--parameter",
        "ro_client=10.0.2.7",
        "--parameter",
        "net_name=public",
        "--parameter",
        "subnet_name=public-subnet",
    ]
    planned = cli.plan(*change)
    assert set(planned) == {"stype", "secsvc", "net", "share"}, planned
    assert all(planned[a]["actions"] == ["update"] for a in planned), planned
    cli.apply(*change)
    assert cli.ids() == got
    assert get(cloud, "types", "share_type", got["stype"])["extra_specs"]["hotc_test:flavour"] == "gold"
    assert get(cloud, "security-services", "security_service", got["secsvc"])["description"] == "second"
    net = get(cloud, "share-networks", "share_network", got["net"])
    public = cloud.network.find_subnet("public-subnet")
    assert net["description"] == "second" and net["neutron_subnet_id"] == public.id
    assert net["neutron_net_id"] == public.network_id
    share = get(cloud, "shares", "share", got["share"])
    assert share["description"] == "second" and share["metadata"]["tier"] == "gold"
    assert access(cloud, got["share"]) == {("10.0.0.0/24", "ip", "rw"), ("10.0.2.7", "ip", "ro")}
    cli.no_change(*change)

    # drift: the share renamed and an access rule denied outside hotc: planned as an update, put back
    api(cloud, "PUT", f"/shares/{got['share']}", {"share": {"display_name": f"{p}-renamed"}})
    rules = api(cloud, "POST", f"/shares/{got['share']}/action", {"access_list": None})["access_list"]
    ro = next(r for r in rules if r["access_level"] == "ro")
    api(cloud, "POST", f"/shares/{got['share']}/action", {"deny_access": {"access_id": ro["id"]}})
    planned = cli.plan(*change)
    assert set(planned) == {"share"} and planned["share"]["actions"] == ["update"], planned
    cli.apply("--refresh", *change)
    assert cli.ids() == got
    assert get(cloud, "shares", "share", got["share"])["name"] == f"{p}-share"
    assert access(cloud, got["share"]) == {("10.0.0.0/24", "ip", "rw"), ("10.0.2.7", "ip", "ro")}
    cli.no_change(*change)

    # replaced: a share's size, a share type's name (and the share on it), a security service's type (and the
    # share network names the new one, in place)
    change += [
        "--parameter",
        "size=2",
        "--parameter",
        "type_suffix=type2",
        "--parameter",
        "sec_type=kerberos",
    ]
    planned = cli.plan(*change)
    assert set(planned) == {"stype", "share", "secsvc", "net"}, planned
    for addr in ("stype", "share", "secsvc"):
        assert set(planned[addr]["actions"]) == {"create", "delete"}, planned[addr]
    assert planned["net"]["actions"] == ["update"], planned["net"]
    cli.apply(*change)
    new = cli.ids()
    for addr in ("stype", "share", "secsvc"):
        assert new[addr] != got[addr], addr
    assert (
        get(cloud, "shares", "share", got["share"]) is None
        and get(cloud, "types", "share_type", got["stype"]) is None
    )
    assert get(cloud, "security-services", "security_service", got["secsvc"]) is None
    share = get(cloud, "shares", "share", new["share"])
    assert share["size"] == 2 and share["share_type"] == new["stype"] and share["status"] == "available"
    assert get(cloud, "types", "share_type", new["stype"])["name"] == f"{p}-type2"
    assert get(cloud, "security-services", "security_service", new["secsvc"])["type"] == "kerberos"
    linked = api(cloud, "GET", f"/security-services?share_network_id={got['net']}")["security_services"]
    assert [s["id"] for s in linked] == [new["secsvc"]]
    for addr in ("net", "dnet", "dshare"):
        assert new[addr] == got[addr], addr
    cli.no_change(*change)

    # made outside hotc: a security service, a share network, a share type and a share on it, imported by id
    o_sec = api(cloud, "POST", "/security-services", {"security_service": {
        "type": "active_directory", "name": f"{p}-o-sec", "domain": "corp.example.org"}})["security_service"]  # fmt: skip
    o_net = api(cloud, "POST", "/share-networks", {"share_network": {
        "name": f"{p}-o-net", "neutron_net_id": subnet.network_id, "neutron_subnet_id": subnet.id}})["share_network"]  # fmt: skip
    o_type = api(cloud, "POST", "/types", {"share_type": {"name": f"{p}-o-type", "share_type_access:is_public": True,
        "extra_specs": {"driver_handles_share_servers": False, "snapshot_support": True}}})["share_type"]  # fmt: skip
    api(cloud, "POST", f"/types/{o_type['id']}/extra_specs", {"extra_specs": {"share_backend_name": "ALPHA"}})
    o_share = api(cloud, "POST", "/shares", {"share": {
        "name": f"{p}-o-share", "share_proto": "NFS", "size": 1, "share_type": o_type["id"]}})["share"]  # fmt: skip
    wait_share(cloud, o_share["id"])
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  sec: {{type: OS::Manila::SecurityService, properties: {{name: {p}-o-sec, type: active_directory,"
        " domain: corp.example.org}}\n"
        f"  net: {{type: OS::Manila::ShareNetwork, properties: {{name: {p}-o-net, neutron_network: hotc-private,"
        " neutron_subnet: hotc-private-subnet}}\n"
        f"  share: {{type: OS::Manila::Share, properties: {{name: {p}-o-share, share_protocol: NFS, size: 1,"
        " share_type: {get_resource: type}}}\n"
        f"  type: {{type: OS::Manila::ShareType, properties: {{name: {p}-o-type, driver_handles_share_servers: false,"
        " extra_specs: {share_backend_name: ALPHA}}}\n"
    )
    outside = {"sec": o_sec["id"], "net": o_net["id"], "share": o_share["id"], "type": o_type["id"]}
    (tmp_path / "map.json").write_text(json.dumps(outside))
    other = cloud_tracker.name("imp")
    r = hotc(tmp_path, hotc_cloud_env, "import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr

    # a share made from a snapshot (of the imported share) on the imported type, found by their names
    snap = api(cloud, "POST", "/snapshots", {"snapshot": {"share_id": o_share["id"], "name": f"{p}-o-snap"}})
    snap_id = snap["snapshot"]["id"]
    for _ in range(120):
        if get(cloud, "snapshots", "snapshot", snap_id)["status"] != "creating":
            break
        time.sleep(1)
    assert get(cloud, "snapshots", "snapshot", snap_id)["status"] == "available"
    with (tmp_path / "i.yaml").open("a") as f:
        f.write(
            f"  fromsnap: {{type: OS::Manila::Share, properties: {{name: {p}-o-fromsnap, share_protocol: NFS,"
            f" size: 1, snapshot: {p}-o-snap, share_type: {{get_resource: type}}}}}}\n"
        )
    r = hotc(tmp_path, hotc_cloud_env, "apply", "-t", "i.yaml", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    fromsnap_id = CliStack(tmp_path, hotc_cloud_env, other, []).ids()["fromsnap"]
    fromsnap = get(cloud, "shares", "share", fromsnap_id)
    assert fromsnap["snapshot_id"] == snap_id and fromsnap["share_type"] == o_type["id"]
    assert fromsnap["status"] == "available"
    r = hotc(tmp_path, hotc_cloud_env, "plan", "-t", "i.yaml", other, "--refresh", "--detailed-exitcode")
    assert r.returncode == 0, r.stdout + r.stderr
    api(cloud, "DELETE", f"/snapshots/{snap_id}")  # a share with a snapshot cannot be deleted
    for _ in range(120):
        if get(cloud, "snapshots", "snapshot", snap_id) is None:
            break
        time.sleep(1)
    r = hotc(tmp_path, hotc_cloud_env, "destroy", other, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert get(cloud, "shares", "share", o_share["id"]) is None
    assert get(cloud, "share-networks", "share_network", o_net["id"]) is None
    assert get(cloud, "security-services", "security_service", o_sec["id"]) is None
    assert get(cloud, "types", "share_type", o_type["id"]) is None
    assert get(cloud, "shares", "share", fromsnap_id) is None

    # check: every object read, CHECK_COMPLETE; a share Manila holds in error fails it (Heat's handle_check)
    r = hotc(tmp_path, hotc_cloud_env, "check", stack)
    assert r.returncode == 0 and "share: CHECK_COMPLETE" in r.stdout, r.stdout + r.stderr
    api(cloud, "POST", f"/shares/{new['share']}/action", {"reset_status": {"status": "error"}})
    r = hotc(tmp_path, hotc_cloud_env, "check", stack)
    assert r.returncode == 1 and "share: CHECK_FAILED" in r.stdout and "dshare: CHECK_COMPLETE" in r.stdout, (
        r.stdout
    )

    r = hotc(tmp_path, hotc_cloud_env, "destroy", stack, "--auto-approve")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for addr, kind, key in [
        ("share", "shares", "share"),
        ("dshare", "shares", "share"),
        ("net", "share-networks", "share_network"),
        ("dnet", "share-networks", "share_network"),
        ("secsvc", "security-services", "security_service"),
        ("stype", "types", "share_type"),
    ]:
        assert get(cloud, kind, key, new[addr]) is None, addr
    assert get(cloud, "share-servers", "share_server", server) is None  # deleted with its last share
