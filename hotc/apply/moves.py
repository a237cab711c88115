"""The apply side of planned moves (:mod:`hotc.planner.moves`): the records move to their new addresses in the
state alone, no cloud call, before anything else the plan does; one ``MOVE_COMPLETE`` event per moved
resource says where it came from."""

from __future__ import annotations

from typing import Any

from hotc.planner.api import Plan, move_state
from hotc.state import StackState
from hotc.state.events import Event


def moved(plan: Plan, state: StackState) -> StackState:
    """``state`` as the plan was made against it: its moves done (in memory; nothing is written)."""
    return move_state(state, plan.moves) if plan.moves else state


def record_moves(plan: Plan, state: StackState, backend: Any, stack: str, lock: Any) -> StackState:
    """Write ``state`` (already :func:`moved`) under ``lock`` and record an event per moved resource. Returns
    the state as written."""
    if not plan.moves:
        return state
    written: StackState = backend.write(stack, state, lock)
    events = []
    for m in plan.moves:
        for old, new in m.leaves:
            r = written.resources.get(new)
            events.append(
                Event.now(
                    new,
                    r.type if r is not None else "",
                    "MOVE_COMPLETE",
                    f"moved from {old} ({m.source}: {m}); state only, the object is kept",
                    r.physical_id if r is not None else None,
                )
            )
    backend.append_events(stack, events)
    return written
