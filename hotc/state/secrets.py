"""Keeping hidden values out of the state document in clear.

A hidden parameter (or a resource property derived from one) is stored as a sha256 digest of its canonical
JSON form, plus the value encrypted with Fernet (from ``cryptography``) when an encryption key is
configured (env ``HOTC_STATE_KEY``: a Fernet key, or any passphrase, which is stretched with sha256).

Masked property values are a marker object ``{"__sensitive__": "sha256:HEX"}`` (plus ``"encrypted"``), so
a reader can tell a masked value from real data and compare a new value with :func:`matches_masked`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from hotc.errors import HotcError

KEY_ENV = "HOTC_STATE_KEY"
MASK_KEY = "__sensitive__"


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def digest(value: Any) -> str:
    """``sha256:HEX`` over the canonical JSON form of ``value``."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def key_from_env(env: Mapping[str, str] | None = None) -> bytes | None:
    """The Fernet key configured in ``HOTC_STATE_KEY``, or None."""
    raw = (env if env is not None else os.environ).get(KEY_ENV, "")
    if not raw:
        return None
    return normalise_key(raw)


def normalise_key(raw: str) -> bytes:
    """A Fernet key from a Fernet key string or from any passphrase (sha256-stretched)."""
    try:
        decoded = base64.urlsafe_b64decode(raw.encode())
        if len(decoded) == 32:
            return raw.encode()
    except (ValueError, TypeError):
        pass
    return base64.urlsafe_b64encode(hashlib.sha256(raw.encode()).digest())


def _fernet(key: bytes) -> Any:
    try:
        # heavy: cryptography only when a state holds secrets
        from cryptography.fernet import Fernet
    except ImportError as exc:  # pragma: no cover - cryptography comes with openstacksdk
        raise HotcError(
            f"{KEY_ENV} is set but the 'cryptography' package is not installed; install it or unset {KEY_ENV}"
        ) from exc
    return Fernet(key)


def encrypt(value: Any, key: bytes) -> str:
    token: bytes = _fernet(key).encrypt(canonical_json(value))
    return token.decode()


def decrypt(token: str, key: bytes) -> Any:
    # heavy: cryptography only when a state holds secrets
    from cryptography.fernet import InvalidToken

    try:
        plain = _fernet(key).decrypt(token.encode())
    except InvalidToken as exc:
        raise HotcError(
            f"cannot decrypt a hidden value in the state: {KEY_ENV} is not the key it was encrypted with"
        ) from exc
    return json.loads(plain)


def mask(value: Any, key: bytes | None) -> dict[str, str]:
    """The stored form of a sensitive value: digest, plus ciphertext when a key is configured."""
    out = {MASK_KEY: digest(value)}
    if key is not None:
        out["encrypted"] = encrypt(value, key)
    return out


def is_masked(value: Any) -> bool:
    return isinstance(value, Mapping) and MASK_KEY in value and set(value) <= {MASK_KEY, "encrypted"}


def unmask(value: Any, key: bytes | None) -> Any:
    """The clear value of a masked marker when it carries ciphertext and a key is configured; else the marker."""
    if is_masked(value) and key is not None and "encrypted" in value:
        return decrypt(value["encrypted"], key)
    return value


def matches_masked(marker: Mapping[str, Any], value: Any) -> bool:
    """True when ``value`` is the value a masked marker (or a ``ParameterRecord`` digest) stands for."""
    return bool(marker.get(MASK_KEY) == digest(value))


def secret_attributes(
    declared: Iterable[str], sensitive_paths: Iterable[str], attributes: Mapping[str, Any]
) -> tuple[str, ...]:
    """The attribute names to keep masked: those the driver declares secret (a RandomString's ``value``) and,
    for a resource with any sensitive property, every attribute (what a driver reports may echo what it was
    given: a TestResource's ``output``, a Value's ``value``). Names are top-level attribute names."""
    names = set(declared)
    if tuple(sensitive_paths):
        names |= {str(k) for k in attributes}
    return tuple(sorted(names))


# Types whose physical id is shown masked everywhere (resource list/show, show, state show, plans, events): a
# RandomString's reference id is the random string itself, and states written before its physical id became a
# physical name hold the string as the id.
SECRET_ID_TYPES = frozenset({"OS::Heat::RandomString"})
SENSITIVE_TEXT = "(sensitive)"


def shown_physical_id(type_name: str, physical_id: str | None) -> str | None:
    """The physical id as any command shows it: masked for :data:`SECRET_ID_TYPES`, None stays None."""
    if physical_id is not None and type_name in SECRET_ID_TYPES:
        return SENSITIVE_TEXT
    return physical_id


def holds_ciphertext(data: bytes) -> bool:
    """Does a stored state document hold a value encrypted with a state key (a masked value or a hidden
    parameter with ``encrypted``)? Cheap for documents without any: they are not parsed."""
    if b'"encrypted"' not in data:
        return False
    try:
        doc = json.loads(data)
    except ValueError:
        return False
    stack: list[Any] = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("encrypted"), str) and (MASK_KEY in v or v.get("hidden") is True):
                return True
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def missing_key_message(source: str, where_key_was: str) -> str:
    """The error for a state holding ciphertext read without its key: what is lost, and how to restore it."""
    return (
        f"{source}: error: the state holds encrypted secrets (hidden parameters, values derived from them, "
        f"RandomString values) but no state key is available to read them: {where_key_was}. Without that key "
        "they cannot be read, and hotc will not make a new key over them. Restore the key file from your backup "
        f"(or set {KEY_ENV} to the key the state was written with) and run the command again. If the key is "
        "lost for good, the encrypted values cannot be recovered: remove the state (after saving a copy) and "
        "let hotc create the stack again."
    )


_POSITION = re.compile(r"\s*(\([^()]*:\d+:\d+\))\s*$")


def withheld_error(message: str) -> str:
    """An error about a sensitive value, safe to show and store: evaluation messages quote the value they
    failed on (``"..." is not a map``), so only where it happened is kept."""
    m = _POSITION.search(message)
    where = f" {m.group(1)}" if m else ""
    return "the value cannot be evaluated; the message is withheld because the value is sensitive" + where


def withheld(exc: HotcError) -> HotcError:
    """``exc`` with its message and diagnostics withheld (:func:`withheld_error`), positions kept."""
    return HotcError(
        withheld_error(exc.message),
        exit_code=exc.exit_code,
        diagnostics=tuple(replace(d, message=withheld_error(d.message)) for d in exc.diagnostics),
    )
