"""The S3 state backend (AWS S3, Ceph RGW, MinIO, moto, ... through boto3).

Objects, under ``PREFIX/STACK/``:

- ``state.json``: the state. Written with ``If-Match: <ETag of the version this operation is based on>`` (or
  ``If-None-Match: *`` for the first write), so a writer can never overwrite an update it has not seen, even
  if locking was broken. A 412 is reported as "the state changed underneath".
- ``state.lock``: the lock. Created with ``If-None-Match: *`` so exactly one contender gets it; it names the
  holder and carries a lease that a heartbeat thread renews (``If-Match`` on the lock's own ETag) while the
  operation runs. A lease is expired when the server's clock (``Date``) is past the lock object's
  ``Last-Modified`` plus the lease, so clock skew between clients does not matter. An expired lock is taken
  over (conditionally on its ETag, so two contenders cannot both take it); a live one is reported with its
  holder and the ``hotc force-unlock`` command.
- ``events/<id>.jsonl``: one object per ``append_events`` batch.

Endpoint, region and credentials come from boto3's own chain (``AWS_ENDPOINT_URL_S3``, ``AWS_PROFILE``,
env vars, config files) unless given in ``hotc.toml``. Connection errors, 5xx, throttling and timeouts are
retried by botocore (standard mode, ``max_attempts``); a conditional write whose success reply was lost is
recognised on retry (the stored object is ours), not misreported as a conflict.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from hotc.errors import HotcError
from hotc.state.backend import (
    DEFAULT_LEASE_SECONDS,
    BackendError,
    BaseBackend,
    HistoryEntry,
    Lock,
    LockHeldError,
    LockLostError,
    StateConflictError,
    backoff_delays,
    lock_held_message,
    validate_stack_name,
)
from hotc.state.config import BackendConfig
from hotc.state.events import Event, decode_lines, encode_lines

log = logging.getLogger("hotc.state")

STATE_OBJECT = "state.json"
# where a bucket without versioning keeps the document an overwrite (``hotc state restore``, a forced push)
# replaced; listed by ``history`` as version ``backup``
BACKUP_OBJECT = "state.backup.json"
BACKUP_VERSION = "backup"
LOCK_OBJECT = "state.lock"
EVENTS_DIR = "events"
PROBE_DIR = ".hotc-probe"
HISTORY_SERIALS = 100  # `history` reads the serial of this many newest versions (one GET each)


@dataclass
class _Held:
    """A lock this backend object holds: its current ETag and its heartbeat."""

    lock: Lock
    etag: str
    stop: threading.Event = field(default_factory=threading.Event)
    lost: str | None = None  # why the lock was lost (taken over, deleted)
    thread: threading.Thread | None = None
    mutex: threading.Lock = field(default_factory=threading.Lock)


def _code(exc: Exception) -> str:
    # heavy: botocore only when an S3 call is made
    from botocore.exceptions import ClientError

    if isinstance(exc, ClientError):
        return str(exc.response.get("Error", {}).get("Code", ""))
    return ""


def _status(exc: Exception) -> int:
    # heavy: botocore only when an S3 call is made
    from botocore.exceptions import ClientError

    if isinstance(exc, ClientError):
        return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
    return 0


def _precondition_failed(exc: Exception) -> bool:
    return (
        _status(exc) == 412
        or _code(exc) in ("PreconditionFailed", "ConditionalRequestConflict")
        or _status(exc) == 409
        and _code(exc) == "ConditionalRequestConflict"
    )


def _not_found(exc: Exception) -> bool:
    return (
        _code(exc) in ("NoSuchKey", "404", "NotFound") or _status(exc) == 404 and _code(exc) != "NoSuchBucket"
    )


class S3Backend(BaseBackend):
    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        client: Any = None,
        endpoint_url: str | None = None,
        region: str | None = None,
        profile: str | None = None,
        path_style: bool = False,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        max_attempts: int = 5,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        key: bytes | None = None,
        unsafe_no_locking: bool = False,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(key=key, unsafe_no_locking=unsafe_no_locking)
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.lease_seconds = float(lease_seconds)
        self.max_attempts = max_attempts
        if notify is not None:
            self.notify = notify
        self._held: dict[str, _Held] = {}
        self._conditional: bool | None = None  # probe result, cached for this object's life
        if client is None:
            client = _make_client(
                endpoint_url, region, profile, path_style, max_attempts, connect_timeout, read_timeout
            )
        self.client = client
        self.endpoint = str(getattr(getattr(client, "meta", None), "endpoint_url", endpoint_url or "S3"))

    @staticmethod
    def from_config(cfg: BackendConfig, *, key: bytes | None, unsafe_no_locking: bool) -> S3Backend:
        o = cfg.options
        return S3Backend(
            cfg.bucket,
            cfg.prefix,
            endpoint_url=o.get("endpoint_url"),
            region=o.get("region"),
            profile=o.get("profile"),
            path_style=bool(o.get("path_style", False)),
            lease_seconds=float(o.get("lease_seconds", DEFAULT_LEASE_SECONDS)),
            max_attempts=int(o.get("max_attempts", 5)),
            connect_timeout=float(o.get("connect_timeout", 5.0)),
            read_timeout=float(o.get("read_timeout", 30.0)),
            key=key,
            unsafe_no_locking=unsafe_no_locking,
        )

    # --- naming
    def describe(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" + ("/" if self.prefix else "") + f" at {self.endpoint}"

    def _key(self, stack: str, name: str) -> str:
        return f"{self.prefix}/{stack}/{name}" if self.prefix else f"{stack}/{name}"

    def _url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def source(self, stack: str) -> str:
        return self._url(self._key(stack, STATE_OBJECT))

    # --- calling S3 with plain errors
    def _call(self, what: str, fn: Callable[..., Any], **kw: Any) -> Any:
        """Call one S3 operation; turn anything but a precondition failure / missing key into a BackendError
        (those two are re-raised as botocore ClientError for the caller to decide)."""
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectionError,
            NoCredentialsError,
            PartialCredentialsError,
        )

        try:
            return fn(Bucket=self.bucket, **kw)
        except ClientError as exc:
            if _precondition_failed(exc) or _not_found(exc):
                raise
            code, msg = _code(exc), exc.response.get("Error", {}).get("Message", "")
            if code == "NoSuchBucket":
                raise BackendError(
                    f"cannot {what}: bucket '{self.bucket}' does not exist at {self.endpoint}; create it (and "
                    "enable versioning to keep state history) or fix --backend"
                ) from None
            if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403"):
                raise BackendError(
                    f"cannot {what}: access denied by {self.endpoint} ({code}: {msg}); check the credentials "
                    "(AWS_ACCESS_KEY_ID/AWS_PROFILE) and the bucket policy. Nothing was changed."
                ) from None
            raise BackendError(
                f"cannot {what}: S3 error {code or _status(exc)}: {msg or exc} (after up to {self.max_attempts} "
                "attempts); the stored state was not changed"
            ) from None
        except (NoCredentialsError, PartialCredentialsError):
            raise BackendError(
                f"cannot {what}: no S3 credentials found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                "AWS_PROFILE, or a profile in hotc.toml"
            ) from None
        except ConnectionError as exc:
            raise BackendError(
                f"cannot {what}: cannot reach the S3 endpoint {self.endpoint} ({type(exc).__name__}: {exc}) "
                f"after {self.max_attempts} attempts; the stored state was not changed"
            ) from None
        except BotoCoreError as exc:
            raise BackendError(
                f"cannot {what}: {exc} (endpoint {self.endpoint}); the stored state was not changed"
            ) from None

    # --- conditional write support
    def ensure_conditional_writes(self) -> bool:
        """Probe (once per backend object) that the store refuses a second ``If-None-Match: *`` create.
        Refuses to go on without that unless this backend was made without locking (the state-editing
        commands' ``--unsafe-no-locking``)."""
        if self._conditional is None:
            self._conditional = self._probe()
        if not self._conditional and not self.unsafe_no_locking:
            raise BackendError(conditional_writes_message(self.endpoint, self.bucket))
        return self._conditional

    def _probe(self) -> bool:
        """Create a fresh probe object twice with ``If-None-Match: *``: a store that honours conditional writes
        refuses the second. The probe object is always removed (every version of it), whatever happens."""
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        key = (
            f"{self.prefix}/{PROBE_DIR}/{uuid.uuid4().hex}"
            if self.prefix
            else f"{PROBE_DIR}/{uuid.uuid4().hex}"
        )
        honoured = False
        try:
            try:
                self._call("check the bucket", self.client.put_object, Key=key, Body=b"1", IfNoneMatch="*")
            except ClientError as exc:
                if not _precondition_failed(exc):
                    raise BackendError(f"cannot check the bucket: {exc}") from None
                # The key is new (a random name), so only our own create can be there: its reply was lost,
                # botocore retried, and the store refused the retry. That is the proof we were after.
                log.debug("conditional write probe: the retry of the first create got 412")
                return True
            try:
                self._call("check the bucket", self.client.put_object, Key=key, Body=b"2", IfNoneMatch="*")
            except ClientError as exc:
                honoured = _precondition_failed(exc)
            except BackendError as exc:  # e.g. 501 NotImplemented for the header
                log.debug("conditional write probe: %s", exc)
            return honoured
        finally:
            self._remove_probe(key)

    def _remove_probe(self, key: str) -> None:
        """Delete the probe object for good: each version on a versioned bucket, so it leaves no trace."""
        versions: list[str | None] = []
        try:
            r = self._call("list the probe's versions", self.client.list_object_versions, Prefix=key)
            for v in [*r.get("Versions", []), *r.get("DeleteMarkers", [])]:
                if v.get("Key") == key and v.get("VersionId") not in (None, "null"):
                    versions.append(str(v["VersionId"]))
        except Exception as exc:  # noqa: BLE001 - a store without versioning support: plain delete
            log.debug("listing the probe's versions failed: %s", exc)
        for vid in versions or [None]:
            try:
                self._call(
                    "clean up the probe",
                    self.client.delete_object,
                    Key=key,
                    **({"VersionId": vid} if vid else {}),
                )
            except Exception as exc:  # noqa: BLE001 - best effort
                log.debug("probe clean-up failed: %s", exc)

    # --- bytes
    def _get(self, stack: str) -> tuple[bytes | None, str | None]:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        key = self._key(stack, STATE_OBJECT)
        try:
            r = self._call(f"read {self._url(key)}", self.client.get_object, Key=key)
            data = r["Body"].read()
        except ClientError as exc:
            if _not_found(exc):
                return None, None
            raise BackendError(f"cannot read {self._url(key)}: {exc}") from None
        except HotcError:
            raise
        except Exception as exc:  # noqa: BLE001 - body streaming errors
            raise BackendError(
                f"cannot read {self._url(key)}: {exc}; the stored state was not changed"
            ) from None
        return data, str(r["ETag"])

    def _put(self, stack: str, data: bytes, expected: str | None, lock: Lock) -> str:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        key = self._key(stack, STATE_OBJECT)
        cond: dict[str, str] = {}
        if self._conditional is None:
            self.ensure_conditional_writes()
        if self._conditional:
            cond = {"IfMatch": expected} if expected else {"IfNoneMatch": "*"}
        try:
            r = self._call(
                f"write {self._url(key)}",
                self.client.put_object,
                Key=key,
                Body=data,
                ContentType="application/json",
                **cond,
            )
            return str(r["ETag"])
        except ClientError as exc:
            if _precondition_failed(exc) or _not_found(exc):
                # A retried write whose first attempt succeeded finds its own bytes: that is success.
                current, token = self._get(stack)
                if current == data and token is not None:
                    return token
                raise StateConflictError(
                    f"{self.source(stack)}: the state changed underneath this operation (another writer stored a "
                    "new version since it was read); nothing was written. Run the command again to work from "
                    "the current state."
                ) from None
            raise

    # --- locking
    def _check_lock(self, stack: str, lock: Lock) -> None:
        if lock.unsafe:
            if not self.unsafe_no_locking:
                raise HotcError("internal error: an unsafe lock used on a backend that is not in unsafe mode")
            return
        held = self._held.get(stack)
        if held is None or held.lock.id != lock.id:
            raise LockLostError(
                f"the lock {lock.id} on stack '{stack}' is not held by this process; nothing was written"
            )
        if held.lost:
            raise LockLostError(
                f"the lock on stack '{stack}' was lost ({held.lost}); nothing more was written. Another operation "
                "may be running: check `hotc state list` and run the command again."
            )

    def _inspect_lock(self, stack: str) -> tuple[Lock | None, str | None, bool]:
        """(holder, ETag, expired) of the lock object; (None, None, False) when there is none."""
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        key = self._key(stack, LOCK_OBJECT)
        try:
            r = self._call(f"read the lock {self._url(key)}", self.client.get_object, Key=key)
            body = r["Body"].read()
        except ClientError as exc:
            if _not_found(exc):
                return None, None, False
            raise
        try:
            holder = Lock.from_dict(json.loads(body))
        except ValueError:
            holder = None
        lease = (holder.lease_seconds if holder and holder.lease_seconds else None) or self.lease_seconds
        server_now = _server_time(r)
        modified = r.get("LastModified")
        if isinstance(modified, datetime):
            expired = (server_now - modified).total_seconds() > lease
        else:
            expired = holder.expired_at() if holder else False
        if holder is not None and expired:
            holder = replace(
                holder,
                expires=_iso(modified + _seconds(lease))
                if isinstance(modified, datetime)
                else holder.expires,
            )
        return holder, str(r["ETag"]), expired

    @contextmanager
    def lock(self, stack: str, operation: str, timeout: float = 0.0) -> Iterator[Lock]:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        validate_stack_name(stack)
        if self.unsafe_no_locking:
            self._forget_base(stack)
            yield replace(Lock.new(stack, operation), unsafe=True)
            self._forget_base(stack)
            return
        if stack in self._held:
            raise HotcError(f"internal error: stack '{stack}' is already locked by this backend object")
        self.ensure_conditional_writes()
        key = self._key(stack, LOCK_OBJECT)
        lk = Lock.new(stack, operation, self.lease_seconds)
        body = json.dumps(lk.to_dict(), indent=2).encode()
        delays = backoff_delays(timeout)
        etag: str | None = None
        while etag is None:
            try:
                r = self._call(
                    f"create the lock {self._url(key)}",
                    self.client.put_object,
                    Key=key,
                    Body=body,
                    ContentType="application/json",
                    IfNoneMatch="*",
                )
                etag = str(r["ETag"])
                break
            except ClientError as exc:
                if not _precondition_failed(exc):
                    raise BackendError(f"cannot create the lock {self._url(key)}: {exc}") from None
            holder, holder_etag, expired = self._inspect_lock(stack)
            if holder is not None and holder.id == lk.id and holder_etag:
                etag = holder_etag  # our own create, retried after a lost reply
                break
            if holder_etag is None:
                continue  # released in between: try again at once
            gone = not expired and holder is not None and holder.holder_gone()
            if expired or gone:
                try:
                    r = self._call(
                        f"take over the lock {self._url(key)}",
                        self.client.put_object,
                        Key=key,
                        Body=body,
                        ContentType="application/json",
                        IfMatch=holder_etag,
                    )
                    etag = str(r["ETag"])
                    who = holder.describe() if holder else "an unreadable lock record"
                    if gone:
                        self.notify(
                            f"took over the lock on stack '{stack}' at once: its holder ran on this host and "
                            f"process {holder.pid if holder else '?'} is gone (killed?) ({who})"
                        )
                    else:
                        self.notify(f"took over the expired lock on stack '{stack}' ({who})")
                    break
                except ClientError as exc:
                    if not (_precondition_failed(exc) or _not_found(exc)):
                        raise BackendError(f"cannot take over the lock {self._url(key)}: {exc}") from None
                    continue  # someone else was faster (or it was released): look again
            delay = next(delays, None)
            if delay is None:
                raise LockHeldError(
                    lock_held_message(stack, holder, expired, self._url(key), self.cli_flag), holder, expired
                )
            time.sleep(delay)
        held = _Held(lock=lk, etag=etag)
        held.thread = threading.Thread(
            target=self._heartbeat, args=(stack, held), daemon=True, name=f"hotc-lock-heartbeat-{stack}"
        )
        self._held[stack] = held
        self._forget_base(stack)
        held.thread.start()
        try:
            yield lk
        finally:
            held.stop.set()
            held.thread.join(timeout=10)
            self._held.pop(stack, None)
            self._forget_base(stack)
            self._release(stack, held)

    def _heartbeat(self, stack: str, held: _Held) -> None:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        key = self._key(stack, LOCK_OBJECT)
        interval = max(0.05, self.lease_seconds / 3)
        lock = held.lock
        while not held.stop.wait(interval):
            lock = lock.renewed()
            try:
                with held.mutex:
                    r = self.client.put_object(
                        Bucket=self.bucket,
                        Key=key,
                        Body=json.dumps(lock.to_dict(), indent=2).encode(),
                        ContentType="application/json",
                        IfMatch=held.etag,
                    )
                    held.etag = str(r["ETag"])
            except ClientError as exc:
                if _precondition_failed(exc) or _not_found(exc):
                    holder, _, _ = self._inspect_lock_quiet(stack)
                    held.lost = (
                        f"it is now held by {holder.describe()}"
                        if holder
                        else "the lock object was deleted (force-unlock?)"
                    )
                    self.notify(f"lost the lock on stack '{stack}': {held.lost}")
                    return
                log.warning("could not renew the lock on stack '%s': %s (will retry)", stack, exc)
            except Exception as exc:  # noqa: BLE001 - keep renewing through transient failures
                log.warning("could not renew the lock on stack '%s': %s (will retry)", stack, exc)

    def _inspect_lock_quiet(self, stack: str) -> tuple[Lock | None, str | None, bool]:
        try:
            return self._inspect_lock(stack)
        except Exception:  # noqa: BLE001
            return None, None, False

    def _release(self, stack: str, held: _Held) -> None:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        if held.lost:
            return
        key = self._key(stack, LOCK_OBJECT)
        try:
            self._call(
                f"release the lock {self._url(key)}", self.client.delete_object, Key=key, IfMatch=held.etag
            )
        except ClientError as exc:
            if _not_found(exc):
                return
            if _precondition_failed(exc):
                self.notify(
                    f"the lock on stack '{stack}' was taken over by another operation; left it in place"
                )
                return
            self.notify(f"could not release the lock on stack '{stack}': {exc}")
        except HotcError as exc:
            self.notify(
                f"could not release the lock on stack '{stack}' ({exc.message}); it expires by itself "
                f"{self.lease_seconds:g}s after its last renewal, or run `hotc force-unlock {stack} {held.lock.id}{self.cli_flag}`"
            )

    def current_lock(self, stack: str) -> Lock | None:
        validate_stack_name(stack)
        holder, etag, _ = self._inspect_lock(stack)
        if etag is None:
            return None
        return holder or Lock("?", stack, "?", "?", "?", 0, "?")

    def peek_lock(self, stack: str) -> Lock | None:
        """The lock object's record (an expired one has ``expires`` in the past); one GET."""
        return self.current_lock(stack)

    def lock_expired(self, stack: str) -> bool:
        return self._inspect_lock(stack)[2]

    def force_unlock(self, stack: str, lock_id: str) -> Lock:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        validate_stack_name(stack)
        for _attempt in range(5):
            holder, etag, _ = self._inspect_lock(stack)
            if etag is None:
                raise HotcError(
                    f"stack '{stack}' is not locked (no {self._url(self._key(stack, LOCK_OBJECT))})"
                )
            if holder is None or holder.id != lock_id:
                raise HotcError(
                    f"the lock on stack '{stack}' has a different ID"
                    + (f": it is {holder.describe()}" if holder else " (its record is unreadable)")
                    + f"; nothing was unlocked. Check the ID (`hotc force-unlock {stack} ID`)"
                )
            try:
                self._call(
                    "delete the lock",
                    self.client.delete_object,
                    Key=self._key(stack, LOCK_OBJECT),
                    IfMatch=etag,
                )
                return holder
            except ClientError as exc:
                if _not_found(exc):
                    return holder
                if not _precondition_failed(exc):
                    raise
                # the holder renewed its lease in between (same ID, new ETag): look again
        raise HotcError(
            f"the lock on stack '{stack}' kept changing while unlocking (its holder is renewing it: is it "
            "still running?); look again"
        )

    # --- the rest of the protocol
    def list_stacks(self) -> list[str]:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        base = f"{self.prefix}/" if self.prefix else ""
        names: list[str] = []
        token: str | None = None
        while True:
            kw: dict[str, Any] = {"Prefix": base, "Delimiter": "/"}
            if token:
                kw["ContinuationToken"] = token
            r = self._call(f"list s3://{self.bucket}/{base}", self.client.list_objects_v2, **kw)
            for cp in r.get("CommonPrefixes", []):
                name = cp["Prefix"][len(base) :].rstrip("/")
                if not name or name.startswith("."):
                    continue
                try:
                    self._call("check a stack", self.client.head_object, Key=self._key(name, STATE_OBJECT))
                    names.append(name)
                except ClientError:
                    pass
            if not r.get("IsTruncated"):
                break
            token = r.get("NextContinuationToken")
        return sorted(names)

    def delete(self, stack: str, lock: Lock) -> None:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        validate_stack_name(stack)
        with self._write_mutex:
            self._check_lock(stack, lock)
            base = self._bases.get(stack)
            if base is None:
                self.read(stack)
                base = self._bases[stack]
            if base[0] is None:
                return
            cond = {"IfMatch": base[0]} if self._conditional else {}
            try:
                self._call(
                    "delete the state", self.client.delete_object, Key=self._key(stack, STATE_OBJECT), **cond
                )
            except ClientError as exc:
                if _not_found(exc):
                    return
                raise StateConflictError(
                    f"{self.source(stack)}: the state changed since it was read; not deleted"
                ) from None
            self._bases[stack] = (None, None)

    def append_events(self, stack: str, events: list[Event]) -> list[Event]:
        validate_stack_name(stack)
        stamped = [e.with_id() for e in events]
        if stamped:
            key = self._key(stack, f"{EVENTS_DIR}/{stamped[0].id}.jsonl")
            self._call(
                "store events",
                self.client.put_object,
                Key=key,
                Body=encode_lines(stamped),
                ContentType="application/x-ndjson",
            )
        return stamped

    def read_events(self, stack: str, after: str | None = None) -> list[Event]:
        validate_stack_name(stack)
        base = self._key(stack, f"{EVENTS_DIR}/")
        kw: dict[str, Any] = {"Prefix": base}
        if after:
            # batches are named by their first event id; start a second before ``after`` to catch its batch
            try:
                ns = int(after.split("-", 1)[0]) - 1_000_000_000
                kw["StartAfter"] = f"{base}{max(ns, 0):020d}"
            except ValueError:
                pass
        out: list[Event] = []
        while True:
            r = self._call("list events", self.client.list_objects_v2, **kw)
            for obj in r.get("Contents", []):
                g = self._call("read events", self.client.get_object, Key=obj["Key"])
                out.extend(decode_lines(g["Body"].read(), self._url(obj["Key"])))
            if not r.get("IsTruncated"):
                break
            kw["ContinuationToken"] = r["NextContinuationToken"]
        out.sort(key=lambda e: e.id)
        return [e for e in out if after is None or e.id > after]

    def versioning_enabled(self) -> bool:
        r = self._call("read the bucket versioning", self.client.get_bucket_versioning)
        return bool(r.get("Status") == "Enabled")

    def history(self, stack: str) -> list[HistoryEntry]:
        validate_stack_name(stack)
        key = self._key(stack, STATE_OBJECT)
        entries: list[HistoryEntry] = []
        kw: dict[str, Any] = {"Prefix": key}
        while True:
            r = self._call("list state versions", self.client.list_object_versions, **kw)
            for v in r.get("Versions", []):
                if v["Key"] != key:
                    continue
                entries.append(
                    HistoryEntry(
                        version_id=str(v.get("VersionId") or "null"),
                        modified=_iso(v["LastModified"]),
                        size=int(v.get("Size", 0)),
                        is_latest=bool(v.get("IsLatest")),
                    )
                )
            for d in r.get("DeleteMarkers", []):
                if d["Key"] == key:
                    entries.append(
                        HistoryEntry(
                            version_id=str(d.get("VersionId")),
                            modified=_iso(d["LastModified"]),
                            size=0,
                            is_latest=bool(d.get("IsLatest")),
                            serial=None,
                        )
                    )
            if not r.get("IsTruncated"):
                break
            kw = {
                "Prefix": key,
                "KeyMarker": r.get("NextKeyMarker"),
                "VersionIdMarker": r.get("NextVersionIdMarker"),
            }
        entries.sort(key=lambda e: (e.modified, e.is_latest), reverse=True)
        backup = self._backup_entry(stack)
        if backup is not None:
            entries.append(backup)
        out = []
        for i, e in enumerate(entries):
            if e.size and (i < HISTORY_SERIALS or e.version_id == BACKUP_VERSION):
                serial, error = self._version_serial(stack, e.version_id)
                e = replace(e, serial=serial, error=error)
            out.append(e)
        return out

    def _backup_entry(self, stack: str) -> HistoryEntry | None:
        """The backup object an overwrite left on a bucket without versioning, as a version."""
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        try:
            r = self._call(
                "look for the state's backup", self.client.head_object, Key=self._key(stack, BACKUP_OBJECT)
            )
        except ClientError:
            return None
        return HistoryEntry(
            version_id=BACKUP_VERSION,
            modified=_iso(r.get("LastModified")),
            size=int(r.get("ContentLength", 0)),
            is_latest=False,
        )

    def version_source(self, stack: str, version_id: str) -> str:
        if version_id == BACKUP_VERSION:
            return self._url(self._key(stack, BACKUP_OBJECT))
        return f"{self.source(stack)}?versionId={version_id}"

    def read_version_bytes(self, stack: str, version_id: str) -> bytes:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import ClientError

        validate_stack_name(stack)
        key = self._key(stack, STATE_OBJECT)
        kw: dict[str, Any] = {"Key": key}
        if version_id == BACKUP_VERSION:
            kw["Key"] = self._key(stack, BACKUP_OBJECT)
        elif version_id != "null":
            kw["VersionId"] = version_id
        try:
            r = self._call("read a state version", self.client.get_object, **kw)
            return bytes(r["Body"].read())
        except ClientError:
            raise HotcError(f"{self._url(key)}: no version {version_id}") from None
        except HotcError:
            raise
        except Exception as exc:  # noqa: BLE001 - body streaming errors
            raise BackendError(f"cannot read {self.version_source(stack, version_id)}: {exc}") from None

    def _keep_replaced(self, stack: str, current: bytes, lock: Lock) -> None:
        """A versioned bucket keeps the replaced document as a version; any other gets it as the backup
        object (version ``backup``), written before the overwrite so it is never lost."""
        try:
            if self.versioning_enabled():
                return
        except HotcError:  # a store that does not say: keep the backup all the same
            pass
        self._call(
            "keep the replaced state as its backup",
            self.client.put_object,
            Key=self._key(stack, BACKUP_OBJECT),
            Body=current,
            ContentType="application/json",
        )


def conditional_writes_message(endpoint: str, bucket: str) -> str:
    """The refusal of a store that ignores conditional writes, with what the user can do about it: ``plan``,
    ``apply`` and ``destroy`` never run without the lock, so the way out is another store."""
    return (
        f"the S3 store at {endpoint} (bucket '{bucket}') does not honour conditional writes (If-None-Match / "
        "If-Match), so hotc cannot lock the state there or protect it from concurrent writers; nothing was "
        "changed. Keep the state in a store that honours them (AWS S3, a recent MinIO or Ceph RGW) or in a "
        "directory (--backend DIR, HOTC_BACKEND, or the [backend] table of hotc.toml). Only the commands that "
        "edit a state by hand (`hotc state rm`, `state mv`, `state push`) can run without the lock, with "
        "--unsafe-no-locking, when nobody else touches this state."
    )


def _make_client(
    endpoint_url: str | None,
    region: str | None,
    profile: str | None,
    path_style: bool,
    max_attempts: int,
    connect_timeout: float,
    read_timeout: float,
) -> Any:
    # heavy: boto3 (about half a second) only when an S3 backend connects
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError

    cfg = Config(
        retries={"max_attempts": max_attempts, "mode": "standard"},
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        s3={"addressing_style": "path"} if path_style else {},
        user_agent_extra="hotc",
    )
    try:
        if profile:
            return boto3.session.Session(profile_name=profile).client(
                "s3", endpoint_url=endpoint_url, region_name=region, config=cfg
            )
        # boto3's default session: its configuration chain, loaded once per process
        return boto3.client("s3", endpoint_url=endpoint_url, region_name=region, config=cfg)
    except BotoCoreError as exc:
        raise BackendError(f"cannot set up the S3 client: {exc}") from None


def _server_time(r: dict[str, Any]) -> datetime:
    date = r.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
    if date:
        try:
            return parsedate_to_datetime(date)
        except (TypeError, ValueError):
            pass
    return datetime.now(UTC)


def _seconds(s: float) -> timedelta:
    return timedelta(seconds=s)


def _iso(t: Any) -> str:
    if isinstance(t, datetime):
        return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(t)
