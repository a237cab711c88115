"""Documents kept beside a stack's state, in the same backend: one folder of named JSON files per kind (a stack's
snapshots, the plans its pull requests are reviewing). For a local state ``DIR/STACK.FOLDER/NAME.json``
(written atomically, mode 0600), for an S3 state ``PREFIX/STACK/FOLDER/NAME.json`` (the backend's own client,
bucket and prefix); in memory for a backend that has no place for them (tests)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from hotc.errors import HotcError
from hotc.model import model
from hotc.state.local import LocalBackend

SUFFIX = ".json"


@model
class Entry:
    name: str
    stored_at: str  # ISO 8601 UTC, or "" when the store does not say


def _stamp(at: datetime | None) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else ""


class SideDocuments(Protocol):
    def describe(self) -> str: ...

    def put(self, name: str, data: bytes) -> None: ...

    def get(self, name: str) -> bytes | None: ...

    def entries(self) -> list[Entry]: ...

    def remove(self, name: str) -> None: ...


class LocalDocuments:
    def __init__(self, directory: Path, what: str) -> None:
        self.dir = directory
        self.what = what  # "snapshot", "stored plan": for the error messages

    def describe(self) -> str:
        return str(self.dir)

    def _path(self, name: str) -> Path:
        return self.dir / f"{name}{SUFFIX}"

    def put(self, name: str, data: bytes) -> None:
        path = self._path(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except OSError as exc:
            raise HotcError(f"{path}: cannot write the {self.what}: {exc.strerror or exc}") from None

    def get(self, name: str) -> bytes | None:
        path = self._path(name)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise HotcError(f"{path}: cannot read the {self.what}: {exc.strerror or exc}") from None

    def entries(self) -> list[Entry]:
        if not self.dir.is_dir():
            return []
        return sorted(
            (
                Entry(p.name[: -len(SUFFIX)], _stamp(datetime.fromtimestamp(p.stat().st_mtime, UTC)))
                for p in self.dir.iterdir()
                if p.name.endswith(SUFFIX)
            ),
            key=lambda e: e.name,
        )

    def remove(self, name: str) -> None:
        try:
            self._path(name).unlink()
        except FileNotFoundError:
            pass
        try:
            self.dir.rmdir()  # the last one: no empty directory left beside the state
        except OSError:
            pass


class S3Documents:
    def __init__(self, backend: Any, stack: str, folder: str, what: str) -> None:
        self.backend = backend
        self.base = backend._key(stack, f"{folder}/")
        self.what = what

    def describe(self) -> str:
        return f"s3://{self.backend.bucket}/{self.base}"

    def put(self, name: str, data: bytes) -> None:
        self.backend._call(
            f"store a {self.what}",
            self.backend.client.put_object,
            Key=f"{self.base}{name}{SUFFIX}",
            Body=data,
            ContentType="application/json",
        )

    def get(self, name: str) -> bytes | None:
        # lazy: hotc.state.s3 only for an S3 backend (most runs use a local state)
        from hotc.state.s3 import _not_found

        try:
            r = self.backend.client.get_object(Bucket=self.backend.bucket, Key=f"{self.base}{name}{SUFFIX}")
        except Exception as exc:
            if _not_found(exc):
                return None
            raise HotcError(f"{self.describe()}: cannot read the {self.what} {name}: {exc}") from None
        return bytes(r["Body"].read())

    def entries(self) -> list[Entry]:
        kw: dict[str, Any] = {"Prefix": self.base}
        out: list[Entry] = []
        while True:
            r = self.backend._call(f"list {self.what}s", self.backend.client.list_objects_v2, **kw)
            for o in r.get("Contents", []):
                rest = str(o["Key"])[len(self.base) :]
                if rest.endswith(SUFFIX) and "/" not in rest:
                    out.append(Entry(rest[: -len(SUFFIX)], _stamp(o.get("LastModified"))))
            if not r.get("IsTruncated"):
                return sorted(out, key=lambda e: e.name)
            kw["ContinuationToken"] = r["NextContinuationToken"]

    def remove(self, name: str) -> None:
        self.backend._call(
            f"remove a {self.what}", self.backend.client.delete_object, Key=f"{self.base}{name}{SUFFIX}"
        )


class MemoryDocuments:
    """Documents kept in memory (a backend that has no place for them; tests)."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}

    def describe(self) -> str:
        return "memory"

    def put(self, name: str, data: bytes) -> None:
        self._data[name] = data

    def get(self, name: str) -> bytes | None:
        return self._data.get(name)

    def entries(self) -> list[Entry]:
        return [Entry(n, "") for n in sorted(self._data)]

    def remove(self, name: str) -> None:
        self._data.pop(name, None)


def side_documents_for(backend: Any, stack: str, folder: str, what: str) -> SideDocuments | None:
    """The ``folder`` documents beside ``stack``'s state in ``backend`` (None: a backend with no place for them)."""
    # lazy: hotc.state.s3 only for an S3 backend (most runs use a local state)
    from hotc.state.s3 import S3Backend

    if isinstance(backend, LocalBackend):
        return LocalDocuments(backend.dir / f"{stack}.{folder}", what)
    if isinstance(backend, S3Backend):
        return S3Documents(backend, stack, folder, what)
    return None
