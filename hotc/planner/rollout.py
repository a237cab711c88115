"""Group rollouts: what a plan does to each ResourceGroup / AutoScalingGroup, and, when the group's update
policy applies, in which batches (what :func:`plan_rollouts` adds to a plan; the executor runs the batches
in order, see :mod:`hotc.apply.batches`).

When the batches apply (Heat's ``handle_update``/``handle_create`` of the group types):

- ResourceGroup ``update_policy.rolling_update``: when ``resource_def`` changed (some existing member's
  properties differ). Batches from Heat's arithmetic (:mod:`hotc.planner.batching`) for ``count`` members from
  the current ones; in each batch the members Heat picks: members no longer wanted go first, then the highest
  index first; new members get the lowest free indexes. A member created beyond ``count`` to keep
  ``min_in_service`` members in service is *temporary*: created in one batch, deleted in a later one.
- ResourceGroup ``update_policy.batch_create``: when the group is created (no member in the state).
- AutoScalingGroup ``rolling_updates`` (a property, with defaults ``max_batch_size: 1``): whenever ``resource``
  changed. Heat runs the batches at ``min(desired_capacity, current)`` members, the oldest first (failed
  members before them), then resizes the group to its new size. Where Heat grows the group for a while to keep
  ``min_in_service`` members in service, it creates a new member and later removes the oldest one that still
  has the old definition; hotc does the same as a replacement spanning batches: the member's new instance is
  created in the batch where Heat creates the extra member, its old instance deleted in the batch where Heat
  removes one (same member counts in every batch). Heat's own accounting can then leave a member updated in
  place on the old definition; hotc never does (it removes the members still on the old definition first).

Otherwise (no policy, or only the size changed) every member changes at once, as in Heat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hotc.errors import HotcError
from hotc.planner.batching import batches, next_batch
from hotc.planner.desired import DesiredStack, Member
from hotc.planner.plan import Action, GroupBatch, GroupRollout, ResourceChange
from hotc.state.document import StackState

RG = "OS::Heat::ResourceGroup"
ASG = "OS::Heat::AutoScalingGroup"
R_ROLLING = "replace_because_rolling_update"

MakeChange = Callable[[str], ResourceChange]


@dataclass
class _Batch:
    size: int
    updates: int
    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    early: list[int] = field(default_factory=list)  # ASG: new instance of a member created here
    retired: list[int] = field(default_factory=list)  # ASG: old instance of that member deleted here
    pause_after: float = 0.0


def _index_of(address: str, prefix: str) -> int | None:
    """The member index of ``address`` in the group whose members start with ``prefix`` (``g[``)."""
    if not address.startswith(prefix):
        return None
    end = address.find("]", len(prefix))
    if end == -1:
        return None
    idx = address[len(prefix) : end]
    rest = address[end + 1 :]
    if not idx.isdigit() or (rest and not rest.startswith(".")):
        return None
    return int(idx)


def plan_rollouts(
    desired: DesiredStack,
    state: StackState | None,
    changes: list[ResourceChange],
    make_change: MakeChange,
) -> tuple[list[ResourceChange], tuple[GroupRollout, ...]]:
    """The plan's changes (members replaced across batches turned into replacements, temporary members added)
    and one :class:`GroupRollout` per group the plan touches."""
    out = list(changes)
    rollouts: list[GroupRollout] = []
    index = _ByGroup(out, state.resources if state is not None else {})
    for scope in desired.scopes.values():
        for m in scope.members.values():
            if m.kind != "group":
                continue
            r = _Group(desired, state, m, out, make_change, index).plan()
            if r is not None:
                rollouts.append(r)
    return out, tuple(rollouts)


def _group_keys(address: str) -> list[str]:
    """Every leading part of ADDRESS that ends just before a ``[``: the groups it can be a member of (or a
    part of a member of: ``a[1].b[2]`` -> ``a``, ``a[1].b``)."""
    keys = []
    k = address.find("[")
    while k != -1:
        keys.append(address[:k])
        k = address.find("[", k + 1)
    return keys


class _ByGroup:
    """The positions in the plan's changes (a list the groups' rollouts append to and replace in, each change
    staying where it is) and the state's addresses, under each group address they can belong to, so that
    each group reads its own members instead of scanning every change and every state record (a stack of
    many groups would cost groups x resources)."""

    def __init__(self, changes: list[ResourceChange], resources: Mapping[str, Any]) -> None:
        self.changes = changes
        self.seen = 0  # changes indexed so far (those appended later are indexed when next asked)
        self.positions: dict[str, list[int]] = {}
        self.records: dict[str, list[str]] = {}
        for addr in resources:
            for key in _group_keys(addr):
                self.records.setdefault(key, []).append(addr)

    def changes_of(self, group: str) -> list[int]:
        """Positions, in order, of the changes whose address starts with ``GROUP[``."""
        for pos in range(self.seen, len(self.changes)):
            for key in _group_keys(self.changes[pos].address):
                self.positions.setdefault(key, []).append(pos)
        self.seen = len(self.changes)
        return self.positions.get(group, [])

    def records_of(self, group: str) -> list[str]:
        """The state's addresses, in its order, that start with ``GROUP[``."""
        return self.records.get(group, [])


class _Group:
    def __init__(
        self,
        desired: DesiredStack,
        state: StackState | None,
        m: Member,
        changes: list[ResourceChange],
        make_change: MakeChange,
        index: _ByGroup | None = None,
    ) -> None:
        self.d = desired
        self.m = m
        self.changes = changes
        self.make_change = make_change
        self.prefix = m.address + "["
        resources = state.resources if state is not None else {}
        index = index or _ByGroup(changes, resources)
        self.units: dict[int, list[int]] = {}  # member index -> positions in ``changes``
        for pos in index.changes_of(m.address):
            c = changes[pos]
            if c.deposed:
                continue
            i = _index_of(c.address, self.prefix)
            if i is not None:
                self.units.setdefault(i, []).append(pos)
        self.ages: dict[int, tuple[bool, str, int]] = {}
        for addr in index.records_of(m.address):
            rs = resources[addr]
            i = _index_of(addr, self.prefix)
            if i is None:
                continue
            failed, created, _ = self.ages.get(i, (True, "\uffff", i))
            self.ages[i] = (failed and not rs.failed, min(created, rs.created_at or ""), i)
        self.existing = sorted(self.ages, key=lambda i: self.ages[i])  # Heat's order: failed, oldest, name
        self.final = list(m.member_indexes)

    # ------------------------------------------------------------------------------------------- helpers
    def addr(self, i: int) -> str:
        return f"{self.m.address}[{i}]"

    def unit(self, i: int) -> list[ResourceChange]:
        return [self.changes[p] for p in self.units.get(i, ())]

    def stale(self, i: int) -> bool:
        return any(c.action in (Action.UPDATE, Action.REPLACE) for c in self.unit(i))

    def definition_changed(self, i: int) -> bool:
        return any(
            c.action in (Action.UPDATE, Action.REPLACE) and bool(c.changed_paths or c.replace_paths)
            for c in self.unit(i)
        )

    def touched(self) -> list[int]:
        return sorted(i for i in self.units if any(c.action is not Action.NOOP for c in self.unit(i)))

    def apply_leaves(self, i: int) -> list[str]:
        return [c.address for c in self.unit(i) if c.action in (Action.CREATE, Action.UPDATE, Action.REPLACE)]

    def cleanup_leaves(self, i: int, *, removed: bool) -> list[str]:
        wanted = (Action.DELETE, Action.FORGET) if removed else (Action.REPLACE,)
        return [c.address for c in self.unit(i) if c.action in wanted]

    # ------------------------------------------------------------------------------------------- planning
    def plan(self) -> GroupRollout | None:
        m = self.m
        touched = self.touched()
        before, after = len(self.existing), len(self.final)
        if not touched and before == after:
            return None
        base = GroupRollout(
            address=m.address,
            type=m.type,
            before=before,
            after=after,
            members=tuple(self.addr(i) for i in touched),
        )
        policy = m.policy
        if m.type == RG:
            key = ""
            if "rolling_update" in policy and any(self.definition_changed(i) for i in self.existing):
                key = "rolling_update"
            elif "batch_create" in policy and not self.existing and self.final:
                key = "batch_create"
            if not key:
                return base
            ru = policy[key]
            b, mi, pause = int(ru["max_batch_size"]), int(ru.get("min_in_service", 0)), ru["pause_time"]
            steps = self._rg(b, mi)
        elif m.type == ASG:
            key = "rolling_updates"
            if not self.existing or not any(self.definition_changed(i) for i in self.existing):
                return base
            ru = policy.get(key) or {"max_batch_size": 1, "min_in_service": 0, "pause_time": 0}
            b, mi, pause = int(ru["max_batch_size"]), int(ru["min_in_service"]), ru["pause_time"]
            target = int((policy.get("size") or {}).get("rolling_target", before))
            steps = self._asg(target, b, mi)
        else:
            return base
        rolling = [s for s in steps if s.pause_after >= 0]
        for s in rolling[:-1]:
            s.pause_after = float(pause)
        for s in steps:
            s.pause_after = max(s.pause_after, 0.0)
        temporary = tuple(self.addr(i) for i in sorted(self._temporaries))
        return replace(
            base,
            policy=key,
            max_batch_size=b,
            min_in_service=mi,
            pause_time=float(pause),
            batches=tuple(self._record(n, s) for n, s in enumerate(steps, 1)),
            temporary=temporary,
            members=tuple(sorted({*base.members, *temporary}, key=_member_key)),
            note=self._note,
        )

    _temporaries: set[int]
    _note: str = ""

    def _record(self, number: int, s: _Batch) -> GroupBatch:
        apply: list[str] = []
        cleanup: list[str] = []
        members: list[int] = []
        for i in s.created:
            if i in self._temporaries:
                apply.append(self.addr(i))
            else:
                apply.extend(self.apply_leaves(i))
            members.append(i)
        for i in s.updated:
            apply.extend(self.apply_leaves(i))
            cleanup.extend(self.cleanup_leaves(i, removed=False))
            members.append(i)
        for i in s.early:
            apply.extend(self.apply_leaves(i))
            members.append(i)
        for i in s.retired:
            cleanup.extend(self.cleanup_leaves(i, removed=False))
            members.append(i)
        for i in s.removed:
            if i in self._temporaries:
                cleanup.append(self.addr(i))
            else:
                cleanup.extend(self.cleanup_leaves(i, removed=True))
            members.append(i)
        seen: set[int] = set()
        ordered = [i for i in members if not (i in seen or seen.add(i))]  # type: ignore[func-returns-value]
        return GroupBatch(
            number=number,
            members=tuple(self.addr(i) for i in ordered),
            apply=tuple(dict.fromkeys(apply)),
            cleanup=tuple(dict.fromkeys(cleanup)),
            size=s.size,
            updates=s.updates,
            pause_after=s.pause_after,
        )

    def _fail(self, why: str) -> HotcError:
        return HotcError(
            f"{self.m.address}: hotc cannot plan this rolling update the way Heat runs it ({why}); "
            "nothing was changed. Apply the change in two steps (size first, then the definition), or lower "
            "min_in_service"
        )

    # ResourceGroup: Heat's member choice, names are indexes --------------------------------------------
    def _rg(self, batch_size: int, min_in_service: int) -> list[_Batch]:
        skip = set(self.m.skipped)
        target = len(self.final)
        live = [i for i in self.existing if i not in skip]
        gone_first = [i for i in self.existing if i in skip]  # removal_policies: out in the first batch
        up_to_date = {i for i in live if not self.stale(i)}
        self._temporaries = set()
        allowed_temporary = {_index_of(a, self.prefix) for a in self.m.temporary_addresses}
        wanted = set(self.final)
        out: list[_Batch] = []
        for size, n in batches(RG, target, len(live), batch_size, min_in_service):
            names = _first_free(size, skip)
            pos = {x: k for k, x in enumerate(names)}

            def priority(i: int, pos: Mapping[int, int] = pos, size: int = size) -> int:
                if i not in pos:
                    return 0  # not wanted any more: removed first
                if pos[i] < target:
                    return target - pos[i]  # the highest index first
                return size  # a temporary member: kept, not changed

            order = sorted(live, key=priority)
            keep = order[len(order) - min(size, len(order)) :]
            step = _Batch(size=size, updates=n, removed=order[: len(order) - len(keep)])
            if gone_first:
                step.removed = [*gone_first, *step.removed]
                gone_first = []
            creates = size - len(keep)
            left = n - creates
            for i in keep:
                if i not in up_to_date and left > 0:
                    left -= 1
                    up_to_date.add(i)
                    step.updated.append(i)
            have = set(live)
            step.created = [x for x in names if x not in have][:creates]
            for x in step.created:
                up_to_date.add(x)
                if x not in wanted:
                    if x not in allowed_temporary:
                        raise self._fail(
                            f"it creates a temporary member {self.addr(x)} to keep min_in_service "
                            "members in service, which hotc supports only for groups of plain resources"
                        )
                    self._temporaries.add(x)
            kept = set(keep)
            live = [i for i in live if i in kept] + step.created
            out.append(step)
        if set(live) != wanted or not wanted <= up_to_date:
            raise self._fail(f"the batches end with members {sorted(live)}, not {sorted(wanted)}")
        self._add_temporary_changes()
        return out

    def _add_temporary_changes(self) -> None:
        for i in sorted(self._temporaries):
            c = self.make_change(self.addr(i))
            self.changes.append(
                replace(
                    c,
                    temporary=True,
                    reason_detail="a temporary member: the rolling update creates it to keep min_in_service "
                    "members in service, and deletes it in a later batch",
                )
            )

    # AutoScalingGroup: Heat's batches, oldest first, then the resize ---------------------------------
    def _asg(self, target: int, batch_size: int, min_in_service: int) -> list[_Batch]:
        self._temporaries = set()
        wanted = set(self.final)
        stale = {i for i in self.existing if i in wanted and self.stale(i)}
        live = list(self.existing)  # old instances, Heat's order
        pending: list[int] = []  # batch numbers of new instances not yet given to a member
        early_at: dict[int, int] = {}  # member -> batch creating its new instance
        done: set[int] = set()
        out: list[_Batch] = []

        def run(size: int, n: int, extra: bool = False) -> None:
            number = len(out)
            step = _Batch(size=size, updates=n)
            drop = max(len(live) + len(pending) - size, 0)
            while drop:
                victim = next((i for i in live if i not in wanted), None)
                if victim is not None:
                    step.removed.append(victim)
                else:
                    victim = next((i for i in live if i in stale and i not in done), None)
                    if victim is None or not pending:
                        raise self._fail("it would remove a member that already has the new definition")
                    # its old instance goes; the new one made earlier (pending) is the member now
                    early_at[victim] = pending.pop(0)
                    done.add(victim)
                    step.retired.append(victim)
                    drop -= 1
                    continue
                live.remove(victim)
                drop -= 1
            creates = max(size - len(live) - len(pending), 0)
            pending.extend([number] * creates)
            left = n - creates
            for i in live:
                if left > 0 and i in stale and i not in done:
                    left -= 1
                    done.add(i)
                    step.updated.append(i)
            if extra:
                self._note = (
                    "hotc adds batches after Heat's so that no member keeps the old definition "
                    "(Heat's AutoScalingGroup can leave one updated in place on it)"
                )
            out.append(step)

        plan_b = batches(ASG, target, len(live), batch_size, min_in_service)
        for size, n in plan_b:
            run(size, n)
        guard = 0
        while stale - done:
            guard += 1
            if guard > 10_000:
                raise self._fail("the batches never finish")
            current = len(live) + len(pending)
            size, n = next_batch(target, current, len(done), batch_size, min_in_service)
            run(size, max(n, 1), extra=True)
        if pending:
            raise self._fail("a member created to keep members in service would stay")
        for i, number in early_at.items():
            out[number].early.append(i)
            if self.m.member_nested:
                raise self._fail(
                    "it replaces a member across batches to keep min_in_service members in service, which "
                    "hotc supports only for groups of plain resources"
                )
            self._replace_across_batches(
                i, number + 1, next(k for k, s in enumerate(out, 1) if i in s.retired)
            )
        # Heat's resize to the group's new size, right after the last batch (no pause before it)
        resize = _Batch(size=len(wanted), updates=0, pause_after=-1.0)
        resize.removed = [i for i in live if i not in wanted]
        resize.created = [i for i in self.final if i not in self.ages]
        if resize.removed or resize.created:
            out.append(resize)
        return out

    def _replace_across_batches(self, i: int, created_in: int, deleted_in: int) -> None:
        for p in self.units.get(i, ()):
            c = self.changes[p]
            if c.action not in (Action.UPDATE, Action.REPLACE):
                continue
            self.changes[p] = replace(
                c,
                action=Action.REPLACE,
                rebuild=False,
                action_reason=R_ROLLING if c.action is Action.UPDATE else c.action_reason,
                reason_detail=(
                    f"rolling update: its new instance is created in batch {created_in} and the old one "
                    f"deleted in batch {deleted_in}, keeping min_in_service members in service (Heat creates a "
                    "new member and later removes the oldest)"
                    + (f"; {c.reason_detail}" if c.action is Action.REPLACE and c.reason_detail else "")
                ),
            )


def _first_free(n: int, skip: Iterable[int]) -> list[int]:
    out: list[int] = []
    skipped = set(skip)
    i = 0
    while len(out) < n:
        if i not in skipped:
            out.append(i)
        i += 1
    return out


def _member_key(address: str) -> tuple[str, int]:
    head, _, tail = address.rpartition("[")
    digits = tail.rstrip("]")
    return head, int(digits) if digits.isdigit() else -1


def rollout_of(rollouts: Iterable[GroupRollout], address: str) -> GroupRollout | None:
    for r in rollouts:
        if r.address == address:
            return r
    return None


__all__ = ["R_ROLLING", "plan_rollouts", "rollout_of"]
