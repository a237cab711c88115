"""Look-ups by name are kept between processes for a short time, per cloud and project: the plan's flavor, image,
network and custom-constraint look-ups are not asked again by the apply or the next plan within the TTL."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hotc.providers.openstack import constraints, lookup_cache
from hotc.providers.openstack.lookup_cache import LookupFiles
from hotc.providers.openstack.neutron import find_network
from hotc.providers.openstack.nova import find_flavor, find_image
from tests.providers.test_openstack_common import FakeHttpError, make_ctx


@dataclass
class Obj:
    id: str
    name: str
    vcpus: int = 0
    ram: int = 0
    is_shared: bool = False
    is_router_external: bool = False
    subnet_ids: list[str] = field(default_factory=list)


class Service:
    def __init__(self, calls: list[str], objs: list[Obj]) -> None:
        self._calls = calls
        self._objs = objs

    def _get(self, v: str) -> Obj:
        self._calls.append(f"get {v}")
        for o in self._objs:
            if o.id == v:
                return o
        raise FakeHttpError(404)

    def _list(self, name: str | None = None, **_: Any) -> list[Obj]:
        self._calls.append(f"list {name}")
        return [o for o in self._objs if name is None or o.name == name]

    get_flavor = get_image = get_network = _get
    images = networks = _list

    def flavors(self, **_: Any) -> list[Obj]:
        return self._list()


class Config:
    def __init__(self, project: str) -> None:
        self.config = {
            "auth": {"auth_url": "http://keystone:5000/v3", "project_id": project, "password": "pw"}
        }
        self.region_name = "RegionOne"


class FakeConn:
    """One process's connection: counts the calls it makes; its look-up cache is a new object over DIR."""

    def __init__(self, where: Path, project: str = "p1", now: float = 1000.0) -> None:
        self.calls: list[str] = []
        objs = [
            Obj("f1", "m1.small", vcpus=1, ram=512),
            Obj("i1", "cirros"),
            Obj("n1", "public", is_router_external=True, subnet_ids=["s1"]),
            Obj("n2", "private"),
        ]
        self.compute = self.image = self.network = Service(self.calls, objs)
        self.config = Config(project)
        env = {lookup_cache.ENV: str(where)}
        self._hotc_lookup_files = LookupFiles.for_config(self.config, env, clock=lambda: now)


def plan_and_apply(conn: FakeConn) -> None:
    """What a plan's constraint checks and an apply's drivers look up."""
    for spec, value in (
        ("nova.flavor", "m1.small"),
        ("glance.image", "cirros"),
        ("neutron.network", "private"),
    ):
        assert constraints.check_custom_constraint(spec, value, conn) is None
    ctx = replace(make_ctx(None, "web"), lookups={})
    assert find_flavor(ctx, conn, "m1.small").id == "f1"
    assert find_image(ctx, conn, "cirros").id == "i1"
    assert find_network(ctx, conn, "public").id == "n1"


def test_the_next_process_makes_no_call_within_the_ttl(tmp_path: Path) -> None:
    first = FakeConn(tmp_path)
    plan_and_apply(first)
    assert first.calls  # the first process asks the cloud
    second = FakeConn(tmp_path, now=1030.0)
    plan_and_apply(second)
    assert second.calls == []
    ctx = replace(make_ctx(None, "web"), lookups={})
    flavor = find_flavor(ctx, second, "m1.small")
    assert (flavor.id, flavor.name, flavor.vcpus, flavor.ram) == ("f1", "m1.small", 1, 512)
    assert find_network(ctx, second, "public").subnet_ids == ["s1"]


def test_a_record_expires(tmp_path: Path) -> None:
    plan_and_apply(FakeConn(tmp_path))
    later = FakeConn(tmp_path, now=1000.0 + lookup_cache.TTL + 1)
    plan_and_apply(later)
    assert "list m1.small" in later.calls or "list None" in later.calls
    assert "list cirros" in later.calls


def test_another_project_misses(tmp_path: Path) -> None:
    plan_and_apply(FakeConn(tmp_path, project="p1"))
    other = FakeConn(tmp_path, project="p2", now=1001.0)
    plan_and_apply(other)
    assert "list cirros" in other.calls


def test_an_apply_reads_only_catalog_records(tmp_path: Path) -> None:
    """A private network found by the plan's check is not given to an action: the stack may replace it."""
    plan_and_apply(FakeConn(tmp_path))
    second = FakeConn(tmp_path, now=1001.0)
    ctx = replace(make_ctx(None, "web"), lookups={})
    assert find_network(ctx, second, "private").id == "n2"
    assert "list private" in second.calls


def test_not_found_is_not_kept(tmp_path: Path) -> None:
    first = FakeConn(tmp_path)
    assert constraints.check_custom_constraint("glance.image", "nope", first) is not None
    assert not list(tmp_path.glob("*.json"))
    second = FakeConn(tmp_path, now=1001.0)
    assert constraints.check_custom_constraint("glance.image", "nope", second) is not None
    assert "list nope" in second.calls


def test_corrupted_files_are_ignored(tmp_path: Path) -> None:
    plan_and_apply(FakeConn(tmp_path))
    files = list(tmp_path.glob("*.json"))
    assert files
    for i, f in enumerate(files):
        f.write_text(["{not json", json.dumps({"v": 1, "salt": "AA==", "data": "junk"}), ""][i % 3])
    again = FakeConn(tmp_path, now=1001.0)
    plan_and_apply(again)
    assert "list cirros" in again.calls


def test_files_are_private_and_name_no_value(tmp_path: Path) -> None:
    where = tmp_path / "lookups"
    plan_and_apply(FakeConn(where))
    assert stat.S_IMODE(where.stat().st_mode) == 0o700
    for f in where.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
        text = f.name + f.read_text()
        for clear in ("m1.small", "cirros", "private", "public", "keystone", "RegionOne"):
            assert clear not in text


def test_switched_off(tmp_path: Path) -> None:
    assert lookup_cache.cache_dir({lookup_cache.ENV: "0"}) is None
    assert (
        LookupFiles.for_config(Config("p1"), {lookup_cache.ENV: str(tmp_path), lookup_cache.TTL_ENV: "0"})
        is None
    )
    files = LookupFiles.for_config(Config("p1"), {lookup_cache.ENV: str(tmp_path), lookup_cache.TTL_ENV: "5"})
    assert files is not None and files.ttl == 5.0
