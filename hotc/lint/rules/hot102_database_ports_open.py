"""HOT102: a security group lets the whole internet reach a database, cache or broker port."""

from __future__ import annotations

from hotc.lint.rule import Level, Rule
from hotc.lint.rules._common import DATABASE_PORTS, named_ports_open

check = named_ports_open(DATABASE_PORTS)

RULE = Rule(
    id="HOT102",
    name="DatabasePortOpenToWorld",
    severity=Level.HIGH,
    title="Database, cache or message-broker port open to the world",
    types=("OS::Neutron::SecurityGroup", "OS::Neutron::SecurityGroupRule"),
    rationale=(
        "MySQL, PostgreSQL, SQL Server, Oracle, MongoDB, Redis, memcached, Elasticsearch, CouchDB, RabbitMQ, "
        "etcd, Cassandra and InfluxDB reachable from 0.0.0.0/0 are found by scanners within hours; many answer "
        "without authentication by default, and memcached is an amplification vector."
    ),
    fix=(
        "Allow the port only from the application tier: remote_mode: remote_group_id with the application "
        "servers' security group, or remote_ip_prefix of the private subnet."
    ),
    good="""
heat_template_version: 2018-08-31
resources:
  app_sg:
    type: OS::Neutron::SecurityGroup
  db_sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 3306, port_range_max: 3306, remote_mode: remote_group_id,
           remote_group_id: {get_resource: app_sg}}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  db_rule:
    type: OS::Neutron::SecurityGroupRule
    properties:
      security_group: db
      port_range_min: 5432
      port_range_max: 5432
      remote_ip_prefix: "::/0"
""",
    check_resource=check,
)
