"""``hotc protect`` / ``hotc unprotect``: set or lift the protection marks kept with a stack (see
:mod:`hotc.planner.protection` for what a mark refuses). The marks are written under the stack's lock, so
every runner of the same backend sees them at its next plan."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from hotc.errors import HotcError, did_you_mean
from hotc.model import model
from hotc.planner.api import covering_mark
from hotc.state import StackState, backend_from_config
from hotc.state.document import STACK_MARK, ProtectMark

_WILDCARD = re.compile(r"[*?]")


@model
class ProtectRequest:
    """Protect (or with ``protect`` False, unprotect) ``addresses`` of ``stack``; no address: the stack."""

    stack: str
    addresses: tuple[str, ...] = ()
    protect: bool = True
    reason: str = ""
    by: str = ""  # who asks (user@host), recorded with the mark
    at: str = ""  # when (ISO time)
    backend: str | None = None
    lock_timeout: float = 0.0


@model
class ProtectResult:
    stack: str
    changed: tuple[str, ...]  # marks set (or lifted) by this request
    unchanged: tuple[str, ...]  # already set (or not set)
    marks: Mapping[str, ProtectMark]  # every mark of the stack afterwards
    serial: int


def _check_addresses(state: StackState, keys: tuple[str, ...]) -> None:
    """Each address must name a resource of the state (or hold some: a group, a nested stack); each pattern
    must match at least one."""
    addresses = list(state.resources)
    holders = sorted({h for a in addresses for h in re.split(r"(?=[.\[])", a)[:1]} | set(addresses))
    bad: list[str] = []
    for key in keys:
        probe = {key: ProtectMark(by="", at="")}
        if any(covering_mark(probe, a) for a in addresses):
            continue
        what = "pattern" if _WILDCARD.search(key) else "resource"
        bad.append(f"{what} {key!r} matches no resource of the stack.{did_you_mean(key, holders)}")
    if bad:
        raise HotcError(f"stack {state.stack_name!r}: " + " ".join(bad) + " Nothing was changed")


def not_found(stack: str, stacks: list[str]) -> HotcError:
    listed = ", ".join(sorted(stacks)) if stacks else "none"
    return HotcError(
        f"stack {stack!r} not found (stacks in this backend: {listed}).{did_you_mean(stack, stacks)}"
    )


def run(request: ProtectRequest) -> ProtectResult:
    backend = backend_from_config(request.backend)
    current, _token = backend.read(request.stack)  # before the lock: a stack that is not there leaves none
    if current is None:
        raise not_found(request.stack, backend.list_stacks())
    keys = request.addresses or (STACK_MARK,)
    changed: list[str] = []
    unchanged: list[str] = []
    with backend.lock(
        request.stack, "protect" if request.protect else "unprotect", request.lock_timeout
    ) as lk:
        state, _token = backend.read(request.stack)
        if state is None:
            raise not_found(request.stack, backend.list_stacks())
        marks = dict(state.protected)
        if request.protect:
            _check_addresses(state, tuple(k for k in keys if k != STACK_MARK))
            for key in keys:
                if key in marks:
                    unchanged.append(key)
                else:
                    marks[key] = ProtectMark(by=request.by, at=request.at, reason=request.reason)
                    changed.append(key)
        else:
            missing = [k for k in keys if k not in marks]
            if missing:
                shown = ", ".join("the stack" if k == STACK_MARK else repr(k) for k in missing)
                have = ", ".join("the stack" if k == STACK_MARK else repr(k) for k in sorted(marks)) or "none"
                raise HotcError(
                    f"stack {request.stack!r}: {shown} is not protected (its marks: {have}); nothing was changed"
                )
            for key in keys:
                marks.pop(key)
                changed.append(key)
        written = backend.write(request.stack, replace(state, protected=marks), lk) if changed else state
    return ProtectResult(
        request.stack, tuple(changed), tuple(unchanged), dict(written.protected), written.serial
    )
