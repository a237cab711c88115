"""The import contract that makes hotc.planner.api the planner's only door protects every module behind it: a
module added to the planner is listed too (else code outside could import it directly and nothing would say)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_planner_module_but_the_api_is_protected() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (planner,) = [
        c for c in contracts if c["type"] == "protected" and "hotc.planner.make" in c["protected_modules"]
    ]
    assert planner["allowed_importers"] == ["hotc.planner"]
    have = {
        f"hotc.planner.{p.stem}" if p.suffix == ".py" else f"hotc.planner.{p.name}"
        for p in (ROOT / "hotc" / "planner").iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "api"))
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert set(planner["protected_modules"]) == have
