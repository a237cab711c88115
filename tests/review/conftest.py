"""Fixtures for the review/CI features (SARIF, Markdown comments, graphs).

The SARIF 2.1.0 JSON schema is not shipped by any Python package; the npm package ``@microsoft/jest-sarif``
(pinned) ships Microsoft's copy (``sarif-2.1.0-rtm.5.json``). The fixture fetches it once with ``npm pack`` into
``~/.cache/hotc-tests/`` and reads it from there; nothing is copied into the repository. Under CI (``CI`` or
``HOTC_REQUIRE_SARIF_SCHEMA`` set) a schema that cannot be had is a failure, elsewhere a skip.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

SARIF_NPM = "@microsoft/jest-sarif@1.0.0-beta.0"
SARIF_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "hotc-tests"


def _fetch_schema() -> Path:
    target = _cache_dir() / "sarif-2.1.0-rtm.5.json"
    if target.is_file():
        return target
    _cache_dir().mkdir(parents=True, exist_ok=True)
    with open(_cache_dir() / "fetch.lock", "a") as lock:  # xdist workers fetch once, not side by side
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            return target
        return _npm_fetch(target)


def _npm_fetch(target: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (apt-get install npm): it fetches the SARIF schema")
    work = _cache_dir() / "npm"
    work.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [npm, "pack", "--silent", SARIF_NPM],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"npm pack {SARIF_NPM} failed: {proc.stderr.strip()[-500:]}")
    tgz = work / proc.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as tar:
        member = tar.extractfile(SARIF_MEMBER)
        if member is None:
            raise RuntimeError(f"{tgz} has no {SARIF_MEMBER}")
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(member.read())
        tmp.replace(target)
    return target


@pytest.fixture(scope="session")
def sarif_schema() -> dict[str, Any]:
    try:
        path = _fetch_schema()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        if os.environ.get("CI") or os.environ.get("HOTC_REQUIRE_SARIF_SCHEMA"):
            raise
        pytest.skip(f"SARIF schema unavailable: {exc}")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
