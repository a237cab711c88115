"""Quotas at plan time: what a plan needs of the project's quotas at the peak of its apply (pure functions).

:func:`quota_needs` works out, from the plan alone, how many of each quota'd object the apply holds at once
beyond what the project uses today:

- a create adds its objects; an adopted object (``import_id``) adds none;
- a replacement creates its new instance before deleting the old one: at the peak both exist, so it adds the
  new instance's objects;
- an update in place adds what grows (a server's bigger flavor, a volume's bigger size, more rules);
- deletes are not subtracted from the peak: they may run after (or at the same time as) the creates, and apply
  gives no order that would make the room they free usable;
- a group's rolling update (``update_policy``/``rolling_updates``, :mod:`hotc.planner.rollout`) runs batch
  after batch: a batch's deletes are done before the next batch creates, so the group's peak is the highest
  level its batches reach (temporary members included);
- with ``at_max_size``, each AutoScalingGroup counts as grown to its ``max_size`` (what scaling signals may
  make it later).

What a quota'd object is comes from the resource's properties: a server is an instance, its flavor's vCPUs
and RAM (looked up in the cloud: ``flavors``), one port per network it joins without a port of its own, and a
volume (and its size in gigabytes) per block device it creates; a security group is itself and its rules
(neutron adds two egress rules to every new group); a load balancer also takes a port (its VIP); and so on
(:func:`objects_of`).

:func:`quota_report` sets those needs against the project's limits and usage (read by the provider,
``hotc.providers.openstack.quota``): a need beyond the room left refuses the plan, a peak above 90 % of a
limit is a warning. :func:`enforce_quotas` is what the plan operation calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any

from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.plan import Action, GroupRollout, Plan, ResourceChange
from hotc.values import Unknown

if TYPE_CHECKING:
    from hotc.planner.desired import DesiredStack

#: every quota hotc checks, in the order it shows them: key -> what one unit is
QUOTAS: Mapping[str, str] = {
    "compute.instances": "servers",
    "compute.cores": "vCPUs",
    "compute.ram": "MB of RAM",
    "network.networks": "networks",
    "network.subnets": "subnets",
    "network.ports": "ports",
    "network.routers": "routers",
    "network.floating_ips": "floating IPs",
    "network.security_groups": "security groups",
    "network.security_group_rules": "security group rules",
    "volume.volumes": "volumes",
    "volume.gigabytes": "GB of volumes",
    "volume.snapshots": "volume snapshots",
    "load-balancer.load_balancers": "load balancers",
    "load-balancer.listeners": "listeners",
    "load-balancer.pools": "pools",
    "load-balancer.members": "pool members",
    "load-balancer.health_monitors": "health monitors",
}

WARN_RATIO = 0.9  # a peak above this share of a limit is a warning
SG_DEFAULT_RULES = 2  # neutron gives every new security group an IPv4 and an IPv6 egress rule
ASG = "OS::Heat::AutoScalingGroup"

Counts = dict[str, int]
Flavors = Mapping[str, tuple[int, int]]  # flavor name or id -> (vCPUs, RAM in MB)


# ------------------------------------------------------------------------------------------ objects


def _known(v: Any) -> bool:
    return not isinstance(v, Unknown)


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or not _known(v):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _server(props: Mapping[str, Any], flavors: Flavors, out: Counts, unknown: set[str]) -> None:
    out["compute.instances"] = 1
    flavor = props.get("flavor")
    sized = flavors.get(str(flavor)) if _known(flavor) and flavor is not None else None
    if sized is None:
        unknown.update(("compute.cores", "compute.ram"))
    else:
        out["compute.cores"], out["compute.ram"] = sized
    nets = props.get("networks")
    if not _known(nets):
        unknown.add("network.ports")
    elif not nets:
        out["network.ports"] = 1  # nova plugs the server into the project's one network
    else:
        ports = 0
        for n in nets if isinstance(nets, list) else ():
            if not isinstance(n, Mapping):
                unknown.add("network.ports")
            elif n.get("port") is None and n.get("allocate_network") != "none":
                ports += 1
        out["network.ports"] = ports
    bdms = props.get("block_device_mapping_v2")
    if not _known(bdms):
        unknown.update(("volume.volumes", "volume.gigabytes"))
        return
    for b in bdms or ():
        if not isinstance(b, Mapping) or b.get("volume_id") is not None or b.get("volume_size") is None:
            continue  # an existing volume, or a local disk (image, swap, ephemeral)
        out["volume.volumes"] = out.get("volume.volumes", 0) + 1
        size = _int(b.get("volume_size"))
        if size is None:
            unknown.add("volume.gigabytes")
        else:
            out["volume.gigabytes"] = out.get("volume.gigabytes", 0) + size


def _volume(props: Mapping[str, Any], out: Counts, unknown: set[str]) -> None:
    out["volume.volumes"] = 1
    size = _int(props.get("size"))
    if size is None:
        unknown.add("volume.gigabytes")  # unknown until apply, or the size of its source
    else:
        out["volume.gigabytes"] = size


def _security_group(props: Mapping[str, Any], out: Counts, unknown: set[str]) -> None:
    out["network.security_groups"] = 1
    rules = props.get("rules")
    if not _known(rules):
        unknown.add("network.security_group_rules")
        rules = []
    out["network.security_group_rules"] = SG_DEFAULT_RULES + len(rules or [])


_SIMPLE: Mapping[str, Mapping[str, int]] = {
    "OS::Neutron::Net": {"network.networks": 1},
    "OS::Neutron::ProviderNet": {"network.networks": 1},
    "OS::Neutron::Subnet": {"network.subnets": 1},
    "OS::Neutron::Port": {"network.ports": 1},
    "OS::Neutron::Router": {"network.routers": 1},
    "OS::Neutron::FloatingIP": {"network.floating_ips": 1},
    "OS::Neutron::SecurityGroupRule": {"network.security_group_rules": 1},
    "OS::Octavia::LoadBalancer": {"load-balancer.load_balancers": 1, "network.ports": 1},
    "OS::Octavia::Listener": {"load-balancer.listeners": 1},
    "OS::Octavia::Pool": {"load-balancer.pools": 1},
    "OS::Octavia::PoolMember": {"load-balancer.members": 1},
    "OS::Octavia::HealthMonitor": {"load-balancer.health_monitors": 1},
}

#: the resource types that count against a quota (see :func:`objects_of`)
COUNTED_TYPES = frozenset(_SIMPLE) | {
    "OS::Nova::Server",
    "OS::Cinder::Volume",
    "OS::Neutron::SecurityGroup",
    "OS::Neutron::RouterInterface",
}


def objects_of(type_name: str, props: Any, flavors: Flavors) -> tuple[Counts, frozenset[str]]:
    """The quota'd objects one resource of ``type_name`` with properties ``props`` holds, and the quotas it
    may use that cannot be counted at plan time (a flavor or size known only after apply)."""
    out: Counts = {}
    unknown: set[str] = set()
    if not isinstance(props, Mapping):
        props = {}
    if type_name in _SIMPLE:
        out.update(_SIMPLE[type_name])
    elif type_name == "OS::Nova::Server":
        _server(props, flavors, out, unknown)
    elif type_name == "OS::Cinder::Volume":
        _volume(props, out, unknown)
    elif type_name == "OS::Neutron::SecurityGroup":
        _security_group(props, out, unknown)
    elif type_name == "OS::Neutron::RouterInterface":
        if props.get("port") is None and props.get("port_id") is None:
            out["network.ports"] = 1  # the router's port on the subnet
    return {k: v for k, v in out.items() if v}, frozenset(unknown)


def flavors_named(plan: Plan) -> frozenset[str]:
    """The flavors of the servers the plan creates, replaces or resizes (what the cloud is asked about)."""
    out: set[str] = set()
    for c in plan.changes:
        if c.type != "OS::Nova::Server" or c.action not in (Action.CREATE, Action.REPLACE, Action.UPDATE):
            continue
        for props in (c.after, c.before if c.action is Action.UPDATE else None):
            flavor = props.get("flavor") if isinstance(props, Mapping) else None
            if flavor is not None and _known(flavor):
                out.add(str(flavor))
    return frozenset(out)


# ------------------------------------------------------------------------------------------ the peak


@model
class Needs:
    """What the apply needs beyond today's usage: ``peak`` at its highest point, ``final`` once it is done
    (deletes subtracted), per quota key. ``uncounted``: quota key -> the addresses whose use of it could not be
    counted at plan time; ``at_max_size``: the AutoScalingGroups counted at their max_size."""

    peak: Mapping[str, int]
    final: Mapping[str, int]
    uncounted: Mapping[str, tuple[str, ...]]
    at_max_size: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """The quotas the plan uses, in :data:`QUOTAS` order."""
        used = {k for k, v in self.peak.items() if v > 0} | {k for k, v in self.final.items() if v > 0}
        return tuple(k for k in QUOTAS if k in used)


def _add(into: Counts, counts: Mapping[str, int], sign: int = 1) -> None:
    for k, v in counts.items():
        into[k] = into.get(k, 0) + sign * v


class _Counter:
    def __init__(self, flavors: Flavors) -> None:
        self.flavors = flavors
        self.uncounted: dict[str, set[str]] = {}

    def objects(self, c: ResourceChange, props: Any) -> Counts:
        counts, unknown = objects_of(c.type, props, self.flavors)
        for k in unknown:
            self.uncounted.setdefault(k, set()).add(c.address)
        return counts

    def grows(self, c: ResourceChange) -> Counts:
        """What the change adds while it runs: a create or a replacement its new objects; an update what
        grows."""
        if c.import_id is not None or c.type not in COUNTED_TYPES:
            return {}
        if c.action in (Action.CREATE, Action.REPLACE):
            return self.objects(c, c.after)
        if c.action is Action.UPDATE:
            after, before = self.objects(c, c.after), self.objects(c, c.before)
            return {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}
        return {}

    def frees(self, c: ResourceChange) -> Counts:
        """What the change gives back once done: a delete (not a forget: the object stays) or the old
        instance of a replacement; a temporary member what it made."""
        if c.type not in COUNTED_TYPES:
            return {}
        if c.temporary and c.action is Action.CREATE:
            return objects_of(c.type, c.after, self.flavors)[0]
        if c.action in (Action.DELETE, Action.REPLACE):
            return objects_of(c.type, c.before, self.flavors)[0]
        if c.action is Action.UPDATE and c.import_id is None:
            after = objects_of(c.type, c.after, self.flavors)[0]
            before = objects_of(c.type, c.before, self.flavors)[0]
            return {k: v - after.get(k, 0) for k, v in before.items() if v > after.get(k, 0)}
        return {}


def _batched_peak(r: GroupRollout, by_address: Mapping[str, ResourceChange], count: _Counter) -> Counts:
    """The highest level one group's batches reach: each batch's creates, then its deletes before the
    next batch starts."""
    level: Counts = {}
    peak: Counts = {}
    for b in r.batches:
        for a in b.apply:
            if a in by_address:
                _add(level, count.grows(by_address[a]))
        for k, v in level.items():
            peak[k] = max(peak.get(k, 0), v)
        for a in b.cleanup:
            if a in by_address:
                _add(level, count.frees(by_address[a]), -1)
    return peak


def _member_of(address: str, group: str) -> str | None:
    """The member of ``group`` that leaf ``address`` belongs to (``g[3]`` for ``g[3].port``)."""
    if not address.startswith(group + "["):
        return None
    end = address.find("]", len(group))
    return address[: end + 1] if end != -1 else None


def _max_size_extra(desired: DesiredStack, plan: Plan, count: _Counter) -> tuple[Counts, tuple[str, ...]]:
    """What the AutoScalingGroups add when each grows from its planned size to its max_size: that many more
    members, each as big as its biggest member now."""
    extra: Counts = {}
    grown: list[str] = []
    by_address = {c.address: c for c in plan.changes if c.action is not Action.DELETE}
    for scope in desired.scopes.values():
        for m in scope.members.values():
            if m.type != ASG or not m.scaling:
                continue
            room = int(m.scaling.get("max_size", 0)) - len(m.member_addresses)
            if room <= 0:
                continue
            per_member: dict[str, Counts] = {}
            for leaf in desired.leaves_under.get(m.address, ()):
                c = by_address.get(leaf)
                member = _member_of(leaf, m.address)
                if c is None or member is None:
                    continue
                _add(per_member.setdefault(member, {}), count.objects(c, c.after))
            if not per_member:
                count.uncounted.setdefault("compute.instances", set()).add(m.address)
                continue
            biggest: Counts = {}
            for counts in per_member.values():
                for k, v in counts.items():
                    biggest[k] = max(biggest.get(k, 0), v)
            _add(extra, {k: v * room for k, v in biggest.items()})
            grown.append(f"{m.address} (max_size {m.scaling.get('max_size')})")
    return extra, tuple(sorted(grown))


def quota_needs(
    plan: Plan, flavors: Flavors, desired: DesiredStack | None = None, *, at_max_size: bool = False
) -> Needs:
    """What ``plan`` needs of each quota (see the module docstring). ``flavors``: flavor name or id ->
    (vCPUs, RAM MB) for :func:`flavors_named`; ``desired`` and ``at_max_size``: count the AutoScalingGroups at
    their max_size."""
    count = _Counter(flavors)
    by_address = {c.address: c for c in plan.changes}
    batched: set[str] = set()
    peak: Counts = {}
    for r in plan.groups:
        if not r.batches:
            continue
        for b in r.batches:
            batched.update(b.apply)
            batched.update(b.cleanup)
        _add(peak, _batched_peak(r, by_address, count))
    final: Counts = {}
    for c in plan.changes:
        grows = count.grows(c)
        _add(final, grows)
        _add(final, count.frees(c), -1)
        if c.address not in batched:
            _add(peak, grows)
    grown: tuple[str, ...] = ()
    if at_max_size and desired is not None:
        extra, grown = _max_size_extra(desired, plan, count)
        _add(peak, extra)
        _add(final, extra)
    return Needs(
        peak={k: v for k, v in peak.items() if v},
        final={k: v for k, v in final.items() if v},
        uncounted={k: tuple(sorted(v)) for k, v in sorted(count.uncounted.items())},
        at_max_size=grown,
    )


# ------------------------------------------------------------------------------------------ the verdict


@model
class QuotaRow:
    """One quota set against what the plan needs: ``limit`` (-1: unlimited) and ``in_use`` as the cloud said,
    ``need`` at the peak, ``after`` the apply (change in use), ``status`` ok | warn | exceeded."""

    key: str
    limit: int
    in_use: int
    need: int
    after: int
    status: str

    @property
    def room(self) -> int | None:
        return None if self.limit < 0 else max(self.limit - self.in_use, 0)

    @property
    def peak(self) -> int:
        return self.in_use + self.need

    def describe(self) -> str:
        unit = QUOTAS.get(self.key, "")
        if self.limit < 0:
            return f"quota {self.key}: the plan needs {self.need} {unit} at its peak ({self.in_use} in use, unlimited)"
        pct = 100 * self.peak / self.limit if self.limit else 100.0
        return (
            f"quota {self.key}: the plan needs {self.need} {unit} at its peak, and {self.room} are left "
            f"({self.in_use} in use of {self.limit}; {self.peak} at the peak, {pct:.0f} %)"
        )


@model
class QuotaReport:
    """The quota check of a plan: ``checked`` False says why not (``reason``)."""

    checked: bool
    reason: str = ""
    rows: tuple[QuotaRow, ...] = ()
    needs: Needs | None = None
    unread: Mapping[str, str] = field(default_factory=dict)

    @property
    def exceeded(self) -> tuple[QuotaRow, ...]:
        return tuple(r for r in self.rows if r.status == "exceeded")

    @property
    def warned(self) -> tuple[QuotaRow, ...]:
        return tuple(r for r in self.rows if r.status == "warn")


def quota_report(
    needs: Needs, limits: Mapping[str, tuple[int, int]], unread: Mapping[str, str] | None = None
) -> QuotaReport:
    """``needs`` against ``limits`` (quota key -> (limit, in use); a limit below 0 is unlimited).
    ``unread``: quota key -> why the cloud did not say (a service missing from the catalog …)."""
    rows = []
    for k in needs.keys:
        if k not in limits:
            continue
        limit, in_use = limits[k]
        need, after = needs.peak.get(k, 0), needs.final.get(k, 0)
        if limit < 0:
            status = "ok"
        elif in_use + need > limit:
            status = "exceeded"
        elif need > 0 and in_use + need > WARN_RATIO * limit:
            status = "warn"
        else:
            status = "ok"
        rows.append(QuotaRow(k, limit, in_use, need, after, status))
    missing = {k: (unread or {}).get(k, "the cloud did not say") for k in needs.keys if k not in limits}
    return QuotaReport(True, rows=tuple(rows), needs=needs, unread=missing)


def not_checked(reason: str) -> QuotaReport:
    return QuotaReport(False, reason=reason, unread={})


def report_json(report: QuotaReport) -> dict[str, Any]:
    """The report as the plan carries it (``Plan.quota``, the JSON ``quota`` section)."""
    if not report.checked:
        return {"checked": False, "reason": report.reason}
    needs = report.needs
    return {
        "checked": True,
        "passed": not report.exceeded,
        "quotas": [
            {
                "quota": r.key,
                "limit": r.limit,
                "in_use": r.in_use,
                "need": r.need,
                "peak": r.peak,
                "after": r.in_use + r.after,
                "room": r.room,
                "status": r.status,
            }
            for r in report.rows
        ],
        "uncounted": {k: list(v) for k, v in (needs.uncounted if needs else {}).items()},
        "unread": dict(report.unread or {}),
        "at_max_size": list(needs.at_max_size if needs else ()),
    }


# ------------------------------------------------------------------------------------------ showing it


def text_lines(quota: Mapping[str, Any]) -> list[str]:
    """The plan's quota figures (``Plan.quota``) as the text and Markdown views show them (empty: the plan
    carries none)."""
    if not quota:
        return []
    if not quota.get("checked"):
        return [f"Quotas not checked: {quota.get('reason', '')}"]
    rows = quota.get("quotas") or []
    out = ["Quotas (in use + this plan at its peak = peak / limit):"] if rows else []
    for r in rows:
        limit = "unlimited" if r["limit"] < 0 else str(r["limit"])
        mark = {"exceeded": "  EXCEEDED", "warn": "  (over 90 %)"}.get(r["status"], "")
        out.append(f"  {r['quota']}: {r['in_use']} + {r['need']} = {r['peak']} / {limit}{mark}")
    for k, addresses in (quota.get("uncounted") or {}).items():
        out.append(f"  {k}: not counted for {', '.join(addresses)} (known only after apply)")
    for k, why in (quota.get("unread") or {}).items():
        out.append(f"  {k}: not checked ({why})")
    if quota.get("at_max_size"):
        out.append("  scaling groups counted at max_size: " + ", ".join(quota["at_max_size"]))
    return out


def markdown_lines(quota: Mapping[str, Any]) -> list[str]:
    """The plan's quota figures as the Markdown (pull request comment) view shows them."""
    if not quota:
        return []
    if not quota.get("checked"):
        return [f"_Quotas not checked: {quota.get('reason', '')}._", ""]
    rows = quota.get("quotas") or []
    exceeded = any(r["status"] == "exceeded" for r in rows)
    out = ["#### ⛔ Quotas" if exceeded else "#### Quotas", ""]
    if rows:
        out += [
            "| Quota | In use | This plan at its peak | Peak | Limit | |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for r in rows:
            limit = "unlimited" if r["limit"] < 0 else str(r["limit"])
            mark = {"exceeded": "⛔ exceeded", "warn": "⚠️ over 90 %"}.get(r["status"], "")
            out.append(f"| `{r['quota']}` | {r['in_use']} | +{r['need']} | {r['peak']} | {limit} | {mark} |")
        out.append("")
    rest = text_lines(quota)[1 if rows else 0 :]
    out += [f"- {line.strip()}" for line in rest]
    return [*out, ""] if rest else out


# ------------------------------------------------------------------------------------------ the check


Reader = Callable[
    [frozenset[str], frozenset[str]], tuple[Mapping[str, tuple[int, int]], Flavors, Mapping[str, str]]
]


def enforce_quotas(
    plan: Plan,
    desired: DesiredStack | None,
    read: Reader | None,
    *,
    why_not: str = "",
    at_max_size: bool = False,
) -> tuple[Plan, tuple[str, ...]]:
    """The quota check of a normal plan: the plan with its figures (``Plan.quota``: every view shows them, and
    why nothing was checked) and the notes to show (a warning per quota above 90 % at the peak). ``read(quota keys, flavors)``
    gives (limits and usage, flavor sizes, quota key -> why it could not be read); None: there is no cloud
    to ask (``why_not`` says why). Raises HotcError naming each quota the plan would exceed."""
    first = quota_needs(plan, {}, desired, at_max_size=at_max_size)  # what is used, before the flavors' sizes
    keys = frozenset(first.keys) | frozenset(first.uncounted)
    if not keys:
        return plan, ()  # nothing made or grown: deletes and updates in place need no room
    if read is None:
        return replace(plan, quota=report_json(not_checked(why_not or "no cloud is configured"))), ()
    if any(k.startswith("compute.") for k in keys):
        keys |= {"compute.cores", "compute.ram"}
    try:
        limits, flavors, unread = read(keys, flavors_named(plan))
    except HotcError as exc:
        return replace(plan, quota=report_json(not_checked(f"the cloud did not answer: {exc.message}"))), ()
    needs = quota_needs(plan, flavors, desired, at_max_size=at_max_size)
    report = quota_report(needs, limits, unread)
    plan = replace(plan, quota=report_json(report))
    if report.exceeded:
        lines = [r.describe() for r in report.exceeded]
        raise HotcError(
            f"this plan would exceed {len(lines)} quota(s) of the project; nothing was changed:\n  "
            + "\n  ".join(lines)
            + "\n(ask for a bigger quota, free some room, or plan fewer objects at once: a smaller "
            "max_batch_size, no replacements at the same time)"
        )
    notes = tuple(f"warning: {r.describe()}" for r in report.warned)
    notes += tuple(f"note: quota {k} not checked: {why}" for k, why in (report.unread or {}).items())
    return plan, notes


__all__ = [
    "QUOTAS",
    "Needs",
    "QuotaReport",
    "QuotaRow",
    "enforce_quotas",
    "flavors_named",
    "markdown_lines",
    "not_checked",
    "objects_of",
    "quota_needs",
    "quota_report",
    "report_json",
    "text_lines",
]
