"""The generic graph walker (hotc.apply.walker) with fake steps: ordering along dependencies, the parallelism
bound, failures, cancellation and nodes off the pool. Concurrency is counted with events and counters; no
assertion depends on how long anything takes (waits have a generous timeout only so that a broken walker fails
instead of hanging)."""

from __future__ import annotations

import _thread
import random
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pytest

from hotc.apply.walker import Walker, WalkResult

WAIT = 30.0  # seconds: only reached when the walker is broken (a step would wait forever)


@dataclass(frozen=True)
class Res:
    key: str
    ok: bool = True


class Recorder:
    """Fake steps that log their start and finish in one global sequence and count how many run at once."""

    def __init__(self, body: Callable[[str], bool] | None = None) -> None:
        self.lock = threading.Lock()
        self.log: list[tuple[str, str]] = []  # ("start" | "finish", key), in order
        self.running = 0
        self.max_running = 0
        self.body = body or (lambda _key: True)

    def __call__(self, key: str) -> Res:
        with self.lock:
            self.log.append(("start", key))
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        try:
            ok = self.body(key)
        finally:
            with self.lock:
                self.running -= 1
                self.log.append(("finish", key))
        return Res(key, ok)

    def started(self) -> list[str]:
        return [k for what, k in self.log if what == "start"]

    def position(self, what: str, key: str) -> int:
        return self.log.index((what, key))


def walk(
    nodes: Sequence[str], waits_on: Mapping[str, Sequence[str]], rec: Recorder, **kw: object
) -> WalkResult[str, Res]:
    kw.setdefault("workers", 4)
    return Walker(nodes, waits_on, rec, **kw).walk()  # type: ignore[arg-type]


def test_every_node_starts_after_the_nodes_it_waits_on_have_finished() -> None:
    rng = random.Random(7)
    nodes = [f"n{i}" for i in range(60)]
    waits = {n: [nodes[j] for j in range(i) if rng.random() < 0.08] for i, n in enumerate(nodes)}
    shuffled = nodes[:]
    rng.shuffle(shuffled)  # the order the keys are given in is no topological order
    rec = Recorder()
    res = walk(shuffled, waits, rec, workers=5)
    assert {r.key for r in res.done} == set(nodes) and not res.failed and res.started == frozenset(nodes)
    for n in nodes:
        for w in waits[n]:
            assert rec.position("finish", w) < rec.position("start", n), (w, n)
    # the order of the results is the order the steps finished
    assert [r.key for r in res.done] == [k for what, k in rec.log if what == "finish"]


def test_a_diamond_runs_its_two_middle_nodes_at_the_same_time() -> None:
    both = threading.Barrier(2, timeout=WAIT)  # b and c each wait for the other: only passes when both run

    def body(key: str) -> bool:
        if key in ("b", "c"):
            both.wait()
        return True

    rec = Recorder(body)
    res = walk(["a", "b", "c", "d"], {"b": ["a"], "c": ["a"], "d": ["b", "c"]}, rec)
    assert [r.key for r in res.done][0] == "a" and [r.key for r in res.done][-1] == "d"
    assert rec.max_running == 2


@pytest.mark.parametrize("workers", [1, 3])
def test_no_more_steps_run_at_once_than_the_parallelism(workers: int) -> None:
    # each step waits until `workers` steps run together: a walker running fewer would never get past the
    # barrier (it breaks: the step fails), one running more would show it in max_running
    together = threading.Barrier(workers, timeout=WAIT)

    def body(_key: str) -> bool:
        together.wait()
        return True

    rec = Recorder(body)
    nodes = [f"n{i}" for i in range(4 * workers)]
    res = walk(nodes, {}, rec, workers=workers)
    assert len(res.done) == len(nodes) and not res.failed
    assert rec.max_running == workers


def test_a_lower_limit_holds_back_new_starts_and_completions_are_reported() -> None:
    limit = [2]
    seen: list[str] = []
    together = threading.Barrier(2, timeout=WAIT)

    def body(_key: str) -> bool:
        together.wait()
        return True

    rec = Recorder(body)
    res = walk(
        [f"n{i}" for i in range(6)],
        {},
        rec,
        workers=8,
        limit=lambda: limit[0],
        on_success=lambda r: seen.append(r.key),
    )
    assert len(res.done) == 6 and rec.max_running == 2
    assert seen == [r.key for r in res.done]


def test_the_ready_node_of_highest_priority_starts_first() -> None:
    rec = Recorder()
    walk(["a", "b", "c", "d"], {"d": ["a"]}, rec, workers=1, priority={"c": 5, "a": 2})
    # c first (5), then a (2), then b (0, before d in the given order once d is ready: same priority)
    assert rec.started() == ["c", "a", "b", "d"]


def test_a_failure_stops_its_dependents_and_new_starts_but_steps_in_flight_finish() -> None:
    # "bad" fails while "side" (an independent branch) is in flight; "side" goes on to finish once the walker
    # has taken in the failure; neither "after_bad" nor "after_side" starts, nor "later" (not started yet)
    side_running = threading.Event()
    failure_seen = threading.Event()

    def body(key: str) -> bool:
        if key == "bad":
            assert side_running.wait(WAIT)
            return False
        if key == "side":
            side_running.set()
            assert failure_seen.wait(WAIT)
        return True

    rec = Recorder(body)
    res = walk(
        ["bad", "side", "after_bad", "after_side", "later"],
        {"after_bad": ["bad"], "after_side": ["side"], "later": ["side"]},
        rec,
        workers=2,
        on_failure=lambda _r: failure_seen.set(),
    )
    assert [r.key for r in res.failed] == ["bad"]
    assert [r.key for r in res.done] == ["side"]  # the independent branch in flight finished
    assert res.started == {"bad", "side"}
    assert rec.started() == ["bad", "side"]


def test_an_outside_cancel_starts_nothing_new_and_lets_steps_in_flight_finish() -> None:
    cancelled = threading.Event()
    b_running = threading.Event()

    def body(key: str) -> bool:
        if key == "a":  # the cancel arrives (from another thread) while a and b are in flight
            assert b_running.wait(WAIT)
            threading.Thread(target=cancelled.set).start()
            assert cancelled.wait(WAIT)
        if key == "b":
            b_running.set()
            assert cancelled.wait(WAIT)
        return True

    rec = Recorder(body)
    res = walk(
        ["a", "b", "c", "d"],
        {"d": ["a"]},
        rec,
        workers=2,
        stopped=cancelled.is_set,
    )
    assert {r.key for r in res.done} == {"a", "b"} and not res.failed and not res.abandoned
    assert res.started == {"a", "b"}  # c was ready but waited for a slot; d waited on a


def test_a_cancel_from_outside_is_polled_while_a_step_runs_and_nothing_new_starts() -> None:
    # workers=1: "slow" holds the only slot; the test cancels from its own thread while "slow" runs, and lets
    # "slow" finish only once the walker has polled the cancel (it polls while it waits for results)
    running = threading.Event()
    cancelled = threading.Event()
    cancel_seen = threading.Event()
    release = threading.Event()

    def stopped() -> bool:
        if cancelled.is_set():
            cancel_seen.set()
            return True
        return False

    def body(key: str) -> bool:
        if key == "slow":
            running.set()
            assert release.wait(WAIT)
        return True

    rec = Recorder(body)
    out: list[WalkResult[str, Res]] = []
    t = threading.Thread(
        target=lambda: out.append(walk(["slow", "next"], {}, rec, workers=1, stopped=stopped))
    )
    t.start()
    assert running.wait(WAIT)
    cancelled.set()
    assert cancel_seen.wait(WAIT)  # polled while "slow" was still in flight
    release.set()
    t.join(WAIT)
    assert rec.started() == ["slow"] and [r.key for r in out[0].done] == ["slow"]
    assert out[0].started == {"slow"}


def test_a_node_off_the_pool_takes_no_slot() -> None:
    # the only slot is free for "work" while "gate" (off the pool) waits for it
    work_done = threading.Event()

    def body(key: str) -> bool:
        if key == "gate":
            assert work_done.wait(WAIT)
        if key == "work":
            work_done.set()
        return True

    rec = Recorder(body)
    res = walk(["gate", "work", "after"], {"after": ["gate"]}, rec, workers=1, unpooled=lambda k: k == "gate")
    assert {r.key for r in res.done} == {"gate", "work", "after"}
    assert rec.position("finish", "work") < rec.position("finish", "gate") < rec.position("start", "after")


def test_a_visit_that_raises_stops_the_walk_and_the_error_comes_out_after_steps_in_flight() -> None:
    raising = threading.Event()
    finished: list[str] = []

    def visit(key: str) -> Res:
        if key == "boom":
            raising.set()
            raise RuntimeError("a bug in a step")
        if key == "other":
            assert raising.wait(WAIT)  # in flight while "boom" raises
        finished.append(key)
        return Res(key)

    with pytest.raises(RuntimeError, match="a bug in a step"):
        Walker(["boom", "other"], {}, visit, workers=2).walk()
    assert finished == ["other"]  # waited for before the error came out
    finished.clear()
    with pytest.raises(RuntimeError, match="a bug in a step"):
        Walker(["boom", "next"], {}, visit, workers=1).walk()
    assert finished == []  # nothing started after it


def test_an_empty_graph_and_a_wait_on_an_unknown_node() -> None:
    res = Walker([], {}, Recorder(), workers=3).walk()
    assert res == WalkResult((), (), frozenset())
    with pytest.raises(ValueError, match="not in the graph"):
        Walker(["a"], {"a": ["ghost"]}, Recorder(), workers=1)


def test_an_interrupt_while_waiting_abandons_the_steps_in_flight() -> None:
    # a second Ctrl-C: the walk's thread gets a KeyboardInterrupt while it waits; it returns at once, without
    # waiting for the step in flight, and starts nothing more
    release = threading.Event()

    def body(key: str) -> bool:
        if key == "stuck":
            _thread.interrupt_main()  # what Ctrl-C does to the walk's (main) thread
            assert release.wait(WAIT)
        return True

    rec = Recorder(body)
    # Python's own SIGINT handler, whatever ran before in this process: interrupt_main does nothing when
    # SIGINT is ignored, and a handler left by other code might not raise KeyboardInterrupt
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        res = walk(["stuck", "next"], {"next": ["stuck"]}, rec, workers=1)
    finally:
        release.set()
        signal.signal(signal.SIGINT, previous)
    assert res.abandoned and not res.done and not res.failed
    assert res.started == {"stuck"}


def _released_walk(
    parent_body: Callable[[], bool], waits: Mapping[str, Sequence[str]], early: set[tuple[str, str]]
) -> tuple[WalkResult[str, Res], Recorder]:
    """A walk where ``parent`` releases itself, then waits until ``id_child`` (if it starts early) has run
    before it ends with ``parent_body()``."""
    started = {k: threading.Event() for k in ("id_child", "attr_child")}
    box: list[Walker[str, Res]] = []

    def body(key: str) -> bool:
        if key == "parent":
            box[0].release("parent")
            # only an early start of id_child gets past this (else the walk would wait for this visit)
            started["id_child"].wait(WAIT)
            return parent_body()
        if key in started:
            started[key].set()
        return True

    rec = Recorder(body)
    walker = Walker(
        ["parent", "id_child", "attr_child"],
        waits,
        rec,
        workers=4,
        early_ok=lambda waiter, waited: (waiter, waited) in early,
    )
    box.append(walker)
    return walker.walk(), rec


def test_a_released_node_lets_its_id_only_dependents_start_before_its_visit_ends() -> None:
    res, rec = _released_walk(
        lambda: True,
        {"id_child": ["parent"], "attr_child": ["parent"]},
        {("id_child", "parent")},
    )
    assert not res.failed and {r.key for r in res.done} == {"parent", "id_child", "attr_child"}
    # the edge that needs only what the release made known: started before the parent's visit ended
    assert rec.position("start", "id_child") < rec.position("finish", "parent")
    # the other edge waited for the end of the visit
    assert rec.position("finish", "parent") < rec.position("start", "attr_child")


def test_a_dependent_with_another_edge_still_waits_for_it() -> None:
    # id_child needs only the parent's id, and "other" completely: it starts once both are satisfied
    other_done = threading.Event()
    box: list[Walker[str, Res]] = []

    def body(key: str) -> bool:
        if key == "parent":
            box[0].release("parent")
            return True
        if key == "other":
            other_done.set()
        return True

    rec = Recorder(body)
    walker = Walker(
        ["parent", "other", "id_child"],
        {"id_child": ["parent", "other"]},
        rec,
        workers=4,
        early_ok=lambda waiter, waited: (waiter, waited) == ("id_child", "parent"),
    )
    box.append(walker)
    res = walker.walk()
    assert {r.key for r in res.done} == {"parent", "other", "id_child"}
    assert rec.position("finish", "other") < rec.position("start", "id_child")
    # released and then ended ok: the early edge is counted once (id_child runs once, after both)
    assert rec.started().count("id_child") == 1


def test_a_node_that_fails_after_its_release_fails_the_walk_and_the_early_dependent_finishes() -> None:
    res, rec = _released_walk(
        lambda: False,
        {"id_child": ["parent"], "attr_child": ["parent"]},
        {("id_child", "parent")},
    )
    assert [r.key for r in res.failed] == ["parent"]
    # the dependent that started on the release finished and is reported done; the one that needed the
    # parent's completion never started
    assert [r.key for r in res.done] == ["id_child"]
    assert res.started == {"parent", "id_child"}
    assert "attr_child" not in rec.started()


def test_a_release_without_early_edges_changes_nothing() -> None:
    box: list[Walker[str, Res]] = []

    def body(key: str) -> bool:
        if key == "parent":
            box[0].release("parent")
        return True

    rec = Recorder(body)
    walker = Walker(["parent", "child"], {"child": ["parent"]}, rec, workers=4)
    box.append(walker)
    res = walker.walk()
    assert [r.key for r in res.done] == ["parent", "child"]
    assert rec.position("finish", "parent") < rec.position("start", "child")
