"""The lifecycle operations on a stack's recorded resources (``hotc check``, ``suspend``, ``resume``): the
stack must exist (checked before its lock is taken, so a mistyped name leaves nothing behind), then the walk
along its dependency graph (:mod:`hotc.apply.lifecycle`) reads, suspends or resumes each resource. Nothing is
planned: these act on what the state records, not on a template."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from hotc.apply.lifecycle import check_stack, suspend_resume
from hotc.errors import HotcError
from hotc.model import model
from hotc.ops.stacks import require_stack
from hotc.state import backend_from_config

ACTIONS = ("check", "suspend", "resume")


@model
class LifecycleRequest:
    action: str  # check, suspend or resume
    stack: str
    backend: str | None = None
    lock_timeout: float = 0.0
    cwd: Path | None = None


def run_lifecycle(
    request: LifecycleRequest,
    *,
    cloud: Callable[[], Any],
    drivers: Callable[[str], Any],
    out: IO[str],
    err: IO[str],
) -> int:
    """Run the lifecycle action; returns the exit code (1 when a resource failed it). ``cloud`` and
    ``drivers``: from the CLI's composition root."""
    if request.action not in ACTIONS:
        raise HotcError(f"unknown lifecycle action {request.action!r} (one of {', '.join(ACTIONS)})")
    require_stack(request.stack, backend_from_config(request.backend, request.cwd))
    if request.action == "check":
        return check_stack(
            request.stack, request.backend, cloud, out, err, request.lock_timeout, drivers=drivers
        )
    return suspend_resume(
        request.action, request.stack, request.backend, cloud, request.lock_timeout, out, err, drivers=drivers
    )
