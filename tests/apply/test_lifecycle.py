"""hotc check / suspend / resume over a local state with fake drivers."""

from __future__ import annotations

import io
from pathlib import Path

from hotc.apply.lifecycle import check_stack, suspend_resume
from hotc.state import backend_from_config
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeCloud, FakeDriver


def _stack(tmp_path: Path) -> StackState:
    st = StackState.new("life")
    st = st.with_resource(ResourceState("net", "Fake::Thing", "n1", "CREATE_COMPLETE"))
    st = st.with_resource(
        ResourceState("srv", "Fake::Server", "s1", "CREATE_COMPLETE", dependencies=("net",))
    )
    st = st.with_resource(ResourceState("gone", "Fake::Thing", "g1", "CREATE_COMPLETE"))
    b = backend_from_config(str(tmp_path), tmp_path)
    with b.lock("life", "test") as lk:
        b.write("life", st, lk)
    return st


class Suspendable(FakeDriver):
    def __init__(self, cloud: FakeCloud, calls: list[str]) -> None:
        super().__init__(cloud)
        self.calls = calls

    def suspend(self, ctx, pid, props):
        self.calls.append(f"suspend {ctx.address}")

    def resume(self, ctx, pid, props):
        self.calls.append(f"resume {ctx.address}")


def test_check_marks_missing_resources_failed(tmp_path: Path) -> None:
    _stack(tmp_path)
    cloud = FakeCloud()
    cloud.objects.update({"n1": {"props": {}, "tags": {}}, "s1": {"props": {"name": "x"}, "tags": {}}})
    drv = FakeDriver(cloud)
    out, err = io.StringIO(), io.StringIO()
    code = check_stack("life", str(tmp_path), None, out, err, drivers=lambda t: drv)
    assert code == 1 and "1 resource(s) failed the check" in err.getvalue()
    st, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    assert (
        st.resources["gone"].status == "CHECK_FAILED"
        and "g1 no longer exists" in st.resources["gone"].status_reason
    )
    assert st.resources["net"].status == "CHECK_COMPLETE" and st.status == "CHECK_FAILED"
    events = backend_from_config(str(tmp_path), tmp_path).read_events("life")
    assert ("gone", "CHECK_FAILED") in [(e.address, e.status) for e in events]


def test_suspend_in_reverse_order_resume_in_order_and_types_without_support(tmp_path: Path) -> None:
    _stack(tmp_path)
    calls: list[str] = []
    cloud = FakeCloud()
    server, plain = Suspendable(cloud, calls), FakeDriver(cloud)
    drivers = lambda t: server if t == "Fake::Server" else plain  # noqa: E731
    out = io.StringIO()
    assert suspend_resume("suspend", "life", str(tmp_path), None, 0, out, io.StringIO(), drivers=drivers) == 0
    assert calls == ["suspend srv"] and "Fake::Thing cannot be suspended: nothing to do" in out.getvalue()
    st, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    assert {rs.status for rs in st.resources.values()} == {
        "SUSPEND_COMPLETE"
    } and st.status == "SUSPEND_COMPLETE"
    assert (
        suspend_resume(
            "resume", "life", str(tmp_path), None, 0, io.StringIO(), io.StringIO(), drivers=drivers
        )
        == 0
    )
    assert calls == ["suspend srv", "resume srv"]


def test_suspend_runs_one_level_in_parallel_and_the_next_level_after_it(tmp_path: Path) -> None:
    """Two servers on one network: both are suspended at the same time (each waits at a barrier the other must
    reach: sequential calls would fail it), and the network's level comes after theirs."""
    import threading

    st = StackState.new("life")
    st = st.with_resource(ResourceState("net", "Fake::Server", "n1", "CREATE_COMPLETE"))
    for name in ("a", "b"):
        st = st.with_resource(
            ResourceState(name, "Fake::Server", f"{name}1", "CREATE_COMPLETE", dependencies=("net",))
        )
    b = backend_from_config(str(tmp_path), tmp_path)
    with b.lock("life", "test") as lk:
        b.write("life", st, lk)
    barrier = threading.Barrier(2, timeout=30)
    calls: list[str] = []

    class Both(Suspendable):
        def suspend(self, ctx, pid, props):  # type: ignore[no-untyped-def]
            if ctx.address in ("a", "b"):
                barrier.wait()  # raises BrokenBarrierError unless the other one is in flight too
            super().suspend(ctx, pid, props)

    drv = Both(FakeCloud(), calls)
    out, err = io.StringIO(), io.StringIO()
    assert suspend_resume("suspend", "life", str(tmp_path), None, 0, out, err, drivers=lambda t: drv) == 0, (
        err.getvalue()
    )
    assert sorted(calls[:2]) == ["suspend a", "suspend b"] and calls[2] == "suspend net"
    calls.clear()
    assert suspend_resume("resume", "life", str(tmp_path), None, 0, out, err, drivers=lambda t: drv) == 0
    assert calls[0] == "resume net" and sorted(calls[1:]) == ["resume a", "resume b"]


def test_a_failed_suspend_starts_nothing_after_its_level(tmp_path: Path) -> None:
    _stack(tmp_path)
    calls: list[str] = []

    class Broken(Suspendable):
        def suspend(self, ctx, pid, props):  # type: ignore[no-untyped-def]
            super().suspend(ctx, pid, props)
            if ctx.address == "srv":
                raise RuntimeError("hypervisor says no")

    drv = Broken(FakeCloud(), calls)
    err = io.StringIO()
    assert (
        suspend_resume("suspend", "life", str(tmp_path), None, 0, io.StringIO(), err, drivers=lambda t: drv)
        == 1
    )
    assert "suspend net" not in calls and "srv: SUSPEND_FAILED: hypervisor says no" in err.getvalue()
    st, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    assert st.resources["srv"].status == "SUSPEND_FAILED" and st.status == "SUSPEND_FAILED"
    assert st.resources["net"].status == "CREATE_COMPLETE"


def test_check_fails_a_resource_whose_live_status_is_broken(tmp_path: Path) -> None:
    _stack(tmp_path)
    cloud = FakeCloud()
    cloud.objects.update(
        {
            "n1": {"props": {}, "tags": {}, "statuses": ["ACTIVE"]},
            "s1": {"props": {}, "tags": {}, "statuses": ["ERROR"]},
            "g1": {"props": {}, "tags": {}},
        }
    )
    drv = FakeDriver(cloud)
    err = io.StringIO()
    assert check_stack("life", str(tmp_path), None, io.StringIO(), err, drivers=lambda t: drv) == 1
    st, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    assert (
        st.resources["srv"].status == "CHECK_FAILED"
        and "status is ERROR" in st.resources["srv"].status_reason
    )
    assert st.resources["net"].status == "CHECK_COMPLETE" and st.resources["gone"].status == "CHECK_COMPLETE"


def test_resume_runs_along_the_graph_without_waiting_for_a_whole_level(tmp_path: Path) -> None:
    """``slow`` and ``net`` have no dependencies; ``app`` depends on ``net`` only. app is resumed as soon as net
    is, while slow is still in flight: slow's resume waits for app's to start (level by level, app would wait
    for slow and the run would fail)."""
    import threading

    st = StackState.new("life")
    st = st.with_resource(ResourceState("net", "Fake::Server", "n1", "CREATE_COMPLETE"))
    st = st.with_resource(ResourceState("slow", "Fake::Server", "x1", "CREATE_COMPLETE"))
    st = st.with_resource(
        ResourceState("app", "Fake::Server", "a1", "CREATE_COMPLETE", dependencies=("net",))
    )
    b = backend_from_config(str(tmp_path), tmp_path)
    with b.lock("life", "test") as lk:
        b.write("life", st, lk)
    app_started = threading.Event()
    calls: list[str] = []

    class Graph(Suspendable):
        def resume(self, ctx, pid, props):  # type: ignore[no-untyped-def]
            if ctx.address == "app":
                app_started.set()
            if ctx.address == "slow" and not app_started.wait(30):
                raise RuntimeError("app was not resumed while slow was in flight")
            super().resume(ctx, pid, props)

    drv = Graph(FakeCloud(), calls)
    out, err = io.StringIO(), io.StringIO()
    assert suspend_resume("resume", "life", str(tmp_path), None, 0, out, err, drivers=lambda t: drv) == 0, (
        err.getvalue()
    )
    assert calls.index("resume net") < calls.index("resume app") < calls.index("resume slow")
    st2, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    assert {rs.status for rs in st2.resources.values()} == {"RESUME_COMPLETE"}


def test_what_a_suspend_or_resume_reports_is_recorded_and_the_rest_is_kept(tmp_path: Path) -> None:
    """A Mistral external resource's SUSPEND workflow reports its outputs merged into ``output`` and the
    execution as its id (Heat's ``_check_action``): the state records both; what the call did not report keeps
    its recorded value, and a call that reports nothing changes nothing."""
    from hotc.providers.base import Outcome

    st = StackState.new("life")
    st = st.with_resource(
        ResourceState("ext", "Fake::Ext", "e1", "CREATE_COMPLETE", attributes={"output": "{}", "kept": 1})
    )
    st = st.with_resource(ResourceState("srv", "Fake::Server", "s1", "CREATE_COMPLETE", attributes={"a": 1}))
    b = backend_from_config(str(tmp_path), tmp_path)
    with b.lock("life", "test") as lk:
        b.write("life", st, lk)
    calls: list[str] = []

    class Ext(Suspendable):
        def suspend(self, ctx, pid, props):  # type: ignore[no-untyped-def]
            super().suspend(ctx, pid, props)
            return Outcome("exec-2", {"output": '{"paused": true}'}, sensitive_attributes=("output",))

    ext, srv = Ext(FakeCloud(), calls), Suspendable(FakeCloud(), calls)
    drivers = lambda t: ext if t == "Fake::Ext" else srv  # noqa: E731
    err = io.StringIO()
    assert suspend_resume("suspend", "life", str(tmp_path), None, 0, io.StringIO(), err, drivers=drivers) == 0
    got, _ = backend_from_config(str(tmp_path), tmp_path).read("life")
    e, s = got.resources["ext"], got.resources["srv"]
    assert e.physical_id == "exec-2" and e.status == "SUSPEND_COMPLETE"
    assert e.attributes == {"output": '{"paused": true}', "kept": 1} and e.sensitive_attributes == ("output",)
    assert s.physical_id == "s1" and s.attributes == {"a": 1} and s.status == "SUSPEND_COMPLETE"
