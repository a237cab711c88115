"""The cloud benchmark's probe instruments modules as they are imported, never before (bench/bench_cloud.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_cloud  # type: ignore[import-not-found]  # noqa: E402


def test_a_module_is_patched_when_imported_and_not_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "probe_target_mod.py").write_text("def f():\n    return 'original'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[ModuleType] = []

    def patch(module: ModuleType) -> None:
        seen.append(module)
        module.f = lambda: "patched"  # type: ignore[attr-defined]

    finder = bench_cloud._PatchOnImport({"probe_target_mod": patch})
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    assert "probe_target_mod" not in sys.modules and seen == []  # installing the hook imports nothing
    try:
        import probe_target_mod  # type: ignore[import-not-found]

        assert probe_target_mod.f() == "patched" and seen == [probe_target_mod]
        assert finder.patches == {}  # patched once: a second import finds the module in sys.modules
    finally:
        sys.modules.pop("probe_target_mod", None)


def test_settle_waits_no_longer_than_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that never gets quiet holds a measured command back SETTLE_LIMIT seconds at most (on a clock the
    test moves: each window's sleep advances it, nothing real is waited for)."""
    ticks = iter(range(0, 10_000, 10))
    clock = [0.0]
    monkeypatch.setattr(bench_cloud, "_cpu_busy_idle", lambda: (next(ticks), 0))  # never idle
    monkeypatch.setattr(bench_cloud.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(bench_cloud.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    waited = bench_cloud.settle()
    assert bench_cloud.SETTLE_LIMIT <= waited < bench_cloud.SETTLE_LIMIT + bench_cloud.SETTLE_WINDOW


def test_settle_starts_at_once_on_a_quiet_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(range(0, 10_000, 10))
    clock = [0.0]
    monkeypatch.setattr(bench_cloud, "_cpu_busy_idle", lambda: (t := next(ticks), t))  # all idle
    monkeypatch.setattr(bench_cloud.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(bench_cloud.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    assert bench_cloud.settle() == bench_cloud.SETTLE_WINDOW  # one window, then it goes
