"""A pause at a hook (breakpoint), as Heat's ``Resource._break_if_required``: the resource reaches the hook, an
event says ``CREATE paused until Hook pre-create is cleared`` (the action the hook guards, the hook), and the
step waits until the hook is cleared, the run is cancelled, another step fails, or ``--hook-timeout`` runs
out. A clear comes through the hook store beside the state (``hotc hook clear`` from any terminal or CI job,
:mod:`hotc.state.hooks`) or from the operator's answer on the apply's own terminal; the event ``Hook pre-create
is cleared`` follows and the resource goes on.

While paused, the resource keeps its status (a resource not created yet has no record, Heat's
``INIT_COMPLETE``) and its record's status reason says it is paused."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

from hotc.apply.events import resource_event
from hotc.apply.graph import Step
from hotc.apply.hooks import hook_of
from hotc.apply.stepenv import StepEnv, StepFailed, patch
from hotc.state.hooks import CLEAR, PENDING, MemoryHookStore, record_name, who

POLL = 0.5  # seconds between two looks at the hook store


def wait_hook(env: StepEnv, step: Step) -> None:
    hook = hook_of(step)
    addr = step.address
    change = step.change
    type_name = change.type if change is not None else ""
    action = hook.split("-", 1)[1].upper()
    store: Any = env.options.hooks if env.options.hooks is not None else MemoryHookStore()
    name = record_name(hook, addr)
    paused = f"{action} paused until Hook {hook} is cleared"

    def mark(reason: str, status: str | None = None) -> None:
        cur = env.keeper.state.resources.get(addr)
        shown = status or (cur.status if cur is not None else "INIT_COMPLETE")
        env.keeper.commit(
            lambda s: patch(s, addr, status_reason=reason) if cur is not None else s,
            (resource_event(addr, type_name, shown, reason, cur.physical_id if cur is not None else None),),
        )

    store.remove(CLEAR, name)  # a request left by an earlier run does not clear this pause
    # the state (the paused status reason, the event) first, then the hook store: whoever sees the pause in
    # `hotc hook poll` finds it in the state and the events too
    mark(paused)
    store.put(
        PENDING,
        name,
        {
            **who(),
            "address": addr,
            "hook": hook,
            "type": type_name,
            "stack": env.stack_name,
            "reason": paused,
        },
    )
    log = env.logger(addr)
    log(f"paused until Hook {hook} is cleared: hotc hook clear {env.stack_name} {addr} --{hook}")
    asked = threading.Event()
    prompt = env.options.hook_prompt
    if prompt is not None:
        threading.Thread(target=_ask, args=(prompt, store, name, addr, hook, asked), daemon=True).start()
    timeout = env.options.hook_timeout
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            req = store.get(CLEAR, name)
            if req is not None:
                by = req.get("by") if isinstance(req, Mapping) else None
                mark(f"Hook {hook} is cleared")
                if by:
                    log(f"Hook {hook} cleared by {by}")
                return
            if env.cancelled or env.failing:
                mark("Failure occurred while waiting.")
                raise StepFailed(f"stopped while paused until Hook {hook} is cleared (the run was stopped)")
            if deadline is not None and time.monotonic() >= deadline:
                msg = (
                    f"Hook {hook} was not cleared within {timeout:g} s (--hook-timeout); clear it with "
                    f"`hotc hook clear {env.stack_name} {addr} --{hook}` while the apply waits, or raise "
                    "--hook-timeout"
                )
                mark(msg, None if env.keeper.state.resources.get(addr) is not None else f"{action}_FAILED")
                raise StepFailed(msg)
            time.sleep(POLL if deadline is None else max(0.0, min(POLL, deadline - time.monotonic())))
    finally:
        asked.set()
        store.remove(PENDING, name)
        store.remove(CLEAR, name)


def _ask(prompt: Any, store: Any, name: str, addr: str, hook: str, done: threading.Event) -> None:
    """The operator's answer on the apply's terminal: a yes writes the clear request, as `hotc hook clear`."""
    try:
        yes = bool(prompt(addr, hook))
    except Exception:  # noqa: BLE001 -- a terminal gone away: the other ways to clear still work
        return
    if yes and not done.is_set():
        store.put(CLEAR, name, {**who(), "via": "the apply's terminal"})


def terminal_prompt(
    prompt_out: IO[str], read_line: Callable[[], str], stack: str
) -> Callable[[str, str], bool]:
    """On a terminal: offer to clear a hook the apply reached (one question at a time)."""
    asking = threading.Lock()

    def ask(address: str, hook: str) -> bool:
        with asking:
            prompt_out.write(
                f"\n{address} is paused until Hook {hook} is cleared (or: hotc hook clear {stack} {address} "
                f"--{hook}).\n  Clear it now? Only 'yes' will be accepted: "
            )
            prompt_out.flush()
            try:
                return read_line().strip() == "yes"
            except (EOFError, KeyboardInterrupt):
                return False

    return ask
