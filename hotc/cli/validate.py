"""`hotc validate` and `hotc eval` (owned by the front end)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Wire the front end's commands into the app (filled in by the front end)."""
