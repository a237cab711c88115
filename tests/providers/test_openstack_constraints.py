"""Custom constraints: the pure ones without a cloud, the cloud ones against the real test cloud."""

from __future__ import annotations

from typing import Any

import pytest

from hotc.providers.openstack.constraints import check_custom_constraint, is_known, needs_cloud


@pytest.mark.parametrize(
    ("name", "good", "bad", "why"),
    [
        ("ip_addr", "10.0.0.1", "10.0.0.300", "not a valid IP address"),
        ("ip_addr", "fd00::1", "fd00:::1", "not a valid IP address"),
        ("net_cidr", "10.0.0.0/24", "10.0.0.0", "expected ADDRESS/PREFIX"),
        ("net_cidr", "2001:db8::/64", "10.0.0.0/33", "not a valid CIDR"),
        ("mac_addr", "fa:16:3e:00:00:01", "fa:16:3e:00:01", "not a valid MAC address"),
        ("dns_name", "www.example.com.", "-bad.example.com", "bad label"),
        ("rel_dns_name", "www", "www.example.com.", "must not end with"),
        ("iso_8601", "2026-01-02T03:04:05Z", "yesterday", "not an ISO 8601 time"),
        ("expiration", "2999-01-01T00:00:00Z", "2001-01-01T00:00:00Z", "in the past"),
        ("timezone", "Europe/Paris", "Mars/Olympus", "not a known time zone"),
        ("cron_expression", "*/5 * * * *", "* *", "5 to 7 fields"),
    ],
)
def test_pure_constraints(name: str, good: str, bad: str, why: str) -> None:
    assert not needs_cloud(name) and is_known(name)
    assert check_custom_constraint(name, good, None) is None
    msg = check_custom_constraint(name, bad, None)
    assert msg is not None and why in msg


def test_unknown_constraint_is_not_checked_and_lists_check_every_item() -> None:
    assert not is_known("sahara.plugin")
    assert check_custom_constraint("sahara.plugin", "anything", None) is None
    assert check_custom_constraint("ip_addr", ["10.0.0.1", "10.0.0.2"], None) is None
    assert "10.0.0.x" in (check_custom_constraint("ip_addr", ["10.0.0.1", "10.0.0.x"], None) or "")


@pytest.mark.cloud
def test_cloud_constraints(cloud: Any, cloud_shared: Any) -> None:
    good = {
        "nova.flavor": [cloud_shared.flavor_name, cloud_shared.flavor_id],
        "glance.image": [cloud_shared.image_name, cloud_shared.image_id],
        "neutron.network": [cloud_shared.private_network_name, cloud_shared.public_network_id],
        "neutron.subnet": [cloud_shared.private_subnet_name, cloud_shared.private_subnet_id],
        "neutron.router": [cloud_shared.router_name],
        "neutron.security_group": ["default"],
        "keystone.project": ["admin"],
        "nova.host": [next(iter(cloud.compute.services())).host],
    }
    for name, values in good.items():
        assert needs_cloud(name)
        for v in values:
            assert check_custom_constraint(name, v, cloud) is None, (name, v)
    for name in (
        "nova.flavor",
        "glance.image",
        "neutron.network",
        "neutron.subnet",
        "neutron.port",
        "neutron.router",
        "neutron.security_group",
        "cinder.volume",
        "octavia.loadbalancer",
        "nova.keypair",
        "cinder.vtype",
        "octavia.pool",
    ):
        msg = check_custom_constraint(name, "hotc-no-such-thing", cloud)
        assert msg is not None and "'hotc-no-such-thing' not found" in msg, (name, msg)


def test_parameter_and_property_diagnostics_without_cloud() -> None:
    from hotc.errors import Pos
    from hotc.parser.ir import Constraint, Parameter
    from hotc.providers.openstack.constraints import parameter_diagnostics, property_diagnostics
    from hotc.providers.registry import get_schema
    from hotc.values import Unknown

    pos = Pos("t.yaml", 4, 7)
    params = [
        Parameter(
            "addr", "string", constraints=(Constraint("custom_constraint", "ip_addr", "an address", pos),)
        ),
        Parameter("img", "string", constraints=(Constraint("custom_constraint", "glance.image"),)),
        Parameter("later", "string", constraints=(Constraint("custom_constraint", "ip_addr"),)),
    ]
    diags = parameter_diagnostics(params, {"addr": "1.2.3", "img": "nope", "later": Unknown()}, None)
    assert [str(d) for d in diags] == [
        "t.yaml:4:7: error: parameter 'addr' is invalid: '1.2.3' is not a valid IP address (an address)"
    ]
    rtype = get_schema("OS::Neutron::Port")
    assert rtype is not None
    diags = property_diagnostics(
        rtype,
        {"network": "n", "mac_address": "zz", "fixed_ips": [{"ip_address": "10.0.0.999"}]},
        "port",
        None,
    )
    msgs = sorted(d.message for d in diags)
    assert any("property mac_address: 'zz' is not a valid MAC address" in m for m in msgs), msgs
    assert any("property fixed_ips[0].ip_address: '10.0.0.999'" in m for m in msgs), msgs


@pytest.mark.cloud
def test_property_diagnostics_against_the_cloud(cloud: Any, cloud_shared: Any) -> None:
    from hotc.providers.openstack.constraints import property_diagnostics
    from hotc.providers.registry import get_schema

    rtype = get_schema("OS::Nova::Server")
    assert rtype is not None
    ok = {
        "flavor": cloud_shared.flavor_name,
        "image": cloud_shared.image_name,
        "networks": [{"network": cloud_shared.private_network_name}],
    }
    assert property_diagnostics(rtype, ok, "web", cloud) == []
    bad = {**ok, "flavor": "m9.huge", "networks": [{"network": "no-such-net"}]}
    msgs = sorted(d.message for d in property_diagnostics(rtype, bad, "web", cloud))
    assert msgs == [
        "web: property flavor: flavor 'm9.huge' not found (neither an id nor the name of one)",
        "web: property networks[0].network: network 'no-such-net' not found (neither an id nor the "
        "name of one)",
    ]
