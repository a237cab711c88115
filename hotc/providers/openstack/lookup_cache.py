"""Name and id look-ups kept between hotc processes for a short time (``hotc plan``, then ``hotc apply PLANFILE``,
then the next plan): each command is its own process, and a multitier template's flavors, images, networks and
custom-constraint existence checks are a score of cloud calls before the first resource starts.

- **What is kept**: what a look-up by name or id found (:func:`hotc.providers.openstack.common.lookup`): the
  object's id, name and the few plain fields the drivers read (a flavor's vCPUs and RAM, a network's subnets
  and whether it is shared or external), one file per query, under ``$XDG_CACHE_HOME/hotc/lookups/``
  (``~/.cache/hotc/lookups/``), mode 0600 in a 0700 directory, written atomically. A look-up that found
  nothing (or several things) is never kept: the next one asks again.
- **Per cloud and project**: the file's name is a digest of the cloud's auth URL, project and region and of the
  query (kind and value), so another project or cloud misses. The record is encrypted with a key derived from
  the same, so the file names no value in clear (a hidden parameter may name an image): reading it takes
  knowing the query already.
- **How long**: ``TTL`` seconds (60) from the look-up; ``HOTC_LOOKUP_CACHE_TTL=SECONDS`` changes it.
  ``HOTC_LOOKUP_CACHE=0`` turns the cache off; ``HOTC_LOOKUP_CACHE=DIR`` keeps the files in DIR.
- **Who reads it**: the plan-time checks (no action context: existence and the fields above) read any record;
  the apply's actions read only catalog records (flavors, images, shared or external networks: what a stack
  does not make and replace under the same name within a minute), as the run's own catalog does.
- Every failure (missing, unreadable, corrupted, expired, another key) is a miss, never an error.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ENV = "HOTC_LOOKUP_CACHE"
TTL_ENV = "HOTC_LOOKUP_CACHE_TTL"
TTL = 60.0
_VERSION = 1

# the plain, non-secret fields kept per kind (id and name for every kind)
FIELDS: Mapping[str, tuple[str, ...]] = {
    "flavor": ("original_name", "vcpus", "ram", "disk", "is_public"),
    "image": ("min_disk", "min_ram", "status"),
    "network": ("subnet_ids", "is_router_external", "is_shared"),
}
_SCOPE_FIELDS = ("auth_url", "project_id", "project_name", "project_domain_id", "project_domain_name")


def cache_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """Where the look-up files live, or None when the cache is off."""
    e = os.environ if env is None else env
    setting = e.get(ENV, "")
    if setting.lower() in ("0", "off", "no", "false"):
        return None
    if setting and setting.lower() not in ("1", "on", "yes", "true"):
        return Path(setting)
    base = e.get("XDG_CACHE_HOME") or os.path.join(e.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "hotc" / "lookups"


def ttl_of(env: Mapping[str, str] | None = None) -> float:
    e = os.environ if env is None else env
    try:
        value = float(e.get(TTL_ENV, "") or TTL)
    except ValueError:
        return TTL
    return max(value, 0.0)


class Found:
    """A look-up's answer read back from the cache: its kept fields as attributes (read-only)."""

    __slots__ = ("_fields",)

    def __init__(self, fields: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a cached look-up is read-only")

    def to_dict(self) -> dict[str, Any]:
        return dict(object.__getattribute__(self, "_fields"))

    def __repr__(self) -> str:
        return f"Found(id={self.to_dict().get('id')!r})"


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def record_of(kind: str, found: Any) -> dict[str, Any]:
    """The fields of FOUND the cache keeps (see :data:`FIELDS`)."""
    out: dict[str, Any] = {"id": str(found.id), "name": _plain(getattr(found, "name", None))}
    for key in FIELDS.get(kind, ()):
        value = getattr(found, key, None)
        if value is not None:
            out[key] = _plain(value)
    return out


class LookupFiles:
    """The look-up cache of one cloud and project (see the module's docstring)."""

    def __init__(
        self, where: Path, scope: str, ttl: float = TTL, clock: Callable[[], float] = time.time
    ) -> None:
        self.where = where
        self._scope = scope
        self.ttl = ttl
        self._clock = clock

    @classmethod
    def for_config(
        cls, config: Any, env: Mapping[str, str] | None = None, clock: Callable[[], float] = time.time
    ) -> LookupFiles | None:
        """The cache of an openstacksdk ``CloudRegion``'s cloud and project, or None (off, no auth URL)."""
        where = cache_dir(env)
        ttl = ttl_of(env)
        if where is None or ttl <= 0:
            return None
        raw = getattr(config, "config", None) or {}
        auth = raw.get("auth") or {}
        if not isinstance(auth, Mapping) or not auth.get("auth_url"):
            return None
        scope = {k: str(auth[k]) for k in _SCOPE_FIELDS if auth.get(k) not in (None, "")}
        scope["region"] = str(getattr(config, "region_name", None) or "")
        return cls(where, json.dumps(scope, sort_keys=True), ttl, clock)

    def _material(self, kind: str, value: str) -> bytes:
        return json.dumps([self._scope, kind, value]).encode()

    def _path(self, kind: str, value: str) -> Path:
        return self.where / (
            hashlib.sha256(b"name\0" + self._material(kind, value)).hexdigest()[:40] + ".json"
        )

    def _key(self, kind: str, value: str, salt: bytes) -> bytes:
        digest = hashlib.sha256(b"key\0" + salt + self._material(kind, value)).digest()
        return base64.urlsafe_b64encode(digest)

    def load(self, kind: str, value: str, *, catalog_only: bool = False) -> Found | None:
        """The kept answer of the look-up of the KIND named VALUE, while fresh; None otherwise. With
        ``catalog_only``, only an answer a whole run may share (a flavor, an image, a shared network)."""
        try:
            doc = json.loads(self._path(kind, value).read_text())
            if doc.get("v") != _VERSION:
                return None
            # heavy: cryptography only when a look-up is cached
            from cryptography.fernet import Fernet

            salt = base64.b64decode(doc["salt"])
            state = json.loads(Fernet(self._key(kind, value, salt)).decrypt(doc["data"].encode()))
            age = self._clock() - float(state["at"])
            if not 0 <= age < self.ttl or (catalog_only and not state.get("catalog")):
                return None
            fields = state["fields"]
            if not isinstance(fields, dict) or not fields.get("id"):
                return None
            return Found(fields)
        except Exception:  # noqa: BLE001 -- missing, unreadable, corrupted, another key: a miss
            return None

    def save(self, kind: str, value: str, found: Any, *, catalog: bool) -> None:
        """Keep what the look-up of the KIND named VALUE found; failures are ignored."""
        try:
            # heavy: cryptography only when a look-up is cached
            from cryptography.fernet import Fernet

            salt = os.urandom(16)
            plain = json.dumps({"at": self._clock(), "catalog": catalog, "fields": record_of(kind, found)})
            data = Fernet(self._key(kind, value, salt)).encrypt(plain.encode())
            doc = {"v": _VERSION, "salt": base64.b64encode(salt).decode(), "data": data.decode()}
            self.where.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.where, 0o700)
            fd, tmp = tempfile.mkstemp(dir=self.where, prefix=".look-")
            try:
                with os.fdopen(fd, "w") as fh:  # mkstemp makes it 0600
                    fh.write(json.dumps(doc))
                os.replace(tmp, self._path(kind, value))
            except BaseException:
                os.unlink(tmp)
                raise
        except Exception:  # noqa: BLE001 -- a cache that cannot be written is no cache
            return


def files_of(conn: Any) -> LookupFiles | None:
    """The look-up cache kept on a connection (``conn._hotc_lookup_files``, set by
    :class:`hotc.providers.openstack.auth.CloudFactory`), also through the plan's memoising view of it."""
    found = getattr(conn, "_hotc_lookup_files", None)
    found = getattr(found, "_target", found)
    return found if isinstance(found, LookupFiles) else None


__all__ = ["Found", "LookupFiles", "cache_dir", "files_of", "record_of", "ttl_of"]
