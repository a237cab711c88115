"""The state commands through the real entry point (``hotc.cli.app.main``) and a real process for signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hotc.cli.app import main
from hotc.state import backend_from_config, codec

from .samples import full_state


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)
    return tmp_path


def hotc(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def seed(url: str | None = None) -> None:
    b = backend_from_config(url)
    with b.lock("web", "apply") as lk:
        b.write("web", full_state(), lk)


def test_list_show_and_stack_list(capsys: Any) -> None:
    seed()
    code, out, err = hotc(capsys, "stack", "list")
    assert (code, err) == (0, "") and [ln.split()[0] for ln in out.splitlines()[1:]] == ["web"]
    code, out, _ = hotc(capsys, "state", "list", "web")
    assert code == 0 and out.split() == ["app.db", "net", "servers[0]"]
    code, out, _ = hotc(capsys, "state", "show", "web", "servers[0]")
    assert code == 0 and "OS::Nova::Server" in out and "srv-0" in out and "UPDATE_FAILED" in out
    assert "s3cret" not in out and "__sensitive__" in out
    code, out, _ = hotc(capsys, "state", "show", "web", "net", "--format", "json")
    assert json.loads(out)["physical_id"] == "6f1e0d6e-0000-4000-8000-000000000001"


def test_errors_are_plain(capsys: Any) -> None:
    code, _, err = hotc(capsys, "state", "list", "nope")
    assert code == 1 and err.startswith("error: stack 'nope' has no state")
    seed()
    code, _, err = hotc(capsys, "state", "show", "web", "servers")
    assert code == 1 and "no resource 'servers'" in err and "servers[0]" in err
    (Path(".hotc") / "web.json").write_text('{"format_version": 1, "lin')
    code, _, err = hotc(capsys, "state", "list", "web")
    assert code == 1 and "not a valid hotc state document" in err and "truncated" in err


def test_rm_and_mv(capsys: Any) -> None:
    seed()
    code, out, _ = hotc(capsys, "state", "rm", "web", "app")
    assert code == 0 and "Removed app.db" in out
    code, _, err = hotc(capsys, "state", "mv", "web", "servers[0]", "net")
    assert code == 1 and "net already exists" in err and "nothing was moved" in err
    code, out, _ = hotc(capsys, "state", "mv", "web", "net", "network")
    assert code == 0 and "Moved net -> network" in out
    st, _ = backend_from_config(None).read("web")
    assert st is not None and sorted(st.resources) == ["network", "servers[0]"]
    assert st.resources["servers[0]"].dependencies == ("network",)
    assert st.serial == 3
    code, _, err = hotc(capsys, "state", "rm", "web", "ghost")
    assert code == 1 and "nothing was removed" in err


def test_pull_push_rules(capsys: Any, tmp_path: Path) -> None:
    seed()
    code, out, _ = hotc(capsys, "state", "pull", "web")
    assert code == 0
    doc = json.loads(out)
    assert doc["serial"] == 1 and "s3cret" not in out
    f = tmp_path / "pulled.json"
    f.write_text(out)
    code, _, err = hotc(capsys, "state", "push", "web", str(f))
    assert code == 1 and "serial 1 is not newer than the stored 1" in err
    doc["serial"] = 5
    doc["status"] = "CHECK_COMPLETE"
    f.write_text(json.dumps(doc))
    code, out, _ = hotc(capsys, "state", "push", "web", str(f))
    assert code == 0 and "serial 5" in out
    other = dict(doc, lineage="11111111-2222-4333-8444-555555555555", serial=9)
    f.write_text(json.dumps(other))
    code, _, err = hotc(capsys, "state", "push", "web", str(f))
    assert code == 1 and "lineage" in err and "--force" in err
    code, out, _ = hotc(capsys, "state", "push", "web", str(f), "--force")
    assert code == 0
    st, _ = backend_from_config(None).read("web")
    assert st is not None and st.lineage == other["lineage"] and st.serial == 9
    f.write_text("{broken")
    code, _, err = hotc(capsys, "state", "push", "web", str(f))
    assert code == 1 and "not a valid hotc state document" in err


def test_locked_stack_is_reported_with_holder(capsys: Any) -> None:
    seed()
    b = backend_from_config(None)
    with b.lock("web", "apply") as lk:
        code, _, err = hotc(capsys, "state", "rm", "web", "net", "--lock-timeout", "0.2")
        assert code == 1 and lk.id in err and "'apply'" in err
        code, _, err = hotc(capsys, "force-unlock", "web", lk.id)
        assert code == 1 and "live process" in err


def test_s3_backend_commands(capsys: Any, s3_bucket: Any) -> None:
    seed(s3_bucket.url)
    code, out, _ = hotc(capsys, "stack", "list", "--backend", s3_bucket.url)
    assert code == 0 and [ln.split()[0] for ln in out.splitlines()[1:]] == ["web"]
    code, out, _ = hotc(capsys, "state", "rm", "web", "net", "--backend", s3_bucket.url)
    assert code == 0
    code, out, _ = hotc(capsys, "state", "history", "web", "--backend", s3_bucket.url)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3 and "(current)" in lines[1] and lines[1].split()[2] == "2"
    b = backend_from_config(s3_bucket.url)
    lock_cm = b.lock("web", "apply")
    lk = lock_cm.__enter__()
    try:
        code, _, err = hotc(capsys, "state", "mv", "web", "app.db", "db", "--backend", s3_bucket.url)
        # the hint can be pasted as it is: it repeats the --backend that was used
        assert code == 1 and f"hotc force-unlock web {lk.id} --backend {s3_bucket.url}`" in err
        code, out, _ = hotc(capsys, "force-unlock", "web", lk.id, "--backend", s3_bucket.url)
        assert code == 0 and "Unlocked" in out
    finally:
        lock_cm.__exit__(None, None, None)
    # HOTC_BACKEND picks the same backend
    os.environ["HOTC_BACKEND"] = s3_bucket.url
    try:
        code, out, _ = hotc(capsys, "state", "list", "web")
        assert code == 0 and out.split() == ["app.db", "servers[0]"]
    finally:
        del os.environ["HOTC_BACKEND"]


HOLDER = textwrap.dedent("""
    import sys, time
    from hotc.cli.state import locked, open_backend
    b = open_backend(sys.argv[1] if len(sys.argv) > 1 else None)
    with locked(b, "web", "apply", 0):
        print("locked", flush=True)
        time.sleep(60)
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("kind", ["local", "s3"])
def test_lock_released_on_signal(kind: str, sig: int, tmp_path: Path, request: Any) -> None:
    args = []
    if kind == "s3":
        args = [request.getfixturevalue("s3_bucket").url]
    env = {**os.environ, "PYTHONPATH": str(Path(codec.__file__).parents[2])}
    p = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert p.stdout is not None and p.stdout.readline().strip() == b"locked"
    b = backend_from_config(args[0] if args else None, tmp_path)
    assert b.current_lock("web") is not None
    p.send_signal(sig)
    p.wait(30)
    assert p.returncode != 0
    assert b.current_lock("web") is None  # released on the way out
    if kind == "local":
        assert (tmp_path / ".hotc" / "web.lock").read_text() == ""
    with b.lock("web", "apply", timeout=0):  # taken at once (timeout 0 raises if anyone still held it)
        pass


def test_history_without_bucket_versioning_says_so(capsys: Any, moto_s3: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", moto_s3.endpoint)
    url = f"s3://{moto_s3.make_bucket(versioning=False)}/x"
    seed(url)
    code, out, err = hotc(capsys, "state", "history", "web", "--backend", url)
    assert code == 0 and "versioning is not enabled" in err and len(out.splitlines()) == 2


def test_hotc_toml_selects_s3_with_endpoint_and_path_style(
    capsys: Any, moto_s3: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)  # only hotc.toml says where S3 is
    bucket = moto_s3.make_bucket()
    (tmp_path / "hotc.toml").write_text(
        f'[backend]\nurl = "s3://{bucket}/teams/a"\nendpoint_url = "{moto_s3.endpoint}"\npath_style = true\n'
    )
    seed()
    keys = [o["Key"] for o in moto_s3.client().list_objects_v2(Bucket=bucket)["Contents"]]
    assert "teams/a/web/state.json" in keys
    code, out, err = hotc(capsys, "stack", "list")
    assert (code, err) == (0, "") and [ln.split()[0] for ln in out.splitlines()[1:]] == ["web"]


def test_the_conditional_writes_refusal_names_only_options_the_commands_take(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The refusal of a store without conditional writes names ``--unsafe-no-locking`` for the commands it
    lists, and those commands take it; ``plan``, ``apply`` and ``destroy`` do not, and it sends them elsewhere."""
    import re

    from hotc.state.s3 import conditional_writes_message

    message = conditional_writes_message("http://s3.example", "bucket")
    named = re.findall(r"`(?:hotc )?(state \w+)`", message)
    assert named == ["state rm", "state mv", "state push"]
    for command in named:
        code, out, _ = hotc(capsys, *command.split(), "--help")
        assert code == 0 and "--unsafe-no-locking" in out, command
    for command in ("plan", "apply", "destroy"):
        code, out, _ = hotc(capsys, command, "--help")
        assert code == 0 and "--unsafe-no-locking" not in out, command
        assert "--backend" in out, command
