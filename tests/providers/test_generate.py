"""``hotc import --generate`` without a cloud: the pure template builder (relations as get_resource, parameters
for image/flavor/key/external network, unique names, no secrets, no defaults), the files it writes (accepted by
``hotc validate`` and by ``hotc import --file``'s map reader), the selection of objects on a fake cloud, and the
command line's refusals."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from hotc.cli.import_cmd import read_map
from hotc.errors import HotcError
from hotc.ops.generate import write_generated
from hotc.providers.generate import Found, build, resource_name
from hotc.providers.openstack.discover import Selection, select
from tests.clirun import run_hotc

NET, SUB, PORT, PORT2 = "n-1", "s-1", "p-1", "p-2"
SG, SRV, VOL, FIP, RTR = "g-1", "v-1", "vol-1", "f-1", "r-1"
IFACE, ATT = f"{RTR}:subnet_id={SUB}", f"{SRV}:{VOL}"
EXT = "ext-net-id"


def found() -> list[Found]:
    return [
        Found(
            "OS::Neutron::Net", NET, "app net", {"name": "app net", "admin_state_up": True, "shared": None}
        ),
        Found(
            "OS::Neutron::Subnet",
            SUB,
            "app-subnet",
            {
                "name": "app-subnet",
                "network": NET,
                "cidr": "10.0.0.0/24",
                "ip_version": 4,
                "enable_dhcp": None,
            },
        ),
        Found(
            "OS::Neutron::Router",
            RTR,
            "edge",
            {"name": "edge", "external_gateway_info": {"network": EXT}, "tags": []},
        ),
        Found("OS::Neutron::RouterInterface", IFACE, "", {"router": RTR, "subnet": SUB}),
        Found(
            "OS::Neutron::SecurityGroup",
            SG,
            "web",
            {
                "name": "web",
                "description": None,
                "rules": [
                    {
                        "direction": "ingress",
                        "ethertype": "IPv4",
                        "protocol": "tcp",
                        "port_range_min": 22,
                        "port_range_max": 22,
                        "remote_mode": "remote_ip_prefix",
                        "remote_ip_prefix": "0.0.0.0/0",
                    }
                ],
            },
        ),
        Found(
            "OS::Neutron::Port",
            PORT,
            "web",
            {
                "name": "web",
                "network": NET,
                "fixed_ips": [{"subnet": SUB, "ip_address": "10.0.0.5"}],
                "security_groups": [SG, "not-selected-sg"],
                "port_security_enabled": True,
            },
        ),
        Found("OS::Neutron::Port", PORT2, "web", {"name": "web", "network": NET}),
        Found("OS::Neutron::FloatingIP", FIP, "172.24.4.9", {"floating_network": EXT, "port_id": PORT}),
        Found(
            "OS::Nova::Server",
            SRV,
            "web",
            {
                "name": "web",
                "image": "img-id",
                "flavor": "m1.tiny",
                "key_name": "ops",
                "admin_pass": "s3cret",
                "user_data": "#!/bin/sh\necho secret",
                "networks": [{"port": PORT}],
                "metadata": {},
                "not_a_property": 1,
            },
        ),
        Found(
            "OS::Cinder::Volume",
            VOL,
            "data",
            {"name": "data", "size": 1, "metadata": None, "volume_type": "__DEFAULT__"},
        ),
        Found("OS::Cinder::VolumeAttachment", ATT, "", {"instance_uuid": SRV, "volume_id": VOL}),
    ]


def test_relations_become_get_resource_and_catalog_values_parameters() -> None:
    g = build(found())
    res = g.template["resources"]
    assert g.template["heat_template_version"] == "2018-08-31"
    names = {pid: addr for addr, pid in g.import_map.items()}
    net, sub, port, sg, srv, vol = (names[i] for i in (NET, SUB, PORT, SG, SRV, VOL))
    assert res[sub]["properties"]["network"] == {"get_resource": net}
    assert res[port]["properties"]["network"] == {"get_resource": net}
    assert res[port]["properties"]["fixed_ips"] == [
        {"subnet": {"get_resource": sub}, "ip_address": "10.0.0.5"}
    ]
    # a group that was not selected stays its id
    assert res[port]["properties"]["security_groups"] == [{"get_resource": sg}, "not-selected-sg"]
    assert res[srv]["properties"]["networks"] == [{"port": {"get_resource": port}}]
    att = res[names[ATT]]["properties"]
    assert att == {"instance_uuid": {"get_resource": srv}, "volume_id": {"get_resource": vol}}
    assert res[names[FIP]]["properties"] == {
        "floating_network": {"get_param": "external_network"},
        "port_id": {"get_resource": port},
    }
    iface = res[names[IFACE]]["properties"]
    assert iface == {"router": {"get_resource": names[RTR]}, "subnet": {"get_resource": sub}}
    assert res[names[RTR]]["properties"]["external_gateway_info"] == {
        "network": {"get_param": "external_network"}
    }
    s = res[srv]["properties"]
    assert (s["image"], s["flavor"], s["key_name"]) == (
        {"get_param": "image"},
        {"get_param": "flavor"},
        {"get_param": "key_name"},
    )
    # one parameter per distinct value: the router and the floating IP share the external network
    assert dict(g.parameters) == {
        "external_network": EXT,
        "image": "img-id",
        "flavor": "m1.tiny",
        "key_name": "ops",
    }
    assert set(g.template["parameters"]) == set(g.parameters)
    assert all(p["type"] == "string" for p in g.template["parameters"].values())


def test_no_secret_no_default_no_unknown_property() -> None:
    g = build(found())
    names = {pid: addr for addr, pid in g.import_map.items()}
    text = yaml.safe_dump(dict(g.template))
    assert "s3cret" not in text and "admin_pass" not in text and "echo secret" not in text
    srv = g.template["resources"][names[SRV]]["properties"]
    assert "not_a_property" not in srv and "metadata" not in srv  # unknown; empty
    net = g.template["resources"][names[NET]]["properties"]
    assert net == {"name": "app net"}  # admin_state_up true is Heat's default; None is "as the default"
    port = g.template["resources"][names[PORT]]["properties"]
    assert "port_security_enabled" not in port
    rule = g.template["resources"][names[SG]]["properties"]["rules"][0]
    # the rule's keys equal to their defaults are left out (ingress, IPv4, remote_ip_prefix mode)
    assert rule == {
        "protocol": "tcp",
        "port_range_min": 22,
        "port_range_max": 22,
        "remote_ip_prefix": "0.0.0.0/0",
    }
    assert "tags" not in g.template["resources"][names[RTR]]["properties"]
    assert g.template["resources"][names[VOL]]["properties"] == {
        "name": "data",
        "size": 1,
    }  # Cinder's default type


def test_subnet_gateway_and_pools_only_when_not_neutrons_choice() -> None:
    def subnet(**props: Any) -> dict[str, Any]:
        g = build([Found("OS::Neutron::Subnet", SUB, "s", {"name": "s", "cidr": "10.1.0.0/24", **props})])
        return dict(g.template["resources"]["s"]["properties"])

    pools = [{"start": "10.1.0.2", "end": "10.1.0.254"}]
    assert subnet(gateway_ip="10.1.0.1", allocation_pools=pools) == {"name": "s", "cidr": "10.1.0.0/24"}
    # a gateway elsewhere: both the gateway and the pools around it are Neutron's when the pools skip it only
    around = [{"start": "10.1.0.1", "end": "10.1.0.99"}, {"start": "10.1.0.101", "end": "10.1.0.254"}]
    assert subnet(gateway_ip="10.1.0.100", allocation_pools=around) == {
        "name": "s",
        "cidr": "10.1.0.0/24",
        "gateway_ip": "10.1.0.100",
    }
    narrow = [{"start": "10.1.0.10", "end": "10.1.0.20"}]
    assert subnet(gateway_ip="10.1.0.1", allocation_pools=narrow)["allocation_pools"] == narrow
    # no gateway is said with "" (Heat's way), not left out
    assert subnet(gateway_ip="", allocation_pools=[{"start": "10.1.0.1", "end": "10.1.0.254"}]) == {
        "name": "s",
        "cidr": "10.1.0.0/24",
        "gateway_ip": "",
    }


def test_a_volume_image_shares_the_servers_image_parameter() -> None:
    g = build(
        [
            Found("OS::Nova::Server", SRV, "vm", {"name": "vm", "image": "img-1", "flavor": "f"}),
            Found("OS::Cinder::Volume", VOL, "boot", {"name": "boot", "size": 1, "image": "img-1"}),
            Found("OS::Cinder::Volume", "vol-2", "data", {"name": "data", "size": 1, "image": "img-2"}),
        ]
    )
    res = g.template["resources"]
    assert res["vm"]["properties"]["image"] == res["boot"]["properties"]["image"] == {"get_param": "image"}
    assert res["data"]["properties"]["image"] == {"get_param": "image_2"}
    assert dict(g.parameters) == {"image": "img-1", "flavor": "f", "image_2": "img-2"}


def test_names_from_object_names_valid_and_unique() -> None:
    g = build(found())
    addrs = list(g.import_map)
    assert len(addrs) == len(set(addrs)) == len(found())
    # three objects named "web" of different types, two ports of the same name
    assert {a for a in addrs if a.startswith("web")} == {"web", "web_2", "web_3", "web_4"}
    assert "app_net" in addrs
    assert "router_interface" in addrs and "volume_attachment" in addrs
    assert resource_name("172.24.4.9", "OS::Neutron::FloatingIP") == "floating_ip_172_24_4_9"
    assert resource_name("proj-x-db", "OS::Nova::Server", strip_prefix="proj-x-") == "db"
    assert resource_name("proj-x-", "OS::Nova::Server", strip_prefix="proj-x-") == "proj-x"


def test_written_files_validate_and_read_as_an_import_map(tmp_path: Path) -> None:
    g = build(found())
    write_generated(tmp_path / "gen", g)
    d = tmp_path / "gen"
    assert sorted(p.name for p in d.iterdir()) == ["import-map.yaml", "parameters.yaml", "template.yaml"]
    text = (d / "template.yaml").read_text()
    assert "#" not in text and text.startswith("heat_template_version: '2018-08-31'")
    assert yaml.safe_load((d / "parameters.yaml").read_text()) == {"parameters": dict(g.parameters)}
    assert read_map(d / "import-map.yaml") == list(g.import_map.items())
    r = run_hotc(tmp_path, "validate", "-t", "gen/template.yaml", "-e", "gen/parameters.yaml")
    assert r.returncode == 0, r.stdout + r.stderr


# -------------------------------------------------------------------------------- selection on a fake cloud


def _o(**kw: Any) -> SimpleNamespace:
    base: dict[str, Any] = {"project_id": "me", "tags": [], "name": ""}
    return SimpleNamespace(**{**base, **kw})


class FakeConn:
    current_project_id = "me"

    def __init__(self) -> None:
        n = SimpleNamespace
        self.network = n(
            networks=lambda: [
                _o(id=NET, name="app-net"),
                _o(id="other-net", name="x-net"),
                _o(id=EXT, name="public", project_id="admin"),
            ],
            subnets=lambda: [_o(id=SUB, name="app-sub", network_id=NET)],
            routers=lambda: [_o(id=RTR, name="app-router")],
            ports=lambda: [
                _o(
                    id=PORT,
                    name="app-port",
                    network_id=NET,
                    device_owner="compute:nova",
                    device_id=SRV,
                    fixed_ips=[{"subnet_id": SUB}],
                    security_group_ids=[SG, "dflt"],
                ),
                _o(
                    id="rp",
                    name="",
                    network_id=NET,
                    device_owner="network:router_interface",
                    device_id=RTR,
                    fixed_ips=[{"subnet_id": SUB}],
                    security_group_ids=[],
                ),
                _o(
                    id="dhcp",
                    name="",
                    network_id=NET,
                    device_owner="network:dhcp",
                    device_id="x",
                    fixed_ips=[{"subnet_id": SUB}],
                    security_group_ids=[],
                ),
                _o(
                    id="lone",
                    name="lone",
                    network_id="other-net",
                    device_owner="",
                    device_id="",
                    fixed_ips=[],
                    security_group_ids=[],
                    tags=["keep"],
                ),
            ],
            security_groups=lambda: [_o(id=SG, name="app-sg"), _o(id="dflt", name="default")],
            ips=lambda: [_o(id=FIP, name="172.24.4.9", port_id=PORT)],
        )
        self.compute = n(
            servers=lambda details: [
                _o(id=SRV, name="app-vm", image={"id": "img"}),
                _o(id="bfv", name="bfv-vm", image=""),
            ]
        )
        self.block_storage = n(
            volumes=lambda details: [
                _o(
                    id=VOL,
                    name="app-vol",
                    attachments=[{"server_id": SRV, "device": "/dev/vdb"}],
                    metadata={},
                    is_bootable=True,
                ),
                _o(id="vol-2", name="other", attachments=[], metadata={}, is_bootable=False),
                _o(
                    id="root",
                    name="bfv-root",
                    attachments=[{"server_id": "bfv", "device": "/dev/vda"}],
                    metadata={},
                    is_bootable=True,
                ),
                _o(
                    id="data",
                    name="bfv-data",
                    attachments=[{"server_id": "bfv", "device": "/dev/vdb"}],
                    metadata={},
                    is_bootable=False,
                ),
            ]
        )


def test_reachable_from_a_network_finds_everything_connected() -> None:
    picked = select(FakeConn(), Selection(reachable_from=NET))
    ids = {pid for _t, pid, _n in picked}
    # the router via its interface, the server via its port, the volume via its attachment, the floating IP via
    # the port; not the router's and DHCP's own ports, not Neutron's default group, not the unconnected objects
    assert ids == {NET, SUB, RTR, IFACE, PORT, SG, FIP, SRV, VOL, ATT}


def test_reachable_from_goes_on_through_objects_another_selector_picked() -> None:
    picked = select(FakeConn(), Selection(name_prefix="app-port", reachable_from=SRV))
    ids = {pid for _t, pid, _n in picked}
    assert {FIP, NET, SUB, SG, VOL, ATT} <= ids


def test_a_server_booted_from_a_volume_has_it_as_its_boot_volume_not_an_attachment() -> None:
    ids = {pid for _t, pid, _n in select(FakeConn(), Selection(reachable_from="bfv"))}
    # the root volume comes with the server (its block_device_mapping_v2), the data volume by its attachment
    assert ids == {"bfv", "root", "data", "bfv:data"}
    # a server booted from an image has no boot volume, even when a bootable volume is attached to it
    assert VOL not in ids and f"{SRV}:{VOL}" in {
        p for _t, p, _n in select(FakeConn(), Selection(ids=(SRV, VOL)))
    }


def test_boot_volume_becomes_get_resource() -> None:
    g = build(
        [
            Found(
                "OS::Nova::Server",
                "bfv",
                "vm",
                {
                    "name": "vm",
                    "flavor": "f",
                    "block_device_mapping_v2": [{"boot_index": 0, "volume_id": "root"}],
                },
            ),
            Found("OS::Cinder::Volume", "root", "root", {"name": "root", "size": 1}),
        ]
    )
    vm = g.template["resources"]["vm"]["properties"]
    assert vm["block_device_mapping_v2"] == [{"boot_index": 0, "volume_id": {"get_resource": "root"}}]
    assert "image" not in vm


def test_selection_by_id_prefix_and_tag() -> None:
    by_id = select(FakeConn(), Selection(ids=(VOL, SRV)))
    assert {pid for _t, pid, _n in by_id} == {VOL, SRV, ATT}  # the attachment between two picked objects
    assert [t for t, _p, _n in by_id] == [
        "OS::Nova::Server",
        "OS::Cinder::Volume",
        "OS::Cinder::VolumeAttachment",
    ]
    assert {pid for _t, pid, _n in select(FakeConn(), Selection(tag="keep"))} == {"lone"}
    assert {pid for _t, pid, _n in select(FakeConn(), Selection(name_prefix="x-"))} == {"other-net"}


def test_unknown_id_or_nothing_selected_is_an_error() -> None:
    with pytest.raises(HotcError, match="--id nope: no network"):
        select(FakeConn(), Selection(ids=("nope",)))
    with pytest.raises(HotcError, match="nothing was selected"):
        select(FakeConn(), Selection(name_prefix="zzz"))
    with pytest.raises(HotcError, match="--reachable-from"):
        select(FakeConn(), Selection(reachable_from=VOL))
    with pytest.raises(HotcError, match="--id"):
        select(FakeConn(), Selection(ids=(EXT,)))  # another project's network is not this project's


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--id", "x"], "go with --generate"),
        (["--generate", "g", "-t", "t.yaml", "--id", "x"], "give no ADDRESS, -t"),
        (["--generate", "g"], "needs a selection"),
    ],
)
def test_command_line_refusals(tmp_path: Path, args: list[str], message: str) -> None:
    r = run_hotc(tmp_path, "import", "stk", *args, env={"OS_CLOUD": "none-such"})
    assert r.returncode != 0 and message in r.stderr, r.stdout + r.stderr
    assert not (tmp_path / "g").exists()
