"""Executing ScalingPolicy signals: what an apply (``hotc apply``, ``hotc signal``, ``hotc watch``) does with the
signals waiting in the store for the stack's policies.

Under the stack's lock, before planning: every pending signal of every policy in the state is read (oldest
first), decided as Heat decides it (:mod:`hotc.planner.scaling`: the adjustment within min_size/max_size, "no
change in capacity", cooldown), and acknowledged (removed from the store), so each signal is executed once.
The accepted ones give their groups new sizes for the plan; the refused ones are recorded as they are. Each
decision is an event of the policy (``hotc events``) and is kept in the group's state (``groups.G.decisions``,
so it is in ``hotc state history`` too). After the run, :func:`group_states` records each AutoScalingGroup's
size, properties and cooldown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from hotc.apply.events import resource_event
from hotc.errors import HotcError
from hotc.model import model
from hotc.planner.api import (
    GROUP_TYPE,
    POLICY_TYPES,
    Bounds,
    Decision,
    cooldown_after,
    decide,
    format_time,
)
from hotc.planner.api import (
    ScalingPolicy as Policy,
)
from hotc.providers.native.signal_mixin import KEY_ATTR
from hotc.state import Event, GroupState, ScalingDecision, StackState
from hotc.state.document import MAX_DECISIONS


@model
class PendingSignal:
    policy: str  # the policy's address
    key: str  # its object in the store
    version_id: str
    received: str  # ISO time the store received it
    body: bytes


@dataclass
class ScalingRun:
    """The decisions of one apply: ``sizes`` (group address -> new size) for the planner."""

    decisions: list[Decision] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)
    cooldowns: dict[str, str] = field(default_factory=dict)  # group -> cooldown end after the accepted ones
    acknowledged: dict[str, list[str]] = field(default_factory=dict)  # key -> version ids consumed

    @property
    def accepted(self) -> list[Decision]:
        return [d for d in self.decisions if d.accepted]


def policy_key(rs: Any) -> str | None:
    key = (rs.attributes or {}).get(KEY_ATTR)
    return key if isinstance(key, str) and key else None


def has_policies(state: StackState | None) -> bool:
    return state is not None and any(
        rs.type in POLICY_TYPES and rs.physical_id for rs in state.resources.values()
    )


def pending_signals(state: StackState, store: Any) -> list[PendingSignal]:
    """The signals waiting for the state's policies, oldest first."""
    out: list[PendingSignal] = []
    for addr, rs in sorted(state.resources.items()):
        if rs.type not in POLICY_TYPES or not rs.physical_id:
            continue
        key = policy_key(rs)
        if key is None:
            continue
        for vid, modified, body in store.pending(key):
            when = format_time(modified) if isinstance(modified, datetime) else str(modified or "")
            out.append(PendingSignal(addr, key, vid, when, body))
    out.sort(key=lambda p: (p.received, p.policy, p.version_id))
    return out


def asg_groups(desired: Any) -> dict[str, Any]:
    """AutoScalingGroup address -> its Member, over every scope of the desired stack."""
    out: dict[str, Any] = {}
    for scope in getattr(desired, "scopes", {}).values():
        for m in scope.members.values():
            if m.kind == "group" and m.type == GROUP_TYPE:
                out[m.address] = m
    return out


def _group_of(policy: Policy, policy_address: str, desired: Any, groups: Mapping[str, Any]) -> str | None:
    """The group a policy's ``auto_scaling_group_id`` names: the id get_resource gave (in the policy's scope
    or any), or the group's name."""
    scope = policy_address.rsplit(".", 1)[0] if "." in policy_address else ""
    for addr in groups:
        if policy.group == str(desired.stack_id_of(addr)):
            return addr
    for addr, m in groups.items():
        if policy.group == m.name and (m.address.rsplit(".", 1)[0] if "." in m.address else "") == scope:
            return addr
    return None


def decide_signals(
    state: StackState, desired: Any, pending: list[PendingSignal], now: datetime
) -> ScalingRun:
    """Decide every pending signal, in order, each on the group as the previous ones left it."""
    run = ScalingRun()
    groups = asg_groups(desired)
    sizes: dict[str, int] = {}
    cooldowns: dict[str, str | None] = {}
    for p in pending:
        run.acknowledged.setdefault(p.key, []).append(p.version_id)
        rs = state.resources[p.policy]
        label = f"signal received {p.received}" if p.received else "signal"
        try:
            policy = Policy.of(p.policy, rs.type, rs.properties)
        except HotcError as exc:
            run.decisions.append(Decision(p.policy, "", label, False, 0, 0, exc.message, None))
            continue
        group = _group_of(policy, p.policy, desired, groups)
        if group is None:
            run.decisions.append(
                Decision(
                    p.policy,
                    "",
                    label,
                    False,
                    0,
                    0,
                    f"could not find scaling group named {policy.group!r}",
                    None,
                )
            )
            continue
        m = groups[group]
        failed = _failed_members(state, group)
        if failed:
            # Heat's adjust: "NOT performing scaling adjustment, when status is not COMPLETE"
            run.decisions.append(
                Decision(
                    p.policy,
                    group,
                    label,
                    False,
                    len(m.member_addresses),
                    len(m.member_addresses),
                    f"the group is not COMPLETE ({', '.join(failed[:3])} failed): apply the stack to repair it",
                    None,
                )
            )
            continue
        recorded = state.groups.get(group)
        if group not in cooldowns:
            cooldowns[group] = recorded.cooldown_end if recorded is not None else None
        current = sizes.get(group, len(m.member_addresses))
        bounds = Bounds(
            current=current,
            min_size=int(m.scaling.get("min_size", 0)),
            max_size=int(m.scaling.get("max_size", 0)),
            cooldown=m.scaling.get("cooldown"),
        )
        d = decide(policy, group, bounds, cooldowns[group], now, label)
        run.decisions.append(d)
        if d.accepted:
            sizes[group] = d.after
            cooldowns[group] = d.cooldown_end
            if d.cooldown_end is not None:
                run.cooldowns[group] = d.cooldown_end
    run.sizes = sizes
    return run


def _failed_members(state: StackState, group: str) -> list[str]:
    prefix = group + "["
    return sorted(
        a for a, rs in state.resources.items() if a.startswith(prefix) and (rs.failed or rs.in_progress)
    )


def decision_event(d: Decision, policy_type: str, outcome: str | None = None) -> Event:
    if d.accepted:
        text = f"{d.signal}: adjusting {d.group} from {d.before} to {d.after} members ({d.reason})"
        if outcome:
            text += f": {outcome}"
        return resource_event(d.policy, policy_type, "SIGNAL_COMPLETE", text)
    return resource_event(d.policy, policy_type, "SIGNAL_COMPLETE", f"{d.signal}: no action: {d.reason}")


def decision_line(d: Decision) -> str:
    """The one log line of a decision."""
    if d.accepted:
        return f"scaling: {d.policy}: {d.signal}: {d.group} {d.before} → {d.after} members ({d.reason})"
    return f"scaling: {d.policy}: {d.signal}: refused: {d.reason}"


def _record(d: Decision, now: str, reason: str | None = None) -> ScalingDecision:
    return ScalingDecision(
        time=now,
        policy=d.policy,
        signal=d.signal,
        accepted=d.accepted,
        before=d.before,
        after=d.after,
        reason=reason or d.reason,
    )


def with_decisions(state: StackState, decisions: list[Decision], now: str) -> StackState:
    """``state`` with ``decisions`` kept in their groups' records, before the resize runs: an accepted one
    makes the group's recorded size its new size (so an apply that fails or is killed half-way is continued
    towards it by the next one, not undone)."""
    groups = dict(state.groups)
    for d in decisions:
        if not d.group:
            continue
        g = groups.get(d.group) or GroupState(size=d.before)
        if d.accepted:
            g = replace(g, size=d.after)
        groups[d.group] = replace(g, decisions=(*g.decisions, _record(d, now))[-MAX_DECISIONS:])
    return replace(state, groups=groups)


def group_states(
    state: StackState,
    desired: Any,
    run: ScalingRun | None,
    now: datetime,
    ok: bool,
) -> StackState:
    """``state`` (after an apply) with each AutoScalingGroup's record: its size (its members now in the
    state), the properties it was applied with and the cooldown (after a resize: the policy's; after a create
    or update of the group: the group's own). A failed run keeps the recorded size (the next apply goes on
    towards it), notes the failed resizes and starts no cooldown for them (as Heat)."""
    groups = dict(state.groups)
    stamp = format_time(now)
    members = asg_groups(desired)
    for addr, m in members.items():
        old = groups.get(addr)
        digest = m.scaling.get("properties_digest")
        cooldown_end = old.cooldown_end if old is not None else None
        decisions = old.decisions if old is not None else ()
        if ok:
            size = sum(1 for a in m.member_addresses if _member_present(state, a))
            if old is None or old.properties_digest != digest:
                cooldown_end = cooldown_after(now, m.scaling.get("cooldown"), cooldown_end)
            if run is not None and addr in run.cooldowns:
                cooldown_end = max(cooldown_end or "", run.cooldowns[addr]) or None
        else:
            size = old.size if old is not None else len(m.member_addresses)
            digest = old.properties_digest if old is not None else None
            for d in run.accepted if run is not None else []:
                if d.group == addr:
                    failed = replace(
                        d, accepted=False, after=d.before, reason=f"{d.reason}: the resize failed"
                    )
                    decisions = (*decisions, _record(failed, stamp))
        groups[addr] = GroupState(
            size=size,
            properties_digest=digest,
            cooldown_end=cooldown_end,
            decisions=tuple(decisions)[-MAX_DECISIONS:],
        )
    for addr in list(groups):
        if addr not in members:
            del groups[addr]
    return replace(state, groups=groups)


def _member_present(state: StackState, address: str) -> bool:
    if address in state.resources:
        return True
    prefix = address + "."
    return any(a.startswith(prefix) for a in state.resources)


def acknowledge(store: Any, run: ScalingRun) -> None:
    for key, vids in run.acknowledged.items():
        store.acknowledge(key, vids)


def policy_types(state: StackState) -> Callable[[str], str]:
    return lambda addr: state.resources[addr].type if addr in state.resources else "OS::Heat::ScalingPolicy"
