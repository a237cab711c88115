"""Group commit in the state keeper: every change is durable before its action goes on, writes are shared
by concurrent actions, and a failing write stops the apply."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from hotc.apply.executor import ExecOptions, Executor
from hotc.apply.statekeeper import StateKeeper, StateWriteError
from hotc.errors import HotcError
from hotc.providers.base import ActionContext, Outcome
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan

OPTS = ExecOptions(parallelism=16, delete_attempts=1, retry_backoff=0.0)


class SlowSink(MemorySink):
    """A sink whose writes take time and which can start failing after a number of writes."""

    def __init__(self, write_delay: float, fail_after: int | None = None) -> None:
        super().__init__(write_delay)
        self.fail_after = fail_after
        self.in_write = 0
        self.max_in_write = 0

    def write(self, state: StackState) -> StackState:
        with self.lock:
            self.in_write += 1
            self.max_in_write = max(self.max_in_write, self.in_write)
            if self.fail_after is not None and len(self.states) >= self.fail_after:
                self.fail_writes = True
        try:
            return super().write(state)
        finally:
            with self.lock:
                self.in_write -= 1


class CheckingDriver(FakeDriver):
    """Checks, when the create is issued and when the id is recorded, what the completed writes hold."""

    def __init__(self, cloud: FakeCloud, sink: MemorySink) -> None:
        super().__init__(cloud)
        self.sink = sink
        self.violations: list[str] = []

    def _durable(self, addr: str, want: Any) -> bool:
        with self.sink.lock:
            return any(addr in s.resources and want(s.resources[addr]) for s in self.sink.states)

    def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
        if not self._durable(ctx.address, lambda r: r.status == "CREATE_IN_PROGRESS"):
            self.violations.append(f"{ctx.address}: create issued before CREATE_IN_PROGRESS was written")
        record = ctx.record_physical_id

        def recording(pid: str) -> None:
            record(pid)
            if not self._durable(ctx.address, lambda r: r.physical_id == pid):
                self.violations.append(
                    f"{ctx.address}: record_physical_id returned before the id was written"
                )

        return super().create(replace(ctx, record_physical_id=recording), props)


def _wide(n: int) -> list[FakeResource]:
    return [FakeResource(f"r{i}") for i in range(n)]


def test_concurrent_creates_are_durable_before_the_cloud_call_and_share_writes() -> None:
    n = 40
    cloud = FakeCloud()
    cloud.default_latency = 0.01
    sink = SlowSink(write_delay=0.01)
    driver = CheckingDriver(cloud, sink)
    desired = FakeDesired(_wide(n))
    ex = Executor(
        create_plan(desired),
        StackState.new("teststack"),
        desired,
        lambda _t: driver,
        sink,
        OPTS,
        desired_info=desired.resources,
    )
    rep = ex.run()
    assert rep.ok
    assert driver.violations == []
    assert sink.max_in_write == 1  # one writer: never two writes at once
    final = sink.last
    assert all(final.resources[f"r{i}"].status == "CREATE_COMPLETE" for i in range(n))
    # each create commits three times (in progress, id, complete) plus the stack's start/end: grouped, the
    # concurrent commits share writes
    assert len(sink.states) < 3 * n / 2, len(sink.states)


def test_a_failing_write_is_an_error_of_the_apply_and_stops_scheduling() -> None:
    chain = [FakeResource(f"c{i}", depends_on=(f"c{i - 1}",) if i else ()) for i in range(30)]
    res = _wide(8) + chain
    cloud = FakeCloud()
    cloud.default_latency = 0.005
    sink = SlowSink(write_delay=0.002, fail_after=10)
    driver = CheckingDriver(cloud, sink)
    desired = FakeDesired(res)
    ex = Executor(
        create_plan(desired),
        StackState.new("teststack"),
        desired,
        lambda _t: driver,
        sink,
        OPTS,
        desired_info=desired.resources,
    )
    with pytest.raises(HotcError, match="could not be saved: disk full"):
        ex.run()
    assert driver.violations == []  # no create went out whose IN_PROGRESS record was not stored
    created = {c.address for c in cloud.calls if c.op == "create"}
    assert "c29" not in created and len(created) < len(res)
    # every create that went out is known to the last stored state (nothing the cloud has is untracked)
    stored = sink.last.resources
    assert created <= set(stored)


def test_keeper_commit_returns_only_once_its_change_is_written() -> None:
    sink = SlowSink(write_delay=0.005)
    keeper = StateKeeper(StackState.new("s"), sink)
    problems: list[str] = []

    def worker(i: int) -> None:
        for j in range(5):
            addr = f"w{i}-{j}"
            keeper.commit(lambda s, a=addr: s.with_resource(ResourceState(a, "T", None, "CREATE_COMPLETE")))
            with sink.lock:
                if addr not in sink.states[-1].resources:
                    problems.append(addr)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = keeper.close()
    assert problems == []
    assert len(final.resources) == 60 and set(sink.last.resources) == set(final.resources)
    assert len(sink.states) < 60  # 60 commits, fewer writes


def test_keeper_after_a_failed_write_refuses_further_commits() -> None:
    sink = SlowSink(write_delay=0.0, fail_after=1)
    keeper = StateKeeper(StackState.new("s"), sink)
    keeper.commit(lambda s: replace(s, status="CREATE_IN_PROGRESS"))
    with pytest.raises(StateWriteError, match="disk full"):
        keeper.commit(lambda s: replace(s, status="CREATE_COMPLETE"))
    with pytest.raises(StateWriteError):
        keeper.commit(lambda s: s)
    with pytest.raises(StateWriteError):
        keeper.close()


def test_events_are_stored_alongside_the_state_before_commit_returns() -> None:
    from hotc.apply.events import resource_event

    class SlowEvents(SlowSink):
        def __init__(self) -> None:
            super().__init__(write_delay=0.1)
            self.overlap = False

        def append_events(self, events: list) -> None:  # type: ignore[type-arg]
            time.sleep(0.005)
            with self.lock:
                self.overlap = self.overlap or self.in_write > 0  # written while the state was being written
            super().append_events(events)

    sink = SlowEvents()
    keeper = StateKeeper(StackState.new("s"), sink)
    for i in range(3):
        ev = resource_event(f"r{i}", "T", "CREATE_COMPLETE")
        keeper.commit(
            lambda s, i=i: s.with_resource(ResourceState(f"r{i}", "T", None, "CREATE_COMPLETE")), (ev,)
        )
        assert ev in sink.events and f"r{i}" in sink.last.resources
    keeper.close()
    assert sink.overlap  # the two round trips overlap


def test_a_failing_event_append_fails_the_commit() -> None:
    class BadEvents(SlowSink):
        def append_events(self, events: list) -> None:  # type: ignore[type-arg]
            raise OSError("events bucket gone")

    from hotc.apply.events import resource_event

    keeper = StateKeeper(StackState.new("s"), BadEvents(write_delay=0.0))
    with pytest.raises(StateWriteError, match="events bucket gone"):
        keeper.commit(lambda s: s, (resource_event("a", "T", "CREATE_IN_PROGRESS"),))
