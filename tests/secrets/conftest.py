"""Fixtures of the secrets tests: a working directory holding the shared template, with local state."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.secrets.helpers import TEMPLATE


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for var in ("HOTC_BACKEND", "HOTC_STATE_KEY", "OS_CLOUD", "OS_AUTH_URL"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "s.yaml").write_text(TEMPLATE)
    return tmp_path
