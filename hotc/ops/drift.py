"""``hotc drift``: what changed in the cloud behind a stack's back, read-only.

Each stack's state is read once, without taking its lock (nothing is written); every recorded resource is then
read through its type's driver as a refresh reads it (:class:`hotc.planner.refresh.DriverReader`: one list call
per type where the driver lists, parallel GETs for the rest). The live form is compared with the recorded one
property by property (schema defaults applied on both sides, set-like lists compared as sets), giving per
resource: ``changed`` (with one :class:`PropertyDrift` per changed property path), ``deleted`` (the object is
gone) or ``unreadable`` (the read failed). Where a driver lists its objects by hotc's lineage tag, objects that
carry the stack's tag but that the state does not record are reported as ``untracked``.

Scaling is not drift: an AutoScalingGroup whose size a scaling policy changed (the state's ``groups``) is
reported as ``scaled``, and a live ``desired_capacity`` equal to the size scaling gave it is not a difference.

Accepted drift (:class:`hotc.state.document.AcceptedDrift`, kept in the state or declared in ``hotc.toml``) names
``ADDRESS:PROPERTY_PATH``: a difference at that path or under it is shown apart, as accepted, and does not count
until the entry's ``until`` date has passed. :func:`accept` writes an entry into the state, under the lock.

With several stacks (``--all``), a few are scanned at a time (:attr:`DriftRequest.stack_parallelism`).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field, replace
from datetime import date
from pathlib import Path
from typing import Any

from hotc.errors import HotcError
from hotc.model import model
from hotc.ops.stacks import stack_not_found
from hotc.planner.api import DriverReader, apply_defaults, changed_keys, detail_paths, registry_lookup
from hotc.providers.base import ActionContext
from hotc.state import backend_from_config
from hotc.state.document import AcceptedDrift, ResourceState, StackState
from hotc.state.secrets import is_masked

GROUP_TYPE = "OS::Heat::AutoScalingGroup"
SENSITIVE = "(sensitive)"
DEFAULT_STACK_PARALLELISM = 4
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")
_TAG_LINEAGE = "hotc-lineage"


@model
class DriftRequest:
    """Scan ``stacks`` (or, with ``all_stacks``, every stack of the backend). ``accepted``: entries declared
    outside the state (``hotc.toml``), by ``ADDRESS:PROPERTY_PATH`` key, applied to every stack scanned (with an
    entry of the same key in the state, the one not expired applies); ``accepted_by_stack``: those declared for
    one stack only. ``today``: the ISO date expiry is judged against
    (empty: the local date)."""

    stacks: tuple[str, ...] = ()
    all_stacks: bool = False
    backend: str | None = None
    accepted: Mapping[str, AcceptedDrift] = field(default_factory=dict)
    accepted_by_stack: Mapping[str, Mapping[str, AcceptedDrift]] = field(default_factory=dict)
    today: str = ""
    stack_parallelism: int = DEFAULT_STACK_PARALLELISM
    read_parallelism: int = 10


@model
class Accepted:
    """An accepted-drift entry as it applies to a difference: the entry, its key, where it was declared
    (``state`` or ``hotc.toml``) and whether it has expired (then the difference counts again)."""

    key: str
    entry: AcceptedDrift
    source: str
    expired: bool


@model
class PropertyDrift:
    path: str  # the property path that differs (``name``, ``rules[2]``, ``fixed_ips[0].ip_address``)
    recorded: Any
    live: Any
    accepted: Accepted | None = None

    @property
    def counts(self) -> bool:
        return self.accepted is None or self.accepted.expired


@model
class ResourceDrift:
    """``kind``: ``changed``, ``deleted`` (gone out of band), ``untracked`` (carries the stack's tag, not in
    the state), ``unreadable`` (the read failed: ``detail`` says why) or ``scaled`` (a group's size changed by
    scaling: never drift)."""

    address: str
    type: str
    kind: str
    physical_id: str | None = None
    properties: tuple[PropertyDrift, ...] = ()
    detail: str = ""
    accepted: Accepted | None = None  # a deleted resource accepted as a whole (``ADDRESS:*``)

    @property
    def counts(self) -> bool:
        if self.kind == "changed":
            return any(p.counts for p in self.properties)
        if self.kind in ("deleted", "untracked"):
            return self.accepted is None or self.accepted.expired
        return False


@model
class StackDrift:
    stack: str
    resources: tuple[ResourceDrift, ...] = ()
    error: str | None = None  # the stack could not be scanned (no state, a failed read)
    serial: int | None = None
    resource_count: int = 0
    expired: tuple[Accepted, ...] = ()  # accepted entries past their date (whether or not they matched)

    @property
    def drifted(self) -> bool:
        return any(r.counts for r in self.resources)

    @property
    def errors(self) -> tuple[str, ...]:
        out = [self.error] if self.error else []
        out += [f"{r.address}: {r.detail}" for r in self.resources if r.kind == "unreadable"]
        return tuple(out)


@model
class DriftResult:
    stacks: tuple[StackDrift, ...]
    today: str

    @property
    def drifted(self) -> bool:
        return any(s.drifted for s in self.stacks)

    @property
    def has_errors(self) -> bool:
        return any(s.errors for s in self.stacks)

    @property
    def exit_code(self) -> int:
        """0 no drift, 2 drift, 1 an error (a stack or a resource that could not be read)."""
        return 1 if self.has_errors else 2 if self.drifted else 0


# ------------------------------------------------------------------------------------------ accepted drift


def split_key(key: str) -> tuple[str, str]:
    """``ADDRESS:PROPERTY_PATH`` -> (address, path), split at the first colon (addresses hold none; a path may)."""
    address, sep, path = key.partition(":")
    if not sep or not address or not path:
        raise HotcError(
            f"accepted drift {key!r}: expected ADDRESS:PROPERTY_PATH (web[2].port:name), or ADDRESS:* for "
            "a resource deleted out of band"
        )
    return address, path


def check_until(until: str, where: str) -> str:
    if not _DATE.match(until):
        raise HotcError(f"{where}: until {until!r} is not a date; use YYYY-MM-DD")
    try:
        date.fromisoformat(until)
    except ValueError as exc:
        raise HotcError(f"{where}: until {until!r} is not a date ({exc}); use YYYY-MM-DD") from exc
    return until


def accepted_from_toml(path: Path, stack: str | None = None) -> dict[str, AcceptedDrift]:
    """The ``[[drift.accept]]`` entries of ``hotc.toml`` (``address``, ``path``, ``reason``, ``until``, and
    optionally ``stack``) that apply to ``stack``: those naming no stack, and those naming this one (``stack``
    None: only those naming no stack). None when the file is absent."""
    common, by_stack = declared_accepted(path)
    return {**common, **by_stack.get(stack, {})} if stack is not None else common


def declared_accepted(path: Path) -> tuple[dict[str, AcceptedDrift], dict[str, dict[str, AcceptedDrift]]]:
    """The ``[[drift.accept]]`` entries of ``hotc.toml``: those for every stack, and by stack those that name
    one (``stack = "prod"``)."""
    if not path.is_file():
        return {}, {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise HotcError(f"{path}: error: cannot read it: {exc}") from exc
    drift = doc.get("drift", {})
    entries = drift.get("accept", []) if isinstance(drift, dict) else None
    if not isinstance(entries, list):
        raise HotcError(f"{path}: error: [[drift.accept]] must be an array of tables")
    common: dict[str, AcceptedDrift] = {}
    by_stack: dict[str, dict[str, AcceptedDrift]] = {}
    for i, e in enumerate(entries, 1):
        where = f"{path}: drift.accept #{i}"
        if not isinstance(e, dict):
            raise HotcError(f"{where}: error: expected a table with address, path, reason and until")
        missing = [k for k in ("address", "path", "reason", "until") if k not in e]
        unknown = sorted(set(e) - {"address", "path", "reason", "until", "stack"})
        if missing or unknown:
            raise HotcError(
                f"{where}: error: "
                + "; ".join(
                    ([f"missing {', '.join(missing)}"] if missing else [])
                    + ([f"unknown key(s) {', '.join(unknown)}"] if unknown else [])
                )
                + " (a drift.accept entry has address, path, reason, until, and optionally stack)"
            )
        until = e["until"]
        if isinstance(until, date):
            until = until.isoformat()
        texts = ("address", "path", "reason", *(("stack",) if "stack" in e else ()))
        if not all(isinstance(e[k], str) for k in texts) or not isinstance(until, str):
            raise HotcError(f"{where}: error: address, path, reason and stack must be strings, until a date")
        key = f"{e['address']}:{e['path']}"
        split_key(key)
        entry = AcceptedDrift(reason=e["reason"], until=check_until(until, f"{where}: error"), by="hotc.toml")
        (by_stack.setdefault(e["stack"], {}) if "stack" in e else common)[key] = entry
    return common, by_stack


def _entries(state: StackState, declared: Mapping[str, AcceptedDrift], today: str) -> list[Accepted]:
    """Every entry that applies to ``state``: its own and those declared in hotc.toml (both kept when they
    name the same key: the one that has not expired is the one that applies)."""
    out = [Accepted(k, e, "state", e.until < today) for k, e in state.accepted_drift.items()]
    out += [Accepted(k, e, "hotc.toml", e.until < today) for k, e in declared.items()]
    return sorted(out, key=lambda a: (a.key, a.source != "state"))


def _covers(path: str, accepted_path: str) -> bool:
    return accepted_path in ("*", path) or path.startswith((accepted_path + ".", accepted_path + "["))


def _match(entries: list[Accepted], address: str, path: str) -> Accepted | None:
    """The entry accepting a difference at ``path`` of ``address`` (an unexpired one first)."""
    found = [a for a in entries if split_key(a.key)[0] == address and _covers(path, split_key(a.key)[1])]
    found.sort(key=lambda a: (a.expired, -len(a.key)))
    return found[0] if found else None


# ------------------------------------------------------------------------------------------------ comparing


def _steps(path: str) -> tuple[Any, ...]:
    return tuple(int(m.group(2)) if m.group(2) is not None else m.group(1) for m in _STEP.finditer(path))


def _at(value: Mapping[str, Any], path: str) -> Any:
    cur: Any = value
    for step in _steps(path):
        try:
            cur = cur[step]
        except (KeyError, IndexError, TypeError):
            return None
    return cur


def _shown(value: Any, secret: bool) -> Any:
    return SENSITIVE if secret or is_masked(value) else value


def _secret(rs: ResourceState, path: str) -> bool:
    return any(_covers(path, p) or _covers(p, path) for p in rs.sensitive_paths)


def property_drift(
    rs: ResourceState, live: ResourceState, entries: list[Accepted], group_size: int | None
) -> tuple[PropertyDrift, ...]:
    """What differs between the recorded and the live properties of one resource, one entry per path."""
    rtype = registry_lookup(rs.type)
    before = apply_defaults(rtype, rs.properties)
    after = apply_defaults(rtype, live.properties)
    keys = changed_keys(rtype, before, after)
    if rs.type == GROUP_TYPE and group_size is not None and after.get("desired_capacity") == group_size:
        keys = [k for k in keys if k != "desired_capacity"]  # scaling, reported as such
    if not keys:
        return ()
    out: list[PropertyDrift] = []
    for path in sorted(set(detail_paths(rtype, before, after, keys)) or set(keys)):
        secret = _secret(rs, path)
        out.append(
            PropertyDrift(
                path,
                _shown(_at(before, path), secret),
                _shown(_at(after, path), secret),
                _match(entries, rs.address, path),
            )
        )
    return tuple(out)


def _scaled(state: StackState) -> list[ResourceDrift]:
    out = []
    for addr, group in sorted(state.groups.items()):
        rs = state.resources.get(addr)
        if rs is None:
            continue
        wanted = rs.properties.get("desired_capacity", rs.properties.get("min_size"))
        if wanted == group.size:
            continue
        last = next((d for d in reversed(group.decisions) if d.accepted), None)
        why = f" by {last.policy} at {last.time}" if last is not None else ""
        out.append(
            ResourceDrift(
                addr,
                rs.type,
                "scaled",
                rs.physical_id,
                detail=f"size {group.size} (the template's desired capacity is {wanted}), set by scaling{why}",
            )
        )
    return out


# ------------------------------------------------------------------------------------------ untracked objects


def _untracked(reader: DriverReader, state: StackState, drivers: Callable[[str], Any]) -> list[ResourceDrift]:
    """Objects that carry the stack's lineage tag and that the state does not record, for the types of the
    state whose driver lists its objects (``list_live``) and reports their tags."""
    recorded = {str(rs.physical_id) for rs in state.resources.values() if rs.physical_id is not None}
    for rs in state.resources.values():
        recorded.update(str(d.physical_id) for d in rs.deposed)
    tag = f"{_TAG_LINEAGE}={state.lineage}"
    out: list[ResourceDrift] = []
    seen: set[str] = set()
    for type_name in sorted({rs.type for rs in state.resources.values()}):
        driver = drivers(type_name)
        inner = getattr(driver, "inner", driver)
        list_live = getattr(inner, "list_live", None)
        if not callable(list_live):
            continue
        first = next(rs for rs in state.resources.values() if rs.type == type_name)
        ctx: ActionContext = reader.context(first)
        try:
            listed = list(list_live(ctx, ctx.cloud()))
        except Exception:  # noqa: BLE001 -- untracked objects are a best effort: the type is not listed
            continue
        for obj in listed:
            pid = str(getattr(obj, "id", ""))
            tags = getattr(obj, "tags", None) or []
            if not pid or pid in recorded or pid in seen or tag not in [str(t) for t in tags]:
                continue
            seen.add(pid)
            out.append(
                ResourceDrift(
                    str(getattr(obj, "name", "") or pid),
                    type_name,
                    "untracked",
                    pid,
                    detail="carries the stack's tag but is not in the state",
                )
            )
    return out


# -------------------------------------------------------------------------------------------------- scanning


def scan_state(
    state: StackState,
    *,
    cloud: Callable[[], Any],
    drivers: Callable[[str], Any],
    accepted: Mapping[str, AcceptedDrift] | None = None,
    today: str = "",
    read_parallelism: int = 10,
    signals: Callable[[], Any] | None = None,
) -> StackDrift:
    """The drift of one stack whose state was read (pure over the drivers' reads)."""
    today = today or date.today().isoformat()
    entries = _entries(state, accepted or {}, today)
    reader = DriverReader(state, cloud, drivers, parallelism=read_parallelism, signals=signals)
    errors: dict[str, str] = {}
    todo = [rs for rs in state.resources.values() if rs.physical_id is not None]
    live = reader.read_all(todo, errors=errors) if todo else {}
    found: list[ResourceDrift] = []
    for rs in todo:
        addr = rs.address
        if addr in errors:
            found.append(ResourceDrift(addr, rs.type, "unreadable", rs.physical_id, detail=errors[addr]))
            continue
        now = live.get(addr)
        if now is None:
            found.append(
                ResourceDrift(
                    addr,
                    rs.type,
                    "deleted",
                    rs.physical_id,
                    detail="deleted out of band",
                    accepted=_match(entries, addr, "*"),
                )
            )
            continue
        if rs.external_id is not None:
            continue  # adopted with external_id: hotc does not manage its properties
        group = state.groups.get(addr)
        props = property_drift(rs, now, entries, group.size if group is not None else None)
        if props:
            found.append(ResourceDrift(addr, rs.type, "changed", rs.physical_id, props))
    found += _scaled(state)
    if todo:
        found += _untracked(reader, state, drivers)
    return StackDrift(
        state.stack_name,
        tuple(found),
        serial=state.serial,
        resource_count=len(state.resources),
        expired=tuple(
            a for a in entries if a.expired and not any(b.key == a.key and not b.expired for b in entries)
        ),
    )


def run(
    request: DriftRequest,
    *,
    cloud: Callable[[], Any],
    drivers: Callable[[str], Any],
    signals: Callable[[Any], Callable[[], Any] | None] | None = None,
) -> DriftResult:
    """Scan the stacks of ``request``. ``cloud``: the connection getter, ``drivers``: the type -> driver look-up
    (both from the CLI's composition root); ``signals``: the backend -> signal-store getter, if any."""
    today = request.today or date.today().isoformat()
    for declared in (request.accepted, *request.accepted_by_stack.values()):
        for key, entry in declared.items():
            split_key(key)
            check_until(entry.until, f"accepted drift {key!r}")
    backend = backend_from_config(request.backend)
    if request.all_stacks:
        names = sorted(backend.list_stacks())
    else:
        if not request.stacks:
            raise HotcError("name the stacks to scan, or give --all for every stack of the backend")
        names = list(dict.fromkeys(request.stacks))

    def one(name: str) -> StackDrift:
        try:
            state, _token = backend.read(name)  # the one read of this stack's state; no lock, nothing written
        except HotcError as exc:
            return StackDrift(name, error=exc.message)
        if state is None:
            return StackDrift(name, error=stack_not_found(name, backend))
        try:
            return scan_state(
                state,
                cloud=cloud,
                drivers=drivers,
                accepted={**request.accepted, **request.accepted_by_stack.get(name, {})},
                today=today,
                read_parallelism=request.read_parallelism,
                signals=signals(request.backend) if signals is not None else None,
            )
        except HotcError as exc:
            return StackDrift(name, error=exc.message, serial=state.serial)

    workers = max(1, min(request.stack_parallelism, len(names) or 1))
    if workers == 1:
        results = [one(n) for n in names]
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hotc-drift") as pool:
            results = list(pool.map(one, names))
    return DriftResult(tuple(results), today)


# ------------------------------------------------------------------------------------------------ accepting


@model
class AcceptRequest:
    stack: str
    key: str  # ADDRESS:PROPERTY_PATH
    reason: str
    until: str
    by: str = ""
    at: str = ""
    backend: str | None = None
    lock_timeout: float = 0.0


@model
class AcceptResult:
    stack: str
    key: str
    entry: AcceptedDrift
    replaced: AcceptedDrift | None
    serial: int
    entries: Mapping[str, AcceptedDrift]


def accept(request: AcceptRequest) -> AcceptResult:
    """Write an accepted-drift entry into the stack's state, under its lock (an entry of the same key is
    replaced). The address must name a resource of the state."""
    address, _path = split_key(request.key)
    check_until(request.until, "--until")
    if not request.reason.strip():
        raise HotcError("--accept needs --reason: say why the difference is accepted")
    backend = backend_from_config(request.backend)
    with backend.lock(request.stack, "drift accept", request.lock_timeout) as lk:
        state, _token = backend.read(request.stack)
        if state is None:
            listed = ", ".join(sorted(backend.list_stacks())) or "none"
            raise HotcError(f"stack {request.stack!r} not found (stacks in this backend: {listed})")
        if address not in state.resources:
            close = difflib.get_close_matches(address, list(state.resources), n=3, cutoff=0.6)
            hint = (" Did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
            raise HotcError(f"stack {request.stack!r} has no resource {address!r}.{hint} Nothing was changed")
        entries = dict(state.accepted_drift)
        previous = entries.get(request.key)
        entry = AcceptedDrift(reason=request.reason, until=request.until, by=request.by, at=request.at)
        entries[request.key] = entry
        written = backend.write(request.stack, replace(state, accepted_drift=entries), lk)
    return AcceptResult(
        request.stack, request.key, entry, previous, written.serial, dict(written.accepted_drift)
    )


def accepted_apart(
    state: StackState | None, drift: Iterable[Any], declared: Mapping[str, AcceptedDrift], today: str = ""
) -> dict[str, list[tuple[str, Accepted]]]:
    """For a refresh-only plan's drift (``ResourceChange`` with ``changed_paths``): address -> the (path,
    entry) pairs an accepted-drift entry covers, expired ones included, so a plan can show them apart."""
    if state is None:
        return {}
    entries = _entries(state, declared, today or date.today().isoformat())
    out: dict[str, list[tuple[str, Accepted]]] = {}
    for c in drift:
        paths = tuple(getattr(c, "changed_paths", ()) or ()) or ("*",)
        for path in paths:
            hit = _match(entries, c.address, path)
            if hit is not None:
                out.setdefault(c.address, []).append((path, hit))
    return out
