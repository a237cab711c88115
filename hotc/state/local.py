"""The local state backend: ``.hotc/STACK.json`` in the working directory.

- Writes are atomic: a temp file in the same directory, fsync, rename over the state, fsync of the directory.
  The version replaced is kept as ``STACK.json.backup``.
- The lock is an OS-level ``flock`` on ``STACK.lock``, held for the whole operation (the kernel drops it when
  the process dies, so a killed holder never leaves a stale lock). While held, the file names its holder.
- The version token is the sha256 of the stored bytes; every write checks it (compare-and-swap) while holding
  a short OS lock on ``STACK.cas``.
- Events are JSON lines appended to ``STACK.events.jsonl`` (one ``write`` per batch, ``O_APPEND``).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from hotc.errors import HotcError
from hotc.state.backend import (
    BackendError,
    BaseBackend,
    HistoryEntry,
    Lock,
    LockHeldError,
    LockLostError,
    StateConflictError,
    StateNotWritableError,
    backoff_delays,
    lock_held_message,
    process_alive,
    validate_stack_name,
)
from hotc.state.document import StackState
from hotc.state.events import Event, decode_lines, encode_lines
from hotc.state.secrets import holds_ciphertext, missing_key_message

BACKUP_SUFFIX = ".json.backup"
_READ_ONLY = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
# temp files of a write: ``.STACK.json.PID.XXXXXXXX.tmp`` (+ ``.backup``, the hard link made for the backup);
# older hotc wrote them without the PID
_TEMP_NAME = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?[A-Za-z0-9_]{8}\.tmp(?:\.backup)?$")
STALE_TEMP_SECONDS = 60.0


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


KEY_FILE = "state.key"


class LocalBackend(BaseBackend):
    """``DIR/STACK.json`` with a backup, an OS lock per stack and an event log.

    With ``key_file`` (the default from :func:`~hotc.state.backend.backend_from_config` when no
    ``HOTC_STATE_KEY`` is set), sensitive values (hidden parameters, sensitive properties, a RandomString's
    value) are encrypted with a key kept in ``DIR/state.key`` (mode 0600, made on the first write), so the
    state documents never hold them in clear and hotc can still read them back."""

    def __init__(
        self,
        directory: Path,
        *,
        key: bytes | None = None,
        unsafe_no_locking: bool = False,
        fsync: bool = True,
        key_file: bool = False,
    ) -> None:
        self.dir = Path(directory)
        self._key_file = key_file and key is None
        self._key: bytes | None = key
        super().__init__(key=key, unsafe_no_locking=unsafe_no_locking)
        self.fsync = fsync
        self._held: dict[str, tuple[Lock, int]] = {}  # stack -> (lock, fd of STACK.lock)

    @property
    def key(self) -> bytes | None:
        if self._key is None and self._key_file:
            try:
                self._key = (self.dir / KEY_FILE).read_bytes().strip() or None
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise BackendError(
                    f"{self.dir / KEY_FILE}: error: cannot read the state key: {exc.strerror}"
                ) from None
        return self._key

    @key.setter
    def key(self, value: bytes | None) -> None:
        self._key = value

    def encrypts_secrets(self) -> bool:
        return self.key is not None or self._key_file

    def missing_key_hint(self) -> str:
        if self._key_file:
            return f"HOTC_STATE_KEY is not set and the key file {self.dir / KEY_FILE} is missing"
        return super().missing_key_hint()

    def _make_key(self) -> None:
        """Create ``DIR/state.key`` when this backend keeps its key there and it does not exist yet; never
        while a document in the directory holds values encrypted with a key (the lost one)."""
        if not self._key_file or self.key is not None:
            return
        # heavy: cryptography's key generation only when a new key file is made
        from cryptography.fernet import Fernet

        self._ensure_dir()
        for doc in sorted(self.dir.glob("*.json*")):
            if doc.name.endswith((".json", BACKUP_SUFFIX)) and doc.is_file():
                try:
                    data = doc.read_bytes()
                except OSError:
                    continue
                if holds_ciphertext(data):
                    raise BackendError(missing_key_message(str(doc), self.missing_key_hint()))
        path = self.dir / KEY_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return  # made by a concurrent writer: read on next use
        except OSError as exc:
            raise BackendError(f"{path}: error: cannot create the state key: {exc.strerror}") from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(Fernet.generate_key() + b"\n")
            fh.flush()
            if self.fsync:
                os.fsync(fh.fileno())

    def write(
        self, stack: str, state: StackState, lock: Lock, *, expected: str | None = None, exact: bool = False
    ) -> StackState:
        self._make_key()
        return super().write(stack, state, lock, expected=expected, exact=exact)

    def read(self, stack: str) -> tuple[StackState | None, str | None]:
        try:
            return super().read(stack)
        except HotcError as exc:
            key_file = self.dir / KEY_FILE
            if "cannot decrypt" in str(exc) and not self._key_file and key_file.exists():
                raise HotcError(
                    f"{self.source(stack)}: {exc}. Its secrets were probably encrypted with the key in {key_file} "
                    "(used when HOTC_STATE_KEY is not set): unset HOTC_STATE_KEY to use it, or set HOTC_STATE_KEY "
                    "to that file's content"
                ) from None
            raise

    # --- paths
    def describe(self) -> str:
        return f"local directory {self.dir}"

    def state_path(self, stack: str) -> Path:
        return self.dir / f"{stack}.json"

    def backup_path(self, stack: str) -> Path:
        return self.dir / f"{stack}{BACKUP_SUFFIX}"

    def lock_path(self, stack: str) -> Path:
        return self.dir / f"{stack}.lock"

    def events_path(self, stack: str) -> Path:
        return self.dir / f"{stack}.events.jsonl"

    def source(self, stack: str) -> str:
        return str(self.state_path(stack))

    def _ensure_dir(self, stack: str | None = None) -> None:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if exc.errno in _READ_ONLY:
                raise StateNotWritableError(
                    self._not_writable(stack, self.dir, exc), str(self.dir), exc.strerror or str(exc)
                ) from None
            raise BackendError(
                f"{self.dir}: error: cannot create the state directory: {exc.strerror}"
            ) from None

    def _not_writable(self, stack: str | None, path: Path, exc: OSError) -> str:
        what = f"the state of stack '{stack}'" if stack else "the state"
        return (
            f"{path}: error: the state directory {self.dir} is not writable ({exc.strerror}): hotc cannot "
            f"lock or write {what} there. Make it writable, or keep the state elsewhere (--backend DIR or "
            "s3://BUCKET/PREFIX, HOTC_BACKEND, hotc.toml). Nothing was changed."
        )

    # --- bytes
    def _get(self, stack: str) -> tuple[bytes | None, str | None]:
        path = self.state_path(stack)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            raise BackendError(f"{path}: error: cannot read the state: {exc.strerror}") from None
        return data, _digest(data)

    def _clean_stale_temps(self, stack: str) -> None:
        """Remove the temp files a killed writer of ``stack`` left (``.STACK.json.PID.XXXX.tmp`` and their
        ``.backup`` links). Called under the stack's CAS lock, which every writer holds while its temp files
        exist, so any found belong to a writer that is gone; to be safe, a file is removed only when the PID
        in its name no longer runs (or, in the older name without a PID, when it is over a minute old)."""
        names = (f"{stack}.json", f"{stack}{BACKUP_SUFFIX}")
        try:
            entries = list(os.scandir(self.dir))
        except OSError:
            return
        for entry in entries:
            m = _TEMP_NAME.match(entry.name)
            if m is None or m.group("name") not in names:
                continue
            pid = m.group("pid")
            try:
                if pid is not None:
                    if int(pid) != os.getpid() and process_alive(int(pid)):
                        continue
                elif time.time() - entry.stat().st_mtime < STALE_TEMP_SECONDS:
                    continue
                os.unlink(entry.path)
                self.notify(f"removed {entry.path}, left by an interrupted write")
            except OSError:
                continue

    def _atomic_write(self, path: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                if self.fsync:
                    os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        if self.fsync:
            _fsync_dir(path.parent)

    def _replace_keeping_backup(self, stack: str, data: bytes, current: bytes | None) -> None:
        """Store ``data`` as the state; the version it replaces becomes the backup (hard-linked, not copied)."""
        state, backup = self.state_path(stack), self.backup_path(stack)
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=f".{state.name}.{os.getpid()}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                if self.fsync:
                    os.fsync(fh.fileno())
            if current is not None:
                link = f"{tmp}.backup"
                try:
                    os.link(state, link)
                    os.replace(link, backup)
                except OSError:  # no hard links here: copy instead
                    self._atomic_write(backup, current)
            os.replace(tmp, state)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        if self.fsync:
            _fsync_dir(self.dir)

    def _put(self, stack: str, data: bytes, expected: str | None, lock: Lock) -> str:
        self._ensure_dir()
        with self._short_lock(stack, lock):
            self._clean_stale_temps(stack)
            current, token = self._get(stack)
            if token != expected:
                raise StateConflictError(
                    f"{self.source(stack)}: the state changed underneath this operation (someone else wrote it "
                    "since it was read); nothing was written. Run the command again."
                )
            try:
                self._replace_keeping_backup(stack, data, current)
            except OSError as exc:
                raise BackendError(
                    f"{self.source(stack)}: error: cannot write the state: {exc.strerror}; the previous state "
                    "was left in place"
                ) from None
        return _digest(data)

    @contextmanager
    def _short_lock(self, stack: str, lock: Lock) -> Iterator[None]:
        """An OS lock on ``STACK.cas`` held just around one compare-and-rename, so the compare-and-swap is
        atomic even between writers that do not hold the operation lock (--unsafe-no-locking)."""
        fd = os.open(self.dir / f"{stack}.cas", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    # --- lock
    def _check_lock(self, stack: str, lock: Lock) -> None:
        if lock.unsafe:
            if not self.unsafe_no_locking:
                raise HotcError("internal error: an unsafe lock used on a backend that is not in unsafe mode")
            return
        held = self._held.get(stack)
        if held is None or held[0].id != lock.id:
            raise LockLostError(
                f"the lock {lock.id} on stack '{stack}' is not held by this process; nothing was written"
            )

    def _read_lock_info(self, path: Path) -> Lock | None:
        try:
            return Lock.from_dict(json.loads(path.read_bytes() or b"null"))
        except (OSError, ValueError):
            return None

    @contextmanager
    def lock(self, stack: str, operation: str, timeout: float = 0.0) -> Iterator[Lock]:
        validate_stack_name(stack)
        if self.unsafe_no_locking:
            yield replace(Lock.new(stack, operation), unsafe=True)
            return
        if stack in self._held:
            raise HotcError(f"internal error: stack '{stack}' is already locked by this backend object")
        self._ensure_dir(stack)
        path = self.lock_path(stack)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in _READ_ONLY:
                raise StateNotWritableError(
                    self._not_writable(stack, path, exc), str(self.dir), exc.strerror or str(exc)
                ) from None
            raise BackendError(f"{path}: error: cannot open the lock file: {exc.strerror}") from None
        try:
            delays = backoff_delays(timeout)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise BackendError(f"{path}: error: cannot lock: {exc.strerror}") from None
                delay = next(delays, None)
                if delay is None:
                    holder = self._read_lock_info(path)
                    for _ in range(50):  # the holder may be writing its record right now
                        if holder is not None:
                            break
                        time.sleep(0.02)
                        holder = self._read_lock_info(path)
                    raise LockHeldError(
                        lock_held_message(stack, holder, False, str(path), self.cli_flag), holder
                    )
                time.sleep(delay)
            lk = Lock.new(stack, operation)
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(lk.to_dict(), indent=2).encode() + b"\n", 0)
            self._held[stack] = (lk, fd)
            self._forget_base(stack)
            try:
                yield lk
            finally:
                self._held.pop(stack, None)
                self._forget_base(stack)
                try:
                    os.ftruncate(fd, 0)
                except OSError:
                    pass
        finally:
            os.close(fd)  # closing the descriptor drops the flock

    def current_lock(self, stack: str) -> Lock | None:
        validate_stack_name(stack)
        path = self.lock_path(stack)
        if not path.exists():
            return None
        fd = os.open(path, os.O_RDWR)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return self._read_lock_info(path) or Lock("?", stack, "?", "?", "?", 0, "?")
            return None
        finally:
            os.close(fd)

    def peek_lock(self, stack: str) -> Lock | None:
        """The holder named by ``STACK.lock`` (emptied on release; a killed holder leaves its record behind,
        which :meth:`Lock.holder_gone` recognises). Never takes the OS lock, so it cannot make a concurrent
        ``lock`` fail."""
        validate_stack_name(stack)
        path = self.lock_path(stack)
        return self._read_lock_info(path) if path.exists() else None

    def force_unlock(self, stack: str, lock_id: str) -> Lock:
        validate_stack_name(stack)
        path = self.lock_path(stack)
        holder = self._read_lock_info(path) if path.exists() else None
        if holder is None or holder.id != lock_id:
            raise HotcError(
                f"stack '{stack}' has no lock with ID {lock_id}"
                + (f"; the lock file names {holder.describe()}" if holder else "")
            )
        fd = os.open(path, os.O_RDWR)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise HotcError(
                    f"the lock on stack '{stack}' is an OS lock held by a live process ({holder.describe()}); "
                    "it cannot be broken from here: stop that process (the lock is released when it exits)"
                ) from None
            os.ftruncate(fd, 0)  # a stale record (the holder died): clear it
        finally:
            os.close(fd)
        return holder

    # --- the rest of the protocol
    def list_stacks(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.name[: -len(".json")] for p in self.dir.glob("*.json") if not p.name.startswith("."))

    def delete(self, stack: str, lock: Lock) -> None:
        validate_stack_name(stack)
        with self._write_mutex:
            self._check_lock(stack, lock)
            with self._short_lock(stack, lock):
                self._clean_stale_temps(stack)
                current, token = self._get(stack)
                base = self._bases.get(stack)
                if current is None:
                    return
                if base is not None and base[0] != token:
                    raise StateConflictError(
                        f"{self.source(stack)}: the state changed since it was read; it was not deleted"
                    )
                self._atomic_write(self.backup_path(stack), current)
                os.unlink(self.state_path(stack))
                if self.fsync:
                    _fsync_dir(self.dir)
            self._bases[stack] = (None, None)

    def append_events(self, stack: str, events: list[Event]) -> list[Event]:
        validate_stack_name(stack)
        stamped = [e.with_id() for e in events]
        if not stamped:
            return stamped
        self._ensure_dir()
        fd = os.open(self.events_path(stack), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, encode_lines(stamped))
        except OSError as exc:
            raise BackendError(
                f"{self.events_path(stack)}: error: cannot append events: {exc.strerror}"
            ) from None
        finally:
            os.close(fd)
        return stamped

    def read_events(self, stack: str, after: str | None = None) -> list[Event]:
        validate_stack_name(stack)
        path = self.events_path(stack)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        events = decode_lines(data, str(path))
        events.sort(key=lambda e: e.id)
        return [e for e in events if after is None or e.id > after]

    def _version_paths(self, stack: str) -> dict[str, Path]:
        return {"current": self.state_path(stack), "backup": self.backup_path(stack)}

    def history(self, stack: str) -> list[HistoryEntry]:
        """``current`` and ``backup`` (the version the last write replaced), those that exist; a version that
        cannot be parsed is listed with the reason, and without a serial."""
        validate_stack_name(stack)
        out = []
        for vid, path in self._version_paths(stack).items():
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            serial, error = self._version_serial(stack, vid)
            out.append(
                HistoryEntry(
                    version_id=vid,
                    modified=datetime.fromtimestamp(st.st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    size=st.st_size,
                    is_latest=vid == "current",
                    serial=serial,
                    error=error,
                )
            )
        return out

    def version_source(self, stack: str, version_id: str) -> str:
        path = self._version_paths(stack).get(version_id)
        return str(path) if path is not None else super().version_source(stack, version_id)

    def read_version_bytes(self, stack: str, version_id: str) -> bytes:
        validate_stack_name(stack)
        paths = self._version_paths(stack)
        if version_id not in paths:
            raise HotcError(f"a local state keeps versions 'current' and 'backup' only, not {version_id!r}")
        path = paths[version_id]
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise HotcError(f"{path}: error: no such state version") from None
        except OSError as exc:
            raise BackendError(f"{path}: error: cannot read the state version: {exc.strerror}") from None
