"""Catalog look-ups (flavors, images, shared or external networks) are shared by the actions of one run; other
look-ups ask the cloud every time; a create under a generated name makes no list call before it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

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
