"""The less common Neutron types (QoS, trunks, subnet pools, address scopes, provider networks) against the test cloud's real Neutron (qos and trunk service plugins on),
through the hotc CLI: each is created; a refresh right after shows no drift; a change made outside hotc shows as
drift; what Heat updates in place keeps the same object; what it does not replaces it (and what Heat refuses —
shrinking a subnet pool, a trunk's new parent port — is a plan error that changes nothing); objects made outside
hotc are imported and then managed; destroy deletes. Every check asks openstacksdk."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.cloud

REPO = Path(__file__).resolve().parents[2]


class Cli:
    def __init__(self, cwd: Path, env: dict[str, str], template: str) -> None:
        self.cwd, self.template = cwd, template
        self.env = {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
        self.env.pop("HOTC_BACKEND", None)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hotc", *args],
            cwd=self.cwd,
            env=self.env,
            text=True,
            capture_output=True,
            timeout=900,
        )

    @staticmethod
    def params(values: dict[str, Any]) -> list[str]:
        return [a for k, v in values.items() for a in ("--parameter", f"{k}={v}")]

    def apply(self, stack: str, values: dict[str, Any], *extra: str) -> str:
        r = self.run("apply", "-t", self.template, *self.params(values), *extra, stack, "--auto-approve")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        return r.stdout

    def plan(self, stack: str, values: dict[str, Any]) -> dict[str, Any]:
        r = self.run(
            "plan", "-t", self.template, *self.params(values), stack, "--refresh", "--format", "json"
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        return {
            c["address"]: c for c in json.loads(r.stdout)["resource_changes"] if c["actions"] != ["no-op"]
        }

    def no_change(self, stack: str, values: dict[str, Any]) -> None:
        r = self.run(
            "plan", "-t", self.template, *self.params(values), stack, "--refresh", "--detailed-exitcode"
        )
        assert r.returncode == 0, r.stdout + r.stderr

    def destroy(self, stack: str) -> None:
        r = self.run("destroy", stack, "--auto-approve")
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def actions(planned: dict[str, Any]) -> dict[str, str]:
    def one(c: dict[str, Any]) -> str:
        a = c["actions"]
        return "replace" if "create" in a and "delete" in a else a[0]

    return {addr: one(c) for addr, c in planned.items()}


def sweeper(cloud: Any, prefix: str) -> Callable[[], None]:
    """Deletes what the sweep of the tracker does not know: trunks, QoS policies, subnet pools, address scopes."""

    def sweep() -> None:
        net = cloud.network
        for t in net.trunks():
            if str(t.name).startswith(prefix):
                net.delete_trunk(t, ignore_missing=True)
        for q in net.qos_policies():
            if str(q.name).startswith(prefix):
                net.delete_qos_policy(q, ignore_missing=True)
        for sp in net.subnet_pools():
            if str(sp.name).startswith(prefix):
                net.delete_subnet_pool(sp, ignore_missing=True)
        for a in net.address_scopes():
            if str(a.name).startswith(prefix):
                net.delete_address_scope(a, ignore_missing=True)

    return sweep


QOS_TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  sfx: {type: string, default: a}
  prefixes: {type: comma_delimited_list, default: '10.201.0.0/24,10.201.1.0/24'}
  pool_shared: {type: boolean, default: false}
  description: {type: string, default: first}
  kbps: {type: number, default: 1000}
  mark: {type: number, default: 16}
  rule_policy: {type: string, default: qos}
conditions:
  on_second: {equals: [{get_param: rule_policy}, qos2]}
resources:
  scope:
    type: OS::Neutron::AddressScope
    properties: {shared: true, name: {list_join: ['-', [{get_param: OS::stack_name}, scope, {get_param: sfx}]]}}
  pool:
    type: OS::Neutron::SubnetPool
    properties:
      address_scope: {get_resource: scope}
      prefixes: {get_param: prefixes}
      default_prefixlen: 26
      shared: {get_param: pool_shared}
      tags: [green]
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {description: {get_param: description}}
  qos2:
    type: OS::Neutron::QoSPolicy
  bw:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties:
      policy: {if: [on_second, {get_resource: qos2}, {get_resource: qos}]}
      max_kbps: {get_param: kbps}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties: {policy: {get_resource: qos}, dscp_mark: {get_param: mark}}
  minbw:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties: {policy: {get_resource: qos}, min_kbps: 100, direction: ingress}
  minpps:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties: {policy: {get_resource: qos}, min_kpps: 10, direction: any}
outputs:
  pool_prefixes: {value: {get_attr: [pool, show, prefixes]}}
"""


def test_qos_subnet_pool_address_scope_create_drift_update_replace_import_delete(
    cloud: Any, cloud_tracker: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    net = cloud.network
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("qos")
    cloud_tracker.defer("neutron qos/pools/scopes", sweeper(cloud, p))
    (tmp_path / "t.yaml").write_text(QOS_TEMPLATE)
    cli = Cli(tmp_path, hotc_cloud_env, "t.yaml")
    values: dict[str, Any] = {}

    cli.apply(stack, values)
    [scope] = [s for s in net.address_scopes() if s.name == f"{stack}-scope-a"]
    [pool] = [sp for sp in net.subnet_pools() if str(sp.name).startswith(f"{stack}-pool-")]
    policies = {q.name: q for q in net.qos_policies() if str(q.name).startswith(stack)}
    [qos] = [q for n, q in policies.items() if n.startswith(f"{stack}-qos-")]
    assert pool.address_scope_id == scope.id and pool.default_prefix_length == 26
    assert sorted(pool.prefixes) == ["10.201.0.0/23"]  # Neutron merged the two adjacent /24s
    assert "green" in pool.tags and any(t.startswith("hotc-lineage=") for t in pool.tags)
    assert qos.description == "first"
    rules = {r["type"]: r for r in net.get_qos_policy(qos.id).rules}
    assert rules["bandwidth_limit"]["max_kbps"] == 1000 and rules["dscp_marking"]["dscp_mark"] == 16
    assert (
        rules["minimum_bandwidth"]["direction"] == "ingress"
        and rules["minimum_packet_rate"]["direction"] == "any"
    )
    cli.no_change(stack, values)  # merged prefixes, defaults, rules under their policy: no drift

    # drift: a rule's limit and the policy's description changed outside hotc are planned back in place
    net.update_qos_bandwidth_limit_rule(rules["bandwidth_limit"]["id"], qos.id, max_kbps=500)
    net.update_qos_policy(qos.id, description="outside")
    planned = cli.plan(stack, values)
    assert actions(planned) == {"bw": "update", "qos": "update"}
    assert planned["bw"]["changed_paths"] == [["max_kbps"]]

    # in place: the scope's name, the pool's prefixes (a superset), the policy's description, rule values
    values = {"sfx": "b", "prefixes": "10.201.0.0/23,10.202.0.0/24", "description": "second", "kbps": 2000,
              "mark": 26}  # fmt: skip
    assert actions(cli.plan(stack, values)) == {
        "scope": "update",
        "pool": "update",
        "qos": "update",
        "bw": "update",
        "dscp": "update",
    }
    cli.apply(stack, values)
    assert net.get_address_scope(scope.id).name == f"{stack}-scope-b"
    assert sorted(net.get_subnet_pool(pool.id).prefixes) == ["10.201.0.0/23", "10.202.0.0/24"]
    rules = {r["type"]: r for r in net.get_qos_policy(qos.id).rules}
    assert rules["bandwidth_limit"]["max_kbps"] == 2000 and rules["dscp_marking"]["dscp_mark"] == 26
    assert net.get_qos_policy(qos.id).description == "second"
    cli.no_change(stack, values)

    # Heat refuses to shrink a pool's prefixes: a plan error, nothing changed
    r = cli.run("plan", "-t", "t.yaml", *cli.params({**values, "prefixes": "10.201.0.0/24"}), stack)
    assert r.returncode != 0 and "prefixes" in r.stdout + r.stderr and "superset" in r.stdout + r.stderr
    assert sorted(net.get_subnet_pool(pool.id).prefixes) == ["10.201.0.0/23", "10.202.0.0/24"]

    # replaced: a rule moved to another policy, a pool made shared (with new prefixes: the replacement is made
    # before the old pool goes, and Neutron keeps the prefixes of an address scope's pools apart, so Heat's replace
    # of a pool that keeps its prefixes fails the same way)
    values = {**values, "rule_policy": "qos2", "pool_shared": "true", "prefixes": "10.204.0.0/24"}
    assert actions(cli.plan(stack, values)) == {"bw": "replace", "pool": "replace"}
    old_bw = rules["bandwidth_limit"]["id"]
    cli.apply(stack, values)
    [qos2] = [q for q in net.qos_policies() if str(q.name).startswith(f"{stack}-qos2-")]
    assert [r["type"] for r in net.get_qos_policy(qos2.id).rules] == ["bandwidth_limit"]
    assert "bandwidth_limit" not in {r["type"] for r in net.get_qos_policy(qos.id).rules}
    assert net.find_qos_bandwidth_limit_rule(old_bw, qos.id) is None
    assert net.find_subnet_pool(pool.id) is None
    [pool2] = [sp for sp in net.subnet_pools() if str(sp.name).startswith(f"{stack}-pool-")]
    assert pool2.is_shared and pool2.address_scope_id == scope.id
    cli.no_change(stack, values)

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    oscope = net.create_address_scope(name=f"{p}-iscope", ip_version=4)
    opool = net.create_subnet_pool(name=f"{p}-ipool", prefixes=["10.207.0.0/24"], address_scope_id=oscope.id)
    opol = net.create_qos_policy(name=f"{p}-iqos", description="outside")
    orule = net.create_qos_dscp_marking_rule(opol.id, dscp_mark=8)
    obw = net.create_qos_bandwidth_limit_rule(opol.id, max_kbps=3000)
    ominbw = net.create_qos_minimum_bandwidth_rule(opol.id, min_kbps=300)
    ominpps = net.create_qos_minimum_packet_rate_rule(opol.id, min_kpps=30)
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  s: {{type: OS::Neutron::AddressScope, properties: {{name: {p}-iscope}}}}\n"
        f"  sp: {{type: OS::Neutron::SubnetPool, properties: {{name: {p}-ipool, prefixes: [10.207.0.0/24],"
        " address_scope: {get_resource: s}}}\n"
        f"  q: {{type: OS::Neutron::QoSPolicy, properties: {{name: {p}-iqos, description: outside}}}}\n"
        "  r: {type: OS::Neutron::QoSDscpMarkingRule, properties: {policy: {get_resource: q}, dscp_mark: 8}}\n"
        "  bw: {type: OS::Neutron::QoSBandwidthLimitRule, properties: {policy: {get_resource: q}, max_kbps: 3000}}\n"
        "  mb: {type: OS::Neutron::QoSMinimumBandwidthRule, properties: {policy: {get_resource: q}, min_kbps: 300}}\n"
        "  mp: {type: OS::Neutron::QoSMinimumPacketRateRule, properties: {policy: {get_resource: q}, min_kpps: 30}}\n"
    )
    imported = {"s": oscope.id, "sp": opool.id, "q": opol.id, "r": orule.id, "bw": obw.id, "mb": ominbw.id}
    (tmp_path / "map.json").write_text(json.dumps({**imported, "mp": ominpps.id}))
    other = cloud_tracker.name("imp")
    r = cli.run("import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    icli = Cli(tmp_path, hotc_cloud_env, "i.yaml")
    icli.no_change(other, {})
    r = icli.run("plan", "-t", "i.yaml", other, "--refresh", "--format", "json")
    (tmp_path / "i2.yaml").write_text(
        (tmp_path / "i.yaml").read_text().replace("dscp_mark: 8", "dscp_mark: 10")
    )
    icli2 = Cli(tmp_path, hotc_cloud_env, "i2.yaml")
    assert actions(icli2.plan(other, {})) == {"r": "update"}
    icli2.apply(other, {})
    assert net.get_qos_dscp_marking_rule(orule.id, opol.id).dscp_mark == 10
    icli2.destroy(other)
    assert net.find_address_scope(oscope.id) is None and net.find_qos_policy(opol.id) is None
    assert net.find_subnet_pool(opool.id) is None

    cli.destroy(stack)
    assert net.find_address_scope(scope.id) is None and net.find_subnet_pool(pool2.id) is None
    assert net.find_qos_policy(qos.id) is None and net.find_qos_policy(qos2.id) is None


TRUNK_TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  sfx: {type: string, default: a}
  seg: {type: number, default: 101}
  parent_port: {type: string, default: parent}
  external: {type: boolean, default: true}
  tenant: {type: string, default: ''}
  gw_net: {type: string, default: public}
conditions:
  parent_b: {equals: [{get_param: parent_port}, parent_b]}
  has_tenant: {not: {equals: [{get_param: tenant}, '']}}
resources:
  parent:
    type: OS::Neutron::Port
    properties: {network: hotc-private}
  parent_b:
    type: OS::Neutron::Port
    properties: {network: hotc-private}
  sub:
    type: OS::Neutron::Port
    properties: {network: hotc-private}
  trunk:
    type: OS::Neutron::Trunk
    properties:
      name: {list_join: ['-', [{get_param: OS::stack_name}, trunk, {get_param: sfx}]]}
      port: {if: [parent_b, {get_resource: parent_b}, {get_resource: parent}]}
      sub_ports: [{port: {get_resource: sub}, segmentation_type: vlan, segmentation_id: {get_param: seg}}]
  pnet:
    type: OS::Neutron::ProviderNet
    properties:
      name: {list_join: ['-', [{get_param: OS::stack_name}, pnet, {get_param: sfx}]]}
      network_type: vxlan
      shared: false
      router_external: {get_param: external}
      tenant_id: {if: [has_tenant, {get_param: tenant}, null]}
  pnet_sub:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: pnet}, cidr: 10.203.0.0/24}
  router:
    type: OS::Neutron::Router
  gw:
    type: OS::Neutron::RouterGateway
    depends_on: [pnet_sub]
    properties: {router_id: {get_resource: router}, network: {get_param: gw_net}}
outputs:
  parent: {value: {get_attr: [trunk, port_id]}}
"""


def test_trunk_provider_net_router_gateway_create_drift_update_replace_import_delete(
    cloud: Any, cloud_tracker: Any, cloud_shared: Any, hotc_cloud_env: dict[str, str], tmp_path: Path
) -> None:
    net = cloud.network
    p = cloud_tracker.prefix
    stack = cloud_tracker.name("trk")
    cloud_tracker.defer("neutron trunks", sweeper(cloud, p))
    (tmp_path / "t.yaml").write_text(TRUNK_TEMPLATE)
    cli = Cli(tmp_path, hotc_cloud_env, "t.yaml")
    values: dict[str, Any] = {}

    out = cli.apply(stack, values)
    [trunk] = [t for t in net.trunks() if t.name == f"{stack}-trunk-a"]
    [pnet] = [n for n in net.networks() if n.name == f"{stack}-pnet-a"]
    [router] = [r for r in net.routers() if str(r.name).startswith(f"{stack}-router-")]
    ports = {
        n: [pt for pt in net.ports() if str(pt.name).startswith(f"{stack}-{n}-")][0]
        for n in ("parent", "sub")
    }
    assert trunk.port_id == ports["parent"].id and f'parent = "{trunk.port_id}"' in out
    assert [(sp["port_id"], sp["segmentation_id"]) for sp in trunk.sub_ports] == [(ports["sub"].id, 101)]
    assert pnet.provider_network_type == "vxlan" and pnet.is_router_external and not pnet.is_shared
    assert router.external_gateway_info["network_id"] == cloud_shared.public_network_id
    cli.no_change(stack, values)

    # drift: the subport removed outside hotc; the router's gateway cleared outside hotc (the gateway is gone)
    net.delete_trunk_subports(trunk.id, [{"port_id": ports["sub"].id}])
    net.update_router(router.id, external_gateway_info={})
    planned = cli.plan(stack, values)
    assert actions(planned) == {"trunk": "update", "gw": "replace"}  # the gateway is made again
    assert planned["trunk"]["changed_paths"] == [["sub_ports"]]
    cli.apply(stack, values, "--refresh")
    assert [sp["port_id"] for sp in net.get_trunk(trunk.id).sub_ports] == [ports["sub"].id]
    assert net.get_router(router.id).external_gateway_info["network_id"] == cloud_shared.public_network_id
    cli.no_change(stack, values)

    # in place: the trunk's name and subport VLAN, the provider network's name and router:external
    values = {"sfx": "b", "seg": 202, "external": "false"}
    assert actions(cli.plan(stack, values)) == {"trunk": "update", "pnet": "update"}
    cli.apply(stack, values)
    t = net.get_trunk(trunk.id)
    assert t.name == f"{stack}-trunk-b" and [sp["segmentation_id"] for sp in t.sub_ports] == [202]
    n = net.get_network(pnet.id)
    assert n.name == f"{stack}-pnet-b" and not n.is_router_external
    cli.no_change(stack, values)

    # Heat refuses a trunk's new parent port (immutable): a plan error, nothing changed
    r = cli.run("plan", "-t", "t.yaml", *cli.params({**values, "parent_port": "parent_b"}), stack)
    assert r.returncode != 0 and "immutable" in r.stdout + r.stderr
    assert net.get_trunk(trunk.id).port_id == ports["parent"].id

    # replaced: the provider network for another project (with its subnet), the gateway on another network
    demo = cloud.identity.find_project("demo")
    values = {**values, "external": "true", "tenant": demo.id}
    assert actions(cli.plan(stack, values)) == {"pnet": "replace", "pnet_sub": "replace"}
    cli.apply(stack, values)
    assert net.find_network(pnet.id) is None
    [pnet2] = [x for x in net.networks() if x.name == f"{stack}-pnet-b"]
    assert pnet2.project_id == demo.id
    values = {**values, "gw_net": pnet2.id}
    assert actions(cli.plan(stack, values)) == {"gw": "replace"}
    cli.apply(stack, values)
    assert net.get_router(router.id).external_gateway_info["network_id"] == pnet2.id
    cli.no_change(stack, values)

    # made outside hotc, imported into another stack, then managed (and deleted) by it
    op = net.create_port(network_id=cloud_shared.private_network_id, name=f"{p}-iparent")
    otrunk = net.create_trunk(port_id=op.id, name=f"{p}-itrunk")
    onet = net.create_network(name=f"{p}-ipnet", provider_network_type="vxlan", shared=False)
    orouter = net.create_router(
        name=f"{p}-irouter", external_gateway_info={"network_id": cloud_shared.public_network_id}
    )
    (tmp_path / "i.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  ip: {{type: OS::Neutron::Port, properties: {{network: hotc-private, name: {p}-iparent}}}}\n"
        f"  it: {{type: OS::Neutron::Trunk, properties: {{port: {{get_resource: ip}}, name: {p}-itrunk}}}}\n"
        f"  pn: {{type: OS::Neutron::ProviderNet, properties: {{name: {p}-ipnet, network_type: vxlan, shared: false}}}}\n"
        f"  r: {{type: OS::Neutron::Router, properties: {{name: {p}-irouter}}}}\n"
        "  g: {type: OS::Neutron::RouterGateway, properties: {router_id: {get_resource: r}, network: public}}\n"
    )
    (tmp_path / "map.json").write_text(
        json.dumps(
            {
                "ip": op.id,
                "it": otrunk.id,
                "pn": onet.id,
                "r": orouter.id,
                "g": f"{orouter.id}:{cloud_shared.public_network_id}",
            }
        )
    )
    other = cloud_tracker.name("imp")
    r = cli.run("import", other, "--file", "map.json", "-t", "i.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    icli = Cli(tmp_path, hotc_cloud_env, "i.yaml")
    icli.no_change(other, {})
    icli.destroy(other)
    assert net.find_trunk(otrunk.id) is None and net.find_port(op.id) is None
    assert net.find_network(onet.id) is None and net.find_router(orouter.id) is None

    cli.destroy(stack)
    assert net.find_trunk(trunk.id) is None and net.find_network(pnet2.id) is None
    assert not (net.get_router(router.id) if net.find_router(router.id) else None)
