"""The hook store: the hooks (breakpoints) a running apply is paused at, and the requests to clear them.

It lives beside the stack's state, in the same backend (so any terminal or CI job that reaches the state can
clear a hook): for a local state ``DIR/STACK.hooks/``, for an S3 state ``PREFIX/STACK/hooks/``. Two kinds of
small JSON records, one object each:

- ``pending/HOOK@ADDRESS``: written by the apply when a resource reaches a hook (who runs the apply, since
  when), removed when the hook is cleared or the run ends;
- ``clear/HOOK@ADDRESS``: written by ``hotc hook clear`` (who cleared it, when); the apply polls for it,
  then removes both records.

Heat keeps the same facts on the resource (``trigger_hook`` / ``clear_hook``) and clears a hook through a signal
(``{"unset_hook": "pre-create"}``)."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, unquote

from hotc.errors import HotcError
from hotc.state.backend import current_user
from hotc.state.events import utc_now
from hotc.state.local import LocalBackend

PENDING = "pending"
CLEAR = "clear"


@dataclass(frozen=True)
class HookRecord:
    address: str
    hook: str
    data: Mapping[str, Any]


def record_name(hook: str, address: str) -> str:
    return f"{hook}@{quote(address, safe='')}"


def parse_name(name: str) -> tuple[str, str] | None:
    hook, sep, addr = name.partition("@")
    return (hook, unquote(addr)) if sep else None


def who() -> dict[str, Any]:
    """Who writes a record, and when."""
    return {"by": f"{current_user()}@{socket.gethostname()}", "pid": os.getpid(), "at": utc_now()}


class HookStore(Protocol):
    def describe(self) -> str: ...

    def put(self, kind: str, name: str, data: Mapping[str, Any]) -> None: ...

    def get(self, kind: str, name: str) -> Mapping[str, Any] | None: ...

    def names(self, kind: str) -> list[str]: ...

    def remove(self, kind: str, name: str) -> None: ...


class LocalHookStore:
    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def describe(self) -> str:
        return str(self.dir)

    def _path(self, kind: str, name: str) -> Path:
        return self.dir / kind / f"{name}.json"

    def put(self, kind: str, name: str, data: Mapping[str, Any]) -> None:
        path = self._path(kind, name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(dict(data), sort_keys=True))
            os.replace(tmp, path)
        except OSError as exc:
            raise HotcError(f"{path}: cannot write the hook record: {exc.strerror or exc}") from None

    def get(self, kind: str, name: str) -> Mapping[str, Any] | None:
        try:
            data = json.loads(self._path(kind, name).read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def names(self, kind: str) -> list[str]:
        d = self.dir / kind
        if not d.is_dir():
            return []
        return sorted(p.name[: -len(".json")] for p in d.iterdir() if p.name.endswith(".json"))

    def remove(self, kind: str, name: str) -> None:
        try:
            self._path(kind, name).unlink()
        except FileNotFoundError:
            pass


class S3HookStore:
    def __init__(self, backend: Any, stack: str) -> None:
        self.backend = backend
        self.base = backend._key(stack, "hooks/")

    def describe(self) -> str:
        return f"s3://{self.backend.bucket}/{self.base}"

    def put(self, kind: str, name: str, data: Mapping[str, Any]) -> None:
        self.backend._call(
            "store a hook record",
            self.backend.client.put_object,
            Key=f"{self.base}{kind}/{name}",
            Body=json.dumps(dict(data), sort_keys=True).encode(),
            ContentType="application/json",
        )

    def get(self, kind: str, name: str) -> Mapping[str, Any] | None:
        # lazy: hotc.state.s3 only for an S3 backend (most runs use a local state)
        from hotc.state.s3 import _not_found

        try:
            r = self.backend.client.get_object(Bucket=self.backend.bucket, Key=f"{self.base}{kind}/{name}")
        except Exception as exc:
            if _not_found(exc):
                return None
            raise HotcError(f"{self.describe()}: cannot read the hook record {kind}/{name}: {exc}") from None
        try:
            data = json.loads(r["Body"].read())
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def names(self, kind: str) -> list[str]:
        prefix = f"{self.base}{kind}/"
        kw: dict[str, Any] = {"Prefix": prefix}
        out: list[str] = []
        while True:
            r = self.backend._call("list hook records", self.backend.client.list_objects_v2, **kw)
            out.extend(str(o["Key"])[len(prefix) :] for o in r.get("Contents", []))
            if not r.get("IsTruncated"):
                return sorted(out)
            kw["ContinuationToken"] = r["NextContinuationToken"]

    def remove(self, kind: str, name: str) -> None:
        self.backend._call(
            "remove a hook record", self.backend.client.delete_object, Key=f"{self.base}{kind}/{name}"
        )


class MemoryHookStore:
    """Records kept in memory (a backend that has no place for them; tests)."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], Mapping[str, Any]] = {}

    def describe(self) -> str:
        return "memory"

    def put(self, kind: str, name: str, data: Mapping[str, Any]) -> None:
        self._data[(kind, name)] = dict(data)

    def get(self, kind: str, name: str) -> Mapping[str, Any] | None:
        return self._data.get((kind, name))

    def names(self, kind: str) -> list[str]:
        return sorted(n for k, n in list(self._data) if k == kind)

    def remove(self, kind: str, name: str) -> None:
        self._data.pop((kind, name), None)


def hook_store_for(backend: Any, stack: str) -> HookStore:
    """The hook store beside ``stack``'s state in ``backend``."""
    # lazy: hotc.state.s3 only for an S3 backend (most runs use a local state)
    from hotc.state.s3 import S3Backend

    if isinstance(backend, LocalBackend):
        return LocalHookStore(backend.dir / f"{stack}.hooks")
    if isinstance(backend, S3Backend):
        return S3HookStore(backend, stack)
    return MemoryHookStore()


def pending(store: HookStore) -> list[HookRecord]:
    """The hooks a run is paused at, in (hook, address) order."""
    out: list[HookRecord] = []
    for name in store.names(PENDING):
        parsed = parse_name(name)
        if parsed is None:
            continue
        data = store.get(PENDING, name)
        if data is not None:
            out.append(HookRecord(parsed[1], parsed[0], data))
    return out


def forget_pending(store: HookStore) -> None:
    """Drop every record: a new run holds the stack's lock, so what an earlier (killed) run left is stale."""
    for kind in (PENDING, CLEAR):
        for name in store.names(kind):
            store.remove(kind, name)


def request_clear(store: HookStore, address: str, hook: str) -> Mapping[str, Any]:
    """Ask the running apply to clear ``hook`` on ``address``; raises HotcError when it is not paused there."""
    name = record_name(hook, address)
    if store.get(PENDING, name) is None:
        waiting = pending(store)
        listed = ", ".join(f"{r.address} --{r.hook}" for r in waiting) or "none"
        raise HotcError(
            f'the "{hook}" hook is not pending on {address}: no apply is paused there. Pending hooks: {listed}'
        )
    req = who()
    store.put(CLEAR, name, req)
    return req
