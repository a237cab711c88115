"""A fake provider (in-memory cloud with injected latency and failures), a fake desired stack and a fake
state sink for the executor's tests and the benchmark."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hotc.planner.plan import Action, Plan, ResourceChange
from hotc.providers.base import DELETE, ActionContext, Outcome
from hotc.state.document import StackState
from hotc.state.events import Event


class CloudError(Exception):
    pass


@dataclass
class Call:
    op: str
    address: str
    physical_id: str | None
    start: float
    end: float = 0.0
    policy: str | None = None  # the deletion_policy a delete was called with


GATE_TIMEOUT = 30.0  # a gate never released is a test bug: fail instead of hanging


class FakeCloud:
    """Records every call with its start/end time; resources live in ``objects``.

    Tests that depend on the order of concurrent calls use gates, not latencies: ``gate(op, address)`` makes
    that call wait (after recording its physical id) until the test calls ``.set()`` on the event it returns;
    ``ended(op, address)`` is an event set when that call has returned (or raised)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.objects: dict[str, dict[str, Any]] = {}  # physical id -> {"props", "tags", "address"}
        self.calls: list[Call] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.latency: dict[tuple[str, str], float] = {}  # (op, address) -> seconds; ("*", addr) any op
        self.default_latency = 0.0
        self.fail: dict[tuple[str, str], str] = {}  # (op, address) -> error message
        self.fail_times: dict[tuple[str, str], int] = {}  # fail only this many times
        self.hooks: dict[tuple[str, str], Callable[[ActionContext], None]] = {}
        self.reuse_on_create = False
        self.gates: dict[tuple[str, str], threading.Event] = {}
        self._ended: dict[tuple[str, str], threading.Event] = {}

    def gate(self, op: str, address: str) -> threading.Event:
        return self.gates.setdefault((op, address), threading.Event())

    def ended(self, op: str, address: str) -> threading.Event:
        with self.lock:
            return self._ended.setdefault((op, address), threading.Event())

    def _enter(self, op: str, address: str, pid: str | None) -> Call:
        c = Call(op, address, pid, time.monotonic())
        with self.lock:
            self.calls.append(c)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        return c

    def _leave(self, c: Call) -> None:
        with self.lock:
            self.in_flight -= 1
            c.end = time.monotonic()
            done = self._ended.setdefault((c.op, c.address), threading.Event())
        done.set()

    def _delay(self, op: str, address: str) -> None:
        gate = self.gates.get((op, address))
        if gate is not None and not gate.wait(GATE_TIMEOUT):
            raise CloudError(f"test gate for {op} {address} was never released")
        d = self.latency.get((op, address), self.latency.get(("*", address), self.default_latency))
        if d:
            time.sleep(d)

    def _maybe_fail(self, op: str, address: str) -> None:
        msg = self.fail.get((op, address))
        if msg is None:
            return
        left = self.fail_times.get((op, address))
        if left is not None:
            if left <= 0:
                return
            self.fail_times[(op, address)] = left - 1
        raise CloudError(msg)

    def calls_for(self, op: str, address: str) -> list[Call]:
        return [c for c in self.calls if c.op == op and c.address == address]


class FakeDriver:
    def __init__(self, cloud: FakeCloud, snapshot_delete: bool = True) -> None:
        self.cloud = cloud
        self.snapshot_delete = snapshot_delete  # delete(policy="Snapshot") is supported

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        c = self.cloud._enter("create", ctx.address, None)
        try:
            if self.cloud.reuse_on_create:  # a driver re-reading "what the failed attempt made" by its stamp
                found = self.find_adoptable(ctx, props)
                if found is not None:
                    ctx.record_physical_id(found)
                    c.physical_id = found
                    return Outcome(found, {"name": props.get("name"), "echo": dict(props)})
            pid = f"{ctx.address}-{uuid.uuid4().hex[:8]}"
            hook = self.cloud.hooks.get(("create", ctx.address))
            with self.cloud.lock:
                self.cloud.objects[pid] = {
                    "props": dict(props),
                    "tags": dict(ctx.tags),
                    "address": ctx.address,
                }
            ctx.record_physical_id(pid)
            c.physical_id = pid
            if hook:
                hook(ctx)
            self.cloud._delay("create", ctx.address)
            self.cloud._maybe_fail("create", ctx.address)
            return Outcome(pid, {"name": props.get("name"), "echo": dict(props)})
        finally:
            self.cloud._leave(c)

    def read(self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any]) -> Outcome | None:
        obj = self.cloud.objects.get(physical_id)
        if obj is None:
            return None
        attrs: dict[str, Any] = {
            "name": obj["props"].get("name"),
            "echo": dict(obj["props"]),
            "tags": sorted(f"{k}={v}" for k, v in obj["tags"].items()),
        }
        statuses = obj.get("statuses")  # successive live statuses, the last one sticks
        if statuses:
            attrs["status"] = statuses.pop(0) if len(statuses) > 1 else statuses[0]
        return Outcome(physical_id, attrs)

    def update(
        self,
        ctx: ActionContext,
        physical_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        changed: frozenset[str],
    ) -> Outcome:
        c = self.cloud._enter("update", ctx.address, physical_id)
        try:
            self.cloud._delay("update", ctx.address)
            self.cloud._maybe_fail("update", ctx.address)
            with self.cloud.lock:
                self.cloud.objects[physical_id]["props"] = dict(new)
                if "tags" in changed:  # re-apply the stamp, as the real drivers do
                    self.cloud.objects[physical_id]["tags"].update(ctx.tags)
                obj = self.cloud.objects[physical_id]
            attrs: dict[str, Any] = {"name": new.get("name"), "echo": dict(new)}
            if obj.get("statuses"):
                attrs["status"] = obj["statuses"][0]
            return Outcome(physical_id, attrs)
        finally:
            self.cloud._leave(c)

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        c = self.cloud._enter("delete", ctx.address, physical_id)
        c.policy = policy
        try:
            self.cloud._delay("delete", ctx.address)
            self.cloud._maybe_fail("delete", ctx.address)
            with self.cloud.lock:
                self.cloud.objects.pop(physical_id, None)
        finally:
            self.cloud._leave(c)

    def find_adoptable(self, ctx: ActionContext, props: Mapping[str, Any]) -> str | None:
        with self.cloud.lock:
            for pid, obj in self.cloud.objects.items():
                if all(obj["tags"].get(k) == v for k, v in ctx.tags.items()):
                    return pid
        return None


@dataclass(frozen=True)
class FakeResource:
    address: str
    type: str = "Fake::Thing"
    depends_on: tuple[str, ...] = ()
    deletion_policy: str = "Delete"
    # properties as a function of the resolver (references to other resources use resolver.resource_id)
    props: Callable[[Any], dict[str, Any]] = field(default=lambda r: {})


class FakeDesired:
    def __init__(
        self,
        resources: list[FakeResource],
        outputs: Callable[[Any], dict[str, Any]] | None = None,
        id_only: Mapping[str, frozenset[str]] | None = None,
    ):
        self.resources = {r.address: r for r in resources}
        self._outputs = outputs
        self._id_only = id_only or {}  # address -> what it refers to by get_resource only

    def id_only_parents(self, address: str) -> frozenset[str]:
        return self._id_only.get(address, frozenset())

    def resolve_properties(self, address: str, resolver: Any) -> Mapping[str, Any]:
        return self.resources[address].props(resolver)

    def resolve_outputs(self, resolver: Any) -> Mapping[str, Any]:
        return self._outputs(resolver) if self._outputs else {}


class MemorySink:
    """Keeps every written state and all events; checks lineage like a backend; can be told to fail."""

    def __init__(self, write_delay: float = 0.0) -> None:
        self.states: list[StackState] = []
        self.events: list[Event] = []
        self.lock = threading.Lock()
        self.write_delay = write_delay
        self.fail_writes = False

    def write(self, state: StackState) -> StackState:
        if self.fail_writes:
            raise OSError("disk full")
        if self.write_delay:
            time.sleep(self.write_delay)
        with self.lock:
            serial = (self.states[-1].serial if self.states else state.serial) + 1
            from dataclasses import replace

            st = replace(state, serial=serial)
            self.states.append(st)
            return st

    def append_events(self, events: list[Event]) -> None:
        with self.lock:
            self.events.extend(events)

    @property
    def last(self) -> StackState:
        return self.states[-1]


def change(
    address: str,
    action: Action,
    *,
    type: str = "Fake::Thing",
    depends_on: tuple[str, ...] = (),
    after: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
) -> ResourceChange:
    return ResourceChange(
        address=address,
        type=type,
        action=action,
        before=before,
        after=after if action not in (Action.DELETE, Action.FORGET) else None,
        depends_on=depends_on,
    )


def plan_of(changes: list[ResourceChange], mode: str = "normal", stack: str = "teststack") -> Plan:
    return Plan(stack_name=stack, mode=mode, changes=tuple(changes))


def create_plan(desired: FakeDesired, unknown: bool = True) -> Plan:
    """Every desired resource created (no ``after``: nothing promised)."""
    return plan_of(
        [
            change(r.address, Action.CREATE, type=r.type, depends_on=r.depends_on, after=None)
            for r in desired.resources.values()
        ]
    )
