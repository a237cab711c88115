"""HOT401: a load balancer listener serves plain HTTP."""

from __future__ import annotations

from collections.abc import Iterator

from hotc.lint.rule import Level, Outcome, Rule, cannot_tell, finding
from hotc.lint.view import ResourceView, unknown


def check(res: ResourceView) -> Iterator[Outcome]:
    protocol = res.get("protocol", None)
    where = res.pos_at("protocol")
    if unknown(protocol):
        yield cannot_tell("the listener's protocol is not known before apply", where)
        return
    if protocol != "HTTP":
        return
    port = res.get("protocol_port", None)
    on = f" on port {port}" if isinstance(port, int) else ""
    yield finding(
        f"protocol HTTP{on}: requests, cookies and credentials cross the network in clear "
        "(Octavia can terminate TLS: TERMINATED_HTTPS with a Barbican certificate)",
        where,
    )


RULE = Rule(
    id="HOT401",
    name="ListenerPlainHttp",
    severity=Level.MEDIUM,
    title="Load balancer listener on plain HTTP",
    types=("OS::Octavia::Listener",),
    rationale=(
        "An HTTP listener carries sessions and passwords in clear between the clients and the cloud; Octavia "
        "terminates TLS itself (TERMINATED_HTTPS with a certificate container in Barbican), so plain HTTP is "
        "only needed to redirect to HTTPS."
    ),
    fix=(
        "Use protocol TERMINATED_HTTPS with default_tls_container_ref (an OS::Barbican::GenericContainer or "
        "certificate container); keep an HTTP listener only to redirect (an L7 policy REDIRECT_PREFIX), and "
        "suppress the finding on it with that reason."
    ),
    good="""
heat_template_version: 2018-08-31
parameters:
  cert_container: {type: string, default: "https://barbican.example.com/v1/containers/5f1e"}
resources:
  listener:
    type: OS::Octavia::Listener
    properties:
      loadbalancer: lb
      protocol: TERMINATED_HTTPS
      protocol_port: 443
      default_tls_container_ref: {get_param: cert_container}
""",
    bad="""
heat_template_version: 2018-08-31
resources:
  listener:
    type: OS::Octavia::Listener
    properties: {loadbalancer: lb, protocol: HTTP, protocol_port: 80}
""",
    check_resource=check,
)
