"""The local backend under hostile conditions: temp files left by a SIGKILL are cleaned up on the next write,
and a read-only state directory lets ``hotc plan`` run (without the lock) while ``hotc apply`` says clearly
what is wrong."""

from __future__ import annotations

import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hotc.state import backend_from_config

from .samples import counter, counter_state
from .workers import Spec, crash_while_writing

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart.yaml"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)


def _temps(d: Path) -> list[str]:
    return sorted(p.name for p in d.glob(".web.json*.tmp*"))


def test_temp_files_of_a_killed_writer_are_removed_by_the_next_write(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    b = backend_from_config(None, tmp_path)
    notes: list[str] = []
    b.notify = notes.append
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 5), lk)
    ready = ctx.Queue()
    p = ctx.Process(target=crash_while_writing, args=(Spec(None, str(tmp_path)), "web", ready))
    p.start()
    assert ready.get(timeout=60) == "writing"
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    d = tmp_path / ".hotc"
    left = _temps(d)
    assert left and all(f".web.json.{p.pid}." in n for n in left), left
    with b.lock("web", "apply", timeout=0) as lk:
        b.write("web", counter_state("web", 6), lk)
    assert _temps(d) == []
    assert counter(b.read("web")[0]) == 6
    assert any("left by an interrupted write" in n for n in notes), notes


def test_only_stale_temp_files_are_removed(tmp_path: Path) -> None:
    b = backend_from_config(None, tmp_path)
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    d = tmp_path / ".hotc"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (d / f".web.json.{live.pid}.abcdefgh.tmp").write_text("a writer that still runs")
        old = d / ".web.json.oldstyle.tmp"  # an older hotc's name: no PID, judged by age
        old.write_text("x")
        os.utime(old, (time.time() - 3600, time.time() - 3600))
        (d / ".web.json.newstyle.tmp").write_text("young")
        (d / ".other.json.99999999.abcdefgh.tmp").write_text("another stack's")
        with b.lock("web", "apply") as lk:
            b.write("web", counter_state("web", 2), lk)
        assert _temps(d) == sorted([".web.json.newstyle.tmp", f".web.json.{live.pid}.abcdefgh.tmp"])
        assert (d / ".other.json.99999999.abcdefgh.tmp").exists()
    finally:
        live.kill()
        live.wait()


# ------------------------------------------------------------------------------------------ read-only


def _read_only_runner() -> list[str] | None:
    """A command prefix that runs a command with its working directory mounted read-only, or None."""
    if os.geteuid() != 0:
        return []  # chmod is enough for an ordinary user
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run(
        [unshare, "-m", "sh", "-c", "mount --bind /tmp /tmp && mount -o remount,ro,bind /tmp /tmp"],
        capture_output=True,
    )
    if probe.returncode != 0:
        return None
    return [
        unshare,
        "-m",
        "sh",
        "-c",
        'mount --bind "$PWD" "$PWD" && mount -o remount,ro,bind "$PWD" "$PWD" && exec "$@"',
        "ro",
    ]


def _hotc(cwd: Path, *args: str, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("HOTC_BACKEND", None)
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "hotc", *args],
        cwd=cwd,
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("existing", [True, False], ids=["with-state", "no-state-dir"])
def test_read_only_state_directory(tmp_path: Path, existing: bool) -> None:
    prefix = _read_only_runner()
    if prefix is None:
        pytest.skip("running as root without a way to mount a directory read-only")
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(QUICKSTART, work / "quickstart.yaml")
    if existing:
        assert _hotc(work, "apply", "-t", "quickstart.yaml", "--auto-approve").returncode == 0
    before = {p.name: p.read_bytes() for p in (work / ".hotc").iterdir()} if existing else {}
    paths = [work, work / ".hotc", *(work / ".hotc").iterdir()] if existing else [work]
    if not prefix:
        for p in paths:
            p.chmod(p.stat().st_mode & ~0o222)
    try:
        plan = _hotc(work, "plan", "-t", "quickstart.yaml", prefix=prefix)
        assert plan.returncode == 0, plan.stderr
        assert "Traceback" not in plan.stderr
        assert "read-only" in plan.stderr and "without taking the state lock" in plan.stderr
        assert ("No changes" in plan.stdout) if existing else ("5 to create" in plan.stdout)
        for cmd in (
            ["apply", "-t", "quickstart.yaml", "--auto-approve"],
            ["destroy", "quickstart", "--auto-approve"],
        ):
            r = _hotc(work, *cmd, prefix=prefix)
            assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
            if cmd[0] == "destroy" and not existing:  # refused before any lock: there is no such stack
                assert "stack not found: 'quickstart'" in r.stderr, r.stderr
                continue
            assert "is not writable" in r.stderr and "Nothing was changed" in r.stderr, r.stderr
    finally:
        if not prefix:
            for p in paths:
                p.chmod(p.stat().st_mode | 0o200)
    after = {p.name: p.read_bytes() for p in (work / ".hotc").iterdir()} if existing else {}
    assert after == before
