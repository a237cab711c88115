"""Fixtures of the offline driver tests: a seeded fake connection whose clock the drivers' waits drive."""

from __future__ import annotations

from typing import Any

import pytest

from tests.providers.fakesdk import FakeConnection


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    c = FakeConnection()
    c.clock.install(monkeypatch)
    c.seed()
    return c


@pytest.fixture
def seeded(conn: FakeConnection) -> dict[str, Any]:
    """Ids of the seeded shared objects by name."""
    return {
        "image": conn.cloud.all("image")[0]["id"],
        "tiny": next(f["id"] for f in conn.cloud.all("flavor") if f["name"] == "m1.tiny"),
        "small": next(f["id"] for f in conn.cloud.all("flavor") if f["name"] == "m1.small"),
        "private": next(n["id"] for n in conn.cloud.all("network") if n["name"] == "hotc-private"),
        "public": next(n["id"] for n in conn.cloud.all("network") if n["name"] == "public"),
        "private-subnet": next(
            s["id"] for s in conn.cloud.all("subnet") if s["name"] == "hotc-private-subnet"
        ),
    }
