"""A token kept between hotc processes, never in clear: each command is its own process, and a Keystone token
request (plus the identity discovery before it) costs 1-5 s on a busy cloud before the first real call.

- **What is kept**: keystoneauth's auth state (the token and its catalog, what ``get_auth_state`` gives) of a
  password or application-credential login, in ``$XDG_CACHE_HOME/hotc/tokens/`` (``~/.cache/hotc/tokens/``),
  one file per identity, mode 0600 in a 0700 directory, written atomically.
- **How it is protected**: the file is Fernet-encrypted with a key derived (scrypt, a random salt per file) from
  the login's secret (the password or the application credential's secret) together with the rest of the auth
  settings. Only someone who has the secret can read the token, and they could get a token anyway; a changed
  password cannot decrypt the file, so it is a miss. The file's name is a digest of the non-secret settings
  (auth URL, user, project, domains, region), so it reveals nothing secret either.
- **When it is used**: the token is installed before the first call only while it is valid for more than
  ``MIN_LEFT`` seconds and Keystone confirms it (one validation, no login), with the catalog Keystone gives
  for it then, so a service registered after the token was kept is found; keystoneauth asks for a new one
  when it runs out, and when the cloud answers 401 (a revoked token). A token that the cloud refuses is thus
  replaced and written back. Logins without a secret (a token given in the configuration, other plugins) are
  never cached.
- ``HOTC_TOKEN_CACHE=0`` turns it off; ``HOTC_TOKEN_CACHE=DIR`` keeps the files in DIR.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV = "HOTC_TOKEN_CACHE"
MIN_LEFT = 300.0  # seconds a cached token must still be valid for to be used
SECRET_FIELDS = ("password", "application_credential_secret")
# settings that name the identity (the file name); every auth setting, secret included, goes into the key
IDENTITY_FIELDS = (
    "auth_url",
    "username",
    "user_id",
    "user_domain_name",
    "user_domain_id",
    "project_name",
    "project_id",
    "project_domain_name",
    "project_domain_id",
    "domain_name",
    "domain_id",
    "system_scope",
    "application_credential_id",
    "application_credential_name",
    "trust_id",
)
_VERSION = 1


def cache_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """Where the token files live, or None when the cache is off."""
    e = os.environ if env is None else env
    setting = e.get(ENV, "")
    if setting.lower() in ("0", "off", "no", "false"):
        return None
    if setting and setting.lower() not in ("1", "on", "yes", "true"):
        return Path(setting)
    base = e.get("XDG_CACHE_HOME") or os.path.join(e.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "hotc" / "tokens"


def _secret(auth: Mapping[str, Any]) -> str | None:
    for key in SECRET_FIELDS:
        value = auth.get(key)
        if value:
            return str(value)
    return None


def _identity(auth: Mapping[str, Any], auth_type: str, region: str | None) -> str:
    named = {k: str(auth[k]) for k in IDENTITY_FIELDS if auth.get(k) not in (None, "")}
    return json.dumps({"type": auth_type, "region": region or "", **named}, sort_keys=True)


def _key(auth: Mapping[str, Any], auth_type: str, region: str | None, salt: bytes) -> bytes:
    material = json.dumps(
        {"type": auth_type, "region": region or "", **{k: str(v) for k, v in auth.items()}}, sort_keys=True
    ).encode()
    raw = hashlib.scrypt(material, salt=salt, n=2**14, r=8, p=1, dklen=32)
    return base64.urlsafe_b64encode(raw)


class TokenCache:
    """The cache entry of one login (see the module's docstring); every failure is a miss, never an error."""

    def __init__(self, path: Path, auth: Mapping[str, Any], auth_type: str, region: str | None) -> None:
        self.path = path
        self._auth = dict(auth)
        self._type = auth_type
        self._region = region

    @classmethod
    def for_config(cls, config: Any, env: Mapping[str, str] | None = None) -> TokenCache | None:
        """The entry of an openstacksdk ``CloudRegion``'s login, or None (cache off, or a login without a
        secret)."""
        where = cache_dir(env)
        if where is None:
            return None
        raw = getattr(config, "config", None) or {}
        auth = raw.get("auth") or {}
        if not isinstance(auth, Mapping) or _secret(auth) is None:
            return None
        auth_type = str(raw.get("auth_type") or "password")
        region = getattr(config, "region_name", None)
        name = hashlib.sha256(_identity(auth, auth_type, region).encode()).hexdigest()[:40]
        return cls(where / f"{name}.token", auth, auth_type, region)

    def load(self) -> str | None:
        """The cached auth state (keystoneauth's ``get_auth_state`` string) when it is readable with this
        login's secret and still valid for ``MIN_LEFT`` seconds, else None."""
        try:
            doc = json.loads(self.path.read_text())
            if doc.get("v") != _VERSION:
                return None
            # heavy: cryptography only when a token is cached
            from cryptography.fernet import Fernet

            salt = base64.b64decode(doc["salt"])
            plain = Fernet(_key(self._auth, self._type, self._region, salt)).decrypt(doc["data"].encode())
            state = json.loads(plain)
            if float(state["expires"]) - time.time() < MIN_LEFT:
                return None
            return str(state["auth_state"])
        except Exception:  # noqa: BLE001 -- missing, unreadable, another secret, expired: a miss
            return None

    def save(self, auth_state: str, expires: float) -> None:
        """Keep ``auth_state`` (valid until ``expires``, epoch seconds) encrypted; failures are ignored."""
        try:
            # heavy: cryptography only when a token is cached
            from cryptography.fernet import Fernet

            salt = os.urandom(16)
            token = Fernet(_key(self._auth, self._type, self._region, salt)).encrypt(
                json.dumps({"auth_state": auth_state, "expires": expires}).encode()
            )
            doc = {"v": _VERSION, "salt": base64.b64encode(salt).decode(), "data": token.decode()}
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.path.parent, 0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tok-")
            try:
                with os.fdopen(fd, "w") as fh:  # mkstemp makes it 0600
                    fh.write(json.dumps(doc))
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except Exception:  # noqa: BLE001 -- a cache that cannot be written is no cache
            return

    def identity_url(self) -> str | None:
        """Keystone's v3 API: the login's ``auth_url``, with ``/v3`` added to a versionless one."""
        url = str(self._auth.get("auth_url") or "").rstrip("/")
        if not url:
            return None
        return url if url.endswith("/v3") else url + "/v3"

    def forget(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            return


def install(conn: Any, cache: TokenCache) -> bool:
    """Give ``conn``'s auth plugin the cached token, if any, with the catalog Keystone gives for it now (see
    :func:`current_state`); True when one was installed."""
    kept = cache.load()
    state = None if kept is None else current_state(conn, kept, cache.identity_url())
    if state is None:
        return False
    try:
        conn.session.auth.set_auth_state(state)
        return True
    except Exception:  # noqa: BLE001 -- a plugin that cannot take it: log in as usual
        return False


def current_state(conn: Any, kept: str, identity_url: str | None) -> str | None:
    """The kept auth state with its token's body as Keystone gives it now, or None (a login follows).

    One ``GET /v3/auth/tokens`` validates the token without a login (no password check, the costly part of a
    login): a revoked token is a miss, and the catalog is the current one. A catalog kept with the token would
    hide a service registered since, for as long as the token lives (a day by default)."""
    try:
        token = str(json.loads(kept)["auth_token"])
        if not identity_url:
            return None
        answer = conn.session.get(
            identity_url + "/auth/tokens",
            headers={"X-Auth-Token": token, "X-Subject-Token": token},
            authenticated=False,
            raise_exc=False,
        )
        body = answer.json() if answer.status_code == 200 else None
        if not isinstance(body, dict) or not isinstance(body.get("token"), dict):
            return None
        return json.dumps({"auth_token": token, "body": body})
    except Exception:  # noqa: BLE001 -- unreadable, unreachable, refused: log in as usual
        return None


def keep(conn: Any, cache: TokenCache) -> None:
    """Write ``conn``'s current token to the cache (after a login that made a new one)."""
    try:
        auth = conn.session.auth
        ref = getattr(auth, "auth_ref", None)
        state = auth.get_auth_state()
        if ref is None or not state or ref.expires is None:
            return
        cache.save(state, ref.expires.timestamp())
    except Exception:  # noqa: BLE001
        return
