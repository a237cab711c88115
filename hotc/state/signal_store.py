"""The signal store: where wait-condition signals, deployment signals and per-server metadata live.

hotc has no Heat API to receive signals, so it does what Heat's ``TEMP_URL_SIGNAL`` / ``POLL_TEMP_URL``
transports do with Swift, over S3: each handle (a wait-condition handle, a deployment, a server's metadata) is
one private object, and the instance reaches it through a *presigned* URL (SigV4) that allows exactly one method
on exactly that key. hotc reads the object (every stored version, newest last, so that several signals to one
handle are all kept) with its own credentials.

Where: ``--signal-store s3://BUCKET/PREFIX``, else env ``HOTC_SIGNAL_STORE``, else ``[signals] url`` in
``hotc.toml``, else the S3 state backend's bucket (under ``PREFIX/signals``). A local state has no default::

    [signals]
    url = "s3://my-bucket/hotc-signals"
    endpoint_url = "https://rgw.example.org"   # or AWS_ENDPOINT_URL_S3
    path_style = true
    url_lifetime = 604800                      # seconds a presigned URL stays valid (SigV4 maximum: 7 days)

``HOTC_SIGNAL_URL_LIFETIME`` overrides ``url_lifetime``. Presigned URLs are credentials: callers keep them as
sensitive values (masked in plans and outputs, encrypted in the state).

An alarm service (Aodh) POSTs to a ScalingPolicy's ``alarm_url``, which a presigned S3 URL cannot take (its
signature fixes the method, and S3 has no POST of an object body). ``receiver_url`` (``[signals] receiver_url``
or ``HOTC_SIGNAL_RECEIVER``) is where ``hotc watch --listen`` receives such POSTs: the base URL the alarm
service reaches it at (``http://10.0.0.5:8787``). Without it, ``alarm_url`` is the presigned PUT URL.
"""

from __future__ import annotations

import os
import threading
import tomllib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from hotc.errors import HotcError
from hotc.model import model
from hotc.state.config import CONFIG_FILE, BackendConfig, project_dir, resolve_backend_config

if TYPE_CHECKING:
    from hotc.state.backend import StateBackend

STORE_ENV = "HOTC_SIGNAL_STORE"
RECEIVER_ENV = "HOTC_SIGNAL_RECEIVER"
LIFETIME_ENV = "HOTC_SIGNAL_URL_LIFETIME"
MAX_LIFETIME = 604800  # SigV4 presigned URLs are valid for at most 7 days
DEFAULT_LIFETIME = MAX_LIFETIME
SIGNALS_DIR = "signals"
PROBE_DIR = ".hotc-signal-probe"

_OPTIONS: dict[str, Any] = {
    "url": str,
    "endpoint_url": str,
    "path_style": bool,
    "region": str,
    "profile": str,
    "url_lifetime": int,
    "receiver_url": str,
}


@model
class SignalStoreConfig:
    bucket: str
    prefix: str
    options: Mapping[str, Any] = field(default_factory=dict)  # endpoint_url, path_style, region, profile
    url_lifetime: int = DEFAULT_LIFETIME
    origin: str = "default"
    receiver_url: str | None = (
        None  # where `hotc watch --listen` takes alarm POSTs (see the module docstring)
    )

    def describe(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" + (f" (from {self.origin})" if self.origin else "")


def _table(cwd: Path) -> dict[str, Any]:
    f = cwd / CONFIG_FILE
    if not f.is_file():
        return {}
    try:
        with f.open("rb") as fh:
            doc = tomllib.load(fh)
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise HotcError(f"{f}: error: {exc}") from None
    table = doc.get("signals") or {}
    if not isinstance(table, dict):
        raise HotcError(f"{f}: error: 'signals' must be a table ([signals])")
    for k, v in table.items():
        want = _OPTIONS.get(k)
        if want is None:
            raise HotcError(
                f"{f}: error: unknown [signals] option {k!r}; known: " + ", ".join(sorted(_OPTIONS))
            )
        if not isinstance(v, want) or (isinstance(v, bool) and want is not bool):
            raise HotcError(f"{f}: error: [signals] option {k!r} has the wrong type ({type(v).__name__})")
    return table


def _parse(url: str, origin: str) -> tuple[str, str]:
    url = url.strip()
    if not url.startswith("s3://"):
        raise HotcError(f"{origin}: signal store {url!r} is not an S3 URL; use s3://BUCKET/PREFIX")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    if not bucket:
        raise HotcError(f"{origin}: signal store {url!r} has no bucket; use s3://BUCKET/PREFIX")
    return bucket, prefix.strip("/")


def _lifetime(raw: Any, origin: str) -> int:
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise HotcError(f"{origin}: the presigned URL lifetime {raw!r} is not a number of seconds") from None
    if not 1 <= n <= MAX_LIFETIME:
        raise HotcError(
            f"{origin}: the presigned URL lifetime must be between 1 and {MAX_LIFETIME} seconds (7 days, the "
            f"most a SigV4 presigned URL can live); got {n}"
        )
    return n


def resolve_signal_store(
    url: str | None, cwd: Path, env: Mapping[str, str], backend: BackendConfig | None
) -> SignalStoreConfig | None:
    """The signal store chosen by ``url`` (``--signal-store``), ``HOTC_SIGNAL_STORE``, ``[signals]`` in
    ``hotc.toml``, else the S3 state backend's bucket; None when there is none (a local state and nothing set)."""
    root = project_dir(cwd)
    table = _table(root)
    toml_origin = str(root / CONFIG_FILE)
    options = {k: v for k, v in table.items() if k in ("endpoint_url", "path_style", "region", "profile")}
    if url:
        (bucket, prefix), origin = _parse(url, "--signal-store"), "--signal-store"
    elif env.get(STORE_ENV):
        (bucket, prefix), origin = _parse(env[STORE_ENV], STORE_ENV), STORE_ENV
    elif isinstance(table.get("url"), str):
        (bucket, prefix), origin = _parse(table["url"], toml_origin), toml_origin
    elif backend is not None and backend.kind == "s3":
        bucket = backend.bucket
        prefix = f"{backend.prefix}/{SIGNALS_DIR}" if backend.prefix else SIGNALS_DIR
        origin = f"the S3 state backend ({backend.origin})"
        options = {
            k: v
            for k, v in backend.options.items()
            if k in ("endpoint_url", "path_style", "region", "profile")
        } | options
    else:
        return None
    if env.get(LIFETIME_ENV):
        lifetime = _lifetime(env[LIFETIME_ENV], LIFETIME_ENV)
    elif "url_lifetime" in table:
        lifetime = _lifetime(table["url_lifetime"], toml_origin)
    else:
        lifetime = DEFAULT_LIFETIME
    receiver = env.get(RECEIVER_ENV) or table.get("receiver_url") or None
    if receiver is not None and not str(receiver).startswith(("http://", "https://")):
        raise HotcError(
            f"{RECEIVER_ENV if env.get(RECEIVER_ENV) else toml_origin}: the signal receiver URL {receiver!r} "
            "must be an http:// or https:// URL (where `hotc watch --listen` is reached)"
        )
    return SignalStoreConfig(
        bucket, prefix, options, lifetime, origin, str(receiver).rstrip("/") if receiver else None
    )


NO_STORE_HINT = (
    "configure one with --signal-store s3://BUCKET/PREFIX, HOTC_SIGNAL_STORE or [signals] url in hotc.toml "
    "(an S3 state backend is used by default)"
)


class SignalStore:
    """Presigned URLs and reads over one S3 bucket/prefix. Thread-safe (boto3 clients are)."""

    def __init__(self, cfg: SignalStoreConfig, client: Any = None) -> None:
        self.cfg = cfg
        self.bucket = cfg.bucket
        self.prefix = cfg.prefix
        self.lifetime = cfg.url_lifetime
        self._client = client
        self._lock = threading.Lock()
        self._bodies: dict[tuple[str, str], bytes] = {}  # (key, version id) -> body: versions never change
        self._versioned: bool | None = None
        self._key_locks: dict[str, threading.Lock] = {}

    def lock_for(self, key: str) -> threading.Lock:
        """A lock for read-modify-write of one object within this run (one apply holds the stack's lock)."""
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    # --- client
    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = _make_client(self.cfg.options)
            return self._client

    def _call(self, what: str, fn: Callable[..., Any], **kw: Any) -> Any:
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return fn(Bucket=self.bucket, **kw)
        except ClientError as exc:
            err = exc.response.get("Error", {})
            code = str(err.get("Code") or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode"))
            if code in ("NoSuchKey", "404", "NotFound"):
                raise KeyError(kw.get("Key") or kw.get("Prefix") or "") from None
            raise HotcError(
                f"signal store s3://{self.bucket}/{self.prefix}: cannot {what}: {code}: {err.get('Message', exc)}"
            ) from None
        except BotoCoreError as exc:
            raise HotcError(f"signal store s3://{self.bucket}/{self.prefix}: cannot {what}: {exc}") from None

    # --- naming
    def key(self, stack: str, kind: str, ident: str) -> str:
        """The object of one handle: ``PREFIX/STACK/KIND/IDENT``."""
        parts = [p for p in (self.prefix, stack, kind, ident) if p]
        return "/".join(parts)

    def key_of_url(self, url: str) -> str | None:
        """The key a presigned URL of this store points at, or None when it is another bucket's."""
        u = urlparse(str(url))
        path = unquote(u.path).lstrip("/")
        host_bucket = u.hostname.split(".", 1)[0] if u.hostname else ""
        if path.startswith(self.bucket + "/"):
            key = path[len(self.bucket) + 1 :]
        elif host_bucket == self.bucket:
            key = path
        else:
            return None
        return key if key.startswith(self.prefix + "/") or not self.prefix else None

    # --- URLs
    def presign(self, key: str, method: str = "PUT") -> str:
        op = {"PUT": "put_object", "GET": "get_object", "HEAD": "head_object"}[method]
        # heavy: botocore only when an S3 call is made
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            url: str = self.client.generate_presigned_url(
                op, Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=self.lifetime
            )
        except (BotoCoreError, ClientError) as exc:
            raise HotcError(f"signal store: cannot presign a URL: {exc}") from None
        return url

    # --- objects
    def put(self, key: str, body: bytes, content_type: str = "application/json") -> None:
        self._call(
            "write a signal object", self.client.put_object, Key=key, Body=body, ContentType=content_type
        )

    def get(self, key: str) -> bytes | None:
        try:
            r = self._call("read a signal object", self.client.get_object, Key=key)
        except KeyError:
            return None
        body: bytes = r["Body"].read()
        return body

    def versions(self, key: str) -> list[bytes]:
        """Every body stored under ``key``, oldest first (each PUT to a versioned bucket is kept; without
        versioning only the last one survives)."""
        found: list[tuple[str, bool]] = []  # (version id, is latest) newest first, as S3 lists them
        kw: dict[str, Any] = {"Prefix": key}
        while True:
            try:
                r = self._call("list signal versions", self.client.list_object_versions, **kw)
            except KeyError:
                return []
            for v in r.get("Versions") or []:
                if v.get("Key") == key:
                    found.append((str(v.get("VersionId") or "null"), bool(v.get("IsLatest"))))
            if not r.get("IsTruncated"):
                break
            kw = {
                "Prefix": key,
                "KeyMarker": r.get("NextKeyMarker"),
                "VersionIdMarker": r.get("NextVersionIdMarker"),
            }
        out: list[bytes] = []
        for vid, _latest in reversed(found):
            cached = self._bodies.get((key, vid))
            if cached is None:
                extra = {"VersionId": vid} if vid != "null" else {}
                try:
                    r = self._call("read a signal", self.client.get_object, Key=key, **extra)
                except KeyError:
                    continue
                cached = r["Body"].read()
                if vid != "null":
                    self._bodies[(key, vid)] = cached
            out.append(cached)
        return out

    def keys_under(self, prefix: str) -> list[str]:
        """Every key starting with ``prefix``."""
        out: list[str] = []
        kw: dict[str, Any] = {"Prefix": prefix}
        while True:
            try:
                r = self._call("list signal objects", self.client.list_objects_v2, **kw)
            except KeyError:
                return out
            out += [str(o["Key"]) for o in r.get("Contents") or []]
            if not r.get("IsTruncated"):
                return out
            kw = {"Prefix": prefix, "ContinuationToken": r.get("NextContinuationToken")}

    def last_modified(self, key: str) -> Any:
        try:
            r = self._call("read a signal object", self.client.head_object, Key=key)
        except KeyError:
            return None
        return r.get("LastModified")

    def pending(self, key: str) -> list[tuple[str, Any, bytes]]:
        """Every stored version of ``key`` as (version id, last modified, body), oldest first: the signals a
        consumer has not acknowledged (:meth:`acknowledge`) yet."""
        found: list[tuple[str, Any]] = []
        kw: dict[str, Any] = {"Prefix": key}
        while True:
            try:
                r = self._call("list signal versions", self.client.list_object_versions, **kw)
            except KeyError:
                return []
            for v in r.get("Versions") or []:
                if v.get("Key") == key:
                    found.append((str(v.get("VersionId") or "null"), v.get("LastModified")))
            if not r.get("IsTruncated"):
                break
            kw = {
                "Prefix": key,
                "KeyMarker": r.get("NextKeyMarker"),
                "VersionIdMarker": r.get("NextVersionIdMarker"),
            }
        out: list[tuple[str, Any, bytes]] = []
        for vid, modified in sorted(found, key=lambda f: (f[1] is None, f[1])):
            extra = {"VersionId": vid} if vid != "null" else {}
            try:
                r = self._call("read a signal", self.client.get_object, Key=key, **extra)
            except KeyError:
                continue
            out.append((vid, modified, r["Body"].read()))
        return out

    def acknowledge(self, key: str, version_ids: list[str]) -> None:
        """Remove those versions of ``key`` (signals consumed); versions stored meanwhile stay pending."""
        for vid in version_ids:
            extra = {"VersionId": vid} if vid != "null" else {}
            try:
                self._call("delete a consumed signal", self.client.delete_object, Key=key, **extra)
            except KeyError:
                pass

    def delete_all(self, key: str) -> None:
        """Remove ``key`` and every stored version of it (idempotent)."""
        try:
            r = self._call("list signal versions", self.client.list_object_versions, Prefix=key)
        except KeyError:
            return
        items = [
            {"Key": v["Key"], "VersionId": v["VersionId"]}
            for v in (r.get("Versions") or []) + (r.get("DeleteMarkers") or [])
            if v.get("Key") == key and v.get("VersionId")
        ]
        for item in items:
            try:
                self._call("delete a signal object", self.client.delete_object, **item)
            except KeyError:
                pass
        try:
            self._call("delete a signal object", self.client.delete_object, Key=key)
        except KeyError:
            pass
        with self._lock:
            for k in [k for k in self._bodies if k[0] == key]:
                del self._bodies[k]

    # --- probes
    def check(self, need_versions: bool) -> None:
        """Probe that the store answers (and, with ``need_versions``, that it keeps every version of an object:
        two writes to one probe key must both be listed). Raises HotcError saying what to fix."""
        if self._versioned is None:
            self._versioned = self._probe()
        if need_versions and not self._versioned:
            raise HotcError(
                f"the signal store s3://{self.bucket}/{self.prefix} does not keep object versions, so several "
                "signals to one handle would overwrite each other (a WaitCondition with count > 1). Enable "
                f"versioning on the bucket (aws s3api put-bucket-versioning --bucket {self.bucket} "
                "--versioning-configuration Status=Enabled) or use another store"
            )

    def _probe(self) -> bool:
        key = "/".join(p for p in (self.prefix, PROBE_DIR, uuid.uuid4().hex) if p)
        try:
            self.put(key, b"1", "text/plain")
            self.put(key, b"2", "text/plain")
            return len(self.versions(key)) >= 2
        finally:
            try:
                self.delete_all(key)
            except HotcError:
                pass


def _make_client(options: Mapping[str, Any]) -> Any:
    try:
        # heavy: boto3 (about half a second) only when an S3 signal store connects
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError
    except ImportError as exc:  # pragma: no cover - boto3 is a dependency
        raise HotcError(f"boto3 is needed for the signal store: {exc}") from None
    cfg = Config(
        signature_version="s3v4",
        retries={"max_attempts": 5, "mode": "standard"},
        connect_timeout=5,
        read_timeout=30,
        s3={"addressing_style": "path"} if options.get("path_style") else {},
        user_agent_extra="hotc-signals",
    )
    endpoint = options.get("endpoint_url") or os.environ.get("AWS_ENDPOINT_URL_S3") or None
    try:
        if options.get("profile"):
            return boto3.session.Session(profile_name=str(options["profile"])).client(
                "s3", endpoint_url=endpoint, region_name=options.get("region"), config=cfg
            )
        return boto3.client("s3", endpoint_url=endpoint, region_name=options.get("region"), config=cfg)
    except BotoCoreError as exc:
        raise HotcError(f"cannot set up the S3 client of the signal store: {exc}") from None


def store_factory(cfg: SignalStoreConfig | None) -> Callable[[], SignalStore]:
    """A lazily made, shared store (raises HotcError when no store is configured)."""
    made: list[SignalStore] = []
    lock = threading.Lock()

    def get() -> SignalStore:
        if cfg is None:
            raise HotcError("no signal store is configured: " + NO_STORE_HINT)
        with lock:
            if not made:
                made.append(SignalStore(cfg))
            return made[0]

    return get


def store_for(
    signal_store: str | None,
    backend: str | None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Callable[[], SignalStore]:
    """The lazy store of a command: ``--signal-store`` (``signal_store``) else the usual chain, with the state
    backend chosen by ``backend`` (``--backend``) as the default."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    environ = dict(env if env is not None else os.environ)
    bcfg = resolve_backend_config(backend, base, environ)
    return store_factory(resolve_signal_store(signal_store, base, environ, bcfg))


def backend_encrypts(backend: StateBackend) -> bool:
    """Whether ``backend`` keeps secrets encrypted (a key from HOTC_STATE_KEY, or a local state's own key file,
    made on its first write)."""
    return backend.encrypts_secrets()
