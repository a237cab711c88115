"""Local backend specifics: files, atomic writes, crash mid-write, OS lock, configuration."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
from pathlib import Path

import pytest

from hotc.errors import HotcError
from hotc.state import BackendError, backend_from_config
from hotc.state.local import LocalBackend
from hotc.state.s3 import S3Backend

from .samples import counter, counter_state
from .workers import Spec, crash_while_writing


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)


def test_files_backup_and_lock_record(tmp_path: Path) -> None:
    b = backend_from_config(None, tmp_path)
    assert isinstance(b, LocalBackend) and b.dir == tmp_path / ".hotc"
    with b.lock("web", "apply") as lk:
        info = json.loads((tmp_path / ".hotc" / "web.lock").read_text())
        assert info["ID"] == lk.id and info["Operation"] == "apply" and info["PID"] == os.getpid()
        b.write("web", counter_state("web", 1), lk)
        st = b.write("web", counter_state("web", 2), lk)
    d = tmp_path / ".hotc"
    assert json.loads((d / "web.json").read_text())["outputs"]["counter"]["value"] == 2 and st.serial == 2
    assert json.loads((d / "web.json.backup").read_text())["serial"] == 1
    assert (d / "web.lock").read_text() == ""  # record cleared on release
    assert not list(d.glob(".*.tmp"))


def test_failed_write_leaves_previous_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hotc.state.local as local

    b = backend_from_config(None, tmp_path)
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 1), lk)
    before = (tmp_path / ".hotc" / "web.json").read_bytes()

    def no_space(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    with b.lock("web", "apply") as lk:
        st, _ = b.read("web")
        monkeypatch.setattr(local.os, "replace", no_space)
        with pytest.raises(BackendError, match="No space left on device.*previous state was left in place"):
            b.write("web", counter_state("web", 2), lk)
        monkeypatch.undo()
    assert (tmp_path / ".hotc" / "web.json").read_bytes() == before
    assert not list((tmp_path / ".hotc").glob(".*.tmp"))


def test_crash_in_the_middle_of_a_write_leaves_previous_state(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    b = backend_from_config(None, tmp_path)
    with b.lock("web", "apply") as lk:
        b.write("web", counter_state("web", 5), lk)
    ready = ctx.Queue()
    p = ctx.Process(target=crash_while_writing, args=(Spec(None, str(tmp_path)), "web", ready))
    p.start()
    assert ready.get(timeout=60) == "writing"
    os.kill(p.pid, signal.SIGKILL)
    p.join(10)
    st, _ = b.read("web")
    assert counter(st) == 5 and st is not None and st.serial == 1
    assert b.list_stacks() == ["web"]  # the leftover temp file is not a stack
    with b.lock("web", "apply", timeout=0) as lk:  # the dead writer's OS lock is gone
        assert b.write("web", counter_state("web", 6), lk).serial == 2


def test_force_unlock_refuses_a_live_os_lock(tmp_path: Path) -> None:
    a, b = backend_from_config(None, tmp_path), backend_from_config(None, tmp_path)
    with a.lock("web", "apply") as lk:
        with pytest.raises(HotcError, match="live process"):
            b.force_unlock("web", lk.id)
        with pytest.raises(HotcError, match="no lock with ID"):
            b.force_unlock("web", "nope")


def test_unsafe_mode_takes_no_lock(tmp_path: Path) -> None:
    a = backend_from_config(None, tmp_path)
    u = backend_from_config(None, tmp_path, unsafe_no_locking=True)
    with a.lock("web", "apply"):
        with u.lock("web", "apply") as lk:
            assert lk.unsafe
            u.write("web", counter_state("web", 1), lk)


def test_backend_choice_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hotc.toml").write_text(
        '[backend]\nurl = "s3://from-toml/pre/fix"\npath_style = true\n'
        'endpoint_url = "http://127.0.0.1:1"\nlease_seconds = 5\n'
    )
    b = backend_from_config(None, tmp_path)
    assert isinstance(b, S3Backend) and (b.bucket, b.prefix, b.lease_seconds) == ("from-toml", "pre/fix", 5.0)
    assert b.endpoint == "http://127.0.0.1:1"
    monkeypatch.setenv("HOTC_BACKEND", "s3://from-env")
    b = backend_from_config(None, tmp_path)
    assert isinstance(b, S3Backend) and (b.bucket, b.prefix) == ("from-env", "")
    assert b.lease_seconds == 5.0  # hotc.toml options still apply to an s3 backend
    b = backend_from_config("local", tmp_path)
    assert isinstance(b, LocalBackend) and b.dir == tmp_path / ".hotc"
    b = backend_from_config("states", tmp_path)
    assert isinstance(b, LocalBackend) and b.dir == tmp_path / "states"


@pytest.mark.parametrize(
    "toml, msg",
    [
        ("[backend\n", "hotc.toml: error"),
        ('[backend]\nurl = "s3://b"\nbogus = 1\n', "unknown \\[backend\\] option 'bogus'"),
        ('[backend]\nurl = "s3://b"\npath_style = "yes"\n', "wrong type"),
        ('[backend]\nurl = "ftp://x"\n', "unsupported backend URL"),
        ('[backend]\nurl = "s3://"\n', "no bucket"),
    ],
)
def test_bad_config_is_reported(tmp_path: Path, toml: str, msg: str) -> None:
    (tmp_path / "hotc.toml").write_text(toml)
    with pytest.raises(HotcError, match=msg):
        backend_from_config(None, tmp_path)
