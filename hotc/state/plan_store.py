"""The reviewed-plan store: the saved plan a pull request showed, kept beside the stack's state until it is applied.

A CI pipeline plans a pull request, and after the merge applies exactly the plan that was reviewed. The plan
job stores its plan file here, keyed by the stack and the pull request's number; the apply job, which runs on
another machine after the merge, reads it back. While a pull request's plan is stored, it is pending: it holds
the stack (another pull request's plan job reports the stack as held by it) until it is applied or dropped.

The file is stored as written by ``hotc plan -o`` (byte for byte, so its digest is the reviewed one): for a
local state ``DIR/STACK.plans/pr-N.json``, for an S3 state ``PREFIX/STACK/plans/pr-N.json`` (the backend's own
client, bucket and prefix). A saved plan holds no hidden value in clear (see :mod:`hotc.planner.planfile`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from hotc.errors import HotcError
from hotc.state.side_documents import SideDocuments, side_documents_for


@dataclass(frozen=True)
class StoredPlan:
    pr: int
    stored_at: str  # ISO 8601 UTC, or "" when the store does not say


def plan_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _name(pr: int) -> str:
    return f"pr-{pr}"


def _pr_of(name: str) -> int | None:
    if name.startswith("pr-") and name[3:].isdigit():
        return int(name[3:])
    return None


def check_pr(pr: int) -> None:
    if pr <= 0:
        raise HotcError(f"--pr {pr}: give the pull (merge) request's number, a positive integer")


class PlanStore:
    """The reviewed plans of one stack, as named side documents (``pr-N``) beside its state."""

    def __init__(self, documents: SideDocuments) -> None:
        self.documents = documents

    def describe(self) -> str:
        return self.documents.describe()

    def put(self, pr: int, data: bytes) -> None:
        self.documents.put(_name(pr), data)

    def get(self, pr: int) -> bytes | None:
        return self.documents.get(_name(pr))

    def pending(self) -> list[StoredPlan]:
        plans = [StoredPlan(pr, e.stored_at) for e in self.documents.entries() if (pr := _pr_of(e.name))]
        return sorted(plans, key=lambda s: (s.stored_at, s.pr))

    def remove(self, pr: int) -> None:
        self.documents.remove(_name(pr))


def plan_store_for(backend: Any, stack: str) -> PlanStore:
    """The reviewed-plan store beside ``stack``'s state in ``backend``."""
    documents = side_documents_for(backend, stack, "plans", "stored plan")
    if documents is None:
        raise HotcError(
            f"the state backend {type(backend).__name__} keeps no reviewed plans: use a local or S3 backend"
        )
    return PlanStore(documents)
