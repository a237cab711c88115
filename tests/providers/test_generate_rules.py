"""``hotc import --generate``'s rules for key pairs, server groups, Octavia and the loops Heat refuses, without a
cloud: the builder from fixture objects, the selection and the reads on a fake cloud."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hotc.errors import HotcError
from hotc.ops.generate import write_generated
from hotc.providers.base import Outcome
from hotc.providers.generate import Found, build
from hotc.providers.openstack.discover import Picked, Selection, nic_order, pick, read_found
from tests.clirun import run_hotc

SG = "OS::Neutron::SecurityGroup"


def _res(g: Any) -> dict[str, Any]:
    return dict(g.template["resources"])


def test_a_rule_on_its_own_group_names_no_group() -> None:
    own = {"protocol": "tcp", "remote_mode": "remote_group_id", "remote_group_id": "g-web"}
    other = {"protocol": "tcp", "port_range_min": 5432, "port_range_max": 5432, **own}
    g = build(
        [
            Found(SG, "g-web", "web", {"name": "web", "rules": [own]}),
            Found(SG, "g-db", "db", {"name": "db", "rules": [{**other, "remote_group_id": "g-web"}]}),
        ]
    )
    res = _res(g)
    # Heat reads remote_mode remote_group_id with no group as the rule's own group; a get_resource of itself
    # would be a loop Heat refuses
    assert res["web"]["properties"]["rules"] == [{"protocol": "tcp", "remote_mode": "remote_group_id"}]
    assert res["db"]["properties"]["rules"][0]["remote_group_id"] == {"get_resource": "web"}


def test_a_key_pair_keeps_its_own_name_and_the_server_refers_to_it() -> None:
    g = build(
        [
            Found("OS::Nova::KeyPair", "ops", "ops", {"name": "ops", "public_key": "ssh-ed25519 AAA x"}),
            Found("OS::Nova::ServerGroup", "sg-1", "pack", {"name": "pack", "policies": ["affinity"]}),
            Found(
                "OS::Nova::Server",
                "vm-1",
                "vm",
                {"name": "vm", "key_name": "ops", "scheduler_hints": {"group": "sg-1"}, "flavor": "f"},
            ),
        ]
    )
    res = _res(g)
    assert res["ops"]["properties"] == {"name": "ops", "public_key": "ssh-ed25519 AAA x"}
    assert res["pack"]["properties"] == {"name": "pack", "policies": ["affinity"]}
    vm = res["vm"]["properties"]
    assert vm["key_name"] == {"get_resource": "ops"}
    assert vm["scheduler_hints"] == {"group": {"get_resource": "pack"}}
    assert "key_name" not in g.parameters


def test_octavia_chain_without_loops() -> None:
    g = build(
        [
            Found("OS::Octavia::LoadBalancer", "lb-1", "lb", {"name": "lb", "vip_subnet": "s-1"}),
            Found(
                "OS::Octavia::Listener",
                "l-1",
                "web",
                {"name": "web", "loadbalancer": "lb-1", "protocol": "HTTP", "protocol_port": 80,
                 "default_pool": "p-1", "connection_limit": -1},
            ),
            Found(
                "OS::Octavia::Pool",
                "p-1",
                "pool",
                {"name": "pool", "listener": "l-1", "loadbalancer": "lb-1", "protocol": "HTTP",
                 "lb_algorithm": "ROUND_ROBIN"},
            ),
            Found(
                "OS::Octavia::Pool",
                "p-2",
                "spare",
                {"name": "spare", "loadbalancer": "lb-1", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
            ),
            Found(
                "OS::Octavia::Listener",
                "l-2",
                "alt",
                {"name": "alt", "loadbalancer": "lb-1", "protocol": "HTTP", "protocol_port": 81,
                 "default_pool": "p-2"},
            ),
            Found(
                "OS::Octavia::PoolMember",
                "m-1",
                "",
                {"pool": "p-1", "address": "10.0.0.5", "protocol_port": 80, "subnet": "s-1", "weight": 1},
            ),
            Found("OS::Octavia::HealthMonitor", "h-1", "", {"pool": "p-1", "type": "HTTP", "delay": 5}),
        ]
    )  # fmt: skip
    res = _res(g)
    # the listener's default pool is the pool made on it: the pool names the listener, not the other way
    assert "default_pool" not in res["web"]["properties"]
    assert res["pool"]["properties"]["listener"] == {"get_resource": "web"}
    assert "loadbalancer" not in res["pool"]["properties"]
    # a pool on the load balancer alone can be a listener's default pool: no loop
    assert res["alt"]["properties"]["default_pool"] == {"get_resource": "spare"}
    assert res["spare"]["properties"]["loadbalancer"] == {"get_resource": "lb"}
    assert res["member"]["properties"] == {
        "pool": {"get_resource": "pool"},
        "address": "10.0.0.5",
        "protocol_port": 80,
        "subnet": {"get_param": "subnet"},
    }
    assert res["health_monitor"]["properties"] == {
        "pool": {"get_resource": "pool"},
        "type": "HTTP",
        "delay": 5,
    }
    # the subnet was not picked: one parameter for both uses
    assert res["lb"]["properties"]["vip_subnet"] == {"get_param": "subnet"}
    assert g.parameters == {"subnet": "s-1"}


def test_networks_and_subnets_not_picked_and_the_default_group_become_parameters() -> None:
    g = build(
        [
            Found(
                "OS::Neutron::Port",
                "p-1",
                "a",
                {
                    "name": "a",
                    "network": "other-net",
                    "fixed_ips": [
                        {"subnet": "other-sub", "ip_address": "10.0.0.9"},
                        {"ip_address": "10.0.1.9"},
                    ],
                    "security_groups": ["dflt", "g-1"],
                },
            ),
            Found(
                "OS::Neutron::Port",
                "p-2",
                "b",
                {"name": "b", "network": "net-2", "security_groups": ["dflt"]},
            ),
            Found("OS::Neutron::Net", "net-2", "net2", {"name": "net2"}),
        ],
        default_groups=frozenset({"dflt"}),
    )
    res = _res(g)
    a = res["a"]["properties"]
    assert a["network"] == {"get_param": "network"}
    assert a["fixed_ips"] == [
        {"subnet": {"get_param": "subnet"}, "ip_address": "10.0.0.9"},
        {"ip_address": "10.0.1.9"},
    ]
    assert a["security_groups"] == [{"get_param": "default_security_group"}, "g-1"]
    assert res["b"]["properties"]["network"] == {"get_resource": "net2"}
    assert g.parameters == {"network": "other-net", "subnet": "other-sub", "default_security_group": "dflt"}
    assert set(g.template["parameters"]) == set(g.parameters)


def test_generated_octavia_and_nova_template_validates(tmp_path: Path) -> None:
    g = build(
        [
            Found("OS::Nova::KeyPair", "ops", "ops", {"name": "ops", "public_key": "ssh-ed25519 AAA x"}),
            Found("OS::Octavia::LoadBalancer", "lb-1", "lb", {"name": "lb", "vip_subnet": "s-1"}),
            Found(
                "OS::Octavia::Listener",
                "l-1",
                "web",
                {"loadbalancer": "lb-1", "protocol": "HTTP", "protocol_port": 80, "default_pool": "p-1"},
            ),
            Found(
                "OS::Octavia::Pool",
                "p-1",
                "pool",
                {"listener": "l-1", "protocol": "HTTP", "lb_algorithm": "ROUND_ROBIN"},
            ),
            Found("OS::Octavia::HealthMonitor", "h-1", "", {"pool": "p-1", "type": "HTTP", "delay": 5,
                                                             "timeout": 3, "max_retries": 2}),
        ]
    )  # fmt: skip
    write_generated(tmp_path / "gen", g)
    r = run_hotc(tmp_path, "validate", "-t", "gen/template.yaml", "-e", "gen/parameters.yaml")
    assert r.returncode == 0, r.stdout + r.stderr


# ------------------------------------------------------------------------------------------- on a fake cloud


def _o(**kw: Any) -> SimpleNamespace:
    base: dict[str, Any] = {"project_id": "me", "tags": [], "name": ""}
    return SimpleNamespace(**{**base, **kw})


def _port(pid: str, net: str, sub: str, device: str = "", owner: str = "", mac: str = "") -> SimpleNamespace:
    return _o(
        id=pid,
        name=pid,
        network_id=net,
        device_id=device,
        device_owner=owner,
        fixed_ips=[{"subnet_id": sub}],
        security_group_ids=[],
        mac_address=mac,
    )


class OctaviaConn:
    """A project with a network, a subnet, a server in a server group, a key pair, and a load balancer chain
    whose member is on that subnet; the load balancer's VIP port on the network."""

    current_project_id = "me"

    def __init__(self) -> None:
        n = SimpleNamespace
        self.network = n(
            networks=lambda: [_o(id="net", name="net")],
            subnets=lambda: [_o(id="sub", name="sub", network_id="net")],
            routers=lambda: [],
            ports=lambda: [
                _port("p-vm", "net", "sub", "vm", "compute:nova"),
                _port("p-vip", "net", "sub", "lb", "Octavia"),
            ],
            security_groups=lambda: [_o(id="dflt", name="default")],
            ips=lambda: [],
        )
        self.compute = n(
            servers=lambda details: [_o(id="vm", name="vm", image={"id": "img"})],
            keypairs=lambda: [_o(id="ops", name="ops")],
            server_groups=lambda: [_o(id="grp", name="grp", member_ids=["vm"])],
        )
        self.block_storage = n(volumes=lambda details: [])
        self.load_balancer = n(
            load_balancers=lambda: [_o(id="lb", name="lb", vip_subnet_id="sub")],
            listeners=lambda: [_o(id="l", name="l", load_balancers=[{"id": "lb"}], default_pool_id="p")],
            pools=lambda: [
                _o(
                    id="p",
                    name="p",
                    loadbalancers=[{"id": "lb"}],
                    listeners=[{"id": "l"}],
                    health_monitor_id="h",
                )
            ],
            members=lambda pool: [_o(id="m", name="m", subnet_id="sub")] if pool == "p" else [],
            health_monitors=lambda: [_o(id="h", name="h", pools=[{"id": "p"}])],
        )


def test_reachable_from_a_network_finds_the_octavia_chain_and_the_server_group() -> None:
    got = pick(OctaviaConn(), Selection(reachable_from="net"))
    ids = [oid for _t, oid, _n in got.objects]
    # the VIP port is Octavia's; the key pair is picked by id or name prefix alone
    assert set(ids) == {"net", "sub", "p-vm", "grp", "vm", "lb", "l", "p", "m", "h"}
    assert (
        ids.index("grp")
        < ids.index("vm")
        < ids.index("lb")
        < ids.index("l")
        < ids.index("p")
        < ids.index("m")
    )
    assert got.extra == {"m": {"pool": "p"}, "vm": {"scheduler_hints": {"group": "grp"}}}
    assert got.default_groups == frozenset({"dflt"})


def test_a_key_pair_is_picked_by_its_name_or_name_prefix() -> None:
    assert [o[:2] for o in pick(OctaviaConn(), Selection(ids=("ops",))).objects] == [
        ("OS::Nova::KeyPair", "ops")
    ]
    assert {o[1] for o in pick(OctaviaConn(), Selection(name_prefix="op")).objects} == {"ops"}
    with pytest.raises(HotcError, match="nothing was selected"):
        pick(OctaviaConn(), Selection(tag="ops"))


def test_nic_order_follows_the_servers_addresses() -> None:
    server = SimpleNamespace(
        addresses={
            "b": [{"addr": "10.0.1.5", "OS-EXT-IPS-MAC:mac_addr": "FA:16:3E:00:00:02"}],
            "a": [
                {"addr": "10.0.0.5", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
                {"addr": "172.24.4.9", "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
            ],
        }
    )
    ports = [
        _port("p-a", "a", "sa", mac="fa:16:3e:00:00:01"),
        _port("p-new", "a", "sa", mac="fa:16:3e:00:00:09"),
        _port("p-b", "b", "sb", mac="fa:16:3e:00:00:02"),
    ]
    assert [p.id for p in nic_order(server, ports)] == ["p-b", "p-a", "p-new"]


class _Driver:
    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.probes: dict[str, dict[str, Any]] = {}

    def read(self, ctx: Any, physical_id: str, props: Any) -> Outcome | None:
        self.probes[physical_id] = dict(props)
        if physical_id == self.fail:
            raise HotcError("boom")
        out = {"name": physical_id}
        if "pool" in props:
            out["weight"] = 1
        if ctx.type == "OS::Neutron::Port":
            out["security_groups"] = ["dflt"]
        return Outcome(physical_id=physical_id, properties=out)


def test_reads_keep_the_order_picked_and_add_what_the_pick_knew() -> None:
    objects = tuple(("OS::Neutron::Net", f"n-{i:02}", f"n{i}") for i in range(20))
    objects += (("OS::Octavia::PoolMember", "m", ""), ("OS::Neutron::Port", "pt", "pt"))
    driver = _Driver()
    picked = Picked(objects=objects, extra={"m": {"pool": "p"}}, default_groups=frozenset({"dflt"}))
    found = read_found(None, picked, lambda _t: driver, lambda: None)
    assert [f.id for f in found] == [o[1] for o in objects]
    assert driver.probes["m"]["pool"] == "p"
    member = next(f for f in found if f.id == "m")
    assert member.properties["pool"] == "p"  # the pool it was read through
    port = next(f for f in found if f.id == "pt")
    assert "security_groups" not in port.properties  # the default group alone is what Neutron gives anyway


def test_a_failed_read_writes_nothing_and_says_which_object() -> None:
    objects = tuple(("OS::Neutron::Net", f"n-{i:02}", f"n{i}") for i in range(12))
    with pytest.raises(HotcError, match="reading OS::Neutron::Net n-07: boom; nothing was written"):
        read_found(None, Picked(objects=objects, extra={}), lambda _t: _Driver(fail="n-07"), lambda: None)


def test_groups_whose_rules_name_each_other_keep_one_id(tmp_path: Path) -> None:
    def rule(other: str) -> dict[str, Any]:
        return {"protocol": "tcp", "remote_mode": "remote_group_id", "remote_group_id": other}

    g = build(
        [
            Found(SG, "g-a", "a", {"name": "a", "rules": [rule("g-b")]}),
            Found(SG, "g-b", "b", {"name": "b", "rules": [rule("g-c"), rule("g-b")]}),
            Found(SG, "g-c", "c", {"name": "c", "rules": [rule("g-a")]}),
            Found(SG, "g-d", "d", {"name": "d", "rules": [rule("g-a"), rule("g-c")]}),
        ]
    )
    res = _res(g)

    def remote(name: str) -> list[Any]:
        return [r.get("remote_group_id") for r in res[name]["properties"]["rules"]]

    # a -> b -> c -> a is a loop Heat refuses: the rule that closes it names a by its id; the others, and the
    # rules of a group outside the loop, are get_resource
    assert remote("a") == [{"get_resource": "b"}]
    assert remote("b") == [{"get_resource": "c"}, None]
    assert remote("c") == ["g-a"] and type(remote("c")[0]) is str
    assert remote("d") == [{"get_resource": "a"}, {"get_resource": "c"}]
    write_generated(tmp_path / "gen", g)
    r = run_hotc(tmp_path, "validate", "-t", "gen/template.yaml", "-e", "gen/parameters.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
