"""HOT402: a load balancer listener publishes an administrative or database port to every address."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.rules._common import ADMIN_PORTS, DATABASE_PORTS, is_world
from hotc.lint.view import ResourceView, unknown

SENSITIVE = {**ADMIN_PORTS, **DATABASE_PORTS}


def check(res: ResourceView) -> Iterator[Outcome]:
    port = res.get("protocol_port", None)
    cidrs = res.get("allowed_cidrs", None)
    where = res.pos_at("protocol_port")
    if unknown(port):
        yield cannot_tell("the listener's protocol_port is not known before apply", where)
        return
    if not isinstance(port, int) or port not in SENSITIVE:
        return
    if unknown(cidrs):
        yield cannot_tell("allowed_cidrs is not known before apply", res.pos_at("allowed_cidrs"))
        return
    if cidrs in (None, []) or (isinstance(cidrs, list) and any(is_world(c) for c in cidrs)):
        said = "no allowed_cidrs" if cidrs in (None, []) else "allowed_cidrs holds every address"
        yield finding(f"port {port} ({SENSITIVE[port]}) is published with {said}: anyone can reach it", where)


RULE = Rule(
    id="HOT402",
    name="ListenerSensitivePortOpen",
    severity=Level.HIGH,
    title="Load balancer publishes an administrative or database port to everyone",
    types=("OS::Octavia::Listener",),
    rationale=(
        "A listener on SSH, RDP or a database port with no allowed_cidrs accepts connections from every "
        "address that reaches the VIP: with the VIP on a floating IP, from the internet."
    ),
    fix="List the client networks in allowed_cidrs, or do not publish the port through the load balancer.",
    good="""
heat_template_version: 2018-08-31
resources:
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: lb, protocol: TCP, protocol_port: 3306, allowed_cidrs: [10.0.0.0/16]}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: lb, protocol: TCP, protocol_port: 22}
""",
    check_resource=check,
)
