"""Cascade deletes (hotc.apply.cascade): a parent whose delete removes its children (an Octavia load balancer with
``cascade``) is deleted first when the plan deletes it with them; each child's delete runs after it and finds its
object gone; what depended on a child is still deleted before it, what a child depended on still after it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotc.apply.cascade import cascade_children, driver_cascades, with_cascades
from hotc.apply.executor import ExecOptions, execute
from hotc.apply.graph import build_graph
from hotc.planner.plan import Action
from hotc.providers.base import DELETE, ActionContext
from hotc.state.document import ResourceState, StackState
from tests.apply.fakes import FakeCloud, FakeDriver, MemorySink, change, plan_of

OPTS = ExecOptions(parallelism=10, delete_attempts=1, retry_backoff=0.0)
LB, LISTENER, POOL = "Fake::LB", "Fake::Listener", "Fake::Pool"
MEMBER, MONITOR = "Fake::Member", "Fake::Monitor"
CHILDREN = frozenset({LISTENER, POOL, MEMBER, MONITOR})


class CascadingDriver(FakeDriver):
    """The parent's delete removes, as Octavia's cascade does, every object whose ``parent`` chain reaches it."""

    cascades = CHILDREN

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        with self.cloud.lock:
            gone = {physical_id}
            grew = True
            while grew:
                more = {p for p, o in self.cloud.objects.items() if o["props"].get("parent") in gone} - gone
                gone |= more
                grew = bool(more)
            self.cascaded = gone - {physical_id}
            for p in gone - {physical_id}:
                self.cloud.objects.pop(p, None)
        super().delete(ctx, physical_id, props, policy=policy)


class ChildDriver(FakeDriver):
    """A child's delete of an object that is gone makes no cloud call (as the Octavia drivers find the parent
    gone and return)."""

    def delete(
        self, ctx: ActionContext, physical_id: str, props: Mapping[str, Any], *, policy: str = DELETE
    ) -> None:
        if physical_id not in self.cloud.objects:
            self.cloud._enter("gone", ctx.address, physical_id).end = 0.0
            return
        super().delete(ctx, physical_id, props, policy=policy)


def _rs(addr: str, type_: str, *deps: str, policy: str = "Delete") -> ResourceState:
    return ResourceState(
        addr, type_, f"{addr}-1", "CREATE_COMPLETE", dependencies=deps, deletion_policy=policy
    )


PARENTS = {"lb": None, "listener": "lb", "pool": "listener", "member": "pool", "monitor": "pool"}


def _chain(cloud: FakeCloud, *extra: ResourceState, policies: Mapping[str, str] | None = None) -> StackState:
    """server <- member; lb <- listener <- pool <- member, monitor; plus ``extra``."""
    s = StackState.new("teststack")
    resources = [
        _rs("server", "Fake::Server"),
        _rs("lb", LB),
        _rs("listener", LISTENER, "lb"),
        _rs("pool", POOL, "listener"),
        _rs("member", MEMBER, "pool", "server"),
        _rs("monitor", MONITOR, "pool"),
        *extra,
    ]
    for r in resources:
        if policies and r.address in policies:
            r = replace(r, deletion_policy=policies[r.address])
        s = s.with_resource(r)
        parent = PARENTS.get(r.address)
        cloud.objects[f"{r.address}-1"] = {
            "props": {"parent": f"{parent}-1" if parent else None},
            "tags": {},
            "address": r.address,
        }
    return s


def _drivers(cloud: FakeCloud) -> Any:
    parent, child, other = CascadingDriver(cloud), ChildDriver(cloud), FakeDriver(cloud)
    return lambda t: parent if t == LB else child if t in CHILDREN else other


def _destroy(state: StackState, *, forget: tuple[str, ...] = ()) -> Any:
    changes = [
        change(a, Action.FORGET if a in forget else Action.DELETE, type=rs.type)
        for a, rs in state.resources.items()
    ]
    return plan_of(changes, mode="destroy")


def test_the_graph_puts_the_parent_first_and_keeps_what_children_wait_on_before_it() -> None:
    cloud = FakeCloud()
    # a value that reads the pool must go before the pool: with the cascade, before the load balancer
    state = _chain(cloud, _rs("value", "Fake::Thing", "pool"))
    graph0 = build_graph(_destroy(state), state)
    assert "cleanup:monitor" in graph0.waits_on["cleanup:pool"]  # child by child without the cascade
    graph, parent_of = with_cascades(graph0, state, driver_cascades(_drivers(cloud)))
    assert parent_of == {c: "lb" for c in ("listener", "pool", "member", "monitor")}
    assert graph.waits_on["cleanup:lb"] == frozenset({"cleanup:value"})
    for c in ("listener", "pool", "member", "monitor"):
        assert graph.waits_on[f"cleanup:{c}"] == frozenset({"cleanup:lb"})
    assert "cleanup:member" in graph.waits_on["cleanup:server"]  # the server still goes after its member


def test_destroy_deletes_the_load_balancer_first_and_the_children_find_their_objects_gone() -> None:
    cloud = FakeCloud()
    state = _chain(cloud)
    sink = MemorySink()
    rep = execute(_destroy(state), state, None, _drivers(cloud), sink, OPTS)
    assert rep.ok, rep
    assert cloud.objects == {}
    deletes = [c.address for c in cloud.calls if c.op == "delete"]
    # one delete call for the whole chain, then the server (after its member was found gone)
    assert deletes == ["lb", "server"]
    assert sorted(c.address for c in cloud.calls if c.op == "gone") == [
        "listener",
        "member",
        "monitor",
        "pool",
    ]
    gone_member = next(c for c in cloud.calls if c.op == "gone" and c.address == "member")
    server = cloud.calls_for("delete", "server")[0]
    assert gone_member.start <= server.start
    # every delete is still in the events, the children's saying why
    done = {e.address: e.reason for e in sink.events if e.status == "DELETE_COMPLETE"}
    assert set(done) >= {"lb", "listener", "pool", "member", "monitor", "server"}
    assert done["member"] == "deleted with lb (cascade)"
    assert sink.last.resources == {}


def test_a_child_kept_or_not_deleted_outright_stays_in_the_child_by_child_order() -> None:
    cloud = FakeCloud()
    state = _chain(cloud, policies={"monitor": "Retain"})
    plan = _destroy(state, forget=("monitor",))
    families = cascade_children(build_graph(plan, state), state, driver_cascades(_drivers(cloud)))
    assert families == {"lb": ("listener", "pool", "member")}
    # a load balancer that is replaced, not deleted, cascades nothing
    replaced = plan_of(
        [
            change("lb", Action.REPLACE, type=LB, after={}),
            *(change(a, Action.DELETE, type=state.resources[a].type) for a in ("listener", "pool")),
        ]
    )
    assert cascade_children(build_graph(replaced, state), state, driver_cascades(_drivers(cloud))) == {}


def test_a_rewrite_that_would_cycle_is_not_made() -> None:
    cloud = FakeCloud()
    # x depends on the pool (x goes before the pool) and the member depends on x (the member goes before x):
    # member -> x -> pool; deleting the load balancer first cannot keep both, so the chain is deleted as before
    s = _chain(cloud, _rs("x", "Fake::Thing", "pool"))
    s = s.with_resource(_rs("member", MEMBER, "pool", "server", "x"))
    graph0 = build_graph(_destroy(s), s)
    graph, parent_of = with_cascades(graph0, s, driver_cascades(_drivers(cloud)))
    assert parent_of == {} and graph is graph0
    rep = execute(_destroy(s), s, None, _drivers(cloud), MemorySink(), OPTS)
    assert rep.ok, rep
    assert cloud.objects == {}
