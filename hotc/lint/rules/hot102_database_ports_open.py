"""HOT102: a security group lets the whole internet reach a database, cache or broker port."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import DATABASE_PORTS, port_hits, sg_rules
from hotc.lint.view import ResourceView


def check(res: ResourceView) -> Iterator[Outcome]:
    for rule in sg_rules(res):
        if isinstance(rule, tuple):
            yield cannot_tell(rule[0], rule[1])
            continue
        if rule.ingress is False or rule.icmp:
            continue
        world = rule.open_to_world()
        if world is False:
            continue
        if rule.ingress is None or world is None or rule.ports_unknown():
            yield cannot_tell(
                "the rule's direction, remote address or ports are not known before apply", rule.pos
            )
            continue
        if rule.all_ports():
            continue  # every port open to the world: HOT103
        for port, what in port_hits(rule, DATABASE_PORTS):
            yield finding(f"ingress {rule.describe()} opens {what} (port {port}) to the internet", rule.pos)


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
