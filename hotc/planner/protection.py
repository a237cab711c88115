"""Protection stored with the stack (``hotc protect``): a plan that would delete or replace a protected
resource, or destroy a protected stack, is refused when it is made, whatever command made it (plan, apply,
destroy, import, a rollback or a restore: each makes its plan through :func:`hotc.planner.make.make_plan`).

A mark's key is a resource address or a pattern (``db``, ``web[*]``, ``app.*``); it covers what it
names and everything inside it (a group's members, a nested stack's resources). The stack's own mark
(:data:`~hotc.state.document.STACK_MARK`) refuses a destroy plan: Pulumi's ``protect``, Terraform's
``prevent_destroy`` and CloudFormation's termination protection, kept in the state so every runner sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hotc.errors import HotcError
from hotc.planner.plan import Action, Plan
from hotc.state.document import STACK_MARK, ProtectMark, StackState


def _pattern(key: str) -> re.Pattern[str]:
    """A mark's key as a regular expression: ``*`` any text, ``?`` one character, the rest literal (so
    ``web[*]`` reads as an address: every member of ``web``)."""
    return re.compile("".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in key))


def _enclosing(address: str) -> list[str]:
    """``address`` and every address that holds it: ``a.b[2].c`` -> ``a``, ``a.b``, ``a.b[2]``, ``a.b[2].c``."""
    return [address[: m.start()] for m in re.finditer(r"[.\[]", address) if m.start() > 0] + [address]


def covering_mark(marks: Mapping[str, ProtectMark], address: str) -> str | None:
    """The key of the first mark that covers ``address`` (itself, or a group or nested stack holding it)."""
    holders = _enclosing(address)
    for key in sorted(marks):
        if key == STACK_MARK:
            continue
        pattern = _pattern(key)
        if any(pattern.fullmatch(h) for h in holders):
            return key
    return None


def _mark_text(key: str, mark: ProtectMark) -> str:
    what = "the stack" if key == STACK_MARK else repr(key)
    why = f": {mark.reason}" if mark.reason else ""
    return f"{what} was protected by {mark.by} at {mark.at}{why}"


def protection_violations(state: StackState | None, plan: Plan) -> list[str]:
    """One line per planned change that a protection mark forbids."""
    marks = state.protected if state is not None else {}
    if not marks:
        return []
    stack = plan.stack_name
    out: list[str] = []
    if plan.mode == "destroy" and STACK_MARK in marks:
        out.append(
            f"stack {stack!r} would be destroyed, but {_mark_text(STACK_MARK, marks[STACK_MARK])}; "
            f"lift it with 'hotc unprotect {stack}'"
        )
    for c in plan.changes:
        if c.action not in (Action.DELETE, Action.REPLACE) or c.deposed:
            continue
        key = covering_mark(marks, c.address)
        if key is None:
            continue
        verb = "deleted" if c.action is Action.DELETE else "replaced"
        reason = f" ({c.reason_detail})" if getattr(c, "reason_detail", "") else ""
        out.append(
            f"{c.address} would be {verb}{reason}, but {_mark_text(key, marks[key])}; lift it with "
            f"'hotc unprotect {stack} {key}'"
        )
    return out


def check_protection(state: StackState | None, plan: Plan) -> None:
    """Refuse a plan that a protection mark forbids; nothing was planned, nothing runs."""
    lines = protection_violations(state, plan)
    if lines:
        raise HotcError(
            f"the plan would delete or replace what is protected ({len(lines)}); nothing was planned:\n  "
            + "\n  ".join(lines)
        )
