"""DriverReader.read_all is pipelined: the GETs of types without a list read start at once, and the GETs a list
did not answer start when that list is back, not when the slowest list is (hotc check and --refresh read every
resource this way). Ordered by gates, not by time: a slow list that waits for those GETs would never finish
without the pipelining."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from hotc.planner.refresh import DriverReader
from hotc.providers.base import Outcome
from tests.planner.helpers import state

WAIT = 30.0  # a gate never opened is a failure, not a hang


class GetOnly:
    """A type read one GET at a time (no list read)."""

    def __init__(self) -> None:
        self.read_done = threading.Event()

    def read(self, ctx: Any, physical_id: str, props: Any) -> Outcome | None:
        self.read_done.set()
        return Outcome(physical_id, {"by": "get"})


class SlowList:
    """A list read that only comes back once every gate is set; it answers nothing, so its resources get GETs."""

    def __init__(self, *gates: threading.Event) -> None:
        self.gates = gates
        self.finished = False

    def read_many(self, items: Sequence[Any]) -> dict[str, Outcome]:
        for gate in self.gates:
            assert gate.wait(WAIT), "the list was held: the other types' GETs did not start before it ended"
        self.finished = True
        return {}

    def read(self, ctx: Any, physical_id: str, props: Any) -> Outcome | None:
        return Outcome(physical_id, {"by": "get after the list"})


class FastList:
    """A list read that answers at once and leaves one resource to a GET, which must start while SlowList's
    list is still held."""

    def __init__(self) -> None:
        self.read_done = threading.Event()

    def read_many(self, items: Sequence[Any]) -> dict[str, Outcome]:
        return {pid: Outcome(pid, {"by": "list"}) for _ctx, pid, _props in items if pid == "id-f1"}

    def read(self, ctx: Any, physical_id: str, props: Any) -> Outcome | None:
        self.read_done.set()
        return Outcome(physical_id, {"by": "get"})


def test_gets_start_while_a_slow_list_is_still_out() -> None:
    get_only, fast = GetOnly(), FastList()
    # the slow list comes back only after the GET-only type was read and the fast list's leftover was read
    slow = SlowList(get_only.read_done, fast.read_done)
    drivers = {"T::Get": get_only, "T::Slow": slow, "T::Fast": fast}
    st = state(
        {
            "g": {"type": "T::Get"},
            "s": {"type": "T::Slow"},
            "f1": {"type": "T::Fast"},
            "f2": {"type": "T::Fast"},
        }
    )
    reader = DriverReader(st, lambda: None, drivers.get, parallelism=4)
    out = reader.read_all(st.resources.values())
    assert list(out) == ["g", "s", "f1", "f2"]  # in the order asked, whatever order the reads ended in
    assert {a: dict(rs.attributes)["by"] for a, rs in out.items() if rs is not None} == {
        "g": "get",
        "s": "get after the list",
        "f1": "list",
        "f2": "get",
    }
    assert slow.finished
