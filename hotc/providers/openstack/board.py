"""One list call answers the status polls of many objects (a status board), instead of one GET per object.

A run that creates thirty servers at once polls each of them: thirty GETs every few seconds, to an API (Nova's)
that serves the creates too. A :class:`Board` answers every poll of the run's objects of one kind from a list
call: a poll asks the board for its object; the first poll asks for a list, and the polls that arrive while a
list is on its way wait for the next one (an answer is never older than the poll that asked for it). So at most
one list is in flight, the polls of many objects share it, and a list starts no sooner than :data:`GAP` seconds
after the last one started, and no sooner after the last one ended than that one took, up to :data:`REST`
seconds (a wait's longest sleep, :data:`~hotc.providers.openstack.polling.POLL_MAX`: lists come no more often
than the waits' own polls of a slow API did): lists that answer within that keep the API busy at most half of
the time; a much slower one (an API starved of CPU) is not followed by as long a pause, which would make every
wait see its end twice as late (30 server deletes at load 22 all waited out one 25 s pause; with a pause of at
most 1 s, the lists of a 2-server create at load 20 kept Nova's API busy two thirds of the time and its servers
took twice as long as Heat's). Since the board spaces its lists, a
wait polls it again as soon as it answers (a :class:`~hotc.providers.openstack.polling.Paced` poll, as the
servers' waits in :func:`hotc.providers.openstack.nova.server.server_poll`): an object's change is seen with the
first list that starts after it, not a whole sleep of the wait's later.

An object the list does not have (a list filtered by ``changes-since`` can miss it when the clocks of hotc and
the cloud differ) is read by its own GET, as without the board.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from hotc.providers.openstack import common
from hotc.providers.openstack.polling import POLL_MAX
from hotc.providers.shared_lookup import once

GAP = 0.5  # seconds: the shortest time between the starts of two lists
REST = POLL_MAX  # seconds: the longest pause after a list's end (as long as it took, up to this)


class Board:
    """The status polls of one kind of object, answered by ``list_all()`` (objects with an ``id``)."""

    def __init__(
        self,
        list_all: Callable[[], Iterable[Any]],
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
        gap: float = GAP,
    ) -> None:
        self._list_all = list_all
        # looked up at each call (tests replace common's clock): common.now and common.pause by default
        self._clock = clock or (lambda: common.now())
        self._sleep = sleep or (lambda seconds: common.pause(seconds))
        self._gap = gap
        self._cond = threading.Condition()
        self._listing = False  # a list call is in flight
        self._started = 0  # list calls started so far (each list's number is its place in this count)
        self._done = 0  # the number of the last completed list
        self._last_start = -1e18  # when the last list call started (for the gap)
        self._last_end = -1e18  # when it ended ...
        self._last_took = 0.0  # ... and how long it took (the next one waits as long after its end)
        self._items: dict[str, Any] = {}  # the last completed list's answer, by id
        self._error: BaseException | None = None  # its failure
        self.lists = 0  # list calls made (for tests and reports)

    def get(self, oid: str, fallback: Callable[[], Any]) -> Any:
        """The object ``oid`` as a list that started after this call saw it; ``fallback()`` (its own GET) when
        that list has no such object or failed."""
        with self._cond:
            need = self._started + 1  # the first list to start from now on
            while self._done < need:
                if self._listing:  # a list is on its way (it may have started before we asked): wait for it
                    self._cond.wait()
                    continue
                self._listing = True
                self._started += 1
                number = self._started
                self._cond.release()
                try:
                    self._run_list(number)
                finally:
                    self._cond.acquire()
            error, found = self._error, self._items.get(str(oid))
        if error is not None or found is None:
            return fallback()
        return found

    def _run_list(self, number: int) -> None:
        """List call ``number`` (once the gap since the last one has passed), its answer published to every
        poll."""
        items: dict[str, Any] = {}
        error: BaseException | None = None
        try:
            earliest = max(self._last_start + self._gap, self._last_end + min(self._last_took, REST))
            wait = earliest - self._clock()
            if wait > 0:
                self._sleep(wait)
            self._last_start = self._clock()
            for obj in self._list_all():
                items[str(obj.id)] = obj
        except Exception as exc:  # noqa: BLE001 -- each poll falls back to its own GET, which reports errors
            error = exc
        finally:
            self._last_end = self._clock()
            self._last_took = max(0.0, self._last_end - self._last_start)
            with self._cond:
                self.lists += 1
                self._done = number
                self._items = items
                self._error = error
                self._listing = False
                self._cond.notify_all()


def board(shared: dict[Any, Any] | None, key: Any, make: Callable[[], Board]) -> Board | None:
    """The run's board for ``key`` in ``shared`` (``ActionContext.lookups``), made on first use; None without a
    run-wide dict (each poll then makes its own GET)."""
    if shared is None:
        return None

    found: Board = once(shared, key, make)
    return found
