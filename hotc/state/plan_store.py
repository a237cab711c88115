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
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from hotc.errors import HotcError
from hotc.state.local import LocalBackend
from hotc.state.s3 import S3Backend, _not_found


@dataclass(frozen=True)
class StoredPlan:
    pr: int
    stored_at: str  # ISO 8601 UTC, or "" when the store does not say


def plan_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _name(pr: int) -> str:
    return f"pr-{pr}.json"


def _pr_of(name: str) -> int | None:
    if name.startswith("pr-") and name.endswith(".json") and name[3:-5].isdigit():
        return int(name[3:-5])
    return None


def check_pr(pr: int) -> None:
    if pr <= 0:
        raise HotcError(f"--pr {pr}: give the pull (merge) request's number, a positive integer")


class PlanStore(Protocol):
    def describe(self) -> str: ...

    def put(self, pr: int, data: bytes) -> None: ...

    def get(self, pr: int) -> bytes | None: ...

    def pending(self) -> list[StoredPlan]: ...

    def remove(self, pr: int) -> None: ...


class LocalPlanStore:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def describe(self) -> str:
        return str(self.dir)

    def put(self, pr: int, data: bytes) -> None:
        path = self.dir / _name(pr)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except OSError as exc:
            raise HotcError(f"{path}: cannot store the plan: {exc.strerror or exc}") from None

    def get(self, pr: int) -> bytes | None:
        path = self.dir / _name(pr)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise HotcError(f"{path}: cannot read the stored plan: {exc.strerror or exc}") from None

    def pending(self) -> list[StoredPlan]:
        if not self.dir.is_dir():
            return []
        out: list[StoredPlan] = []
        for p in self.dir.iterdir():
            pr = _pr_of(p.name)
            if pr is not None:
                at = datetime.fromtimestamp(p.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                out.append(StoredPlan(pr, at))
        return sorted(out, key=lambda s: (s.stored_at, s.pr))

    def remove(self, pr: int) -> None:
        try:
            (self.dir / _name(pr)).unlink()
        except FileNotFoundError:
            pass
        try:
            self.dir.rmdir()  # the last one: no empty directory left beside the state
        except OSError:
            pass


class S3PlanStore:
    def __init__(self, backend: Any, stack: str) -> None:
        self.backend = backend
        self.base = backend._key(stack, "plans/")

    def describe(self) -> str:
        return f"s3://{self.backend.bucket}/{self.base}"

    def put(self, pr: int, data: bytes) -> None:
        self.backend._call(
            "store a reviewed plan",
            self.backend.client.put_object,
            Key=f"{self.base}{_name(pr)}",
            Body=data,
            ContentType="application/json",
        )

    def get(self, pr: int) -> bytes | None:
        try:
            r = self.backend._call(
                "read a reviewed plan", self.backend.client.get_object, Key=f"{self.base}{_name(pr)}"
            )
        except HotcError:
            raise
        except Exception as exc:
            if _not_found(exc):
                return None
            raise HotcError(f"{self.describe()}{_name(pr)}: cannot read the stored plan: {exc}") from None
        return bytes(r["Body"].read())

    def pending(self) -> list[StoredPlan]:
        kw: dict[str, Any] = {"Prefix": self.base}
        out: list[StoredPlan] = []
        while True:
            r = self.backend._call("list reviewed plans", self.backend.client.list_objects_v2, **kw)
            for o in r.get("Contents", []):
                pr = _pr_of(str(o["Key"])[len(self.base) :])
                if pr is not None:
                    at = o.get("LastModified")
                    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else ""
                    out.append(StoredPlan(pr, stamp))
            if not r.get("IsTruncated"):
                return sorted(out, key=lambda s: (s.stored_at, s.pr))
            kw["ContinuationToken"] = r["NextContinuationToken"]

    def remove(self, pr: int) -> None:
        self.backend._call(
            "drop a reviewed plan", self.backend.client.delete_object, Key=f"{self.base}{_name(pr)}"
        )


def plan_store_for(backend: Any, stack: str) -> PlanStore:
    """The reviewed-plan store beside ``stack``'s state in ``backend``."""
    if isinstance(backend, LocalBackend):
        return LocalPlanStore(backend.dir / f"{stack}.plans")
    if isinstance(backend, S3Backend):
        return S3PlanStore(backend, stack)
    raise HotcError(
        f"the state backend {type(backend).__name__} keeps no reviewed plans: use a local or S3 backend"
    )
