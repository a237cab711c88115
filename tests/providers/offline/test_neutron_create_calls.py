"""A Neutron create is its POST and the PUT of hotc's tags: the POST's answer (with the tags set) is what the
create records, with no GET after it, unless the driver changes the object after the POST (a security group's
rules), when it reads the object back."""

from __future__ import annotations

from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver

NET, PORT, SG = "OS::Neutron::Net", "OS::Neutron::Port", "OS::Neutron::SecurityGroup"


def test_a_net_create_is_a_post_and_a_tag_put_and_records_the_tags(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "net", NET)
    conn.cloud.calls.clear()
    out = driver(NET).create(ctx, {"name": "n1", "tags": ["blue"]})
    assert conn.cloud.methods() == ["network.create_network", "network.set_tags"]
    assert out.attributes["status"] == "ACTIVE"
    assert "blue" in out.attributes["show"]["tags"]
    assert f"hotc-lineage={ctx.lineage}" in out.attributes["show"]["tags"]


def test_a_port_create_reads_no_port_back(conn: FakeConnection) -> None:
    net = driver(NET).create(ctx_for(conn, "net", NET), {"name": "n1"})
    conn.cloud.calls.clear()
    out = driver(PORT).create(ctx_for(conn, "port", PORT), {"network": net.physical_id})
    assert "network.get_port" not in conn.cloud.methods()
    assert out.attributes["network_id"] == net.physical_id


def test_a_security_group_is_read_back_after_its_rules_are_made(conn: FakeConnection) -> None:
    ctx = ctx_for(conn, "sg", SG)
    conn.cloud.calls.clear()
    rules = [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}]
    driver(SG).create(ctx, {"name": "web", "rules": rules})
    methods = conn.cloud.methods()
    assert methods.index("network.create_security_group_rule") < methods.index("network.get_security_group")
