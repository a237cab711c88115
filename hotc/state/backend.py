"""The state backend protocol (:class:`StateBackend`), the lock record, and :class:`BaseBackend`, the part
the local and S3 backends share; :func:`hotc.state.factory.backend_from_config` picks a backend.

Use::

    backend = backend_from_config(url_or_None, cwd)
    with backend.lock(stack, "apply", timeout=30) as lk:
        state, _token = backend.read(stack)
        ...
        state = backend.write(stack, new_state, lk)   # as often as needed under one lock

``write`` is compare-and-swap against the version read (or last written) by this backend object: if anyone
else changed the stored state in between, it raises :class:`StateConflictError` and stores nothing. It bumps
``serial`` only when the content changed and writes nothing at all when it did not.
"""

from __future__ import annotations

import getpass
import logging
import os
import random
import re
import socket
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import hotc.state.codec as codec
from hotc.errors import HotcError
from hotc.model import model
from hotc.state.document import StackState
from hotc.state.events import Event, utc_now
from hotc.state.secrets import holds_ciphertext, missing_key_message

DEFAULT_LEASE_SECONDS = 60.0


# ---------------------------------------------------------------------------------------------- errors


class BackendError(HotcError):
    """The backend could not be reached or refused an operation; nothing was changed."""


class StateNotWritableError(BackendError):
    """The state's location cannot be written (a read-only directory): nothing can be locked or stored there.
    Reading still works: ``hotc plan`` goes on without the lock. ``where`` names the location, ``reason`` the
    system's answer (``Read-only file system``)."""

    def __init__(self, message: str, where: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.where = where
        self.reason = reason


class LockHeldError(HotcError):
    """Another operation holds the stack's lock."""

    def __init__(self, message: str, holder: Lock | None, expired: bool = False) -> None:
        super().__init__(message)
        self.holder = holder
        self.expired = expired


class StateConflictError(HotcError):
    """The stored state changed since it was read: a compare-and-swap write was refused."""


class LockLostError(HotcError):
    """The lock this operation held was taken over (its lease expired or it was force-unlocked)."""


# ---------------------------------------------------------------------------------------------- lock


def _parse_time(s: str | None) -> datetime | None:
    if not s:
        return None
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        return None


@model
class Lock:
    """Who holds a stack's lock, for what, and until when (``expires`` is None for an OS-level lock that
    dies with its process)."""

    id: str
    stack: str
    operation: str
    who: str
    host: str
    pid: int
    created: str
    expires: str | None = None
    lease_seconds: float | None = None
    unsafe: bool = False  # a stand-in when running with --unsafe-no-locking: nothing is actually locked

    @staticmethod
    def new(stack: str, operation: str, lease_seconds: float | None = None) -> Lock:
        now = datetime.now(UTC)
        return Lock(
            id=str(uuid.uuid4()),
            stack=stack,
            operation=operation,
            who=current_user(),
            host=socket.gethostname(),
            pid=os.getpid(),
            created=_fmt(now),
            expires=_fmt(now + timedelta(seconds=lease_seconds)) if lease_seconds else None,
            lease_seconds=lease_seconds,
        )

    def renewed(self) -> Lock:
        if not self.lease_seconds:
            return self
        return replace(self, expires=_fmt(datetime.now(UTC) + timedelta(seconds=self.lease_seconds)))

    def expired_at(self, now: datetime | None = None) -> bool:
        exp = _parse_time(self.expires)
        return exp is not None and (now or datetime.now(UTC)) > exp

    def on_this_host(self) -> bool:
        return bool(self.host) and self.host == socket.gethostname()

    def holder_gone(self) -> bool:
        """True when the holder ran on this host and its process is no longer there (killed, crashed), so the
        lock can be taken over at once instead of waiting for its lease. False whenever that cannot be known:
        another host, no PID, or a process we may not signal."""
        if not self.on_this_host() or self.pid <= 0:
            return False
        return not process_alive(self.pid, _parse_time(self.created))

    def describe(self) -> str:
        s = f"ID {self.id}, operation '{self.operation}' by {self.who} on {self.host} (PID {self.pid}), since {self.created}"
        if self.expires:
            s += f", lease until {self.expires}"
        return s

    def to_dict(self) -> dict[str, Any]:
        return {
            "ID": self.id,
            "Stack": self.stack,
            "Operation": self.operation,
            "Who": self.who,
            "Host": self.host,
            "PID": self.pid,
            "Created": self.created,
            "Expires": self.expires,
            "LeaseSeconds": self.lease_seconds,
        }

    @staticmethod
    def from_dict(d: Any) -> Lock | None:
        if not isinstance(d, dict) or "ID" not in d:
            return None
        try:
            return Lock(
                id=str(d["ID"]),
                stack=str(d.get("Stack", "")),
                operation=str(d.get("Operation", "")),
                who=str(d.get("Who", "")),
                host=str(d.get("Host", "")),
                pid=int(d.get("PID") or 0),
                created=str(d.get("Created", "")),
                expires=d.get("Expires"),
                lease_seconds=float(d["LeaseSeconds"]) if d.get("LeaseSeconds") else None,
            )
        except (TypeError, ValueError):
            return None


def process_alive(pid: int, since: datetime | None = None) -> bool:
    """Whether process ``pid`` runs on this host. With ``since`` (when the lock was taken), a process that
    started after it is another one that reuses the PID, so the holder is gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    except OSError:
        return True
    started = _process_start(pid)
    if since is not None and started is not None and started > since + timedelta(seconds=2):
        return False
    return True


def _process_start(pid: int) -> datetime | None:
    """When process ``pid`` started (Linux ``/proc``); None where that cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime")
        )
        ticks = float(stat.rsplit(")", 1)[1].split()[19])
        return datetime.fromtimestamp(boot + ticks / os.sysconf("SC_CLK_TCK"), UTC)
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _fmt(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


@model
class HistoryEntry:
    """One stored version of a stack's state."""

    version_id: str
    modified: str
    size: int
    is_latest: bool
    serial: int | None = None  # filled in when the version could be read
    error: str | None = None  # why the version could not be read (a corrupt document), when it was tried


@model
class StoredStack:
    """One stack of a backend as :meth:`StateBackend.list_states` finds it: its state, or why that cannot be
    read (``error``: a corrupt document, a lost key), so that one broken stack does not hide the others."""

    name: str
    state: StackState | None = None
    error: str | None = None

    @property
    def broken(self) -> bool:
        return self.error is not None


# ---------------------------------------------------------------------------------------------- protocol


@runtime_checkable
class StateBackend(Protocol):
    """What plan/apply and the state commands use to keep a stack's state (the local and the S3 backends).

    Reading: :meth:`read` parses the current document; :meth:`history` lists the stored versions (S3: the
    bucket's versions; local: ``current`` and ``backup``) and :meth:`read_version_bytes` returns one of them
    as stored, without parsing the current one. Writing needs the stack's :meth:`lock`. :meth:`write` is a
    compare-and-swap against the version last read; :meth:`overwrite` and :meth:`restore` replace a current
    document even when it cannot be parsed, keeping it as the previous version."""

    key: bytes | None  # the key secrets are encrypted with (None: none given)
    notify: Callable[[str], None]  # where warnings go
    cli_flag: str  # " --backend URL" when the user chose the backend, repeated by hints that name a command
    unsafe_no_locking: bool

    def describe(self) -> str: ...

    def source(self, stack: str) -> str:
        """Where the stack's state lives, for messages."""
        ...

    def encrypts_secrets(self) -> bool:
        """Whether secrets are stored encrypted (a key given, or a local state's own key file)."""
        ...

    def read(self, stack: str) -> tuple[StackState | None, str | None]: ...

    def lock(self, stack: str, operation: str, timeout: float = 0.0) -> AbstractContextManager[Lock]: ...

    def write(
        self, stack: str, state: StackState, lock: Lock, *, expected: str | None = None, exact: bool = False
    ) -> StackState: ...

    def overwrite(self, stack: str, state: StackState, lock: Lock) -> StackState:
        """Store ``state`` as given over whatever the current document holds (it is not parsed)."""
        ...

    def restore(self, stack: str, version_id: str, lock: Lock) -> StackState:
        """Make stored version ``version_id`` the current state again, with a serial above every stored one."""
        ...

    def list_stacks(self) -> list[str]: ...

    def list_states(self) -> list[StoredStack]:
        """Every stack with its state, a stack whose document cannot be read marked with the reason."""
        ...

    def delete(self, stack: str, lock: Lock) -> None: ...

    def append_events(self, stack: str, events: list[Event]) -> list[Event]: ...

    def read_events(self, stack: str, after: str | None = None) -> list[Event]: ...

    def history(self, stack: str) -> list[HistoryEntry]: ...

    def read_version(self, stack: str, version_id: str) -> StackState: ...

    def read_version_bytes(self, stack: str, version_id: str) -> bytes:
        """One stored version as stored, unparsed (``version_id`` as :meth:`history` lists it)."""
        ...

    def current_lock(self, stack: str) -> Lock | None: ...

    def peek_lock(self, stack: str) -> Lock | None:
        """The lock's record as stored, read without taking or touching the lock (None: not held). A record
        left by a killed holder may still be there: see :meth:`Lock.holder_gone`."""
        ...

    def force_unlock(self, stack: str, lock_id: str) -> Lock: ...


#: the name this protocol had first
Backend = StateBackend


_UNREAD = object()


def _log_warning(message: str) -> None:
    """A backend's warnings, unless the CLI takes them: the ``hotc.state`` logger's."""
    logging.getLogger("hotc.state").warning(message)


class BaseBackend(ABC):
    """The compare-and-swap write shared by backends; subclasses store bytes under a version token."""

    def __init__(self, *, key: bytes | None = None, unsafe_no_locking: bool = False) -> None:
        self.key = key
        self.unsafe_no_locking = unsafe_no_locking
        # where warnings go (a lock taken over, a lock that could not be released); the CLI prints them
        self.notify: Callable[[str], None] = _log_warning
        # " --backend URL" when the user chose this backend with --backend: hints that name a command repeat it
        self.cli_flag = ""
        self._write_mutex = threading.RLock()
        # per stack: (token, state) last read or written by this object -- the base of the next CAS write
        self._bases: dict[str, tuple[str | None, StackState | None]] = {}

    # --- primitives
    @abstractmethod
    def describe(self) -> str: ...

    @abstractmethod
    def _get(self, stack: str) -> tuple[bytes | None, str | None]:
        """The stored bytes and their version token (None, None when there is no state)."""

    @abstractmethod
    def _put(self, stack: str, data: bytes, expected: str | None, lock: Lock) -> str:
        """Store ``data`` if the stored version is still ``expected`` (None: no state yet); the new token.
        Raises StateConflictError otherwise."""

    @abstractmethod
    def _check_lock(self, stack: str, lock: Lock) -> None:
        """Raise unless ``lock`` is held by this backend object for ``stack`` (or unsafe mode)."""

    def missing_key_hint(self) -> str:
        """Where the key of an encrypted state should have come from (for the lost-key error)."""
        return "HOTC_STATE_KEY is not set"

    @abstractmethod
    def source(self, stack: str) -> str:
        """Where the stack's state lives, for messages."""

    @abstractmethod
    def lock(self, stack: str, operation: str, timeout: float = 0.0) -> AbstractContextManager[Lock]: ...

    @abstractmethod
    def list_stacks(self) -> list[str]: ...

    @abstractmethod
    def delete(self, stack: str, lock: Lock) -> None: ...

    @abstractmethod
    def append_events(self, stack: str, events: list[Event]) -> list[Event]: ...

    @abstractmethod
    def read_events(self, stack: str, after: str | None = None) -> list[Event]: ...

    @abstractmethod
    def history(self, stack: str) -> list[HistoryEntry]: ...

    @abstractmethod
    def read_version_bytes(self, stack: str, version_id: str) -> bytes: ...

    def version_source(self, stack: str, version_id: str) -> str:
        """Where one stored version lives, for messages."""
        return f"{self.source(stack)} (version {version_id})"

    @abstractmethod
    def current_lock(self, stack: str) -> Lock | None: ...

    @abstractmethod
    def peek_lock(self, stack: str) -> Lock | None: ...

    @abstractmethod
    def force_unlock(self, stack: str, lock_id: str) -> Lock: ...

    # --- the protocol
    def read(self, stack: str) -> tuple[StackState | None, str | None]:
        validate_stack_name(stack)
        data, token = self._get(stack)
        state = None if data is None else self._decode(data, self.source(stack))
        with self._write_mutex:
            self._bases[stack] = (token, state)
        return state, token

    def write(
        self, stack: str, state: StackState, lock: Lock, *, expected: str | None = None, exact: bool = False
    ) -> StackState:
        """Compare-and-swap ``state`` into the store; returns the state as stored (serial bumped when the
        content changed, unchanged -- and nothing written -- when it did not).

        The base is the version this object last read or wrote for ``stack`` (``expected`` overrides the
        token). ``exact`` stores ``state`` as given (serial and lineage included; used by ``state push``)."""
        validate_stack_name(stack)
        if state.stack_name != stack:
            state = replace(state, stack_name=stack)
        with self._write_mutex:
            self._check_lock(stack, lock)
            base = self._bases.get(stack)
            if base is None:
                self.read(stack)
                base = self._bases[stack]
            token, old = base
            if expected is not None and expected != token:
                raise StateConflictError(
                    f"{self.source(stack)}: the state changed since it was read (version {expected} expected, "
                    f"{token} found); nothing was written. Run the command again."
                )
            if exact:
                new = state
                if (
                    old is not None
                    and not codec.content_changed(old, new)
                    and old.serial == new.serial
                    and old.lineage == new.lineage
                ):
                    return old
            else:
                if old is not None and old.lineage != state.lineage:
                    raise StateConflictError(
                        f"{self.source(stack)}: the stored state has lineage {old.lineage} but this one has "
                        f"{state.lineage}: they belong to different stacks; nothing was written"
                    )
                if old is not None and not codec.content_changed(old, state):
                    return old
                new = codec.next_version(old, state, utc_now())
            data = codec.dumps(new, self.key)
            new_token = self._put(stack, data, token, lock)
            self._bases[stack] = (new_token, new)
            return new

    def encrypts_secrets(self) -> bool:
        return self.key is not None

    def _decode(self, data: bytes, source: str) -> StackState:
        """Parse stored bytes; a document with encrypted values and no key is refused with where the key
        should have come from."""
        if self.key is None:
            if holds_ciphertext(data):
                raise BackendError(missing_key_message(source, self.missing_key_hint()))
        return codec.loads(data, source, self.key)

    def read_version(self, stack: str, version_id: str) -> StackState:
        """One stored version, parsed (``version_id`` as :meth:`history` lists it)."""
        return self._decode(
            self.read_version_bytes(stack, version_id), self.version_source(stack, version_id)
        )

    def _version_serial(self, stack: str, version_id: str) -> tuple[int | None, str | None]:
        """A stored version's serial, or why it cannot be read."""
        try:
            return self.read_version(stack, version_id).serial, None
        except HotcError as exc:
            return None, exc.message

    def overwrite(self, stack: str, state: StackState, lock: Lock) -> StackState:
        """Store ``state`` as given (serial and lineage included) as the current state under ``lock``, whatever
        the current document holds: it is compared as bytes (its version token, so a concurrent writer is
        still refused) and never parsed, and it stays stored as the previous version (local: the
        ``.backup``; S3: the bucket's versions, or a backup object where the bucket keeps none)."""
        validate_stack_name(stack)
        with self._write_mutex:
            self._check_lock(stack, lock)
            current, token = self._get(stack)
            if current is not None:
                self._keep_replaced(stack, current, lock)
            self._bases[stack] = (token, None)  # the base is the current bytes, unparsed
            return self.write(stack, replace(state, stack_name=stack), lock, exact=True)

    def _keep_replaced(self, stack: str, current: bytes, lock: Lock) -> None:  # noqa: B027 - a hook; local keeps its .backup itself
        """Keep ``current`` before :meth:`overwrite` replaces it, where the store would not keep it itself."""

    def restore(self, stack: str, version_id: str, lock: Lock) -> StackState:
        """Make stored version ``version_id`` the current state again under ``lock``, also when the current
        document is corrupt (it is not read; it becomes the previous version). The restored state gets a
        serial above every stored version's that can be read, so it is the newest."""
        validate_stack_name(stack)
        self._check_lock(stack, lock)
        try:
            chosen = self.read_version(stack, version_id)
        except HotcError as exc:
            raise HotcError(
                f"version {version_id} of stack '{stack}' cannot be read either: {exc.message}; nothing was changed"
            ) from None
        serials = [e.serial for e in self.history(stack) if e.serial is not None]
        return self.overwrite(stack, replace(chosen, serial=max([chosen.serial, *serials]) + 1), lock)

    def list_states(self) -> list[StoredStack]:
        out: list[StoredStack] = []
        for name in self.list_stacks():
            try:
                state, _ = self.read(name)
            except HotcError as exc:
                out.append(StoredStack(name, None, exc.message))
                continue
            if state is not None:  # removed since it was listed: not a stack any more
                out.append(StoredStack(name, state))
        return out

    def _forget_base(self, stack: str) -> None:
        with self._write_mutex:
            self._bases.pop(stack, None)


# ---------------------------------------------------------------------------------------------- helpers


def validate_stack_name(stack: str) -> None:
    """Stack names as Heat allows them: a letter, then letters, digits, '_', '-', '.' (up to 255)."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,254}", stack or ""):
        raise HotcError(
            f"invalid stack name {stack!r}: it must start with a letter and contain only letters, digits, "
            "'_', '-' and '.' (at most 255 characters)"
        )


def lock_held_message(stack: str, holder: Lock | None, expired: bool, where: str, flag: str = "") -> str:
    """Who holds the lock and what to do; ``flag`` is the ``--backend`` the user gave (repeated in the
    force-unlock command so that it can be pasted as it is)."""
    if holder is None:
        return (
            f"the state of stack '{stack}' is locked ({where}) by another operation whose details could not "
            f"be read; wait for it to finish or, if it died, run `hotc force-unlock {stack} LOCK_ID{flag}`"
        )
    if expired:
        return (
            f"the state of stack '{stack}' is locked by an operation whose lease EXPIRED at {holder.expires}: "
            f"{holder.describe()}. The process probably died. If it is no longer running, run "
            f"`hotc force-unlock {stack} {holder.id}{flag}`"
        )
    return (
        f"the state of stack '{stack}' is locked by another operation: {holder.describe()}. Wait for it to "
        f"finish (or pass --lock-timeout SECONDS to wait); if it died, run "
        f"`hotc force-unlock {stack} {holder.id}{flag}`"
    )


def backoff_delays(timeout: float, first: float = 0.05, cap: float = 2.0) -> Iterator[float]:
    """Sleep lengths for waiting up to ``timeout`` seconds in total: growing, jittered, capped."""
    deadline = time.monotonic() + timeout
    delay = first
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        yield min(left, delay * (0.5 + random.random()))
        delay = min(cap, delay * 2)
