"""What a change does to service or data beyond its action, for reviewers: a server resize reboots the VM,
a rebuild wipes the root disk, replacing or deleting a volume or a port with a fixed IP loses data or an
address. Pure data over the Plan; every renderer (text, markdown, SARIF) shows the same flags."""

from __future__ import annotations

from hotc.model import model
from hotc.planner.plan import Action, Plan, ResourceChange

# In-place updates that interrupt service, by type and top-level property (what Heat's update does).
_DISRUPTIVE_UPDATES: dict[str, dict[str, str]] = {
    "OS::Nova::Server": {
        "flavor": "a resize: the server is stopped, resized and restarted (Heat confirms the resize)",
        "admin_pass": "the server's password is changed in place",
    },
    "OS::Cinder::Volume": {"size": "an extend: an attached volume may be detached while it grows"},
    "OS::Octavia::LoadBalancer": {"vip_subnet": "the load balancer's address moves"},
}

# Types whose replacement or deletion loses data or an address that others may know.
_LOSSY: dict[str, str] = {
    "OS::Cinder::Volume": "the volume's data is lost",
    "OS::Nova::Server": "the server's local disks and its addresses are lost",
    "OS::Neutron::FloatingIP": "the floating IP address is released",
    "OS::Neutron::Port": "the port's addresses are released",
    "OS::Glance::WebImage": "the image is deleted",
    "OS::Swift::Container": "the container and its objects are deleted",
    "OS::Nova::KeyPair": "the key pair is deleted (a generated private key cannot be recovered)",
}


@model(slots=True)
class Disruption:
    address: str
    kind: str  # reboot | rebuild | data-loss
    text: str


def assess(c: ResourceChange) -> Disruption | None:
    if c.action is Action.UPDATE and c.rebuild:
        return Disruption(c.address, "rebuild", "the root disk is wiped and the server restarts")
    if c.action is Action.UPDATE:
        table = _DISRUPTIVE_UPDATES.get(c.type, {})
        hits = sorted({p.split(".", 1)[0].split("[", 1)[0] for p in c.changed_paths} & table.keys())
        if hits:
            return Disruption(c.address, "reboot", "; ".join(table[h] for h in hits))
        return None
    if c.action in (Action.REPLACE, Action.DELETE) and c.type in _LOSSY:
        if c.deletion_policy in ("Retain", "Snapshot") and c.action is Action.DELETE:
            return None  # kept in the cloud, or backed up before the delete
        text = _LOSSY[c.type]
        if c.type == "OS::Neutron::Port" and not _has_fixed_ips(c):
            return None
        if c.deletion_policy == "Snapshot":
            text += " (a snapshot/backup is taken first: deletion_policy Snapshot)"
        return Disruption(c.address, "data-loss", text)
    return None


def _has_fixed_ips(c: ResourceChange) -> bool:
    props = c.before or {}
    ips = props.get("fixed_ips") if isinstance(props, dict) else None
    if not ips:
        return False
    return any(isinstance(i, dict) and i.get("ip_address") for i in ips)


def disruptions(plan: Plan) -> list[Disruption]:
    out = []
    for c in plan.changes:
        d = assess(c)
        if d is not None:
            out.append(d)
    return out
