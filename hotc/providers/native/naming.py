"""Physical names the way Heat makes them: ``<stack>-<resource>-<short id>``."""

from __future__ import annotations

import re
import secrets
import string

_ALPHABET = string.ascii_lowercase + string.digits


def short_id(length: int = 12) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def physical_name(stack: str, address: str, limit: int | None = None) -> str:
    """``stack-name-xxxxxxxxxxxx``; ``address`` punctuation (``[2].``) becomes ``-``. With ``limit``, the
    name is shortened as Heat does: the first two characters, ``-``, then the tail."""
    res = re.sub(r"[^A-Za-z0-9_-]+", "-", address).strip("-")
    name = f"{stack}-{res}-{short_id()}"
    if limit is not None and len(name) > limit:
        name = name[:2] + "-" + name[-(limit - 3) :]
    return name
