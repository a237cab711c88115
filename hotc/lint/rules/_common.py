"""What several rules share: reading security-group rules (and the checks of the port-family rules built on
them), a port's settings on a port or a server, Keystone grants, secret-looking names and literal secrets."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hotc.errors import Pos
from hotc.lint.rule import Outcome, ResourceCheck, cannot_tell, finding
from hotc.lint.view import ResourceView, literal_strings, unknown
from hotc.parser.api import MISSING, Expr, FunctionCall, ListExpr, Literal, MapExpr

# ------------------------------------------------------------------------------------------ ports

ADMIN_PORTS: Mapping[int, str] = {
    22: "SSH",
    23: "Telnet",
    3389: "RDP",
    5900: "VNC",
    5985: "WinRM",
    5986: "WinRM over TLS",
    2375: "the Docker API",
    2376: "the Docker API over TLS",
    6443: "the Kubernetes API",
    10250: "the kubelet API",
}

DATABASE_PORTS: Mapping[int, str] = {
    3306: "MySQL",
    5432: "PostgreSQL",
    1433: "SQL Server",
    1521: "Oracle",
    27017: "MongoDB",
    6379: "Redis",
    11211: "memcached",
    9200: "Elasticsearch",
    9300: "Elasticsearch transport",
    5984: "CouchDB",
    5672: "RabbitMQ",
    2379: "etcd",
    9042: "Cassandra",
    8086: "InfluxDB",
}

WORLD_PREFIXES = ("0.0.0.0/0", "::/0")
ICMP = ("icmp", "icmpv6", "ipv6-icmp", "1", "58")


def is_world(prefix: Any) -> bool:
    """The prefix is every address (0.0.0.0/0, ::/0, and the same written otherwise)."""
    if not isinstance(prefix, str):
        return False
    try:
        return ipaddress.ip_network(prefix.strip(), strict=False).prefixlen == 0
    except ValueError:
        return False


class SgRule:
    """One ingress/egress rule of a security group (an item of ``rules``, or an OS::Neutron::SecurityGroupRule),
    with Heat's defaults applied."""

    def __init__(self, values: Mapping[str, Any], pos: Pos | None, standalone: bool) -> None:
        self.values = values
        self.pos = pos
        self.direction = values.get("direction", "ingress")
        # a SecurityGroup's rule has no protocol default (any); the standalone rule's default is tcp
        self.protocol = values.get("protocol", "tcp" if standalone else None)
        if isinstance(self.protocol, int):
            self.protocol = str(self.protocol)
        self.lo = values.get("port_range_min")
        self.hi = values.get("port_range_max")
        remote_mode = values.get("remote_mode", "remote_ip_prefix")
        group = values.get("remote_group" if standalone else "remote_group_id")
        self.by_group = (remote_mode == "remote_group_id" and not standalone) or group not in (None, MISSING)
        self.prefix = values.get("remote_ip_prefix")
        self.mode_unknown = unknown(remote_mode) or unknown(group)

    @property
    def ingress(self) -> bool | None:
        if unknown(self.direction):
            return None
        return bool(self.direction == "ingress")

    def open_to_world(self) -> bool | None:
        """From anywhere: remote_ip_prefix 0.0.0.0/0 or ::/0, or neither a prefix nor a remote group (Neutron
        then allows every address). None: cannot tell."""
        if self.by_group:
            return False
        if self.mode_unknown:
            return None
        if self.prefix in (None, MISSING, ""):
            return True
        if unknown(self.prefix):
            return None
        return is_world(self.prefix)

    @property
    def icmp(self) -> bool:
        return isinstance(self.protocol, str) and self.protocol.lower() in ICMP

    def ports_unknown(self) -> bool:
        return unknown(self.protocol) or unknown(self.lo) or unknown(self.hi)

    def all_ports(self) -> bool:
        """No port range on a protocol that has ports (or any protocol): every port."""
        if self.icmp:
            return False
        return self.lo in (None, MISSING) and self.hi in (None, MISSING)

    def port_range(self) -> tuple[int, int] | None:
        """The port range (None when the rule gives none or the protocol has no ports)."""
        if self.icmp or self.all_ports():
            return None
        lo = self.lo if isinstance(self.lo, int) else (self.hi if isinstance(self.hi, int) else None)
        hi = self.hi if isinstance(self.hi, int) else lo
        if lo is None or hi is None:
            return None
        return (lo, hi)

    def describe(self) -> str:
        proto = self.protocol if self.protocol not in (None, MISSING) else "any protocol"
        rng = self.port_range()
        where = self.prefix if isinstance(self.prefix, str) and self.prefix else "anywhere"
        if rng is None:
            ports = "every port" if not self.icmp else ""
        elif rng[0] == rng[1]:
            ports = f"port {rng[0]}"
        else:
            ports = f"ports {rng[0]}-{rng[1]}"
        return " ".join(p for p in (str(proto), ports, f"from {where}") if p)


def sg_rules(res: ResourceView) -> Iterator[SgRule | tuple[str, Pos | None]]:
    """The rules of a SecurityGroup (each item of ``rules``) or a SecurityGroupRule (the resource itself); a
    ``(why, pos)`` pair for a part that cannot be told."""
    if res.type == "OS::Neutron::SecurityGroupRule":
        if res.properties_unknown:
            yield ("its properties are not known before apply", res.pos)
            return
        values = {
            k: res.get(k)
            for k in (
                "direction",
                "protocol",
                "port_range_min",
                "port_range_max",
                "remote_ip_prefix",
                "remote_group",
            )
            if res.has(k)
        }
        pos = res.pos_at("remote_ip_prefix") if res.has("remote_ip_prefix") else res.pos
        yield SgRule(values, pos, standalone=True)
        return
    rules = res.get("rules", [])
    if unknown(rules) and not isinstance(rules, list):
        yield ("its rules are not known before apply", res.pos_at("rules"))
        return
    if not isinstance(rules, list):
        return
    for i, item in enumerate(rules):
        pos = res.pos_at("rules", i)
        if not isinstance(item, dict):
            if unknown(item):
                yield ("a rule is not known before apply", pos)
            continue
        yield SgRule(item, pos, standalone=False)


def port_hits(rule: SgRule, ports: Mapping[int, str]) -> list[tuple[int, str]]:
    rng = rule.port_range()
    if rng is None:
        return []
    return [(p, what) for p, what in sorted(ports.items()) if rng[0] <= p <= rng[1]]


def world_ingress(res: ResourceView) -> Iterator[SgRule | Outcome]:
    """The ingress rules of ``res`` (ICMP left out) open to 0.0.0.0/0 or ::/0 whose ports are known, and a
    "cannot tell" for each rule whose direction, remote address or ports are not known before apply: what
    HOT101, HOT102 and HOT103 read."""
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
        yield rule


def named_ports_open(ports: Mapping[int, str]) -> ResourceCheck:
    """The check of a rule about named ports (HOT101 administrative, HOT102 database ones): a finding for each
    of ``ports`` that a world-open ingress rule's port range covers. A rule with no port range is HOT103's."""

    def check(res: ResourceView) -> Iterator[Outcome]:
        for rule in world_ingress(res):
            if isinstance(rule, Outcome):
                yield rule
            elif not rule.all_ports():
                for port, what in port_hits(rule, ports):
                    yield finding(
                        f"ingress {rule.describe()} opens {what} (port {port}) to the internet", rule.pos
                    )

    return check


def group_rules(sg: ResourceView) -> Iterator[SgRule | tuple[str, Pos | None]]:
    """A security group's rules: its own ``rules`` and every SecurityGroupRule of the template that names it."""
    yield from sg_rules(sg)
    for other in sg.template.referrers(sg.name, ("OS::Neutron::SecurityGroupRule",), "security_group"):
        yield from sg_rules(other)


# ------------------------------------------------------------------------------------------- port settings


def port_setting(res: ResourceView, key: str, default: Any) -> Iterator[tuple[Any, tuple[str | int, ...]]]:
    """``(value, path)`` of a port's setting ``key``: a Neutron port's own property (``default`` when not
    set), or for a server, each of its networks' ``port_extra_properties.key`` that is set (the port Nova
    makes for that network)."""
    if res.type == "OS::Neutron::Port":
        yield res.get(key, default), (key,)
        return
    networks = res.get("networks", [])
    if not isinstance(networks, list):
        return
    for i, net in enumerate(networks):
        extra = net.get("port_extra_properties") if isinstance(net, dict) else None
        if isinstance(extra, dict) and key in extra:
            yield extra[key], ("networks", i, "port_extra_properties", key)


# ---------------------------------------------------------------------------------------- keystone grants


def role_grants(res: ResourceView) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, grant)`` for each grant of a role assignment's ``roles`` list that is a map (a list not known
    before apply gives none: the rule says whether that matters)."""
    roles = res.get("roles", [])
    if not isinstance(roles, list):
        return
    for i, item in enumerate(roles):
        if isinstance(item, dict):
            yield i, item


# --------------------------------------------------------------------------------------------- secrets

SECRET_NAME = re.compile(
    r"(?i)(pass(word|wd|phrase)?|pwd|secret|token|api_?key|private_?key|credential|auth_?key|access_?key"
    r"|secret_?key)"
)
NOT_SECRET_NAME = re.compile(
    r"(?i)(_name|_length|_len|_size|_policy|_type|_id|_ref|_refs|_uuid|_ttl|_timeout|_expir\w*|_url|_uri"
    r"|_file|_path|_user|_username|_format|_enabled|_length_min|_rotation|_hash_algorithm|_count"
    r"|_retries|_complexity)$|^(keypass_?)?(ssh_)?key_?name$|^(use|enable|generate|create)_"
)


def secret_name(name: str) -> bool:
    """A parameter or key named like a secret (password, token, api_key …), not like something about one
    (``password_length``, ``secret_ref``, ``key_name``)."""
    return bool(SECRET_NAME.search(name)) and not NOT_SECRET_NAME.search(name)


PRIVATE_KEY = re.compile(r"-----BEGIN ((RSA|DSA|EC|OPENSSH|ENCRYPTED) )?PRIVATE KEY-----")
AWS_KEY = re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")
ASSIGNMENT = re.compile(
    r"(?i)\b([a-z0-9_.-]*(?:password|passwd|pass|pwd|secret|token|api_?key|access_?key))\b[\"']?"
    r"[ \t]*(?:=|:[ \t]|:=|[ \t]+-p)[ \t]*[\"']?([^\s\"'`;,){}\]]{6,})"
)
PLACEHOLDER = re.compile(
    r"^[$%@{<\[]|^[A-Z][A-Z0-9_]*$|\$|%\(|\{\{|^(?i:none|null|true|false|changeme|password|secret|\*+)$"
)


def _looks_like_value(value: str, placeholders: frozenset[str]) -> bool:
    if PLACEHOLDER.search(value):
        return False
    if any(p and p in value for p in placeholders):
        return False
    return not value.startswith(("/", "http", "file:"))


def text_secrets(text: str, placeholders: frozenset[str] = frozenset()) -> list[str]:
    """What in ``text`` looks like a secret written in clear: a private key, an AWS access key id, or an
    assignment of a literal to a secret-named variable (``password=…``, ``token: …``)."""
    found: list[str] = []
    if PRIVATE_KEY.search(text):
        found.append("a private key")
    if AWS_KEY.search(text):
        found.append("an AWS access key id")
    for m in ASSIGNMENT.finditer(text):
        name, value = m.group(1), m.group(2)
        if not secret_name(name.strip("._-")) and not name.lower().endswith("pass"):
            continue
        rest = text[m.end() : text.find("\n", m.end()) if "\n" in text[m.end() :] else len(text)]
        if "(" in value or re.match(r"[ \t]+[-$]", rest):
            continue  # a call (``$x = ConvertTo-SecureString $y``, ``pw = getpass()``): not a literal
        if _looks_like_value(value, placeholders):
            found.append(f"a literal value for {name}")
    return found


def literal_secrets(expr: Expr | None, files: Mapping[str, str]) -> list[tuple[str, Pos | None]]:
    """Secrets the template writes in clear inside ``expr``: a secret-named key of a map whose value is a
    literal, and secret-looking text in literal strings and ``get_file`` contents."""
    out: list[tuple[str, Pos | None]] = []
    stack: list[Expr] = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, MapExpr):
            for key, value in node.items:
                if (
                    secret_name(key)
                    and isinstance(value, Literal)
                    and isinstance(value.value, str | int)
                    and str(value.value).strip()
                    and _looks_like_value(str(value.value), frozenset())
                ):
                    out.append((f"{key} is written in clear", value.pos))
                else:
                    stack.append(value)
        elif isinstance(node, ListExpr):
            stack.extend(node.items)
        elif isinstance(node, FunctionCall) and node.name not in ("get_param", "get_attr", "get_resource"):
            stack.extend(node.children())
    for text, pos, placeholders in literal_strings(expr, files):
        for what in dict.fromkeys(text_secrets(text, placeholders)):
            out.append((f"{what} is written in clear", pos))
    return out


def secret_origin(res: ResourceView, expr: Expr | None) -> tuple[str, str]:
    """Where a secret property's value comes from: ``("none", "")``, ``("literal", "")``, ``("hidden", NAME)``
    (a hidden parameter), ``("parameter", NAME)`` (a parameter that is not hidden) or ``("computed", "")``
    (another function: a generated password, a resource attribute)."""
    if expr is None:
        return ("none", "")
    if isinstance(expr, Literal):
        if expr.value is None or (isinstance(expr.value, str) and not expr.value.strip()):
            return ("none", "")
        return ("literal", "")
    if isinstance(expr, FunctionCall) and expr.name == "get_param":
        static = getattr(expr, "static_name", None)
        name = static() if callable(static) else None
        if isinstance(name, str):
            param = res.template.template.parameters.get(name)
            if param is not None and not param.hidden:
                return ("parameter", name)
            return ("hidden", name)
    return ("computed", "")


def secret_property(res: ResourceView, prop: str, what: str) -> Iterator[tuple[bool, str, Pos | None]]:
    """``(is_finding, message, pos)`` for a property that holds a secret written in clear: a literal value, or a
    parameter that is not hidden (shown by ``openstack stack show``, in events and in logs)."""
    expr = res.expr(prop)
    kind, name = secret_origin(res, expr)
    where = res.pos_at(prop)
    if kind == "literal":
        yield (True, f"{prop}: {what} is written in clear in the template", where)
    elif kind == "parameter":
        yield (True, f"{prop}: {what} comes from parameter {name!r}, which is not hidden", where)
