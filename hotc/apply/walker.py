"""A generic walk of a dependency graph on a pool of threads: each node starts as soon as the nodes it waits on
have finished (no level-by-level barriers), with at most ``limit()`` nodes in flight.

The walker knows nothing of resources, plans or the cloud: it is given node keys, what each waits on, a
priority, and a ``visit`` function that does the work of one node and returns its result (anything with an
``ok`` attribute). Its rules:

- **Ordering**: a node starts only after every node it waits on finished with ``ok``; among ready nodes the
  highest priority starts first (the executor gives the length of the longest chain below a node, so long
  chains start early), ties in the order the keys were given.
- **Parallelism**: at most ``workers`` threads run visits; ``limit()``, read before each start, may hold back
  the next starts below that (a throttle). ``on_success`` is told of every node that finished ``ok`` (the
  throttle raises its limit again).
- **Failure**: a result that is not ``ok`` stops new starts; nodes in flight finish. Its dependents, and
  every node not started yet, never start (``WalkResult.started`` tells which did).
- **Cancellation**: ``stopped()`` is polled before each round of starts (after each result taken in) and at
  least every :data:`POLL` seconds while waiting; once it says True, nothing new starts and the nodes in flight finish. A ``KeyboardInterrupt`` while
  waiting ends the walk at once without waiting for the nodes in flight (``WalkResult.abandoned``).
- **Nodes off the pool**: a node for which ``unpooled(key)`` is True runs on a thread of its own and takes no
  slot of ``limit()`` (a wait between batches of a rolling update: it calls no cloud API, and must not hold
  one of the slots that do).
- **Early release**: a visit may call :meth:`Walker.release` with its own key once what some of its dependents
  need of it exists (before the visit ends). The edges for which ``early_ok(waiter, waited)`` is True are then
  satisfied: a node whose every other edge is satisfied starts without waiting for the end of that visit.
  The other edges still wait for the visit to end ``ok``. A released node that then fails stops the walk as
  any failure does; the dependents it already let start finish and are reported.
- **Callbacks**: ``on_success`` and ``on_failure`` run on the walk's own thread as each result is taken in
  (after a failure has stopped new starts).

A visit is expected to return its failures as a result; if it raises, nothing new starts and the exception
is raised from :meth:`Walker.walk` once the nodes in flight have finished.
"""

from __future__ import annotations

import heapq
import queue
import threading
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

POLL = 0.2  # seconds between two looks at ``stopped()`` while nothing finishes


class Result(Protocol):
    """What a visit returns: whether the node succeeded (its dependents may start)."""

    @property
    def ok(self) -> bool: ...


K = TypeVar("K", bound=Hashable)
R = TypeVar("R", bound=Result)


@dataclass(frozen=True)
class WalkResult(Generic[K, R]):
    done: tuple[R, ...]  # results that were ok, in the order they finished
    failed: tuple[R, ...]  # results that were not ok, in the order they finished
    started: frozenset[K]  # every node whose visit started
    abandoned: bool = False  # interrupted while waiting: nodes in flight were not waited for


@dataclass(frozen=True)
class _Finished(Generic[K, R]):
    key: K
    result: R | None
    error: BaseException | None = None
    released: bool = False  # not the end of the visit: :meth:`Walker.release` was called


class Walker(Generic[K, R]):
    def __init__(
        self,
        nodes: Sequence[K],
        waits_on: Mapping[K, Collection[K]],
        visit: Callable[[K], R],
        *,
        workers: int,
        limit: Callable[[], int] | None = None,
        priority: Mapping[K, int] | None = None,
        stopped: Callable[[], bool] = lambda: False,
        unpooled: Callable[[K], bool] = lambda _key: False,
        on_success: Callable[[R], None] = lambda _result: None,
        on_failure: Callable[[R], None] = lambda _result: None,
        early_ok: Callable[[K, K], bool] = lambda _waiter, _waited: False,
    ) -> None:
        known = set(nodes)
        unknown = {w for k in nodes for w in waits_on.get(k, ()) if w not in known}
        if unknown:
            raise ValueError(f"nodes wait on nodes that are not in the graph: {sorted(map(str, unknown))}")
        self._nodes = tuple(nodes)
        self._waits_on = {k: frozenset(waits_on.get(k, ())) for k in self._nodes}
        self._dependents: dict[K, list[K]] = {k: [] for k in self._nodes}
        for k in self._nodes:
            for w in self._waits_on[k]:
                self._dependents[w].append(k)
        self._visit = visit
        self._workers = max(1, workers)
        self._limit = limit or (lambda: self._workers)
        self._priority = priority or {}
        self._stopped = stopped
        self._unpooled = unpooled
        self._on_success = on_success
        self._on_failure = on_failure
        self._early_ok = early_ok
        # the edges (waited, waiter) a release may satisfy before the end of the waited-on node's visit
        self._early = {k: tuple(d for d in self._dependents[k] if early_ok(d, k)) for k in self._nodes}
        self._finished: queue.Queue[_Finished[K, R]] | None = None  # set while a walk runs

    def release(self, key: K) -> None:
        """Called by the visit of ``key`` (from any thread) once the dependents it lets go early may start:
        the edges from ``key`` that ``early_ok`` accepts are satisfied now. Ignored outside a walk and for a
        node no dependent may start early on."""
        finished = self._finished
        if finished is not None and self._early.get(key):
            finished.put(_Finished(key, None, released=True))

    def walk(self) -> WalkResult[K, R]:
        """Visit every node (unless stopped), each after the nodes it waits on; wait for all in flight."""
        remaining = {k: len(self._waits_on[k]) for k in self._nodes}
        order = {k: i for i, k in enumerate(self._nodes)}
        ready: list[tuple[int, int, K]] = []

        def make_ready(k: K) -> None:
            heapq.heappush(ready, (-self._priority.get(k, 0), order[k], k))

        for k in self._nodes:
            if remaining[k] == 0:
                make_ready(k)
        finished: queue.Queue[_Finished[K, R]] = queue.Queue()
        self._finished = finished
        released: set[K] = set()  # nodes whose early edges are satisfied already
        ended: set[K] = set()  # nodes whose visit ended
        done: list[R] = []
        failed: list[R] = []
        started: set[K] = set()
        raised: BaseException | None = None
        pooled = 0  # visits in flight on the pool
        off_pool: set[K] = set()  # visits in flight on threads of their own
        stopping = False
        # the workers are started up front: a thread started while others run waits long for the GIL
        work: queue.SimpleQueue[K | None] = queue.SimpleQueue()
        workers = [
            threading.Thread(target=self._work, args=(work, finished), name=f"hotc-walk-{i}", daemon=True)
            for i in range(min(self._workers, max(1, len(self._nodes))))
        ]
        for w in workers:
            w.start()
        abandoned = False
        try:
            while True:
                if self._stopped():
                    stopping = True
                while ready and not stopping and pooled < min(self._workers, self._limit()):
                    _, _, key = heapq.heappop(ready)
                    started.add(key)
                    if self._unpooled(key):
                        off_pool.add(key)
                        threading.Thread(target=self._run, args=(key, finished), daemon=True).start()
                        continue
                    pooled += 1
                    work.put(key)
                if pooled == 0 and not off_pool:
                    break
                try:
                    fin = finished.get(timeout=POLL)
                except queue.Empty:
                    continue
                if fin.released:
                    if fin.key not in released and fin.key not in ended:
                        released.add(fin.key)
                        for d in self._early[fin.key]:
                            remaining[d] -= 1
                            if remaining[d] == 0:
                                make_ready(d)
                    continue
                ended.add(fin.key)
                if fin.key in off_pool:
                    off_pool.discard(fin.key)
                else:
                    pooled -= 1
                if fin.result is None:
                    raised = raised or fin.error
                    stopping = True
                elif fin.result.ok:
                    self._on_success(fin.result)
                    done.append(fin.result)
                    early = self._early[fin.key] if fin.key in released else ()
                    for d in self._dependents[fin.key]:
                        if d in early:
                            continue  # satisfied when the node was released
                        remaining[d] -= 1
                        if remaining[d] == 0:
                            make_ready(d)
                else:
                    failed.append(fin.result)
                    stopping = True
                    self._on_failure(fin.result)
        except KeyboardInterrupt:
            abandoned = True
        finally:
            self._finished = None
            for _ in workers:
                work.put(None)
            if not abandoned:
                for w in workers:
                    w.join()
        if raised is not None:
            raise raised
        return WalkResult(tuple(done), tuple(failed), frozenset(started), abandoned)

    def _work(self, work: queue.SimpleQueue[K | None], finished: queue.Queue[_Finished[K, R]]) -> None:
        while True:
            key = work.get()
            if key is None:
                return
            self._run(key, finished)

    def _run(self, key: K, finished: queue.Queue[_Finished[K, R]]) -> None:
        try:
            finished.put(_Finished(key, self._visit(key)))
        except BaseException as exc:  # noqa: BLE001 -- handed to the walk's thread, raised there
            finished.put(_Finished(key, None, exc))
