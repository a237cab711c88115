"""The status board: one list call answers the status polls of many objects (the run's servers), each answer
from a list that started after the poll asked, at most one list in flight; an object the list lacks, or a list
that fails, is read by its own GET."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Any

import pytest

from hotc.providers.openstack.board import REST, Board
from hotc.providers.openstack.common import ProviderError
from tests.providers.fakesdk import FakeConnection
from tests.providers.offline.helpers import ctx_for, driver


@dataclass
class Obj:
    id: str
    status: str


class Listing:
    """A list call that holds until released, counting its calls."""

    def __init__(self, objs: dict[str, Obj]) -> None:
        self.objs = objs
        self.calls = 0
        self.entered = threading.Event()
        self.go = threading.Event()
        self.go.set()

    def __call__(self) -> list[Obj]:
        self.calls += 1
        self.entered.set()
        assert self.go.wait(10)
        return [replace(o) for o in self.objs.values()]


def no_get(oid: str) -> Any:
    raise AssertionError(f"a GET of {oid}: the list had it")


def test_polls_that_arrive_during_a_list_share_the_next_one() -> None:
    objs = {f"s{i}": Obj(f"s{i}", "BUILD") for i in range(12)}
    listing = Listing(objs)
    b = Board(listing, sleep=lambda _s: None)
    listing.go.clear()
    first = threading.Thread(target=lambda: b.get("s0", lambda: no_get("s0")))
    first.start()
    assert listing.entered.wait(10)  # the first poll's list is in flight...
    objs["s5"].status = "ACTIVE"  # ... when s5 changes: the polls asked after must see it
    got: dict[str, str] = {}

    def poll(oid: str) -> None:
        got[oid] = b.get(oid, lambda: no_get(oid)).status

    others = [threading.Thread(target=poll, args=(f"s{i}",)) for i in range(1, 12)]
    for t in others:
        t.start()
    listing.go.set()
    for t in [first, *others]:
        t.join(10)
    assert got["s5"] == "ACTIVE"  # from a list that started after the poll asked, not the one in flight
    assert listing.calls == 2  # eleven polls, one list between them


def test_an_object_the_list_lacks_and_a_failed_list_fall_back_to_a_get() -> None:
    b = Board(lambda: [Obj("s1", "ACTIVE")], sleep=lambda _s: None)
    assert b.get("s2", lambda: Obj("s2", "BUILD")).status == "BUILD"

    def broken() -> list[Obj]:
        raise RuntimeError("503")

    assert Board(broken, sleep=lambda _s: None).get("s1", lambda: Obj("s1", "GOT")).status == "GOT"


def test_lists_are_spaced_by_the_gap() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    b = Board(lambda: [Obj("s1", "BUILD")], clock=lambda: now[0], sleep=sleep, gap=0.5)
    b.get("s1", lambda: no_get("s1"))
    now[0] += 0.1
    b.get("s1", lambda: no_get("s1"))
    assert slept == [pytest.approx(0.4)] and b.lists == 2


def test_servers_of_one_run_wait_on_the_board(conn: FakeConnection) -> None:
    """Five servers created in one run (a shared ``lookups``, as the executor gives): their waits for ACTIVE
    poll through the list, not one GET per server per poll; the result is the same. Their builds are held (as
    Nova's wait for the compute host, with no updated_at yet, so a ``changes-since`` list would leave them out
    and each poll would make its own GET: four did before the create's board dropped that filter)."""
    run: dict[Any, Any] = {}
    gate = conn.cloud.gate("server.create").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 3 else None)
    outs = []
    for i in range(5):
        ctx = replace(ctx_for(conn, f"web{i}", "OS::Nova::Server"), lookups=run)
        props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]}
        outs.append(driver("OS::Nova::Server").create(ctx, props))
    assert all(conn.cloud.get("server", o.physical_id)["status"] == "ACTIVE" for o in outs)
    assert conn.cloud.count("compute.get_server") == 0
    assert conn.cloud.count("compute.servers") >= 1


def test_a_failed_build_seen_on_the_board_still_reports_its_fault(conn: FakeConnection) -> None:
    conn.compute.fail_build = "No valid host was found."
    ctx = replace(ctx_for(conn, "web", "OS::Nova::Server"), lookups={})
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]}
    with pytest.raises(ProviderError, match="went to ERROR: No valid host"):
        driver("OS::Nova::Server").create(ctx, props)


def test_server_deletes_of_one_run_wait_on_the_board(conn: FakeConnection) -> None:
    """Deletes wait for their servers to be gone through the list too: however many polls a held delete takes,
    each server costs its DELETE and at most one GET (once the list no longer has it); no read before the
    DELETE (a 404 is done)."""
    run: dict[Any, Any] = {}
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]}
    made = []
    for i in range(3):
        ctx = replace(ctx_for(conn, f"web{i}", "OS::Nova::Server"), lookups=run)
        made.append((ctx, driver("OS::Nova::Server").create(ctx, props).physical_id))
    gate = conn.cloud.gate("server.delete").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 4 else None)
    conn.cloud.calls.clear()
    for ctx, sid in made:
        driver("OS::Nova::Server").delete(ctx, sid, props)
    assert conn.cloud.all("server") == []
    assert gate.waited >= 4  # the first delete polled while it was held
    assert conn.cloud.count("compute.get_server") <= len(made)
    assert conn.cloud.count("compute.delete_server") == len(made)
    assert conn.cloud.count("compute.servers") >= 2


def test_a_slow_list_is_followed_by_a_pause_of_at_most_rest() -> None:
    """After a slow list the next waits REST after its end (not the 0.5 s gap after its start, nor as long as
    the slow list took: that would make every wait see its end twice as late)."""
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    def slow_list() -> list[Obj]:
        now[0] += 3 * REST
        return [Obj("s1", "BUILD")]

    b = Board(slow_list, clock=lambda: now[0], sleep=sleep, gap=0.5)
    b.get("s1", lambda: no_get("s1"))
    b.get("s1", lambda: no_get("s1"))
    assert slept == [pytest.approx(REST)] and b.lists == 2  # a pause of REST, not as long as the list took


def test_a_quick_list_is_followed_by_a_pause_as_long_as_it_took() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    def list_of_0_6_s() -> list[Obj]:
        now[0] += 0.6
        return [Obj("s1", "BUILD")]

    b = Board(list_of_0_6_s, clock=lambda: now[0], sleep=sleep, gap=0.5)
    b.get("s1", lambda: no_get("s1"))
    b.get("s1", lambda: no_get("s1"))
    assert slept == [pytest.approx(0.6)]  # not the 0.5 s gap (already past at its end): 0.6 s, as it took


def test_a_wait_on_a_paced_poll_does_not_sleep_between_polls(conn: FakeConnection) -> None:
    """A wait whose poll paces itself (a board's: each poll waits for the board's next list) polls again as soon
    as it answers; the same wait on a plain GET sleeps between its polls."""
    from hotc.providers.openstack.common import wait_for
    from hotc.providers.openstack.polling import Paced

    ctx = ctx_for(conn, "web", "OS::Nova::Server")

    def run(wrap: Any) -> list[float]:
        answers = iter(["BUILD", "BUILD", "BUILD", "ACTIVE"])
        slept: list[float] = []
        got = wait_for(
            ctx,
            "wait",
            wrap(lambda: Obj("s1", next(answers))),
            lambda o: o.status == "ACTIVE",
            sleep=slept.append,
        )
        assert got.status == "ACTIVE"
        return slept

    assert run(Paced) == []
    assert len(run(lambda f: f)) == 3


def test_a_server_wait_on_the_board_sleeps_only_the_boards_spacing(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's wait for ACTIVE through the run's board: the only sleeps are the board's spacing of its lists
    (none of the wait's own schedule on top), and every poll is answered by a list."""
    from hotc.providers.openstack import common

    run: dict[Any, Any] = {}
    gate = conn.cloud.gate("server.create").hold()
    conn.cloud.hooks.append(lambda c: gate.release() if gate.waited >= 3 else None)
    slept: list[float] = []
    orig = common.pause

    def pause(seconds: float) -> None:  # the fake clock's sleep (it moves the fake cloud on), recorded
        slept.append(seconds)
        orig(seconds)

    monkeypatch.setattr(common, "pause", pause)
    ctx = replace(ctx_for(conn, "web", "OS::Nova::Server"), lookups=run)
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]}
    out = driver("OS::Nova::Server").create(ctx, props)
    assert conn.cloud.get("server", out.physical_id)["status"] == "ACTIVE"
    lists = conn.cloud.count("compute.servers")
    assert lists >= 3  # it polled while the build was held
    assert len(slept) <= lists - 1  # at most one spacing sleep before each list after the first
    assert conn.cloud.count("compute.get_server") == 0


def _board_lists(conn: FakeConnection) -> list[Any]:
    """The status boards' list calls (detailed server lists with no other purpose than the waits')."""
    return [c for c in conn.cloud.calls if c.method == "servers" and c.kwargs.get("details") is True]


def test_servers_named_by_hotc_are_polled_through_a_board_of_the_stacks_servers(conn: FakeConnection) -> None:
    """A server hotc names (``<stack>-<address>-<random>``) waits on a board whose list asks Nova only for this
    stack's servers (a name filter: another stack's server changed lately is left out), for its create and its
    delete; a server the template names waits on the unfiltered board. Every wait ends as without it. The
    create's lists have no ``changes-since`` (Nova leaves out a new server whose build waits for the compute
    host: its updated_at is not set yet); the delete's have it (a deleted server is listed as DELETED)."""
    run: dict[Any, Any] = {}
    other = replace(ctx_for(conn, "web", "OS::Nova::Server"), stack_name="other-stack", lookups={})
    props = {"image": "hotc-tiny", "flavor": "m1.tiny", "networks": [{"network": "hotc-private"}]}
    driver("OS::Nova::Server").create(other, props)  # another stack's server, changed a moment ago
    ctx = replace(ctx_for(conn, "web", "OS::Nova::Server"), lookups=run)
    assert ctx.stack_name != "other-stack"
    conn.cloud.calls.clear()
    out = driver("OS::Nova::Server").create(ctx, props)
    mine = f"^{re.escape(ctx.stack_name + '-')}"
    lists = _board_lists(conn)
    assert lists and all(c.kwargs.get("name") == mine and "changes_since" not in c.kwargs for c in lists)
    assert conn.cloud.count("compute.get_server") == 0  # the filtered list had the server at each poll
    conn.cloud.calls.clear()
    driver("OS::Nova::Server").delete(ctx, out.physical_id, props)
    assert conn.cloud.find("server", out.physical_id) is None
    lists = [c for c in conn.cloud.calls if c.method == "servers" and "changes_since" in c.kwargs]
    assert lists and all(c.kwargs.get("name") == mine for c in lists)
    conn.cloud.calls.clear()
    named = driver("OS::Nova::Server").create(ctx, {**props, "name": "given-name"})
    lists = [c for c in conn.cloud.calls if c.method == "servers" and "changes_since" in c.kwargs]
    assert lists and all("name" not in c.kwargs for c in lists)
    assert conn.cloud.get("server", named.physical_id)["status"] == "ACTIVE"
