"""The executor against a fake provider with injected latency and failures."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from hotc.apply.executor import ExecOptions, Executor, execute
from hotc.planner.plan import Action
from hotc.state.document import DeposedInstance, ResourceState, StackState
from hotc.values import Unknown
from tests.apply.fakes import (
    GATE_TIMEOUT,
    FakeCloud,
    FakeDesired,
    FakeDriver,
    FakeResource,
    MemorySink,
    change,
    create_plan,
    plan_of,
)

OPTS = ExecOptions(parallelism=10, delete_attempts=1, retry_backoff=0.0)


def setup(resources: list[FakeResource], **desired_kw):
    cloud = FakeCloud()
    driver = FakeDriver(cloud)
    desired = FakeDesired(resources, **desired_kw)
    return cloud, (lambda t: driver if t.startswith("Fake::") else None), desired


def run(plan, state, desired, drivers, sink=None, opts=OPTS):
    sink = sink or MemorySink()
    rep = execute(plan, state, desired, drivers, sink, opts, desired_info=getattr(desired, "resources", {}))
    return rep, sink


def ref(name):
    return lambda r: {"name": name}


def test_create_in_dependency_order_with_resolved_references():
    res = [
        FakeResource("net", props=lambda r: {"name": "net"}),
        FakeResource(
            "port", depends_on=("net",), props=lambda r: {"name": "port", "network": r.resource_id("net")}
        ),
        FakeResource(
            "srv",
            depends_on=("port",),
            props=lambda r: {
                "name": "srv",
                "port": r.resource_id("port"),
                "net_name": r.resource_attr("net", "name", ()),
            },
        ),
    ]
    cloud, drivers, desired = setup(res)
    state = StackState.new("teststack")
    rep, sink = run(create_plan(desired), state, desired, drivers)
    assert rep.ok, rep
    final = sink.last
    assert {a: r.status for a, r in final.resources.items()} == {
        "net": "CREATE_COMPLETE",
        "port": "CREATE_COMPLETE",
        "srv": "CREATE_COMPLETE",
    }
    net_id = final.resources["net"].physical_id
    port_id = final.resources["port"].physical_id
    assert final.resources["port"].properties["network"] == net_id
    assert final.resources["srv"].properties == {"name": "srv", "port": port_id, "net_name": "net"}
    assert final.resources["srv"].dependencies == ("port",)
    # each create started after the one it depends on finished
    c = {a: cloud.calls_for("create", a)[0] for a in ("net", "port", "srv")}
    assert c["port"].start >= c["net"].end and c["srv"].start >= c["port"].end
    # the objects carry lineage and address tags
    assert cloud.objects[port_id]["tags"] == {"hotc-lineage": state.lineage, "hotc-address": "port"}
    assert final.status == "CREATE_COMPLETE"
    statuses = [(e.address, e.status) for e in sink.events]
    assert statuses[0] == ("teststack", "CREATE_IN_PROGRESS")
    assert statuses[-1] == ("teststack", "CREATE_COMPLETE")
    for a in ("net", "port", "srv"):
        assert statuses.index((a, "CREATE_IN_PROGRESS")) < statuses.index((a, "CREATE_COMPLETE"))


def test_no_barriers_slow_branch_does_not_delay_independent_branch():
    # a1 (slow) -> a2 ;  b1 -> b2 -> b3 (fast). Level-by-level execution would start b2 only after a1.
    res = [
        FakeResource("a1"),
        FakeResource("a2", depends_on=("a1",)),
        FakeResource("b1"),
        FakeResource("b2", depends_on=("b1",)),
        FakeResource("b3", depends_on=("b2",)),
    ]
    cloud, drivers, desired = setup(res)
    a1_gate = cloud.gate("create", "a1")  # a1 is held in flight until the whole b branch is done
    result: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: result.update(
            rep=run(create_plan(desired), StackState.new("teststack"), desired, drivers)
        )
    )
    runner.start()
    try:
        assert cloud.ended("create", "b3").wait(GATE_TIMEOUT), "the fast branch waited for the slow one"
        assert not cloud.ended("create", "a1").is_set() and not cloud.calls_for("create", "a2")
    finally:
        a1_gate.set()
        runner.join(GATE_TIMEOUT)
    rep, _ = result["rep"]
    assert rep.ok
    assert cloud.calls_for("create", "a2")[0].start >= cloud.calls_for("create", "a1")[0].end


def test_parallelism_caps_calls_in_flight():
    res = [FakeResource(f"r{i}") for i in range(12)]
    cloud, drivers, desired = setup(res)
    cloud.default_latency = 0.05
    rep, _ = run(
        create_plan(desired), StackState.new("teststack"), desired, drivers, opts=replace(OPTS, parallelism=3)
    )
    assert rep.ok
    assert cloud.max_in_flight == 3


def test_in_flight_create_is_recorded_before_the_cloud_call_returns():
    res = [FakeResource("slow")]
    cloud, drivers, desired = setup(res)
    sink = MemorySink()
    seen = {}

    def hook(ctx):
        # called by the fake after record_physical_id, before the create returns
        last = sink.last.resources["slow"]
        seen["status"], seen["pid"] = last.status, last.physical_id

    cloud.hooks[("create", "slow")] = hook
    rep, _ = run(create_plan(desired), StackState.new("teststack"), desired, drivers, sink)
    assert rep.ok
    assert seen["status"] == "CREATE_IN_PROGRESS"
    assert seen["pid"] == sink.last.resources["slow"].physical_id is not None


def test_failure_stops_scheduling_lets_in_flight_finish_and_saves_state():
    res = (
        [FakeResource("bad"), FakeResource("slow")]
        + [FakeResource(f"later{i}") for i in range(4)]
        + [FakeResource("child", depends_on=("bad",))]
    )
    cloud, drivers, desired = setup(res)
    cloud.fail[("create", "bad")] = "Quota exceeded for instances (HTTP 403)"
    # slow is held in flight until bad has failed (the two start first: parallelism 2, plan order)
    slow_gate = cloud.gate("create", "slow")
    bad_done = cloud.ended("create", "bad")
    threading.Thread(target=lambda: bad_done.wait(GATE_TIMEOUT) and slow_gate.set(), daemon=True).start()
    rep, sink = run(
        create_plan(desired), StackState.new("teststack"), desired, drivers, opts=replace(OPTS, parallelism=2)
    )
    assert not rep.ok
    assert [f.address for f in rep.failed] == ["bad"]
    assert "Quota exceeded" in rep.failed[0].error
    assert [d.address for d in rep.done] == ["slow"]  # in flight when the failure came: finished
    assert sorted(rep.not_started) == sorted([f"create later{i}" for i in range(4)] + ["create child"])
    final = sink.last
    assert final.resources["bad"].status == "CREATE_FAILED"
    assert "Quota exceeded" in final.resources["bad"].status_reason
    assert final.resources["bad"].physical_id is not None  # recorded: next plan replaces it
    assert final.resources["slow"].status == "CREATE_COMPLETE"
    assert not any(a.startswith("later") for a in final.resources)
    assert final.status == "CREATE_FAILED"
    assert ("bad", "CREATE_FAILED") in [(e.address, e.status) for e in sink.events]
    assert not cloud.calls_for("create", "child")


def test_cancel_acts_like_a_failure_without_error():
    res = [FakeResource("first")] + [FakeResource(f"n{i}", depends_on=("first",)) for i in range(3)]
    cloud, drivers, desired = setup(res)
    sink = MemorySink()
    ex = Executor(
        create_plan(desired),
        StackState.new("teststack"),
        desired,
        drivers,
        sink,
        OPTS,
        desired_info=desired.resources,
    )
    # the interrupt arrives while "first" is in flight (from inside its create call)
    cloud.hooks[("create", "first")] = lambda _ctx: ex.cancel("interrupted (SIGINT)")
    rep = ex.run()
    assert rep.interrupted and not rep.ok and not rep.failed
    assert [d.address for d in rep.done] == ["first"]
    assert len(rep.not_started) == 3
    assert sink.last.resources["first"].status == "CREATE_COMPLETE"
    assert sink.last.status == "CREATE_FAILED" and "SIGINT" in sink.last.status_reason


def _state_with(*resources: ResourceState) -> StackState:
    s = StackState.new("teststack")
    for r in resources:
        s = s.with_resource(r)
    return s


def test_replacement_creates_new_updates_dependents_then_deletes_old():
    cloud, drivers, desired = setup(
        [
            FakeResource("a", props=lambda r: {"name": "a2"}),
            FakeResource("b", depends_on=("a",), props=lambda r: {"name": "b", "a": r.resource_id("a")}),
        ]
    )
    cloud.objects["a-old"] = {"props": {"name": "a1"}, "tags": {}, "address": "a"}
    cloud.objects["b-1"] = {"props": {"name": "b", "a": "a-old"}, "tags": {}, "address": "b"}
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "a1"}),
        ResourceState(
            "b", "Fake::Thing", "b-1", "CREATE_COMPLETE", {"name": "b", "a": "a-old"}, dependencies=("a",)
        ),
    )
    sink = MemorySink()
    seen_deposed = []
    cloud.hooks[("create", "a")] = lambda ctx: seen_deposed.append(sink.last.resources["a"].deposed)
    plan = plan_of(
        [
            change("a", Action.REPLACE, after={"name": "a2"}, before={"name": "a1"}),
            change("b", Action.UPDATE, depends_on=("a",), after={"name": "b", "a": Unknown.of("a")}),
        ]
    )
    rep, _ = run(plan, state, desired, drivers, sink)
    assert rep.ok, rep
    create_a = cloud.calls_for("create", "a")[0]
    update_b = cloud.calls_for("update", "b")[0]
    delete_a = cloud.calls_for("delete", "a")[0]
    assert create_a.end <= update_b.start and update_b.end <= delete_a.start
    assert delete_a.physical_id == "a-old"
    # while the new one was created, the old instance was kept in state as deposed
    assert seen_deposed[0] == (DeposedInstance("a-old", {"name": "a1"}, {}, type="Fake::Thing"),)
    final = sink.last
    assert final.resources["a"].deposed == ()
    assert final.resources["b"].properties["a"] == final.resources["a"].physical_id != "a-old"
    assert "a-old" not in cloud.objects


def test_failed_delete_of_old_instance_keeps_it_deposed_and_next_run_deletes_it():
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    cloud.objects["a-old"] = {"props": {}, "tags": {}, "address": "a"}
    state = _state_with(ResourceState("a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "old"}))
    cloud.fail[("delete", "a")] = "409 Conflict: in use"
    cloud.fail_times[("delete", "a")] = 1
    rep, sink = run(plan_of([change("a", Action.REPLACE, after={"name": "new"})]), state, desired, drivers)
    assert not rep.ok and "in use" in rep.failed[0].error
    a = sink.last.resources["a"]
    assert a.status == "CREATE_COMPLETE" and a.deposed[0].physical_id == "a-old"
    assert a.deposed[0].status == "DELETE_FAILED"
    # next run: nothing changed in the plan, but the deposed instance is cleaned up
    rep2, sink2 = run(plan_of([change("a", Action.NOOP)]), sink.last, desired, drivers)
    assert rep2.ok
    assert sink2.last.resources["a"].deposed == () and "a-old" not in cloud.objects


def test_delete_runs_in_reverse_dependency_order_and_retain_is_forgotten():
    cloud, drivers, desired = setup([])
    for pid in ("a1", "b1", "c1", "k1"):
        cloud.objects[pid] = {"props": {}, "tags": {}, "address": pid}
    cloud.default_latency = 0.02
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a1", "CREATE_COMPLETE"),
        ResourceState("b", "Fake::Thing", "b1", "CREATE_COMPLETE", dependencies=("a",)),
        ResourceState("c", "Fake::Thing", "c1", "CREATE_COMPLETE", dependencies=("b", "a")),
        ResourceState(
            "k", "Fake::Thing", "k1", "CREATE_COMPLETE", dependencies=("a",), deletion_policy="Retain"
        ),
    )
    plan = plan_of(
        [
            change("a", Action.DELETE),
            change("b", Action.DELETE),
            change("c", Action.DELETE),
            change("k", Action.FORGET),
        ],
        mode="destroy",
    )
    rep, sink = run(plan, state, None, drivers)
    assert rep.ok, rep
    d = {x: cloud.calls_for("delete", x)[0] for x in ("a", "b", "c")}
    assert d["c"].end <= d["b"].start and d["b"].end <= d["a"].start
    assert not cloud.calls_for("delete", "k") and "k1" in cloud.objects
    assert sink.last.resources == {}
    assert sink.last.status == "DELETE_COMPLETE"


def test_removed_resource_deleted_after_dependents_stop_using_it():
    # srv used port p1; the new template uses p2 and drops p1: create p2, update srv, then delete p1
    cloud, drivers, desired = setup(
        [
            FakeResource("p2", props=lambda r: {"name": "p2"}),
            FakeResource("srv", depends_on=("p2",), props=lambda r: {"port": r.resource_id("p2")}),
        ]
    )
    cloud.objects["p1-x"] = {"props": {}, "tags": {}, "address": "p1"}
    cloud.objects["srv-x"] = {"props": {}, "tags": {}, "address": "srv"}
    state = _state_with(
        ResourceState("p1", "Fake::Thing", "p1-x", "CREATE_COMPLETE"),
        ResourceState(
            "srv", "Fake::Thing", "srv-x", "CREATE_COMPLETE", {"port": "p1-x"}, dependencies=("p1",)
        ),
    )
    plan = plan_of(
        [
            change("p1", Action.DELETE),
            change("p2", Action.CREATE, after=None),
            change("srv", Action.UPDATE, depends_on=("p2",), after=None),
        ]
    )
    rep, sink = run(plan, state, desired, drivers)
    assert rep.ok, rep
    assert cloud.calls_for("update", "srv")[0].end <= cloud.calls_for("delete", "p1")[0].start
    assert set(sink.last.resources) == {"p2", "srv"}
    assert sink.last.resources["srv"].dependencies == ("p2",)


def test_known_planned_value_that_changes_at_apply_is_an_error():
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "actual"})])
    plan = plan_of([change("a", Action.CREATE, after={"name": "planned"})])
    rep, sink = run(plan, StackState.new("teststack"), desired, drivers)
    assert not rep.ok
    assert "name" in rep.failed[0].error and "promised" in rep.failed[0].error
    assert not cloud.calls_for("create", "a")


def test_unknown_planned_value_accepts_the_value_at_apply():
    cloud, drivers, desired = setup(
        [
            FakeResource("a", props=lambda r: {"name": "a"}),
            FakeResource("b", depends_on=("a",), props=lambda r: {"name": "b", "ref": [r.resource_id("a")]}),
        ]
    )
    plan = plan_of(
        [
            change("a", Action.CREATE, after={"name": "a"}),
            change("b", Action.CREATE, depends_on=("a",), after={"name": "b", "ref": [Unknown.of("a")]}),
        ]
    )
    rep, sink = run(plan, StackState.new("teststack"), desired, drivers)
    assert rep.ok, rep


def test_failed_update_marks_resource_and_keeps_old_properties():
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    cloud.objects["a-1"] = {"props": {"name": "old"}, "tags": {}, "address": "a"}
    cloud.fail[("update", "a")] = "Invalid input for field 'name'"
    state = _state_with(ResourceState("a", "Fake::Thing", "a-1", "CREATE_COMPLETE", {"name": "old"}))
    rep, sink = run(plan_of([change("a", Action.UPDATE, after={"name": "new"})]), state, desired, drivers)
    assert not rep.ok
    a = sink.last.resources["a"]
    assert (
        a.status == "UPDATE_FAILED" and a.properties == {"name": "old"} and "Invalid input" in a.status_reason
    )
    assert sink.last.status == "UPDATE_FAILED"


def test_interrupted_create_without_id_is_adopted_by_next_run():
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "a"})])
    state = StackState.new("teststack")
    # a killed run: the cloud object exists (tagged), the state only knows CREATE_IN_PROGRESS without an id
    cloud.objects["a-orphan"] = {
        "props": {"name": "a"},
        "address": "a",
        "tags": {"hotc-lineage": state.lineage, "hotc-address": "a"},
    }
    state = state.with_resource(ResourceState("a", "Fake::Thing", None, "CREATE_IN_PROGRESS", {"name": "a"}))
    rep, sink = run(plan_of([change("a", Action.REPLACE, after={"name": "a"})]), state, desired, drivers)
    assert rep.ok, rep
    a = sink.last.resources["a"]
    assert a.physical_id == "a-orphan" and a.status == "CREATE_COMPLETE"
    assert not cloud.calls_for("create", "a") and list(cloud.objects) == ["a-orphan"]


def test_interrupted_create_with_changed_properties_is_replaced():
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    state = StackState.new("teststack")
    cloud.objects["a-orphan"] = {
        "props": {"name": "old"},
        "address": "a",
        "tags": {"hotc-lineage": state.lineage, "hotc-address": "a"},
    }
    state = state.with_resource(
        ResourceState("a", "Fake::Thing", None, "CREATE_IN_PROGRESS", {"name": "old"})
    )
    rep, sink = run(plan_of([change("a", Action.REPLACE, after={"name": "new"})]), state, desired, drivers)
    assert rep.ok, rep
    assert cloud.calls_for("delete", "a")[0].physical_id == "a-orphan"
    assert list(cloud.objects) == [sink.last.resources["a"].physical_id]


def test_delete_is_retried_and_missing_driver_is_a_clear_failure():
    cloud, drivers, desired = setup([])
    cloud.objects["a1"] = {"props": {}, "tags": {}, "address": "a"}
    cloud.fail[("delete", "a")] = "503 Service Unavailable"
    cloud.fail_times[("delete", "a")] = 2
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a1", "CREATE_COMPLETE"),
        ResourceState("z", "Nope::Type", "z1", "CREATE_COMPLETE"),
    )
    rep, sink = run(
        plan_of([change("a", Action.DELETE), change("z", Action.DELETE, type="Nope::Type")], mode="destroy"),
        state,
        None,
        drivers,
        opts=replace(OPTS, delete_attempts=3, retry_backoff=0.01),
    )
    assert [f.address for f in rep.failed] == ["z"]
    assert "no driver for resource type Nope::Type" in rep.failed[0].error
    assert len(cloud.calls_for("delete", "a")) == 3 and "a" not in sink.last.resources
    assert sink.last.resources["z"].status == "CREATE_COMPLETE"  # never touched


def test_outputs_stored_after_success():
    cloud, drivers, desired = setup(
        [FakeResource("a", props=lambda r: {"name": "x"})],
        outputs=lambda r: {"a_id": r.resource_id("a"), "a_name": r.resource_attr("a", "name", ())},
    )
    rep, sink = run(create_plan(desired), StackState.new("teststack"), desired, drivers)
    assert rep.ok
    outs = sink.last.outputs
    assert outs["a_id"].value == sink.last.resources["a"].physical_id and outs["a_name"].value == "x"


def test_state_write_failure_stops_the_apply():
    cloud, drivers, desired = setup([FakeResource("a"), FakeResource("b", depends_on=("a",))])
    sink = MemorySink()

    def hook(ctx):
        sink.fail_writes = True

    cloud.hooks[("create", "a")] = hook
    ex = Executor(
        create_plan(desired),
        StackState.new("teststack"),
        desired,
        drivers,
        sink,
        OPTS,
        desired_info=desired.resources,
    )
    try:
        ex.run()
    except Exception as exc:  # the final write fails too: the caller sees a HotcError
        assert "could not be saved" in str(exc)
    else:
        raise AssertionError("a failed state write must not pass silently")
    assert not cloud.calls_for("create", "b")


def test_planner_style_deposed_changes_delete_only_the_old_instances():
    # the planner lists leftover old instances as separate DELETE changes with deposed=True
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "a"})])
    for pid in ("a-cur", "a-old1", "a-old2"):
        cloud.objects[pid] = {"props": {}, "tags": {}, "address": "a"}
    state = _state_with(
        ResourceState(
            "a",
            "Fake::Thing",
            "a-cur",
            "CREATE_COMPLETE",
            {"name": "a"},
            deposed=(DeposedInstance("a-old1"), DeposedInstance("a-old2")),
        )
    )
    plan = plan_of(
        [
            change("a", Action.NOOP),
            replace(change("a", Action.DELETE), deposed=True, previous_physical_id="a-old1"),
            replace(change("a", Action.DELETE), deposed=True, previous_physical_id="a-old2"),
        ]
    )
    rep, sink = run(plan, state, desired, drivers)
    assert rep.ok, rep
    assert sorted(c.physical_id for c in cloud.calls if c.op == "delete") == ["a-old1", "a-old2"]
    a = sink.last.resources["a"]
    assert a.physical_id == "a-cur" and a.deposed == () and list(cloud.objects) == ["a-cur"]


def test_replace_with_deletion_policy_retain_keeps_the_old_instance():
    cloud, drivers, desired = setup(
        [FakeResource("a", deletion_policy="Retain", props=lambda r: {"name": "new"})]
    )
    cloud.objects["a-old"] = {"props": {}, "tags": {}, "address": "a"}
    state = _state_with(
        ResourceState(
            "a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "old"}, deletion_policy="Retain"
        )
    )
    plan = plan_of([replace(change("a", Action.REPLACE, after={"name": "new"}), deletion_policy="Retain")])
    rep, sink = run(plan, state, desired, drivers)
    assert rep.ok, rep
    assert not cloud.calls_for("delete", "a") and "a-old" in cloud.objects
    assert sink.last.resources["a"].deposed == () and sink.last.resources["a"].deletion_policy == "Retain"


def test_replacement_is_stamped_apart_from_the_old_instance():
    # a driver that looks for "what this create made" by the stamp must not find the old instance
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    st = StackState.new("teststack")
    cloud.objects["a-old"] = {
        "props": {},
        "address": "a",
        "tags": {"hotc-lineage": st.lineage, "hotc-address": "a"},
    }
    cloud.reuse_on_create = True
    state = st.with_resource(
        ResourceState("a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "old"}, created_at="t0")
    )
    rep, sink = run(plan_of([change("a", Action.REPLACE, after={"name": "new"})]), state, desired, drivers)
    assert rep.ok, rep
    new = sink.last.resources["a"].physical_id
    assert new != "a-old" and list(cloud.objects) == [new]
    assert cloud.objects[new]["tags"]["hotc-address"].startswith("a@")


def test_create_giving_back_the_old_id_keeps_it_as_current_and_deletes_nothing():
    # types whose id is made of their inputs (a volume attachment server:volume) give the same id again
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    st = StackState.new("teststack")
    cloud.objects["srv:vol"] = {"props": {}, "address": "a", "tags": {"hotc-lineage": st.lineage}}
    state = st.with_resource(
        ResourceState("a", "Fake::Thing", "srv:vol", "CREATE_IN_PROGRESS", {"name": "old"})
    )
    from hotc.providers.base import Outcome

    class Attachment:
        def create(self, ctx, props):
            ctx.record_physical_id("srv:vol")
            return Outcome("srv:vol", {})

        def delete(self, ctx, pid, props):
            cloud.objects.pop(pid, None)

    rep, sink = run(
        plan_of([change("a", Action.REPLACE, after={"name": "new"})]), state, desired, lambda _t: Attachment()
    )
    assert rep.ok, rep
    a = sink.last.resources["a"]
    assert a.physical_id == "srv:vol" and a.deposed == () and a.status == "CREATE_COMPLETE"
    assert "already existed" in a.status_reason and "srv:vol" in cloud.objects


def _status_rule(record):  # like Heat's Server.needs_replace_failed: replace when gone or ERROR
    return record is None or record.get("status") == "ERROR"


def test_interrupted_resource_healthy_in_the_cloud_is_kept_not_replaced(monkeypatch):
    import hotc.apply.executor as ex

    monkeypatch.setattr(ex, "failed_replace_rule", lambda t: _status_rule)
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "a"})])
    cloud.objects["a-1"] = {"props": {"name": "a"}, "tags": {}, "statuses": ["BUILD", "BUILD", "ACTIVE"]}
    state = _state_with(ResourceState("a", "Fake::Thing", "a-1", "CREATE_IN_PROGRESS", {"name": "a"}))
    plan = plan_of(
        [
            replace(
                change("a", Action.REPLACE, after={"name": "a"}), action_reason="replace_because_incomplete"
            )
        ]
    )
    rep, sink = run(plan, state, desired, drivers)
    assert rep.ok, rep
    a = sink.last.resources["a"]
    assert a.physical_id == "a-1" and a.status == "CREATE_COMPLETE" and "kept" in a.status_reason
    assert a.attributes["status"] == "ACTIVE"  # waited out BUILD
    assert not cloud.calls_for("create", "a") and not cloud.calls_for("delete", "a")
    # killed before it was stamped: the stamp is put back
    assert cloud.objects["a-1"]["tags"] == {"hotc-lineage": state.lineage, "hotc-address": "a"}
    assert len(cloud.calls_for("update", "a")) == 1


def test_failed_resource_broken_in_the_cloud_or_changed_is_replaced(monkeypatch):
    import hotc.apply.executor as ex

    monkeypatch.setattr(ex, "failed_replace_rule", lambda t: _status_rule)
    cloud, drivers, desired = setup(
        [FakeResource("a", props=lambda r: {"name": "a"}), FakeResource("b", props=lambda r: {"name": "b2"})]
    )
    cloud.objects["a-1"] = {"props": {"name": "a"}, "tags": {}, "statuses": ["ERROR"]}
    cloud.objects["b-1"] = {"props": {"name": "b"}, "tags": {}, "statuses": ["ACTIVE"]}
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a-1", "CREATE_FAILED", {"name": "a"}),
        ResourceState("b", "Fake::Thing", "b-1", "UPDATE_FAILED", {"name": "b"}),
    )
    plan = plan_of(
        [
            replace(change("a", Action.REPLACE, after={"name": "a"}), action_reason="replace_because_failed"),
            replace(
                change("b", Action.REPLACE, after={"name": "b2"}), action_reason="replace_because_failed"
            ),
        ]
    )
    rep, sink = run(plan, state, desired, drivers)
    assert rep.ok, rep
    for x in ("a", "b"):
        assert (
            sink.last.resources[x].physical_id != f"{x}-1"
            and cloud.calls_for("delete", x)[0].physical_id == f"{x}-1"
        )


def test_promise_check_unit():
    from hotc.apply.resolve import promise_mismatches

    assert promise_mismatches({"a": 1, "b": [1, Unknown.of("x")]}, {"a": 1, "b": [1, "anything"]}) == []
    assert promise_mismatches({"a": 1}, {"a": 2}) == ["a"]
    assert promise_mismatches({"a": [1, 2]}, {"a": [1]}) == ["a"]
    assert promise_mismatches({"a": 1}, {"a": 1, "extra": 0}) == ["extra"]
    assert promise_mismatches({"n": 1}, {"n": 1.0}) == []
    assert promise_mismatches({"n": True}, {"n": 1}) == ["n"]
    assert (
        promise_mismatches({"pw": "(sensitive)", "u": {"k": "x"}}, {"pw": "s3", "u": {"k": "y"}}, ("u",))
        == []
    )
    assert promise_mismatches("(sensitive)", {"whole": "value"}) == []


def test_every_transition_is_in_a_written_state():
    res = [FakeResource(f"r{i}", depends_on=(f"r{i - 1}",) if i else ()) for i in range(4)] + [
        FakeResource("solo")
    ]
    cloud, drivers, desired = setup(res)
    cloud.default_latency = 0.01
    rep, sink = run(create_plan(desired), StackState.new("teststack"), desired, drivers)
    assert rep.ok
    for addr in [r.address for r in res]:
        seen = [s.resources[addr].status for s in sink.states if addr in s.resources]
        assert seen[0] == "CREATE_IN_PROGRESS" and seen[-1] == "CREATE_COMPLETE", (addr, seen)
        with_id = [
            s.resources[addr] for s in sink.states if addr in s.resources and s.resources[addr].physical_id
        ]
        assert with_id[0].status == "CREATE_IN_PROGRESS"  # the id was stored while the create was in flight
    serials = [s.serial for s in sink.states]
    assert serials == sorted(serials) and len(set(serials)) == len(serials)


def test_destroy_of_a_create_interrupted_before_its_id_finds_and_deletes_the_object():
    cloud, drivers, desired = setup([])
    st = StackState.new("teststack")
    cloud.objects["orphan"] = {
        "props": {},
        "address": "a",
        "tags": {"hotc-lineage": st.lineage, "hotc-address": "a"},
    }
    cloud.objects["other"] = {
        "props": {},
        "address": "b",
        "tags": {"hotc-lineage": st.lineage, "hotc-address": "b"},
    }
    state = st.with_resource(ResourceState("a", "Fake::Thing", None, "CREATE_IN_PROGRESS", {"name": "a"}))
    state = state.with_resource(ResourceState("c", "Fake::Thing", None, "CREATE_IN_PROGRESS", {"name": "c"}))
    rep, sink = run(
        plan_of([change("a", Action.DELETE), change("c", Action.DELETE)], mode="destroy"),
        state,
        None,
        drivers,
    )
    assert rep.ok, rep
    assert [c.physical_id for c in cloud.calls if c.op == "delete"] == ["orphan"]
    assert list(cloud.objects) == ["other"] and sink.last.resources == {}


def test_replaced_instance_is_deleted_under_its_own_deletion_policy_passed_explicitly():
    """A replaced resource's old instance is deleted under the policy it had (Snapshot): the policy is a field
    of the deposed instance and reaches ``driver.delete`` as an argument, not through a look-up that can fail."""
    cloud, drivers, desired = setup([FakeResource("a", props=lambda r: {"name": "new"})])
    cloud.objects["a-old"] = {"props": {}, "tags": {}, "address": "a"}
    state = _state_with(
        ResourceState(
            "a", "Fake::Thing", "a-old", "CREATE_COMPLETE", {"name": "old"}, deletion_policy="Snapshot"
        )
    )
    sink = MemorySink()
    seen_deposed = []
    cloud.hooks[("create", "a")] = lambda ctx: seen_deposed.append(sink.last.resources["a"].deposed)
    # the new instance is Delete: the old one keeps Snapshot
    plan = plan_of([change("a", Action.REPLACE, after={"name": "new"})])
    rep, sink = run(plan, state, desired, drivers, sink)
    assert rep.ok, rep
    assert seen_deposed[0][0].deletion_policy == "Snapshot" and seen_deposed[0][0].type == "Fake::Thing"
    assert "hotc:deletion_policy" not in seen_deposed[0][0].attributes
    assert [(c.physical_id, c.policy) for c in cloud.calls if c.op == "delete"] == [("a-old", "Snapshot")]
    assert sink.last.resources["a"].deposed == ()


def test_destroy_passes_each_resources_deletion_policy_to_the_driver():
    cloud, drivers, desired = setup([])
    for pid in ("a1", "b1"):
        cloud.objects[pid] = {"props": {}, "tags": {}, "address": pid}
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a1", "CREATE_COMPLETE", deletion_policy="Snapshot"),
        ResourceState("b", "Fake::Thing", "b1", "CREATE_COMPLETE"),
    )
    plan = plan_of([change("a", Action.DELETE), change("b", Action.DELETE)], mode="destroy")
    rep, sink = run(plan, state, None, drivers)
    assert rep.ok, rep
    assert sorted((c.physical_id, c.policy) for c in cloud.calls if c.op == "delete") == [
        ("a1", "Snapshot"),
        ("b1", "Delete"),
    ]


def test_snapshot_asked_of_a_driver_that_cannot_snapshot_fails_and_keeps_the_resource():
    cloud = FakeCloud()
    driver = FakeDriver(cloud, snapshot_delete=False)
    cloud.objects["a1"] = {"props": {}, "tags": {}, "address": "a"}
    state = _state_with(
        ResourceState("a", "Fake::Thing", "a1", "CREATE_COMPLETE", deletion_policy="Snapshot")
    )
    plan = plan_of([change("a", Action.DELETE)], mode="destroy")
    rep, sink = run(plan, state, None, lambda t: driver)
    assert not rep.ok
    assert "cannot snapshot" in rep.failed[0].error and "kept" in rep.failed[0].error
    assert not cloud.calls_for("delete", "a") and "a1" in cloud.objects
    assert sink.last.resources["a"].status == "DELETE_FAILED"


def test_replaced_instance_of_another_type_is_deleted_by_its_own_types_driver():
    cloud = FakeCloud()
    old_driver, new_driver = FakeDriver(cloud), FakeDriver(FakeCloud())
    cloud.objects["a-old"] = {"props": {}, "tags": {}, "address": "a"}
    desired = FakeDesired([FakeResource("a", type="Fake::New", props=lambda r: {"name": "new"})])
    state = _state_with(ResourceState("a", "Fake::Old", "a-old", "CREATE_COMPLETE", {"name": "old"}))
    plan = plan_of([replace(change("a", Action.REPLACE, after={"name": "new"}), type="Fake::New")])
    rep, sink = run(plan, state, desired, lambda t: {"Fake::Old": old_driver, "Fake::New": new_driver}.get(t))
    assert rep.ok, rep
    assert [c.physical_id for c in cloud.calls if c.op == "delete"] == ["a-old"]
    assert sink.last.resources["a"].type == "Fake::New" and sink.last.resources["a"].deposed == ()


def _early_chain() -> tuple[FakeCloud, Any, FakeDesired]:
    """net; port needs only net's id (get_resource); srv reads an attribute of net. net's driver says it is
    usable right after recording its id, then goes on (tags, reads) until port's create has ended."""
    res = [
        FakeResource("net", props=lambda r: {"name": "net"}),
        FakeResource(
            "port", depends_on=("net",), props=lambda r: {"name": "port", "network": r.resource_id("net")}
        ),
        FakeResource(
            "srv", depends_on=("net",), props=lambda r: {"net_name": r.resource_attr("net", "name", ())}
        ),
    ]
    cloud, drivers, desired = setup(res, id_only={"port": frozenset({"net"}), "srv": frozenset()})
    cloud.hooks[("create", "net")] = lambda ctx: ctx.ready_for_dependents()
    # net's create ends only once port's create has run: only an early start of port lets the run go on
    net_may_end = cloud.gate("create", "net")
    cloud.hooks[("create", "port")] = lambda ctx: net_may_end.set()
    return cloud, drivers, desired


def test_a_create_that_needs_only_an_id_starts_once_its_parent_is_usable():
    cloud, drivers, desired = _early_chain()
    state = StackState.new("teststack")
    rep, sink = run(create_plan(desired), state, desired, drivers)
    assert rep.ok, rep
    final = sink.last
    net, port = final.resources["net"], final.resources["port"]
    assert {a: r.status for a, r in final.resources.items()} == dict.fromkeys(
        ("net", "port", "srv"), "CREATE_COMPLETE"
    )
    assert port.properties["network"] == net.physical_id
    assert final.resources["srv"].properties == {"net_name": "net"}
    c = {a: cloud.calls_for("create", a)[0] for a in ("net", "port", "srv")}
    assert c["port"].start < c["net"].end  # started while net's create was still going on
    assert c["srv"].start >= c["net"].end  # an attribute: waited for net's create to end
    # the parent's record is complete in the state the run ends with, with its attributes
    assert net.attributes["name"] == "net" and final.status == "CREATE_COMPLETE"


def test_a_parent_failing_after_its_release_fails_the_apply_and_the_started_dependent_is_recorded():
    cloud, drivers, desired = _early_chain()
    cloud.fail[("create", "net")] = "tagging failed"
    state = StackState.new("teststack")
    rep, sink = run(create_plan(desired), state, desired, drivers)
    assert not rep.ok
    assert [f.address for f in rep.failed] == ["net"] and "tagging failed" in rep.failed[0].error
    assert [d.address for d in rep.done] == ["port"]
    assert rep.not_started == ("create srv",)
    final = sink.last
    assert final.resources["net"].status == "CREATE_FAILED"
    assert final.resources["net"].physical_id is not None  # recorded before the failure: the next run sees it
    assert final.resources["port"].status == "CREATE_COMPLETE"
    assert final.resources["port"].properties["network"] == final.resources["net"].physical_id
    assert "srv" not in final.resources and final.status == "CREATE_FAILED"


def test_without_id_only_edges_a_dependent_waits_for_the_whole_create():
    cloud, drivers, desired = setup(
        [
            FakeResource("net", props=lambda r: {"name": "net"}),
            FakeResource("port", depends_on=("net",), props=lambda r: {"network": r.resource_id("net")}),
        ]
    )
    cloud.hooks[("create", "net")] = lambda ctx: ctx.ready_for_dependents()
    rep, _sink = run(create_plan(desired), StackState.new("teststack"), desired, drivers)
    assert rep.ok, rep
    assert cloud.calls_for("create", "port")[0].start >= cloud.calls_for("create", "net")[0].end
