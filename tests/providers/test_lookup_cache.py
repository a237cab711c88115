"""Catalog look-ups (flavors, images, shared or external networks) are shared by the actions of one run; other
look-ups ask the cloud every time; a create under a generated name makes no list call before it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

from hotc.providers.openstack import common
from tests.providers.test_openstack_common import FakeHttpError, make_ctx


@dataclass
class Obj:
    id: str
    name: str
    is_shared: bool = False
    is_router_external: bool = False


def counting(objs: list[Obj]) -> tuple[list[str], Any, Any]:
    calls: list[str] = []

    def get(v: str) -> Any:
        calls.append(f"get {v}")
        raise FakeHttpError(404)

    def by_name(v: str) -> list[Obj]:
        calls.append(f"list {v}")
        return [o for o in objs if o.name == v]

    return calls, get, by_name


def test_a_run_looks_up_a_flavor_once_and_a_private_network_every_time() -> None:
    ctx = replace(make_ctx(None, "web"), lookups={})
    calls, get, by_name = counting(
        [Obj("f1", "m1.tiny"), Obj("n1", "mine"), Obj("n2", "public", is_router_external=True)]
    )
    for _ in range(3):
        assert common.lookup(ctx, "flavor", "m1.tiny", get, by_name).id == "f1"
        assert common.lookup(ctx, "network", "public", get, by_name).id == "n2"
        assert common.lookup(ctx, "network", "mine", get, by_name).id == "n1"
    assert calls.count("list m1.tiny") == 1
    assert calls.count("list public") == 1
    assert calls.count("list mine") == 3  # the stack may make or replace such a network during the run


def test_without_a_shared_cache_every_look_up_asks() -> None:
    ctx = make_ctx(None, "web")
    assert ctx.lookups is None
    calls, get, by_name = counting([Obj("f1", "m1.tiny")])
    common.lookup(ctx, "flavor", "m1.tiny", get, by_name)
    common.lookup(ctx, "flavor", "m1.tiny", get, by_name)
    assert calls.count("list m1.tiny") == 2


def test_a_unique_name_needs_no_list_before_the_create() -> None:
    listed: list[int] = []
    made: list[Obj] = []

    def matches() -> list[Obj]:
        listed.append(1)
        return list(made)

    find = common.fresh_finder(make_ctx(None, "web"), "create", matches, unique=True)
    assert listed == []
    made.append(Obj("s1", "hotc-t-web-0123456789ab"))
    assert find().id == "s1"
    find_old = common.fresh_finder(make_ctx(None, "web"), "create", matches)
    assert len(listed) == 2  # a given name may be the old instance's: listed first
    assert find_old() is None


class FakeCompute:
    """A Nova flavor API that counts its calls."""

    def __init__(self, flavors: list[Obj]) -> None:
        self.flavors_ = flavors
        self.calls: list[str] = []

    def get_flavor(self, v: str) -> Any:
        self.calls.append(f"get {v}")
        raise FakeHttpError(404)

    def flavors(self, **_query: Any) -> list[Obj]:
        self.calls.append("list")
        return list(self.flavors_)


class FakeConn:
    def __init__(self) -> None:
        self.compute = FakeCompute([Obj("f1", "m1.tiny")])


def test_the_plans_constraint_check_and_the_applys_actions_share_the_catalog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An apply that plans on the spot checks ``flavor: m1.tiny`` (nova.flavor) at plan time; the server's create
    then finds the flavor in the run's catalog instead of asking Nova again (two calls on the critical path)."""
    from hotc.apply.executor import ExecOptions, execute
    from hotc.providers.base import ActionContext, Outcome
    from hotc.providers.openstack import auth, constraints
    from hotc.providers.openstack.nova.common import find_flavor
    from hotc.state.document import StackState
    from tests.apply.fakes import FakeCloud, FakeDesired, FakeDriver, FakeResource, MemorySink, create_plan

    conn = FakeConn()
    monkeypatch.setattr(auth, "connect", lambda _cloud=None: conn)
    cloud = auth.cloud_factory(None)
    from hotc.planner.constraints import _Memo

    # the plan checks through its memoising view of the connection, as check_constraints does
    assert constraints.check_custom_constraint("nova.flavor", "m1.tiny", _Memo(cloud(), {})) is None
    assert conn.compute.calls == ["get m1.tiny", "list"]  # the plan's check asked Nova

    found: list[str] = []

    class Server(FakeDriver):
        def create(self, ctx: ActionContext, props: Mapping[str, Any]) -> Outcome:
            found.append(find_flavor(ctx, ctx.cloud(), "m1.tiny").id)
            return super().create(ctx, props)

    desired = FakeDesired([FakeResource("a"), FakeResource("b")])
    rep = execute(
        create_plan(desired),
        StackState.new("s"),
        desired,
        lambda _t: Server(FakeCloud()),
        MemorySink(),
        ExecOptions(parallelism=2, cloud=cloud),
        desired_info=desired.resources,
    )
    assert rep.ok
    assert found == ["f1", "f1"]
    assert conn.compute.calls == ["get m1.tiny", "list"]  # ... and the apply did not ask again


def test_a_catalog_miss_at_plan_time_is_not_kept() -> None:
    """A flavor the check did not find is an error of the plan, not an answer the apply may reuse."""
    from hotc.providers.openstack import constraints

    conn = FakeConn()
    conn._hotc_catalog = {}  # type: ignore[attr-defined]
    msg = constraints.check_custom_constraint("nova.flavor", "m9.huge", conn)
    assert msg is not None and "m9.huge" in msg
    assert ("flavor", "m9.huge") not in conn._hotc_catalog  # type: ignore[attr-defined]


def test_parallel_misses_of_one_flavor_ask_the_cloud_once() -> None:
    """A group's members start together and all miss the flavor: one of them asks, the others wait for it."""
    import threading

    ctx = replace(make_ctx(None, "web"), lookups={})
    entered, go = threading.Event(), threading.Event()
    calls: list[str] = []

    def get(v: str) -> Any:
        calls.append(f"get {v}")
        entered.set()
        assert go.wait(10)
        raise FakeHttpError(404)

    def by_name(v: str) -> list[Obj]:
        calls.append(f"list {v}")
        return [Obj("f1", "m1.tiny")]

    got: list[str] = []
    threads = [
        threading.Thread(target=lambda: got.append(common.lookup(ctx, "flavor", "m1.tiny", get, by_name).id))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    assert entered.wait(10)
    go.set()
    for t in threads:
        t.join(10)
    assert got == ["f1"] * 8
    assert calls == ["get m1.tiny", "list m1.tiny"]
