"""How long a wait sleeps between two polls of the cloud (adaptive polling).

A fixed schedule is either slow (a 0.5 s first interval adds up to half a second to every Octavia child, whose
noop-driver transitions take a tenth of that) or wasteful. hotc sleeps in proportion to how long it has waited
(:data:`FRACTION`), between :data:`POLL_MIN` and :data:`POLL_MAX`: a transition is seen at most about a fifth
of its duration late, and a wait of T seconds costs about log(T / POLL_MIN) / log(1 + FRACTION) polls.

When the stack's own history says how long this type's action usually takes (``ActionContext.expected``,
learned from the stack's events by :mod:`hotc.apply.durations`), the first sleep goes most of the way there in
one step (at most :data:`POLL_MAX` at a time, so a much faster run is still seen soon) and the polls around the
expected end are tight (5 % of the expected duration): fewer calls, and the end seen sooner. The first second
of such a wait is polled every :data:`EARLY_STEP` first: the duration is the whole action's, and an action's
first wait is often one of its short steps (a server's port let go before its replacement boots on it).

A create whose type's history is long enough (``ActionContext.fastest``: the shortest of at least three recent
creates, :mod:`hotc.apply.durations`) goes further: after its first second, its first poll comes just before
that shortest duration (:func:`first_poll_at`: :data:`SURE` of it), in one sleep: the create has not been seen
to end sooner, so the polls on the way there would only ask a question whose answer is known.

A wait never sleeps less than its last poll took to answer: a cloud whose answers slow down (an overloaded
API) is polled less often, so the waits do not crowd out the calls that make progress.

A poll that paces itself (:class:`Paced`: a status board's, whose call waits for the board's next list, and the
board spaces its lists) is polled again as soon as it answers: the schedule above would only add its sleep to
the board's spacing, and a server's end would be seen up to a whole sleep late.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

POLL_MIN = 0.1  # seconds: the shortest sleep between two polls
POLL_MAX = 2.0  # seconds: the longest (a 15 s server build is seen at most 2 s late)
FRACTION = 0.2  # sleep at most this fraction of the time waited so far
LEAD = 0.7  # with an expected duration: the first polls skip to this fraction of it
WINDOW = 1.5  # ... and stay tight until this multiple of it
TIGHT = 0.05  # ... polling every this fraction of it (at least POLL_MIN)
EARLY = (
    1.0  # seconds: with an expected duration, a wait polls every EARLY_STEP this long before skipping ahead
)
EARLY_STEP = 0.25  # (an action's first wait is often a short step: a port let go, a status flipped)


SURE = 0.9  # with the shortest recent duration: the first poll after EARLY comes at this fraction of it
SKIP_MIN = 3.0  # seconds: a shorter action is polled by the schedule above (the skip would save little)


def first_poll_at(fastest: float | None, expected: float | None = None) -> float | None:
    """When (seconds into the wait) the first poll after the first second should come, given the shortest
    recent duration of the action (``fastest``) and its usual one (``expected``): just before the shorter of
    the two; None when neither history says enough (no figure, or too short to be worth a skip)."""
    if fastest is None or fastest <= 0:
        return None
    at = SURE * (min(fastest, expected) if expected is not None and expected > 0 else fastest)
    return at if at >= max(SKIP_MIN, EARLY + POLL_MIN) else None


class Poll:
    """The sleeps of one wait. ``expected``: the action's usual duration, if known, counted from the start of
    the wait (the calls before it, such as the create's POST, are short next to what is waited for);
    ``fastest``: the shortest it took recently (a create's, see :func:`first_poll_at`)."""

    def __init__(
        self, clock: Callable[[], float], expected: float | None = None, fastest: float | None = None
    ) -> None:
        self.clock = clock
        self.start = clock()
        self.expected = expected if expected is not None and expected > 0 else None
        self.first_at = first_poll_at(fastest, self.expected)
        self.last_answer = 0.0  # seconds the last poll took to answer

    def answered(self, seconds: float) -> None:
        """The last poll took ``seconds``: a busy cloud is not polled more often than it answers."""
        self.last_answer = max(0.0, seconds)

    def interval(self) -> float:
        """Seconds to sleep before the next poll: the schedule's, and never less than the last poll took to
        answer (a cloud answering slowly is busy: polling it harder would slow everyone down)."""
        waited = max(0.0, self.clock() - self.start)
        if self.first_at is not None and EARLY <= waited < self.first_at - POLL_MIN:
            return max(self.first_at - waited, self.last_answer)  # straight to just before the shortest end
        return min(POLL_MAX, max(self._scheduled(), self.last_answer))

    def _scheduled(self) -> float:
        now = self.clock()
        waited = max(0.0, now - self.start)
        base = min(POLL_MAX, max(POLL_MIN, FRACTION * waited))
        e = self.expected
        if e is None:
            return base
        since = waited
        if since < EARLY:
            # the expected duration is the whole action's: the wait for one of its short steps (an interface
            # detached before a replacement boots on the port) must not sleep the first POLL_MAX of it
            return max(base, EARLY_STEP)
        lead = LEAD * e - since
        if lead > base:
            return min(lead, POLL_MAX)
        if since < WINDOW * e:
            return max(POLL_MIN, min(base, TIGHT * e))
        return base


class Paced:
    """A poll whose call paces itself (it waits for the next answer of a shared source, such as a status
    board's next list, and the source spaces its calls): a wait calls it again without sleeping."""

    __slots__ = ("_poll",)

    def __init__(self, poll: Callable[[], Any]) -> None:
        self._poll = poll

    def __call__(self) -> Any:
        return self._poll()
